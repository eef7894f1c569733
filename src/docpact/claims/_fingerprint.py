# SPDX-License-Identifier: MIT
"""The fingerprint of a property's code: what `reviewed="TEXT/CODE"` records as CODE.

It is taken of the property's syntax tree (decorators included, the claim decorator and
docstrings left out, so formatting and comments do not count), of its class for a method,
of every definition of its module that it uses, transitively, those inside a top-level
`if`, `try` or `with` included, and of the definitions it imports from modules of the
properties folders (`from batches import rollout_batches`), transitively again, each
imported name once. The code under test, and what conftest.py or a hypothesis profile sets,
are not followed.
"""

from __future__ import annotations

import ast
import hashlib
from typing import TYPE_CHECKING

from docpact._readers.files import Unreadable, read_python
from docpact.claims._definitions import (
    bound,
    local_module,
    module_statements,
    statements,
    walk,
)

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["MARKER", "Fingerprints", "canonical", "code_fingerprint", "is_claim"]

MARKER = "docpact_claim"
"""The pytest marker that binds a property without importing docpact:
`@pytest.mark.docpact_claim("ID")`, registered in the project's own pytest configuration."""


def is_claim(node: ast.expr, functions: set[str], modules: set[str]) -> bool:
    """Whether a decorator expression binds a claim.

    That is docpact's `claim` under the module's imports (`functions` are the names it is
    imported as, `modules` those of `docpact`), or the marker, as `pytest.mark.docpact_claim`
    or, after `from pytest import mark`, `mark.docpact_claim`.
    """
    if isinstance(node, ast.Name):
        return node.id in functions
    if not isinstance(node, ast.Attribute):
        return False
    if node.attr == MARKER:
        mark = node.value
        return (isinstance(mark, ast.Name) and mark.id == "mark") or (
            isinstance(mark, ast.Attribute)
            and mark.attr == "mark"
            and isinstance(mark.value, ast.Name)
        )
    return node.attr == "claim" and isinstance(node.value, ast.Name) and node.value.id in modules


class Fingerprints:
    """What the fingerprints of one reading of the properties share, each computed once.

    Each local module is parsed once, and each statement's names and canonical dump found
    once, however many properties use them. Made per reading, never kept across checks:
    the files may change between two.
    """

    def __init__(self) -> None:
        self._trees: dict[Path, ast.Module | None] = {}
        self._modules: dict[tuple[str, Path, tuple[Path, ...]], Path | None] = {}
        self._statements: dict[ast.Module, list[ast.stmt]] = {}
        self._defined: dict[ast.Module, dict[str, list[ast.stmt]]] = {}
        self._names: dict[ast.AST, tuple[str, ...]] = {}
        self._dumps: dict[tuple[ast.AST, frozenset[str], frozenset[str]], str] = {}

    def module(self, name: str, path: Path, local: tuple[Path, ...]) -> Path | None:
        """`local_module(name, path, local)`: it depends on the folder of `path` alone."""
        key = (name, path.parent, local)
        if key not in self._modules:
            self._modules[key] = local_module(name, path, local)
        return self._modules[key]

    def tree(self, path: Path) -> ast.Module | None:
        """The module at `path`, `None` when it cannot be read or parsed."""
        if path not in self._trees:
            try:
                self._trees[path] = read_python(path)
            except Unreadable:
                self._trees[path] = None
        return self._trees[path]

    def statements(self, tree: ast.Module) -> list[ast.stmt]:
        """Every statement of a module, nested ones included (`definitions.statements`)."""
        if tree not in self._statements:
            self._statements[tree] = statements(tree)
        return self._statements[tree]

    def defined(self, tree: ast.Module) -> dict[str, list[ast.stmt]]:
        """The module-level statements that define each name of a module."""
        if tree not in self._defined:
            defined: dict[str, list[ast.stmt]] = {}
            for statement in module_statements(tree.body):
                for name in bound(statement):
                    defined.setdefault(name, []).append(statement)
            self._defined[tree] = defined
        return self._defined[tree]

    def names(self, node: ast.AST) -> tuple[str, ...]:
        """The names a node uses (its names and its functions' arguments), in walk order."""
        if node not in self._names:
            found = (
                sub.id if isinstance(sub, ast.Name) else sub.arg
                for sub in walk(node)
                if isinstance(sub, ast.Name | ast.arg)
            )
            self._names[node] = tuple(dict.fromkeys(found))
        return self._names[node]

    def dump(self, node: ast.AST, functions: set[str], modules: set[str]) -> str:
        """The canonical dump of a node, as `canonical` makes it."""
        key = (node, frozenset(functions), frozenset(modules))
        if key not in self._dumps:
            self._dumps[key] = canonical(node, functions, modules)
        return self._dumps[key]


def code_fingerprint(
    tree: ast.Module,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    functions: set[str],
    modules: set[str],
    *,
    path: Path | None = None,
    local: tuple[Path, ...] = (),
    shared: Fingerprints | None = None,
) -> str:
    """The fingerprint of a property's code and of the test code it uses.

    The code is the property (its class too, for a method), every definition of its module
    that it uses, transitively (module-level statements, those inside a top-level `if`,
    `try` or `with` included), and, for a `from X import ...` it uses where `X` is a file
    under `local` (the properties folders), the definitions of the imported names there,
    transitively again.

    Args:
        tree: The module.
        function: The property.
        functions: The names `claim` is imported as (its decorators are left out).
        modules: The names `docpact` is imported as.
        path: The module's file, from which local imports are resolved.
        local: The folders whose modules are followed.
        shared: What the fingerprints of the same reading share; by default, nothing.

    Returns:
        12 hex digits of the SHA-256 of the canonical syntax trees.
    """
    shared = shared or Fingerprints()
    start: list[ast.AST] = [function]
    start += [
        node
        for node in shared.statements(tree)
        if isinstance(node, ast.ClassDef) and function in node.body
    ]
    parts = _closure(tree, start, functions, modules, path, local, set(), shared)
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:12]


def _closure(
    tree: ast.Module,
    start: list[ast.AST],
    functions: set[str],
    modules: set[str],
    path: Path | None,
    local: tuple[Path, ...],
    visited: set[tuple[Path, str]],
    shared: Fingerprints,
) -> list[str]:
    """The canonical dumps of `start` and of what it uses, in this module and local ones.

    `visited` holds the `(module, name)` pairs already followed into a local module, so
    that each imported name is followed once, whichever import of the module names it.
    A name is that of a `Name` or of an argument (which names the module's pytest fixture,
    if any).
    """
    defined = shared.defined(tree)
    used: list[ast.AST] = list(start)
    seen_names: set[str] = set()
    queue: list[ast.AST] = list(start)
    while queue:
        for name in shared.names(queue.pop()):
            if name not in seen_names:
                seen_names.add(name)
                for statement in defined.get(name, []):
                    if statement not in used:
                        used.append(statement)
                        queue.append(statement)
    parts = [shared.dump(node, functions, modules) for node in used]
    for statement in used:
        if not isinstance(statement, ast.ImportFrom) or statement.level or path is None:
            continue
        other = shared.module(statement.module or "", path, local)
        if other is None:
            continue
        names = {alias.name for alias in statement.names if (other, alias.name) not in visited}
        if not names:
            continue
        visited.update((other, name) for name in names)
        other_tree = shared.tree(other)
        if other_tree is None:
            parts.append(f"unreadable {statement.module}")
            continue
        targets: list[ast.AST] = [
            s for s in module_statements(other_tree.body) if names & set(bound(s))
        ]
        parts.append(f"from {statement.module}")
        parts += _closure(other_tree, targets, functions, modules, other, local, visited, shared)
    return parts


def canonical(node: object, functions: set[str], modules: set[str]) -> str:
    """A dump of a syntax tree that no Python version's new empty fields change.

    Docstrings and claim decorators are left out; so are fields that are `None` or empty.
    """
    if isinstance(node, list):
        return "[" + ",".join(canonical(item, functions, modules) for item in node) + "]"
    if not isinstance(node, ast.AST):
        return repr(node)
    fields = []
    for name in node._fields:
        value = getattr(node, name, None)
        if name == "decorator_list":
            value = [
                d
                for d in value
                if not is_claim(d.func if isinstance(d, ast.Call) else d, functions, modules)
            ]
        elif name == "body" and _has_docstring(node):
            value = value[1:]
        if value is None or value == []:
            continue
        fields.append(f"{name}={canonical(value, functions, modules)}")
    return f"{type(node).__name__}({','.join(fields)})"


def _has_docstring(node: ast.AST) -> bool:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) or not node.body:
        return False  # a class unit's body holds no methods: it may hold nothing
    first = node.body[0]
    return (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
