# SPDX-License-Identifier: MIT
"""A project's own modules, read statically: where each is, and what each of its names is.

A module is the project's own when Python would find it in one of `[tool.docpact] paths`
(`a.b` is `PATH/a/b.py` or `PATH/a/b/__init__.py`, in the first path that has the top-level
package `a`) and it lies under none of the excluded folders (the claims' properties). Names
are looked up as Python binds them at module level: a definition or an assignment (each
one, when `if`/`try` blocks define a name more than once), an import, or, last, the
modules a `from M import *` names. Nothing is imported: every module is parsed once.
"""

from __future__ import annotations

import ast
import builtins
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docpact._readers.files import Unreadable, read_python
from docpact.claims._definitions import bound, local_module, module_statements

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["BUILTINS", "Module", "Modules", "Name"]

BUILTINS = frozenset(dir(builtins)) | {"__file__", "__path__", "__spec__", "__loader__"}
"""The names every module has without defining them."""


@dataclass(frozen=True, eq=False)
class Module:
    """One parsed module: the project's own, or a test module that reaches into it.

    Attributes:
        name: The dotted name, `None` for a test module (which is nobody's import).
        path: The file.
        tree: Its syntax tree.
        own: Whether it is the project's own code (its definitions are code under test).
        package: The package its relative imports start from.
    """

    name: str | None
    path: Path
    tree: ast.Module
    own: bool
    package: str = ""

    @property
    def defined(self) -> dict[str, list[ast.stmt]]:
        """The module-level statements that bind each name, imports included."""
        found: dict[str, list[ast.stmt]] = {}
        for statement in module_statements(self.tree.body):
            if isinstance(statement, ast.Import | ast.ImportFrom):
                continue
            for name in bound(statement):
                found.setdefault(name, []).append(statement)
        return found


@dataclass(frozen=True)
class Name:
    """What a module-level name of a module is.

    Attributes:
        module: The module that binds it (after imports are followed), or `None` for a
            name of no project module (an import from a library, a builtin).
        statements: The statements that define it there; empty when the name is
            `module` itself (a module) or not found.
        submodule: The dotted name of the module it is, when it is one.
        missing: Why a name of a project module was not found, or empty.
    """

    module: Module | None = None
    statements: tuple[ast.stmt, ...] = ()
    submodule: str = ""
    missing: str = ""


class Modules:
    """The modules of one reading, each found and parsed once.

    Args:
        search: The folders a module is looked for in, in order.
        excluded: Folders whose modules are never the project's own: the properties
            folders, whose modules a test imports (`from batches import ...`) are test
            modules too.
    """

    def __init__(self, search: list[Path], excluded: tuple[Path, ...] = ()) -> None:
        self._search = search
        self._excluded = excluded
        self._by_name: dict[str, Module | None] = {}
        self._tests: dict[Path, Module | None] = {}
        self._defined: dict[Module, dict[str, list[ast.stmt]]] = {}

    def test_module(self, path: Path, tree: ast.Module | None = None) -> Module | None:
        """A test module, as a context names are looked up in; never the project's own.

        Args:
            path: Its file.
            tree: Its syntax tree, when the caller has parsed it; else it is read.

        Returns:
            The module, `None` when it cannot be read or parsed.
        """
        if path not in self._tests:
            if tree is None:
                try:
                    tree = read_python(path)
                except Unreadable:
                    tree = None
            self._tests[path] = None if tree is None else Module(None, path, tree, own=False)
        return self._tests[path]

    def fixture_modules(self, module: Module) -> list[Module]:
        """Where a test's fixtures are found: its module, then each `conftest.py` above it.

        The `conftest.py` files are those of the test's folder and of the folders above it,
        nearest first, up to the top of the properties folder it lies in.
        """
        found = [module]
        for folder in module.path.parents:
            if not any(folder == top or top in folder.parents for top in self._excluded):
                break
            conftest = folder / "conftest.py"
            test = self.test_module(conftest) if conftest.is_file() else None
            if conftest != module.path and test is not None:
                found.append(test)
        return found

    def definition(self, dotted: str) -> str | None:
        """Where an object's dotted path is defined, re-exports followed, as a unit is named.

        `pkg.f`, where `pkg/__init__.py` imports `f` from `pkg._f`, is `pkg._f.f`; a
        method's path keeps its class (`pkg._plan.Plan.update_units`); a module's is its own.

        Args:
            dotted: The path, as a contract's `object` names it.

        Returns:
            The path where it is defined, `None` when it is no object of the project's own.
        """
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            module = self.named(".".join(parts[:cut]))
            if module is None:
                continue
            rest = parts[cut:]
            if not rest:
                return module.name
            found = self.lookup(module, rest[0])
            if found.submodule:
                return self.definition(".".join([found.submodule, *rest[1:]]))
            if found.module is None or not found.statements:
                return None
            return ".".join([found.module.name or "", *_qualified(found.statements[0], rest)])
        return None

    def locate(self, dotted: str) -> tuple[Path, int, int] | None:
        """Where an object of the project's own is written: its file, first and last line.

        A module is its whole file (last line 0); a definition runs from its first decorator
        to its end; a method or a class's field within its class.

        Args:
            dotted: The object's path, re-exports followed (`definition`).

        Returns:
            The file and lines, `None` when the object is not found.
        """
        defined = self.definition(dotted)
        if defined is None:
            return None
        parts = defined.split(".")
        for cut in range(len(parts), 0, -1):
            module = self.named(".".join(parts[:cut]))
            if module is None:
                continue
            if cut == len(parts):
                return module.path, 1, 0
            body: list[ast.stmt] = self.defined(module).get(parts[cut], [])
            node: ast.stmt | None = body[0] if body else None
            siblings = module.tree.body
            for name in parts[cut + 1 :]:
                siblings = getattr(node, "body", []) if isinstance(node, ast.ClassDef) else []
                node = next((m for m in siblings if name in _member_names(m)), None)
            if node is None:
                return None
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            return module.path, first, _attribute_docstring_end(node, siblings)
        return None

    def named(self, name: str) -> Module | None:
        """The project's own module of that dotted name, `None` when there is none."""
        if name not in self._by_name:
            self._by_name[name] = self._find(name)
        return self._by_name[name]

    def _find(self, name: str) -> Module | None:
        parts = name.split(".")
        for folder in self._search:
            if not ((folder / parts[0]).is_dir() or (folder / f"{parts[0]}.py").is_file()):
                continue
            base = folder.joinpath(*parts)
            for path, package in ((base / "__init__.py", name), (base.with_suffix(".py"), "")):
                if path.is_file() and not any(top in path.parents for top in self._excluded):
                    try:
                        tree = read_python(path)
                    except Unreadable:
                        return None
                    own_package = package or name.rpartition(".")[0]
                    return Module(name, path, tree, own=True, package=own_package)
            return None  # Python stops at the first folder with the top-level package
        return None

    def defined(self, module: Module) -> dict[str, list[ast.stmt]]:
        """`module.defined`, computed once per module."""
        if module not in self._defined:
            self._defined[module] = module.defined
        return self._defined[module]

    def lookup(self, module: Module, name: str, seen: frozenset[str] = frozenset()) -> Name:
        """What a module-level name of `module` is, its imports followed.

        Args:
            module: The module.
            name: The name.
            seen: The `module:name` pairs being followed, against import cycles.

        Returns:
            The name's definition; an empty `Name` for a library's name or a builtin.
        """
        key = f"{module.name or module.path}:{name}"
        if key in seen:
            return Name(missing=f"{name} is imported in a cycle")
        seen |= {key}
        if found := self.defined(module).get(name):
            return Name(module, tuple(found))
        for statement in module_statements(module.tree.body):
            if isinstance(statement, ast.Import | ast.ImportFrom):
                for alias in statement.names:
                    if alias.name != "*" and (alias.asname or alias.name).partition(".")[0] == name:
                        return self.imported(module, statement, alias, seen)
        for statement in module_statements(module.tree.body):
            if isinstance(statement, ast.ImportFrom) and statement.names[0].name == "*":
                star = self.named(self._absolute(module, statement))
                if star is not None and (found := self.lookup(star, name, seen)).module:
                    return found
        if module.name is not None and (sub := self.named(f"{module.name}.{name}")):
            return Name(sub, submodule=f"{module.name}.{name}")  # imported elsewhere
        if module.own and name not in BUILTINS:
            return Name(missing=f"{name} is not defined in {module.name}")
        return Name()

    def imported(
        self,
        module: Module,
        statement: ast.Import | ast.ImportFrom,
        alias: ast.alias,
        seen: frozenset[str] = frozenset(),
    ) -> Name:
        """What one name of an import statement of `module` is.

        Args:
            module: The module the statement is in (at module level or in a function).
            statement: The import.
            alias: One of its names, not `*`.
            seen: As for `lookup`.

        Returns:
            The name's definition; an empty `Name` for a library's name.
        """
        if isinstance(statement, ast.Import):
            dotted = alias.name if alias.asname else alias.name.partition(".")[0]
            if module.name is None:  # a test imports a test module: `import batches`
                other = local_module(dotted, module.path, self._excluded)
                if other is not None and (test := self.test_module(other)):
                    return Name(test, submodule=dotted)
            return self._module_name(dotted)
        source = self._absolute(module, statement)
        if module.name is None and not statement.level:  # a test imports a test module
            other = local_module(source, module.path, self._excluded)
            if other is not None and (test := self.test_module(other)):
                return self.lookup(test, alias.name, seen)
        return self._from(source, alias.name, seen)

    def _module_name(self, dotted: str) -> Name:
        found = self.named(dotted)
        return Name(found, submodule=dotted) if found is not None else Name()

    def _from(self, source: str, name: str, seen: frozenset[str]) -> Name:
        """`from source import name`: a submodule, or a name of the module `source`."""
        if (sub := self.named(f"{source}.{name}")) is not None:
            return Name(sub, submodule=f"{source}.{name}")
        found = self.named(source)
        if found is None:
            return Name()  # a library's
        return self.lookup(found, name, seen)

    @staticmethod
    def _absolute(module: Module, statement: ast.ImportFrom) -> str:
        """The module an `ImportFrom` names, its relative dots resolved."""
        if not statement.level:
            return statement.module or ""
        parts = module.package.split(".") if module.package else []
        base = parts[: len(parts) - statement.level + 1] if statement.level > 1 else parts
        return ".".join([*base, *([statement.module] if statement.module else [])])


def _qualified(statement: ast.stmt, rest: list[str]) -> list[str]:
    """The qualified name of `rest` under a module-level definition: its own name first."""
    name = getattr(statement, "name", rest[0])
    return [name, *rest[1:]]


def _member_names(statement: ast.stmt) -> list[str]:
    """The names a class-body statement defines."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [statement.name]
    return bound(statement)


def _attribute_docstring_end(node: ast.stmt, siblings: list[ast.stmt]) -> int:
    """A statement's last line, or its attribute docstring's: a string right after it."""
    last = node.end_lineno or node.lineno
    if not isinstance(node, ast.Assign | ast.AnnAssign):
        return last
    after = next((b for a, b in itertools.pairwise(siblings) if a is node), None)
    if (
        isinstance(after, ast.Expr)
        and isinstance(after.value, ast.Constant)
        and isinstance(after.value.value, str)
    ):
        return after.end_lineno or last
    return last
