# SPDX-License-Identifier: MIT
"""Units of code under test: the functions of a project's files, each with its fingerprint.

A unit is a function, a method or a property of a Python file under the project root, named
`path::qualname` (`rolloutnorm/src/rolloutnorm/_loss.py::PolicyLossConfig.__post_init__`),
as griffe reads the file (`griffe.visit`: parsed, never imported). A function defined inside
another is part of it. A line of a file belongs to the innermost unit whose body holds it:
from the first statement of its body to its last line, so neither its decorators, its `def`
line nor its default values, which run when the function is defined, count as running it.

A unit's fingerprint is 12 hex digits of the SHA-256 of its canonical syntax tree
(`docpact.claims._fingerprint.canonical`): docstrings, comments and formatting do not count.
docpact's pytest plugin takes the fingerprints of the units a property executed at the end of
its run; `docpact check` takes them again from the files as they are (DP019).
"""

from __future__ import annotations

import ast
import hashlib
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docpact._readers.files import Unreadable, read_text
from docpact.claims._fingerprint import canonical

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

__all__ = ["Unit", "Units", "split"]


@dataclass(frozen=True)
class Unit:
    """One function of a file.

    Attributes:
        name: `path::qualname`.
        path: The file, relative to the project root, with forward slashes.
        first: Its first line: its first decorator's, else its `def`'s.
        body: The first line of its body.
        last: Its last line.
        fingerprint: 12 hex digits of the SHA-256 of its canonical syntax tree.
    """

    name: str
    path: str
    first: int
    body: int
    last: int
    fingerprint: str


def split(name: str) -> tuple[str, str]:
    """A unit's file and qualified name, from `path::qualname`."""
    path, _, qualname = name.rpartition("::")
    return path, qualname


class Units:
    """The units of a project's files, each file read once.

    Made per use (a check, the end of a test run), never kept across them: the files may
    change between two.
    """

    def __init__(self, root: Path) -> None:
        self._root = root
        self._files: dict[str, dict[str, Unit] | None] = {}

    def of(self, path: str) -> dict[str, Unit] | None:
        """The units of a file, by qualified name, innermost last; `None` when it cannot be read.

        Args:
            path: The file, relative to the project root, with forward slashes.

        Returns:
            The units, or `None` for a file that cannot be read or parsed.
        """
        if path not in self._files:
            self._files[path] = self._read(path)
        return self._files[path]

    def get(self, name: str) -> Unit | None:
        """The unit of that name as its file is now; `None` when it is gone."""
        path, qualname = split(name)
        units = self.of(path)
        return None if units is None else units.get(qualname)

    def executed(self, path: str, lines: Iterable[int]) -> list[Unit]:
        """The units whose bodies hold some of the lines, each once, in file order.

        Args:
            path: The file, relative to the project root.
            lines: Lines that ran, as coverage.py measures them.

        Returns:
            The innermost unit of each line that a unit's body holds.
        """
        units = self.of(path)
        if not units:
            return []
        spans = sorted(units.values(), key=lambda unit: (unit.body, -unit.last))
        found: dict[str, Unit] = {}
        for line in sorted(set(lines)):
            inner = None
            for unit in spans:  # the last that holds it starts latest: the innermost
                if unit.body > line:
                    break
                if line <= unit.last:
                    inner = unit
            if inner is not None:
                found.setdefault(inner.name, inner)
        return sorted(found.values(), key=lambda unit: unit.first)

    def _read(self, path: str) -> dict[str, Unit] | None:
        import griffe  # a check without claims units never reads a file with it

        file = self._root / path
        try:
            text = read_text(file)
            module = griffe.visit(path.removesuffix(".py").replace("/", "."), file, text)
        except (Unreadable, SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        lines = text.splitlines()
        units: dict[str, Unit] = {}
        stack = [module]
        while stack:
            parent = stack.pop()
            for member in parent.members.values():
                if member.is_alias:
                    continue
                if member.is_class:
                    stack.append(member)
                    continue
                is_property = member.is_attribute and "property" in member.labels
                if not (member.is_function or is_property) or not member.endlineno:
                    continue
                qualname = member.path[len(module.path) + 1 :]
                unit = _unit(f"{path}::{qualname}", path, lines, member.lineno, member.endlineno)
                if unit is not None:
                    units[qualname] = unit
        return units


def _unit(name: str, path: str, lines: list[str], first: int, last: int) -> Unit | None:
    """A unit from its lines: its body's first line and its fingerprint, from its syntax."""
    source = textwrap.dedent("\n".join(lines[first - 1 : last]))
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a decorator griffe placed above a line it does not start
        return None
    node = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None
    )
    if node is None or not node.body:
        return None
    decorated = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    dump = canonical(node, set(), set())
    fingerprint = hashlib.sha256(dump.encode("utf-8")).hexdigest()[:12]
    return Unit(
        name,
        path,
        first + decorated - 1,
        first + node.body[0].lineno - 1,
        first + (node.end_lineno or node.lineno) - 1,
        fingerprint,
    )
