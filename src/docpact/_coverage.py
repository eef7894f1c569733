# SPDX-License-Identifier: MIT
"""Example coverage: which public objects of a package no executed example exercises.

A package's public objects are the names of its `__all__`. An object is exercised by a
doctest (`>>>`) in its own docstring, or by a Python example on a docs page whose code
refers to it: a name or an attribute in the parsed code, not a mention in a comment or a
string, and not an import that nothing uses. An example counts only if some session runs it:
one under an unconditional `<!-- skip -->` directive does not, one whose skip has a
condition (`if(not importable("verl"), ...)`) does, since the session with the module runs
it. A Python fence inside a docstring is not run by Sybil's doctest parser; it is reported,
never silently ignored.

Everything is read statically: griffe for the package, the Markdown of the pages, `ast`
for the example code.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from griffe import AliasResolutionError, CyclicAliasError, GriffeLoader

from docpact._errors import DocpactError
from docpact._findings import Finding, relative
from docpact._rule import Rule
from docpact._sources import search_paths

if TYPE_CHECKING:
    from docpact._config import Config

__all__ = ["COVERAGE_RULES", "Coverage", "check_coverage"]

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")
_SKIP = re.compile(r"<!--\s*skip:\s*(?P<action>start|next|end)\b(?P<rest>.*?)-->", re.DOTALL)
_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)")


@dataclass(frozen=True)
class _Example:
    path: Path
    line: int
    code: str
    executed: bool


@dataclass(frozen=True)
class Coverage:
    """The result of `check_coverage`.

    Attributes:
        findings: One finding per public object without an executed example, and per
            Python fence in a docstring.
        covered: How many public objects an executed example exercises.
        total: How many public objects the packages export.
    """

    findings: list[Finding]
    covered: int
    total: int

    @property
    def percent(self) -> float:
        """The share of public objects covered, in percent (100 for no public object)."""
        return 100.0 if not self.total else 100.0 * self.covered / self.total


def check_coverage(config: Config, packages: list[str]) -> Coverage:
    """Find the public objects of some packages that no executed example exercises.

    Args:
        config: The project's configuration: its root, search paths and docs.
        packages: The packages (or subpackages, `docpact.sybil`) whose `__all__` to cover.

    Returns:
        The findings and the counts.

    Raises:
        DocpactError: When a package cannot be found or has no `__all__`.
    """
    loader = GriffeLoader(search_paths=search_paths(config), allow_inspection=False)
    examples = _page_examples(config.root / "docs")
    used = set().union(*(_references(e.code) for e in examples if e.executed))
    findings: list[Finding] = []
    covered = total = 0
    for dotted in packages:
        module = _load(loader, dotted, config)
        for name in [str(name) for name in module.exports or []]:
            total += 1
            obj = _resolve(module, name)
            own = obj is not None and _has_doctest(obj)
            if own or name in used:
                covered += 1
                continue
            where = obj if obj is not None else module
            path = relative(_filepath(where), config.root)
            message = f"{dotted}.{name} has no executed example: no doctest in its docstring, "
            message += "and no docs example that runs refers to it"
            findings.append(Finding(path, getattr(where, "lineno", None) or 1, "DP010", message))
        findings += _docstring_fences(module, config)
    return Coverage(sorted(set(findings)), covered, total)


def _load(loader: GriffeLoader, dotted: str, config: Config):
    top, _, rest = dotted.partition(".")
    try:
        module = loader.load(top, try_relative_path=False)
        module = module[rest] if rest else module
    except (ImportError, KeyError, OSError, SyntaxError, ValueError) as error:
        msg = f"{config.pyproject.name}: error: coverage cannot load package {dotted}: {error}"
        raise DocpactError(msg) from None
    if module.exports is None:
        msg = f"{config.pyproject.name}: error: package {dotted} has no __all__ to cover"
        raise DocpactError(msg)
    return module


def _resolve(module: object, name: str) -> object | None:
    try:
        obj = module[name]  # type: ignore[index]
        return obj.final_target if obj.is_alias else obj
    except (KeyError, AliasResolutionError, CyclicAliasError):
        return None


def _filepath(obj: object) -> Path:
    filepath = obj.filepath  # type: ignore[attr-defined]
    return filepath[0] if isinstance(filepath, list) else filepath


def _has_doctest(obj: object) -> bool:
    docstring = getattr(obj, "docstring", None)
    return docstring is not None and any(
        line.lstrip().startswith(">>> ") for line in docstring.value.splitlines()
    )


def _docstring_fences(module: object, config: Config) -> list[Finding]:
    """A DP011 finding for each ```python fence in a docstring of the package's modules."""
    findings = []
    for obj in _walk(module):
        docstring = getattr(obj, "docstring", None)
        if docstring is None:
            continue
        for offset, line in enumerate(docstring.value.splitlines()):
            match = _FENCE.match(line)
            if match and match["info"].strip().split(" ")[0] in {"python", "py", "pycon"}:
                path = relative(_filepath(obj), config.root)
                message = (
                    f"a python fence in the docstring of {obj.path} is not run (Sybil's doctest "  # type: ignore[attr-defined]
                    "parser runs `>>>` examples): write it as a doctest, or fence it as text"
                )
                findings.append(Finding(path, (docstring.lineno or 1) + offset, "DP011", message))
    return findings


def _walk(obj: object) -> list[object]:
    """An object and every member it defines itself (aliases, that is re-exports, left out)."""
    found = [obj]
    for member in getattr(obj, "members", {}).values():
        if not member.is_alias:
            found += _walk(member)
    return found


def _page_examples(docs: Path) -> list[_Example]:
    """Every `python` fence of every page under `docs`, and whether a session runs it.

    As in Sybil, `skip: next` skips the next example: a whole plain block, or the first
    `>>>` example of a doctest block; `skip: start` ... `skip: end` skips all between. A skip
    with a condition skips only where the condition holds, so some session runs the example.
    """
    examples = []
    for page in sorted(docs.rglob("*.md")) if docs.is_dir() else []:
        text = page.read_text(encoding="utf-8")
        lines = text.splitlines()
        directives = {
            text.count("\n", 0, m.start()): (m["action"], "if(" in m["rest"])
            for m in _SKIP.finditer(text)
        }
        pending: bool | None = None  # a `skip: next` waiting, and whether it has a condition
        block: bool | None = None  # a `skip: start` in force, and whether it has a condition
        i = 0
        while i < len(lines):
            if i in directives:
                action, conditional = directives[i]
                if action == "next":
                    pending = conditional
                elif action == "start":
                    block = conditional
                else:
                    block = None
            match = _FENCE.match(lines[i])
            if not match:
                i += 1
                continue
            fence = match["fence"]
            end = next(
                (j for j in range(i + 1, len(lines)) if lines[j].strip().startswith(fence)),
                len(lines),
            )
            if match["info"].strip() == "python":
                code = "\n".join(lines[i + 1 : end])
                runs = block is not False
                if pending is False:  # an unconditional skip of the next example
                    code, runs = _without_first_example(code), runs and _is_doctest(code)
                examples.append(_Example(page, i + 1, code, runs))
                pending = None
            i = end + 1
    return examples


def _is_doctest(code: str) -> bool:
    return any(line.lstrip().startswith(">>>") for line in code.splitlines())


def _without_first_example(code: str) -> str:
    """A doctest block without its first example (its `>>>` line, `...` lines and output)."""
    lines = code.splitlines()
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith(">>>")]
    return "\n".join(lines[starts[1] :]) if len(starts) > 1 else ""


def _references(code: str) -> set[str]:
    """The names and attribute names an example's code uses (imports alone do not count)."""
    source = _doctest_source(code) if _PROMPT.match(code.lstrip("\n").split("\n")[0]) else code
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {
        node.id if isinstance(node, ast.Name) else node.attr
        for node in ast.walk(tree)
        if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load))
        or isinstance(node, ast.Attribute)
    }


def _doctest_source(code: str) -> str:
    """The code of a doctest block: its `>>>` and `...` lines, without the prompts."""
    lines = [line.lstrip() for line in code.splitlines() if _PROMPT.match(line)]
    return "\n".join(line[4:] if len(line) > 3 else "" for line in lines)


COVERAGE_RULES = (
    Rule(
        "DP010",
        "every public object of a covered package is exercised by an executed example: a "
        "doctest in its docstring, or a docs example that runs and refers to it",
        "the object's definition",
        lambda subject: [],
    ),
    Rule(
        "DP011",
        "no docstring of a covered package holds a python fence, which no doctest parser runs",
        "the fence",
        lambda subject: [],
    ),
)
