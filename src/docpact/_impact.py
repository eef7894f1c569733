# SPDX-License-Identifier: MIT
"""What a change puts at risk: the contracts on its changed lines, and what their kinds add.

Changed lines are those that differ between a revision and the working tree.

A contract depends on its own table in `pyproject.toml`; its object's definition, docstring
and decorators included, as griffe reads it (a module: its whole file; an object no longer
found: the file of the nearest module of its name that is, or any file that module could
be); its `file`; and each of its docs sections, from the heading to the next of its level (a
page no longer read, or a section no longer found: the whole page). A kind reports more of
its contracts through its `impact` hook: the claims extension, each claim and suppression.

Each is reported once, at its own line (a contract at its table in `pyproject.toml`),
naming what changed. The change is read with git (`docpact._readers.git`), the code with
griffe; nothing is imported or run.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from griffe import GriffeLoader

from docpact._kinds.impact import CONTRACT_AT_RISK
from docpact._readers.files import Unreadable, read_text
from docpact._readers.git import changed_lines
from docpact._readers.markdown.sections import sections
from docpact._readers.python.quiet import griffe_quiet
from docpact._readers.python.sources import PARSE_ERRORS, filepath, lookup, search_paths
from docpact._registry import kind

if TYPE_CHECKING:
    from pathlib import Path

    from docpact._model.config import Config, Contract
    from docpact._model.findings import Finding
    from docpact._model.rules import Span

__all__ = ["impact"]


@dataclass(frozen=True)
class _Span:
    """Lines of a file something depends on; `last` 0 for the whole file."""

    what: str
    path: str
    first: int = 1
    last: int = 0

    @classmethod
    def of(cls, span: Span) -> _Span:
        """A kind's span (`docpact._model.rules.Span`): a whole file's `first` is 1."""
        what, path, first, last = span
        return cls(what, path, first if last else 1, last)


def impact(config: Config, base: str) -> list[Finding]:
    """What depends on the lines changed since `base`, one finding each.

    Args:
        config: The project's contracts.
        base: The revision the working tree is compared with.

    Returns:
        The contracts, claims and suppressions at risk, sorted by path and line.

    Raises:
        DocpactError: Without git, outside a checkout, or when `base` is no revision.
    """
    changed = changed_lines(config.root, base)
    if not changed:
        return []
    modules = _Modules(config)

    def touched(spans: list[Span]) -> str:
        return _touched([_Span.of(span) for span in spans], changed)

    pages: dict[str, str | None] = {}
    pyproject = config.pyproject.relative_to(config.root).as_posix()
    tables = _tables(config)
    found = []
    for contract in config.contracts:
        spans = [_Span("its table", pyproject, contract.line, tables.get(contract.line, 0))]
        spans += _contract_spans(contract, config, modules, pages)
        if hits := _touched(spans, changed):
            message = f"contract {contract.label} depends on changed lines: {hits}"
            found.append(CONTRACT_AT_RISK.finding(config.pyproject.name, contract.line, message))
        hook = getattr(kind(contract.kind), "impact", None)
        if hook is not None:
            found += hook(contract, config, touched)
    return sorted(found)


class _Modules:
    """The project's packages as griffe reads them, each loaded once, none imported."""

    def __init__(self, config: Config) -> None:
        self._loader = GriffeLoader(
            search_paths=search_paths(config), allow_inspection=False, store_source=False
        )
        self._packages: dict[str, Any] = {}
        self._root = config.root.absolute()

    def _package(self, name: str) -> Any:
        if name not in self._packages:
            try:
                with griffe_quiet():
                    self._packages[name] = self._loader.load(name, try_relative_path=False)
            except (ImportError, *PARSE_ERRORS):
                self._packages[name] = None
        return self._packages[name]

    def named(self, dotted: str) -> Any:
        """The object of that dotted path, aliases followed, `None` when there is none."""
        top, _, rest = dotted.partition(".")
        package = self._package(top)
        return None if package is None else lookup(package, rest.split(".") if rest else [])

    def locate(self, dotted: str) -> tuple[Path, int, int] | None:
        """Where an object is written: its file, first line (its first decorator's) and last.

        A module is its whole file (last line 0).
        """
        obj = self.named(dotted)
        if obj is None or obj.filepath is None or not filepath(obj).is_relative_to(self._root):
            return None  # not found, or not the project's own
        if obj.is_module:
            return filepath(obj), 1, 0
        first = min([obj.lineno, *(d.lineno for d in getattr(obj, "decorators", []))])
        return filepath(obj), first, obj.endlineno or obj.lineno


def _tables(config: Config) -> dict[int, int]:
    """Each `[[tool.docpact.contract]]` table's first line, with its last: before the next."""
    try:
        lines = read_text(config.pyproject).split("\n")
    except Unreadable:
        return {}
    heads = [n for n, line in enumerate(lines, 1) if line.lstrip().startswith("[")]
    return {a: b - 1 for a, b in zip(heads, [*heads[1:], len(lines) + 1], strict=True)}


def _contract_spans(
    contract: Contract, config: Config, modules: _Modules, pages: dict[str, str | None]
) -> list[_Span]:
    spans = []
    if obj := getattr(contract, "object", ""):
        spans += _object_spans(obj, config, modules)
    if file := getattr(contract, "file", ""):
        spans.append(_Span(f"its file {file}", posixpath.normpath(file)))
    for ref in contract.docs:
        page, _, anchor = ref.partition("#")
        page = posixpath.normpath(page)
        if page not in pages:
            try:
                pages[page] = read_text(config.root / page)
            except Unreadable:
                pages[page] = None
        text = pages[page]
        found = [] if text is None else sections(text, config.headings)
        section = next((s for s in found if s.anchor == anchor), None)
        if section is None:  # gone from the page, or the page gone: the page is at risk
            spans.append(_Span(f"its docs section {ref}", page))
        else:
            spans.append(_Span(f"its docs section {ref}", page, section.line, section.end))
    return spans


def _object_spans(obj: str, config: Config, modules: _Modules) -> list[_Span]:
    """Where a contract's object is written; where it could be, when it is no longer found."""
    if (where := modules.locate(obj)) is not None:
        path, first, last = where
        return [_Span(f"its object {obj}", _relative(path, config), first, last)]
    what, parts, spans = f"its object {obj}, not found", obj.split("."), []
    for cut in range(len(parts), 0, -1):  # the files it could be in, to the nearest module
        found = modules.named(".".join(parts[:cut]))
        if found is not None and found.is_module and modules.locate(found.path) is not None:
            return [*spans, _Span(what, _relative(filepath(found), config))]
        name = "/".join(parts[:cut])
        spans += [
            _Span(what, posixpath.normpath(f"{folder}/{name}{suffix}"))
            for folder in config.paths
            for suffix in (".py", "/__init__.py")
        ]
    return spans


def _relative(path: Path, config: Config) -> str:
    return path.relative_to(config.root).as_posix()


def _touched(spans: list[_Span], changed: dict[str, frozenset[int] | None]) -> str:
    """What of `spans` the changed lines touch, as `what (path:line)`, joined; empty if none."""
    hits = []
    for span in spans:
        if span.path not in changed:
            continue
        lines = changed[span.path]
        if lines is None or span.last == 0:  # the whole file changed, or is what is depended on
            if lines is not None and not lines:
                continue  # its mode alone changed
            at = span.first if lines is None else min(lines)
        else:
            inside = [n for n in lines if span.first <= n <= span.last]
            if not inside:
                continue
            at = min(inside)
        hits.append(f"{span.what} ({span.path}:{at})")
    return ", ".join(dict.fromkeys(hits))
