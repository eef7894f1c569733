# SPDX-License-Identifier: MIT
"""Units of code under test: the functions of a project's files, each with its fingerprint.

A unit is a function, a method or a property of a Python file under the project root, named
`path::qualname` (`rolloutnorm/src/rolloutnorm/_loss.py::PolicyLossConfig.__post_init__`),
as the file's syntax tree defines it (parsed, never imported). A function defined inside
another is part of it. A line of a file belongs to the innermost unit whose body holds it:
from the first statement of its body to its last line, so neither its decorators, its `def`
line nor its default values, which run when the function is defined, count as running it.
The definitions that share a qualified name are one unit: a property's getter, setter and
deleter, a function defined in both branches of an `if`.

A unit's fingerprint is 12 hex digits of the SHA-256 of its canonical syntax tree (of each of
its definitions, in file order; `docpact.claims._fingerprint.canonical`): docstrings,
comments and formatting do not count.
docpact's pytest plugin takes the fingerprints of the units a property executed at the end of
its run; `docpact check` takes them again from the files as they are (DP019), parsing only
the files whose bytes differ from those the review read (their git blob ids, in the ledger):
the same bytes give the same units. Nor, for a unit, a file whose bytes a results file's
runs fingerprinted (`Units.take`), where they agree on the unit's fingerprint and it is the
review's.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from docpact._readers.files import Unreadable, decode, parse_python, read_data, read_text
from docpact.claims._fingerprint import canonical
from docpact.claims._ledger import blob_id

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

__all__ = ["Unit", "Units", "split"]

_REEXPORTS = 8  # how many re-exports `locate` follows before it gives up

Definition = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Unit:
    """One function of a file.

    Attributes:
        name: `path::qualname`.
        path: The file, relative to the project root, with forward slashes.
        first: Its first line: its first decorator's, else its `def`'s.
        body: The first line of its body.
        last: Its last line.
        spans: Each of its definitions' `(body, last)`, in file order; empty for the one
            at `body` and `last` (whose lines `first`, `body` and `last` give).
        nodes: Its definitions' syntax trees, in file order.
    """

    name: str
    path: str
    first: int
    body: int
    last: int
    spans: tuple[tuple[int, int], ...] = ()
    nodes: tuple[Definition, ...] = field(default=(), repr=False, compare=False)

    @cached_property
    def fingerprint(self) -> str:
        """12 hex digits of the SHA-256 of its canonical syntax tree, taken when first asked."""
        # A property's claim binding is no code under test: binding it anew changes no unit.
        dump = "\n".join(canonical(node, {"claim"}, {"docpact"}) for node in self.nodes)
        return hashlib.sha256(dump.encode("utf-8")).hexdigest()[:12]


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
        self._lines: dict[str, dict[int, Unit]] = {}
        self._modules: dict[str, Any] = {}
        self._sources: dict[str, bytes | None] = {}  # each file's bytes, read once
        self._blobs: dict[str, str | None] = {}
        self._trees: dict[str, ast.Module] = {}
        self._taken: dict[tuple[str, str], dict[str, str | None]] = {}  # by (path, blob id)

    def take(self, fingerprints: dict[str, str], blobs: dict[str, str]) -> None:
        """Note fingerprints taken elsewhere, of the files' bytes that had those blob ids.

        `changed` takes a noted unit as unchanged without parsing its file while the
        file's bytes still have that id and the noted fingerprint is the recorded one; where
        two notes of the same bytes disagree, neither counts.

        Args:
            fingerprints: Fingerprints by unit name, as a test run recorded them.
            blobs: The git blob id of each of their files' bytes then, by path.
        """
        for name, fingerprint in fingerprints.items():
            path = split(name)[0]
            if path in blobs:
                taken = self._taken.setdefault((path, blobs[path]), {})
                # Two that disagree vouch for nothing: `None` matches no fingerprint.
                taken[name] = fingerprint if taken.get(name, fingerprint) == fingerprint else None

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

    def changed(
        self, recorded: dict[str, str], blobs: dict[str, str] | None = None
    ) -> list[tuple[str, Unit | None]]:
        """The recorded units whose fingerprint is not theirs now, by name, with them now.

        Args:
            recorded: Fingerprints by unit name, as a run or a review recorded them.
            blobs: The git blob ids of the files the fingerprints were taken from, by path;
                a file whose bytes still have that id is not parsed again: its units are
                as they were. Nor is a unit's file where a fingerprint noted (`take`) of
                the file's bytes as they are is the recorded one; a noted fingerprint that
                differs is not taken on trust: the file is parsed, and decides.

        Returns:
            Each changed unit's name with the unit as it is now, `None` where it is gone.
        """
        found = []
        for name, fingerprint in sorted(recorded.items()):
            path = split(name)[0]
            blob = self.blob(path)
            reviewed = blob is not None and blob == (blobs or {}).get(path)
            if reviewed or self._taken.get((path, blob or ""), {}).get(name) == fingerprint:
                continue
            unit = self.get(name)
            if unit is None or unit.fingerprint != fingerprint:
                found.append((name, unit))
        return found

    def executed(self, path: str, lines: Iterable[int]) -> list[Unit]:
        """The units whose bodies hold some of the lines, each once, in file order.

        Args:
            path: The file, relative to the project root.
            lines: Lines that ran, as coverage.py measures them.

        Returns:
            The innermost unit of each line that a unit's body holds.
        """
        if path not in self._lines:
            spans = sorted(
                (
                    (body, last, unit)
                    for unit in (self.of(path) or {}).values()
                    for body, last in unit.spans or ((unit.body, unit.last),)
                ),
                key=lambda span: (span[0], -span[1]),
            )
            # A span that starts later within another is the innermost: it overwrites.
            self._lines[path] = {
                n: unit for body, last, unit in spans for n in range(body, last + 1)
            }
        by_line = self._lines[path]
        found = {unit.name: unit for line in lines if (unit := by_line.get(line)) is not None}
        return sorted(found.values(), key=lambda unit: unit.first)

    def locate(self, dotted: str, folders: tuple[str, ...]) -> str | None:
        """The unit an object of the project is, or the prefix of its units' names.

        A function, method or property is its unit's name; a class, `path::Class`, the
        prefix of its methods' names before a dot; a module, `path::`. Re-exports are
        followed as griffe reads the imports (`from ._loss import f`): nothing is imported.

        Args:
            dotted: The object's dotted path, as a contract names it.
            folders: Where the project's packages are (`[tool.docpact] paths`).

        Returns:
            The name or prefix, `None` when the object is not found.
        """
        parts = dotted.split(".")
        for _ in range(_REEXPORTS):
            found = self._find(parts, folders)
            if not isinstance(found, list):
                return found
            parts = found
        return None

    def _find(self, parts: list[str], folders: tuple[str, ...]) -> str | list[str] | None:
        """An object's unit name or prefix, or the dotted path that an alias of it names."""
        for cut in range(len(parts), 0, -1):
            for folder in folders:
                base = "/".join(p for p in (folder.strip("/"), *parts[:cut]) if p not in {"", "."})
                for path in (f"{base}.py", f"{base}/__init__.py"):
                    units = self.of(path)
                    if units is None:
                        continue
                    rest = parts[cut:]
                    qualname = ".".join(rest)
                    inner = f"{qualname}."
                    defined = qualname in units or any(n.startswith(inner) for n in units)
                    if not rest or (defined and rest[0] not in self._imported(path)):
                        return f"{path}::{qualname}"  # a unit, or a class of units: no alias
                    member = self._module(path)
                    for depth, name in enumerate(rest):
                        member = member.members.get(name)
                        if member is None:
                            return None
                        if member.is_alias:
                            return [*member.target_path.split("."), *rest[depth + 1 :]]
                    return f"{path}::{'.'.join(rest)}"
        return None

    def blob(self, path: str) -> str | None:
        """A file's git blob id, of the bytes its units were read from if they were read.

        Args:
            path: The file, relative to the project root, with forward slashes.

        Returns:
            The id, or `None` when the file cannot be read.
        """
        if path not in self._blobs:
            data = self._source(path)
            self._blobs[path] = None if data is None else blob_id(data)
        return self._blobs[path]

    def _source(self, path: str) -> bytes | None:
        """A file's bytes, read once: its blob id and its units are of the same bytes."""
        if path not in self._sources:
            try:
                self._sources[path] = read_data(self._root / path)
            except Unreadable:
                self._sources[path] = None
        return self._sources[path]

    def _imported(self, path: str) -> set[str]:
        """The names a module's imports bind, those in blocks (`try`, `if`) included.

        A name a module both defines and imports may be either: griffe says which.
        """
        if self.of(path) is None:
            return set()
        names: set[str] = set()
        stack = [self._trees[path].body]
        while stack:
            for node in stack.pop():
                if isinstance(node, ast.Import | ast.ImportFrom):
                    names.update((a.asname or a.name).partition(".")[0] for a in node.names)
                elif not isinstance(node, Definition | ast.ClassDef):
                    stack.extend(_blocks(node))
        return names

    def _module(self, path: str) -> Any:
        """A file's module as griffe reads it (`griffe.visit`), for the imports it re-exports."""
        if path not in self._modules:
            import griffe  # only `locate` follows re-exports: a check reads no other file with it

            module = path.removesuffix(".py").replace("/", ".")
            file = self._root / path
            self._modules[path] = griffe.visit(module, file, read_text(file))
        return self._modules[path]

    def _read(self, path: str) -> dict[str, Unit] | None:
        data = self._source(path)
        if data is None:
            return None
        try:
            tree = parse_python(decode(data), path)
        except Unreadable:
            return None
        self._trees[path] = tree
        return {
            qualname: _unit(f"{path}::{qualname}", path, nodes)
            for qualname, nodes in _definitions(tree).items()
        }


def _definitions(tree: ast.Module) -> dict[str, list[Definition]]:
    """The functions a module and its classes define, by qualified name, in file order.

    Those inside a block (`if`, `try`, `with`, a loop, `match`) count; those inside a
    function are part of it.
    """
    found: dict[str, list[Definition]] = {}
    stack: list[tuple[list[ast.stmt], str]] = [(tree.body, "")]
    while stack:
        body, prefix = stack.pop()
        for node in body:
            if isinstance(node, Definition):
                found.setdefault(prefix + node.name, []).append(node)
            elif isinstance(node, ast.ClassDef):
                stack.append((node.body, f"{prefix}{node.name}."))
            else:
                stack.extend((block, prefix) for block in _blocks(node))
    return {name: sorted(nodes, key=lambda node: node.lineno) for name, nodes in found.items()}


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    """The blocks of statements a compound statement holds."""
    blocks = [getattr(node, name, []) for name in ("body", "orelse", "finalbody")]
    blocks += [handler.body for handler in getattr(node, "handlers", [])]
    blocks += [case.body for case in getattr(node, "cases", [])]
    return [block for block in blocks if isinstance(block, list)]


def _unit(name: str, path: str, nodes: list[Definition]) -> Unit:
    """A unit from its definitions: its lines, and its syntax for its fingerprint."""
    first = nodes[0]
    spans = tuple((node.body[0].lineno, node.end_lineno or node.lineno) for node in nodes)
    return Unit(
        name,
        path,
        min([first.lineno, *(d.lineno for d in first.decorator_list)]),
        *spans[0],
        spans if len(spans) > 1 else (),
        tuple(nodes),
    )
