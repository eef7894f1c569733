# SPDX-License-Identifier: MIT
"""Mutations of a drawn docpact project, one function per class of mutation.

A mutation of the data (`DATA`) changes the project's TOML, YAML or defaults before they are
written; a mutation of the files (`FILES`) changes the written text, or puts a FIFO or a
folder where a file was. Each draws its choices with hypothesis, but for a rare one (a FIFO,
a page of 80 KB: a timeout's cost), which it takes from a seeded PRNG: hypothesis' own
draws of small odds come out far from their odds. Each returns what must then hold of the
answer (``refused``: a configuration error; ``equal``: no DP007) or ``None`` where it found
nothing to change, so that a case lists only the mutations it underwent.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable

from docpact_grammar import Project, Tagged, dump_yaml
from hypothesis import strategies as st

__all__ = ["DATA", "FILES", "MUTATIONS"]

LONG = "a" * 300  # a path component over the 255 bytes a file system allows
DEEP = 1200  # nesting deeper than Python's default recursion limit follows
HUGE = "9" * 5000  # an integer over the 4300 digits Python converts from text
# Values of every type; a key's own type is left out when one is drawn for it.
SWAPS = [5, -1, True, 1.5, math.nan, "x", [], [1, 2], [[]], {}, {"a": 1}, [{"a": 1}]]
MISSPELT = {
    "table": ["coverag", "path", "docstring_style", "contracts", "exclude"],
    "contract": ["operand", "doc", "kinds", "object-name"],
}
_PYTHON = "tag:yaml.org,2002:python/name:"
MKDOCS_TYPES = [
    {"markdown_extensions": 5},
    {"markdown_extensions": [{5: {}}]},
    {"markdown_extensions": [{"toc": 5}]},
    {"markdown_extensions": [{"toc": {"separator": 5}}]},
    {"markdown_extensions": [{"toc": {"slugify": 5}}]},
    {"markdown_extensions": [{"toc": {"slugify": Tagged(f"{_PYTHON}os.sep")}}]},
    {"markdown_extensions": [{"toc": {"slugify": Tagged(f"{_PYTHON}markdown.nosuch")}}]},
    {"markdown_extensions": [{"toc": {"slugify": Tagged(f"{_PYTHON}nosuchmodule.f")}}]},
    {"markdown_extensions": [{"toc": {"separator": Tagged("!ENV", [1, "x"])}}]},
    {"markdown_extensions": [{"toc": {"separator": Tagged("!ENV", {"a": 1})}}]},
    {"markdown_extensions": [{Tagged(f"{_PYTHON}os.sep"): {}}]},
    {"markdown_extensions": [["toc"]]},
    {"markdown_extensions": [{"toc": {}, "admonition": {}}]},
    {"plugins": 5},
    {"plugins": [{"mkdocstrings": 5}]},
    {"plugins": [{"mkdocstrings": {"handlers": ["python"]}}]},
    {"plugins": [{"mkdocstrings": {"handlers": {"python": ["options"]}}}]},
    {"plugins": [{"mkdocstrings": {"handlers": {"python": {"options": 5}}}}]},
    {"plugins": [{"mkdocstrings": {"handlers": {"python": {"options": {"docstring_style": 5}}}}}]},
    {"INHERIT": 5},
    {"INHERIT": ["config/base.yml"]},
    {"INHERIT": "."},
    {"nav": 5},
    {"site_name": Tagged("!ENV", [])},
]
"""Settings of an unexpected type or tag, where MkDocs or docpact reads them."""
# Nesting 3000 deep, past what the recursion limit lets a syntax tree's visitors follow; and
# 20000 unary minuses, past the parser's own stack.
PYTHON_DEEP = [
    "X = " + " + ".join(["1"] * 3000) + "\n",
    "X = " + "not " * 3000 + "1\n",
    "X = f()" + "()" * 3000 + "\n",
    "X = 1" + ".real" * 3000 + "\n",
    "X = " + "(" * 180 + ")" * 180 + "\n",
    "X = " + "-" * 20000 + "1\n",
]
UNCLOSED = ["<!--", "<!-- note", "```", "~~~", "````python", "``", "` a", "<!-- docpact: claim"]
QUADRATIC = ["<!--\n", "<!-- a\n", "`` a\n", "a `` b\n", "<!-- docpact: claim\n"]
# Text that is not UTF-8 (surrogate escapes of its bytes: a lone surrogate, a cut sequence),
# a NUL, line breaks that are not a newline, a mark, a letter.
BAD_TEXT = ["\udcff", "\udced\udca0\udc80", "\udcc3", "\x00", "\u2028", "\r", "\ufeff", "é"]
SYNTAX_ERRORS = ["def (:", "x = [", "\tbad indent", "return", "@", "class"]
# Metadata at a page's top, as MkDocs reads it or not: YAML front matter that is a mapping,
# delimiters around text that is not (the page keeps it: a setext heading), MultiMarkdown's
# `key: value` lines (a `Key: title` over `===` loses its heading), a closer at the very end.
METADATA = [
    "---\ntitle: Guide\n---\n",
    "---\nGuide\n---\n",
    "---\n- 1\n...\n",
    "---\n\n---\n",
    "Title: Guide\nNote: one\n    more\n\n",
    "Guide: the loss\n=====\n",
    "Title: Guide\n# Loss\n",
    "---\ntitle: [\n---\n",
]
NOXFILE = "import nox\n\n\n@nox.session\ndef tests(session):\n    pass\n"


def _type_of(value: object) -> type:
    return type(value) if type(value) in {bool, int, float, str, list, dict} else object


def _places(data: dict) -> list[tuple[dict | list, object]]:
    """Every key of ``[tool.docpact]`` and of its contracts, the tables too, as (holder, key)."""
    table = data["tool"]["docpact"]
    places: list[tuple[dict | list, object]] = [(data["tool"], "docpact")]
    if isinstance(table, dict):
        places += [(table, key) for key in table]
        for n, contract in enumerate(_list(table.get("contract"))):
            places.append((table["contract"], n))
            places += [(contract, key) for key in contract] if isinstance(contract, dict) else []
    return places


def _list(value: object) -> list:
    return value if isinstance(value, list) else []


def _toml_type(draw: st.DrawFn, rnd: random.Random, project: Project) -> list[str] | None:
    # A place swapped once keeps its wrong type: a second swap could give it a right one.
    places = [
        (holder, key)
        for holder, key in _places(project.pyproject)
        if not any(h is holder and k == key for h, k in project.swapped)
    ]
    if not places:
        return None
    # The table itself one time in four (``[tool] docpact = "x"``), else any key.
    holder, key = places[0] if draw(st.integers(0, 3)) == 3 else draw(st.sampled_from(places))
    old = holder[key]
    holder[key] = draw(st.sampled_from([v for v in SWAPS if _type_of(v) is not _type_of(old)]))
    project.swapped.append((holder, key))
    return ["refused"]


def _misspelt_key(draw: st.DrawFn, rnd: random.Random, project: Project) -> list[str] | None:
    table = project.pyproject["tool"]["docpact"]
    if not isinstance(table, dict):
        return None
    where = draw(st.sampled_from(["table", "contract", "no contracts"]))
    contracts = [c for c in _list(table.get("contract")) if isinstance(c, dict)]
    if where == "no contracts":  # a table for ``docpact coverage`` only
        table.pop("contract", None)
        table["coverage"] = ["pkg"]
        where = "table"
    elif where == "contract" and contracts:
        table = draw(st.sampled_from(contracts))
    else:
        where = "table"
    table[draw(st.sampled_from(MISSPELT[where]))] = ["pkg"]
    return ["refused"]


def _deep(draw: st.DrawFn, rnd: random.Random, project: Project) -> list[str]:
    """Nesting too deep, in the TOML, the packaged YAML, a docs block or mkdocs.yml's nav."""
    return _hostile(draw, rnd, project, "[" * DEEP + "]" * DEEP)


def _huge_int(draw: st.DrawFn, rnd: random.Random, project: Project) -> list[str]:
    return _hostile(draw, rnd, project, HUGE)


def _hostile(draw: st.DrawFn, rnd: random.Random, project: Project, text: str) -> list[str]:
    where = draw(st.sampled_from(["pyproject", "defaults", "block", "mkdocs"]))
    if where == "pyproject":
        holder, key = draw(st.sampled_from(_places(project.pyproject)))
        holder[key] = Tagged("", text)  # written as it is
    elif where == "defaults":
        project.texts[f"{project.package}/defaults.yaml"] += f"deep: {text}\n"
    elif where == "block":
        page = project.texts[project.page]
        project.texts[project.page] = page.replace("```yaml\n", f"```yaml\nx: {text}\n", 1)
    else:
        project.mkdocs = {**(project.mkdocs or {"site_name": "pkg"}), "nav": Tagged("", text)}
    return []


def _long_name(draw: st.DrawFn, rnd: random.Random, project: Project) -> list[str] | None:
    """A path component over the file system's limit, in a key that names a path."""
    where = draw(st.sampled_from(["docs", "properties", "pages", "file", "paths", "mkdocs"]))
    if where == "mkdocs":
        project.mkdocs = project.mkdocs or {"site_name": "pkg"}
        project.mkdocs[draw(st.sampled_from(["INHERIT", "docs_dir"]))] = f"{LONG}.yml"
        return []
    table = project.pyproject["tool"]["docpact"]
    if not isinstance(table, dict):
        return None
    value = {
        "docs": [f"docs/{LONG}.md#x"],
        "properties": [f"tests/{LONG}"],
        "pages": [f"docs/{LONG}.md"],
        "file": f"src/{LONG}.yaml",
        "paths": [f"src/{LONG}"],
    }[where]
    holders = [table] if where == "paths" else _list(table.get("contract"))
    holders = [h for h in holders if isinstance(h, dict) and (where in h or where == "paths")]
    # A value that toml-type swapped keeps its wrong type: the case must still be refused.
    holders = [h for h in holders if where not in h or type(h[where]) is type(value)]
    for holder in holders:
        holder[where] = value
    return [] if holders else None


def _mkdocs_type(draw: st.DrawFn, rnd: random.Random, project: Project) -> list[str]:
    project.mkdocs = {
        **(project.mkdocs or {"site_name": "pkg"}),
        **draw(st.sampled_from(MKDOCS_TYPES)),
    }
    return []


def _mapping_form(draw: st.DrawFn, rnd: random.Random, project: Project) -> list[str]:
    """``markdown_extensions`` or ``plugins`` as a mapping, a form MkDocs accepts."""
    project.mkdocs = project.mkdocs or {"site_name": "pkg"}
    holders = [(project.mkdocs, "plugins"), (project.mkdocs, "markdown_extensions")]
    holders += [(project.base, "markdown_extensions")] if project.base else []
    listed = [(h, k) for h, k in holders if _entries(h.get(k))]
    if not listed:  # settings of its own: a separator the drawn anchors do not have
        project.mkdocs["markdown_extensions"] = {"toc": {"separator": "_"}, "attr_list": None}
        return []
    for holder, key in draw(st.lists(st.sampled_from(listed), min_size=1, unique_by=id)):
        holder[key] = dict(_entries(holder[key]))
    return []


def _entries(listed: object) -> list[tuple[object, object]]:
    """A list of settings as (name, its settings) pairs; none where one is not a setting."""
    if not isinstance(listed, list):
        return []
    entries = [(e, None) if isinstance(e, str) else e for e in listed]
    if not all(isinstance(e, tuple) or (isinstance(e, dict) and len(e) == 1) for e in entries):
        return []
    return [e if isinstance(e, tuple) else next(iter(e.items())) for e in entries]


def _nan(draw: st.DrawFn, rnd: random.Random, project: Project) -> list[str]:
    """A ``.nan`` in the defaults, in the file and the docs block alike."""
    project.defaults["ratio"] = math.nan
    page, path = project.texts[project.page], f"{project.package}/defaults.yaml"
    block = re.search(r"```yaml\n(.*?)```", page, re.DOTALL)
    project.texts[project.page] = page.replace(block[1], dump_yaml(project.defaults))
    project.texts[path] = dump_yaml(project.defaults, flow=draw(st.sampled_from([False, None])))
    return ["equal"]


DATA: dict[str, Callable[[st.DrawFn, random.Random, Project], list[str] | None]] = {
    "misspelt-key": _misspelt_key,
    "mkdocs-type": _mkdocs_type,
    "mapping-form": _mapping_form,
    "deep": _deep,
    "huge-int": _huge_int,
    "nan": _nan,
    "long-name": _long_name,
    "toml-type": _toml_type,
}
"""The mutations of the data, by class."""


def _insert(draw: st.DrawFn, text: str, token: str, *, lines: bool = True) -> str:
    if lines:
        split = text.split("\n")
        at = draw(st.integers(0, len(split)))
        return "\n".join([*split[:at], token, *split[at:]])
    at = draw(st.integers(0, len(text)))
    return text[:at] + token + text[at:]


def _python(project: Project) -> list[str]:
    return [
        f"{project.package}/_core.py",
        f"{project.package}/__init__.py",
        project.tests,
        "noxfile.py",
    ]


def _code_deep(
    draw: st.DrawFn, rnd: random.Random, files: dict, special: dict, project: Project
) -> bool:
    """An expression nested too deep, in the package, the tests or the noxfile."""
    path = draw(st.sampled_from(_python(project)))
    # An index drawn, not the text: a strategy over texts this long is costly to describe.
    files[path] = files.get(path, "") + PYTHON_DEEP[draw(st.integers(0, len(PYTHON_DEEP) - 1))]
    return True


def _special_file(
    draw: st.DrawFn, rnd: random.Random, files: dict, special: dict, project: Project
) -> bool:
    """A folder where a file is expected; a FIFO one time in 32, on the page half of them.

    A FIFO hangs a reader for the whole timeout.
    """
    names = [project.tests, "noxfile.py", "mkdocs.yml", "config/base.yml"]
    names += [f"{project.package}/{name}" for name in ("_core.py", "__init__.py", "defaults.yaml")]
    fifo = rnd.randrange(32) == 0
    if fifo:
        path = project.page if rnd.randrange(2) else rnd.choice(names)
    else:
        path = draw(st.sampled_from([project.page, *names]))
    files.pop(path, None)
    special[path] = "fifo" if fifo else "folder"
    return True


def _bom(draw: st.DrawFn, rnd: random.Random, files: dict, special: dict, project: Project) -> bool:
    names = [project.page] * 4 + ["pyproject.toml", "mkdocs.yml", *_python(project)]
    path = draw(st.sampled_from([name for name in names if name in files]))  # pyproject.toml
    files[path] = "\ufeff" + files[path]
    return True


def _unclosed(
    draw: st.DrawFn, rnd: random.Random, files: dict, special: dict, project: Project
) -> bool:
    if project.page not in files:
        return False
    files[project.page] = _insert(draw, files[project.page], draw(st.sampled_from(UNCLOSED)))
    return True


def _metadata(
    draw: st.DrawFn, rnd: random.Random, files: dict, special: dict, project: Project
) -> bool:
    """Metadata at the page's top, or a page that ends in front matter's delimiters."""
    if project.page not in files:
        return False
    text = files[project.page]
    if draw(st.integers(0, 7)) == 0:
        files[project.page] = "---\ntitle: Guide\n" + text.rstrip("\n") + "\n---"
    else:
        files[project.page] = draw(st.sampled_from(METADATA)) + text
    return True


def _quadratic(
    draw: st.DrawFn, rnd: random.Random, files: dict, special: dict, project: Project
) -> bool:
    """Thousands of unclosed marks; 80 KB of them one time in eight, a timeout's cost."""
    if project.page not in files:
        return False
    run = draw(st.sampled_from(QUADRATIC))
    size = 80_000 if rnd.randrange(8) == 0 else 2_000
    files[project.page] += run * (size // len(run))
    return True


def _paren_args(
    draw: st.DrawFn, rnd: random.Random, files: dict, special: dict, project: Project
) -> bool:
    """Bindings whose arguments are parenthesized: ``@claim(("c"))``, ``session=("tests")``."""
    if project.tests not in files:
        return False
    text = files[project.tests]
    changed = re.sub(r'\("([a-z0-9-]+)"', r'(("\1")', text)
    if draw(st.booleans()):  # no stamp: ``claims --update`` adds one
        changed = re.sub(r', reviewed="[0-9a-f/]+"', "", changed)
    else:
        changed = re.sub(r'reviewed="([0-9a-f/]+)"', r'reviewed=("\1")', changed)
    if draw(st.booleans()):
        changed = changed.replace('"))', '"), session=("tests"))', 1)
        files.setdefault("noxfile.py", NOXFILE)
    files[project.tests] = changed
    return changed != text


def _syntax_error(
    draw: st.DrawFn, rnd: random.Random, files: dict, special: dict, project: Project
) -> bool:
    names = [name for name in _python(project) if name in files]
    if not names:
        return False
    path = draw(st.sampled_from(names))
    files[path] = _insert(draw, files[path], draw(st.sampled_from(SYNTAX_ERRORS)))
    return True


def _unicode(
    draw: st.DrawFn, rnd: random.Random, files: dict, special: dict, project: Project
) -> bool:
    path = draw(st.sampled_from(sorted(files)))
    files[path] = _insert(draw, files[path], draw(st.sampled_from(BAD_TEXT)), lines=False)
    return True


def _bytes(
    draw: st.DrawFn, rnd: random.Random, files: dict, special: dict, project: Project
) -> bool:
    """A file cut short, its line breaks made CRLF or CR, or a line dropped."""
    path = draw(st.sampled_from(sorted(files)))
    text = files[path]
    edit = draw(st.sampled_from(["cut", "crlf", "cr", "drop line"]))
    if edit == "cut":
        files[path] = text[: draw(st.integers(0, max(0, len(text) - 1)))]
    elif edit in {"crlf", "cr"}:
        files[path] = text.replace("\n", "\r\n" if edit == "crlf" else "\r")
    else:
        split = text.split("\n")
        split.pop(draw(st.integers(0, len(split) - 1)))
        files[path] = "\n".join(split)
    return files[path] != text


FILES: dict[str, Callable[[st.DrawFn, random.Random, dict, dict, Project], bool]] = {
    "deep": _code_deep,
    "special-file": _special_file,
    "bom": _bom,
    "unclosed": _unclosed,
    "metadata": _metadata,
    "quadratic": _quadratic,
    "paren-args": _paren_args,
    "syntax-error": _syntax_error,
    "unicode": _unicode,
    "bytes": _bytes,
}
"""The mutations of the written files, by class."""

MUTATIONS = tuple(dict.fromkeys([*DATA, *FILES]))
"""Every class of mutation, as a case lists those it underwent."""
