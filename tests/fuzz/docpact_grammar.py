# SPDX-License-Identifier: MIT
"""Small docpact projects drawn from the grammars of their files, valid as drawn.

A project is a package with a division, a trainer class and a packaged YAML file; a
``pyproject.toml`` with ``[tool.docpact]`` and a contract of every kind; a guide page with
headings (hash and setext, with attribute lists, inside admonitions), fences, HTML comments,
a ``config-defaults`` block and claim markers; a test file binding each claim (the marker or
``docpact.claim``), maybe a ``noxfile.py`` whose session runs it; maybe an ``mkdocs.yml``
(``INHERIT``, ``toc`` settings, ``!ENV``, Python tags, mkdocstrings' handlers). Every
anchor a contract lists is the id Python-Markdown's ``toc`` gives its heading under the
drawn settings, and every binding holds its review stamp: ``docpact check`` accepts the
project as drawn. fuzz_docpact mutates it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import tempfile
from pathlib import Path
from typing import Any

import markdown
import yaml
from hypothesis import strategies as st

from docpact._registry import all_kinds

__all__ = ["Project", "Tagged", "dump_toml", "dump_yaml", "projects", "toc_ids"]

# Every installed kind, as the registry reads them: the kinds contract's section names each.
KINDS = tuple(all_kinds())
TITLES = [
    "The loss",
    "Per-rollout mean loss",
    "Parallelism",
    "Défauts du calcul",
    "Step 2: scale",
    "A `code` title",
    "Überblick",
    "Kinds of contract",
    "Defaults",
    "Loss & ratio",
]
CLAIM_IDS = ["mass-one", "step-2", "share"]
SLUGIFIES = {
    "default": None,
    "unicode": "markdown.extensions.toc.slugify_unicode",
    "pymdownx": "pymdownx.slugs.slugify",
}


@dataclasses.dataclass(frozen=True)
class Tagged:
    """A YAML value written with a tag: ``!ENV [X, 5]``, ``!!python/name:m.f``."""

    tag: str
    value: Any = ""


@dataclasses.dataclass
class Project:
    """A project's files as data and text, and what its pages and contracts hold."""

    pyproject: dict
    mkdocs: dict | None
    texts: dict[str, str]  # every other file, by its path
    base: dict | None = None  # the mkdocs.yml that INHERIT names, config/base.yml
    defaults: dict = dataclasses.field(default_factory=dict)
    package: str = "src/pkg"
    page: str = "docs/guide.md"
    tests: str = "tests/test_props.py"
    swapped: list = dataclasses.field(default_factory=list)  # (holder, key) toml-type changed

    def files(self) -> dict[str, str]:
        """Every file's text."""
        out = {"pyproject.toml": dump_toml(self.pyproject), **self.texts}
        if self.mkdocs is not None:
            out["mkdocs.yml"] = dump_yaml(self.mkdocs)
        if self.base is not None:
            out["config/base.yml"] = dump_yaml(self.base)
        return out


class _Dumper(yaml.SafeDumper):
    """A safe dumper that writes `Tagged` values."""


def _tagged(dumper: _Dumper, value: Tagged) -> yaml.Node:
    if isinstance(value.value, list):
        return dumper.represent_sequence(value.tag, value.value)
    if isinstance(value.value, dict):
        return dumper.represent_mapping(value.tag, value.value)
    return dumper.represent_scalar(value.tag, str(value.value))


_Dumper.add_representer(Tagged, _tagged)


def dump_yaml(data: object, *, flow: bool | None = False) -> str:
    """YAML text of data with `Tagged` values, keys in the order given.

    A value tagged ``""`` is text written as it is: nesting deeper than the dumper goes.
    """
    raws: list[str] = []

    def placed(value: object) -> object:
        if isinstance(value, Tagged) and not value.tag:
            raws.append(str(value.value))
            return f"RAW{len(raws) - 1}RAW"
        if isinstance(value, dict):
            return {key: placed(item) for key, item in value.items()}
        if isinstance(value, list):
            return [placed(item) for item in value]
        return value

    text = yaml.dump(
        placed(data), Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=flow
    )
    return re.sub(r"RAW([0-9]+)RAW", lambda match: raws[int(match[1])], text)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml_value, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Tagged):  # text written as it is: nesting deeper than data holds
        return str(value.value)
    return json.dumps(str(value), ensure_ascii=False)


def _toml_key(key: object) -> str:
    key = str(key)
    return (
        key
        if key.replace("-", "").replace("_", "").isalnum() and key.isascii()
        else json.dumps(key)
    )


def dump_toml(data: dict, prefix: str = "") -> str:
    """TOML text: mappings at the top and under ``tool`` as tables, ``contract`` as an array."""
    lines, later = [], []
    for key, value in data.items():
        name = f"{prefix}.{_toml_key(key)}" if prefix else _toml_key(key)
        if isinstance(value, dict) and (not prefix or prefix == "tool"):
            later.append(dump_toml(value, name))
        elif (
            key == "contract"
            and isinstance(value, list)
            and value
            and all(isinstance(item, dict) for item in value)
        ):
            for item in value:
                body = "".join(f"{_toml_key(k)} = {_toml_value(v)}\n" for k, v in item.items())
                later.append(f"[[{name}]]\n{body}")
        else:
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}\n")
    head = f"[{prefix}]\n" if prefix and (lines or not later) else ""
    return "\n".join([head + "".join(lines), *later]).strip("\n") + "\n"


def toc_ids(text: str, extensions: list, configs: dict) -> list[str]:
    """The ids Python-Markdown gives a page's headings, in page order."""
    renderer = markdown.Markdown(extensions=extensions, extension_configs=configs)
    renderer.convert(text)
    return _flatten(renderer.toc_tokens)


def _flatten(tokens: list[dict]) -> list[str]:
    return [id_ for token in tokens for id_ in (token["id"], *_flatten(token["children"]))]


@st.composite
def _toc(draw: st.DrawFn) -> tuple[dict, dict]:
    """The ``toc`` settings as mkdocs.yml writes them, and as Python-Markdown takes them."""
    written, taken = {}, {}
    if draw(st.booleans()):
        separator = draw(st.sampled_from(["_", "-", "."]))
        taken["separator"] = separator
        use_env = draw(st.integers(0, 3)) == 0
        written["separator"] = (
            Tagged("!ENV", ["DOCPACT_FUZZ_UNSET", separator]) if use_env else separator
        )
    slug = draw(st.sampled_from(sorted(SLUGIFIES)))
    if slug == "unicode":
        from markdown.extensions.toc import slugify_unicode

        written["slugify"] = Tagged(f"tag:yaml.org,2002:python/name:{SLUGIFIES[slug]}")
        taken["slugify"] = slugify_unicode
    elif slug == "pymdownx":
        from pymdownx.slugs import slugify

        written["slugify"] = Tagged(
            f"tag:yaml.org,2002:python/object/apply:{SLUGIFIES[slug]}", {"kwds": {"case": "lower"}}
        )
        taken["slugify"] = slugify(case="lower")
    if draw(st.booleans()):
        written["permalink"] = True
    return written, taken


def _heading(draw: st.DrawFn, title: str, extensions: set[str], anchor_id: str | None) -> str:
    """A level-2 heading of a title: hash or setext, maybe with an id, maybe in an admonition."""
    suffix = f" {{#{anchor_id}}}" if anchor_id else ""
    form = draw(st.sampled_from(["hash", "hash", "closed", "setext"]))
    line = {
        "hash": f"## {title}{suffix}",
        "closed": f"## {title}{suffix} ##" if not suffix else f"## {title}{suffix}",
        "setext": f"{title}{suffix}\n{'-' * max(3, len(title))}",
    }[form]
    if "admonition" in extensions and draw(st.integers(0, 4)) == 0:
        body = line.replace("\n", "\n    ")
        return f'!!! note "Aside"\n\n    {body}\n'
    return line + "\n"


SUPPRESSED = ("a note on style", "Words here always read plainly.")
FILLERS = [
    "Some prose with a [link](index.md) and *emphasis*.\n",
    "```text\n# not a heading\n```\n",
    "~~~~python\n>>> 1 + 1\n2\n~~~~\n",
    "<!-- an HTML comment\n# not a heading either\n-->\n",
    f"<!-- docpact: not-a-claim {SUPPRESSED[0]} -->\n{SUPPRESSED[1]}\n",
    "| a | b |\n| - | - |\n| 1 | 2 |\n",
    "> A quote with `code` in it.\n",
    "- an item\n- another item with `x`\n",
]


@st.composite
def projects(draw: st.DrawFn) -> Project:
    """A valid project: its files, the anchors its contracts list found on its page."""
    root = draw(st.sampled_from(["src", "."]))
    package = "src/pkg" if root == "src" else "pkg"
    uses_mkdocs = draw(st.booleans())
    extensions = (
        set(draw(st.sets(st.sampled_from(["admonition", "attr_list"])))) if uses_mkdocs else set()
    )
    written_toc, taken_toc = draw(_toc()) if uses_mkdocs else ({}, {})
    roles = ["loss", "names", "defaults", "kinds"]
    titles = dict(zip(roles, draw(st.permutations(TITLES)), strict=False))
    pinned = {
        role: f"id-{role}"
        for role in roles
        if "attr_list" in extensions and draw(st.integers(0, 3)) == 0
    }
    claims = draw(st.lists(st.sampled_from(CLAIM_IDS), min_size=1, max_size=2, unique=True))
    defaults = draw(_defaults())

    body = []
    if draw(st.integers(0, 3)) == 0:
        body.append("---\ntitle: Guide\n---\n")
    title = draw(st.sampled_from(["# Guide\n", "Guide\n=====\n", ""]))
    body.append(title)
    sections = {
        "loss": "Each row is divided by `token_count * num_rows`.\n",
        "names": "The trainer runs over `dp_size` ranks.\n",
        "defaults": "<!-- docpact: config-defaults {file} -->\n```yaml\n{block}```\n",
        "kinds": "The kinds are " + ", ".join(f"`{kind}`" for kind in KINDS) + ".\n",
    }
    order = draw(st.permutations(roles))
    for role in order:
        body += draw(st.lists(st.sampled_from(FILLERS), max_size=2))
        body.append(_heading(draw, titles[role], extensions, pinned.get(role)))
        text = sections[role]
        if role == "defaults":
            block = dump_yaml(defaults, flow=draw(st.sampled_from([False, None])))
            text = text.format(file=f"{package}/defaults.yaml", block=block)
        body.append(text)
    body.append("## Claims\n")
    for claim in claims:
        body.append(f"<!-- docpact: claim {claim} -->\nEvery rollout carries one share, {claim}.\n")
    page = "\n".join(part for part in body if part)

    toc_extensions = ["toc", *sorted(extensions), "fenced_code", "tables"]
    ids = toc_ids(_without_front_matter(page), toc_extensions, {"toc": taken_toc})
    assert len(ids) == len(roles) + 1 + bool(title), (ids, page)  # the title, roles, Claims
    anchors = dict(zip(order, ids[bool(title) :], strict=False))
    if title and draw(st.booleans()):  # the title's section holds them all: it may be listed
        anchors[draw(st.sampled_from(roles))] = ids[0]

    pyproject = _pyproject(draw, root, package, anchors, claims)
    session = pyproject["tool"]["docpact"]["contract"][3].get("session")
    division = draw(st.sampled_from(["product", "chain", "named", "code-names"]))
    texts = {
        "docs/index.md": "# Home\n\nThe [guide](guide.md).\n",
        "docs/guide.md": page,
        f"{package}/__init__.py": _init(),
        f"{package}/_core.py": _core(division),
        f"{package}/defaults.yaml": dump_yaml(defaults, flow=draw(st.sampled_from([False, None]))),
        "tests/test_props.py": _tests(draw, claims, division),
    }
    texts |= reviews(texts, root)
    if draw(st.booleans()) or session:
        texts["noxfile.py"] = (
            'import nox\n\n\n@nox.session\ndef tests(session):\n    session.run("pytest")\n'
        )
    if division == "code-names":
        pyproject["tool"]["docpact"]["contract"][0]["code-names"] = {"token_count": "tokens"}
    mkdocs = base = None
    if uses_mkdocs:
        mkdocs, base = _mkdocs(draw, root, written_toc, extensions)
    return Project(pyproject, mkdocs, texts, base, defaults, package)


def _without_front_matter(page: str) -> str:
    return page.split("---\n", 2)[2] if page.startswith("---\n") else page


@st.composite
def _defaults(draw: st.DrawFn) -> dict:
    values = st.one_of(
        st.integers(-5, 10**6),
        st.sampled_from([0.1, 1e-3, 2.5, -0.0]),
        st.sampled_from(["adam", "é", "x y", "on", "null"]),
        st.booleans(),
        st.none(),
        st.lists(st.integers(0, 3), max_size=3),
    )
    keys = draw(
        st.lists(
            st.sampled_from(["lr", "steps", "optimizer", "seed", "ranks", "clip"]),
            min_size=1,
            max_size=4,
            unique=True,
        )
    )
    data = {key: draw(values) for key in keys}
    if draw(st.booleans()):
        data["nested"] = {"depth": draw(st.integers(0, 3)), "names": ["a", "b"]}
    return data


def _pyproject(draw: st.DrawFn, root: str, package: str, anchors: dict, claims: list) -> dict:
    table: dict = {}
    if root == "src" or draw(st.booleans()):
        table["paths"] = [root]
    if draw(st.booleans()):
        table["docstring-style"] = "google"
    if draw(st.booleans()):
        table["coverage"] = ["pkg"]
    page = "docs/guide.md"
    divisor = {
        "object": "pkg._core.scale",
        "operands": ["token_count", "num_rows"],
        "docs": [f"{page}#{anchors['loss']}"],
    }
    if draw(st.booleans()):
        divisor = {"kind": "divisor", **divisor}
    claims_table: dict = {"kind": "claims", "pages": [page], "properties": ["tests"]}
    if draw(st.integers(0, 3)) == 0:
        claims_table["words"] = ["always", "never", "guarantee*"]
    if draw(st.integers(0, 3)) == 0:
        claims_table["session"] = "tests"
    table["contract"] = [
        divisor,
        {
            "kind": "names",
            "object": "pkg.Trainer",
            "names": ["dp_size"],
            "docs": [f"{page}#{anchors['names']}"],
        },
        {
            "kind": "config-defaults",
            "file": f"{package}/defaults.yaml",
            "docs": [f"{page}#{anchors['defaults']}"],
        },
        claims_table,
        {"kind": "kinds", "object": "pkg", "docs": [f"{page}#{anchors['kinds']}"]},
    ]
    return {"project": {"name": "pkg", "version": "0"}, "tool": {"docpact": table}}


def _init() -> str:
    kinds = ", ".join(f"`{kind}`" for kind in KINDS)
    return (
        f'"""The package: a loss, a trainer; its contracts are of the kinds {kinds}."""\n\n'
        "from pkg._core import Trainer, scale\n\n"
        '__all__ = ["Trainer", "scale"]\n'
    )


def _core(division: str) -> str:
    params = "x: float, token_count: int, num_rows: int"
    args_doc = "        token_count: The tokens.\n        num_rows: The rows.\n"
    body = {
        "product": "    return x / (token_count * num_rows)\n",
        "chain": "    return x / token_count / num_rows\n",
        "named": "    divisor = token_count * num_rows\n    return x / divisor\n",
        "code-names": "    tokens = sum(counts)\n    return x / (tokens * num_rows)\n",
    }[division]
    if division == "code-names":
        params = "x: float, counts: list[int], num_rows: int"
        args_doc = (
            "        counts: The tokens of each row; `token_count` is their sum.\n"
            "        num_rows: The rows.\n"
        )
    return (
        '"""The loss and the trainer."""\n\nfrom __future__ import annotations\n\n\n'
        f"def scale({params}) -> float:\n"
        '    """Divide `x` by `token_count * num_rows`.\n\n'
        "    Args:\n        x: The value.\n"
        f"{args_doc}\n"
        '    Returns:\n        The scaled value.\n    """\n'
        f"{body}\n\n"
        'class Trainer:\n    """A trainer over `dp_size` ranks."""\n\n    dp_size = 1\n\n'
        '    def ranks(self) -> int:\n        """The ranks."""\n        return self.dp_size\n'
    )


def reviews(texts: dict[str, str], root: str, path: str = "tests/test_props.py") -> dict[str, str]:
    """The review ledger's files of a project drawn reviewed, as ``claims --update`` writes them.

    Each claim is reviewed against its property, with the units a run of it executes (the
    property, `scale` and `Trainer.ranks`), fingerprinted by docpact from the files written
    in a temporary folder; each suppression of the guide is reviewed on its block.
    """
    from docpact.claims._bindings import read_bindings
    from docpact.claims._ledger import FOLDER, ClaimReview, PageReview, write
    from docpact.claims._page import read_page
    from docpact.claims._units import Units

    page = texts["docs/guide.md"]
    read = read_page(page)
    blocks = {block.argument: block for block in read.claims}
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for file, text in texts.items():
            (folder / file).parent.mkdir(parents=True, exist_ok=True)
            (folder / file).write_text(text, "utf-8")
        bindings, problems = read_bindings(folder, (path,))
        assert not problems, problems
        units = Units(folder)
        called = [units.locate(f"pkg.{name}", (root,)) for name in ("scale", "Trainer.ranks")]
        found = []
        for binding in bindings:
            block = blocks[binding.claim]
            ran = [f"{path}::{binding.node.replace('::', '.')}", *called]
            prints = {unit: units.get(unit).fingerprint for unit in ran}  # type: ignore[union-attr]
            found.append(
                ClaimReview(
                    block.argument,
                    "docs/guide.md",
                    block.title,
                    block.text,
                    binding.path,
                    binding.node,
                    binding.code,
                    prints,
                )
            )
        pairs = tuple(sorted({(b.argument, b.text) for b in read.suppressions}))
        reviews = [*found, PageReview("docs/guide.md", pairs)]
        written = write(folder, reviews)
        return {
            file: (folder / file).read_text("utf-8") for file in written if file.startswith(FOLDER)
        }


def _tests(draw: st.DrawFn, claims: list[str], division: str) -> str:
    """Properties that call the package's loss and trainer: each reaches what its claim is about.

    A claim's section may be the loss's (the divisor contract) or the trainer's (the names
    contract), when the title's section, which holds the claims, is the one a contract lists.
    """
    style = draw(st.sampled_from(["marker", "mark", "docpact", "claim"]))
    head, decorator = {
        "marker": ("import pytest\n", "pytest.mark.docpact_claim"),
        "mark": ("from pytest import mark\n", "mark.docpact_claim"),
        "docpact": ("import docpact\n", "docpact.claim"),
        "claim": ("from docpact import claim\n", "claim"),
    }[style]
    out = [f'"""The properties."""\n\n{head}from pkg import Trainer, scale\n']
    counts = "[1]" if division == "code-names" else "1"
    in_class = draw(st.booleans())
    if in_class:
        out.append("\n\nclass TestClaims:")
    for n, claim in enumerate(claims):
        indent = "    " if in_class else ""
        self_ = "self" if in_class else ""
        out.append(
            f'\n\n{indent}@{decorator}("{claim}")\n'
            f"{indent}def test_claim_{n}({self_}):\n"
            f"{indent}    assert scale(0.5, {counts}, 2) == 0.25 * ({n + 1} - {n})\n"
            f"{indent}    assert Trainer().ranks() == 1\n"
        )
    return "".join(out).replace("\n\n\n\n", "\n\n\n")


def _mkdocs(
    draw: st.DrawFn, root: str, toc: dict, extensions: set[str]
) -> tuple[dict, dict | None]:
    listed: list = sorted(extensions)
    if toc:
        listed.insert(draw(st.integers(0, len(listed))), {"toc": toc})
    config: dict = {"site_name": "pkg"}
    plugins: list = draw(st.sampled_from([[], ["search"], ["search", "docpact"]]))
    if draw(st.booleans()):
        python = {
            "paths": [root],
            "options": {"docstring_style": "google", "extensions": ["docpact"]},
        }
        plugins = [*plugins, {"mkdocstrings": {"handlers": {"python": python}}}]
    if plugins:
        config["plugins"] = plugins
    base = None
    if draw(st.integers(0, 2)) == 0:
        base = {"markdown_extensions": listed} if listed else {"site_name": "base"}
        config = {"INHERIT": "config/base.yml", **config}
    elif listed:
        config["markdown_extensions"] = listed
    if draw(st.booleans()):
        config["nav"] = ["index.md", "guide.md"]
    return config, base
