# SPDX-License-Identifier: MIT
"""The fingerprint of a property's code, which a claim's review records beside its text.

It is taken of the property's syntax tree (decorators included, the claim decorator and
docstrings left out, so formatting and comments do not count), of its class for a method,
and of every definition of its module that it uses, transitively, those inside a top-level
`if`, `try` or `with` included (a strategy the module defines). What it calls in other
modules, test helpers included, is code under test: the test run records what the property
executed (`docpact.claims._units`).
"""

from __future__ import annotations

import ast
import hashlib

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

    Each statement's names and canonical dump are found once, however many properties use
    them. Made per reading, never kept across checks:
    the files may change between two.
    """

    def __init__(self) -> None:
        self._statements: dict[ast.Module, list[ast.stmt]] = {}
        self._defined: dict[ast.Module, dict[str, list[ast.stmt]]] = {}
        self._names: dict[ast.AST, tuple[str, ...]] = {}
        self._dumps: dict[tuple[ast.AST, frozenset[str], frozenset[str]], str] = {}

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
    shared: Fingerprints | None = None,
) -> str:
    """The fingerprint of a property's code and of the definitions of its module it uses.

    Args:
        tree: The module.
        function: The property.
        functions: The names `claim` is imported as (its decorators are left out).
        modules: The names `docpact` is imported as.
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
    defined = shared.defined(tree)
    used: list[ast.AST] = list(start)
    seen_names: set[str] = set()
    queue: list[ast.AST] = list(start)
    while queue:  # a name is a `Name`'s or an argument's (which names a pytest fixture)
        for name in shared.names(queue.pop()):
            if name not in seen_names:
                seen_names.add(name)
                for statement in defined.get(name, []):
                    if statement not in used:
                        used.append(statement)
                        queue.append(statement)
    parts = [shared.dump(node, functions, modules) for node in used]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:12]


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


def statements(tree: ast.Module) -> list[ast.stmt]:
    """Every statement of a module, those nested in others included, in no set order.

    Definitions and imports are statements, and no expression holds one, so these are all
    the definitions and imports that `ast.walk` finds, without visiting every expression.
    """
    found: list[ast.stmt] = []
    stack: list[ast.AST] = [tree]
    while stack:
        for name in (node := stack.pop())._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                blocks = [item for item in value if isinstance(item, _BLOCKS)]
                found += [item for item in blocks if isinstance(item, ast.stmt)]
                stack += blocks
    return found


# What holds statements: statements, `except` clauses and `match` cases.
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def walk(node: ast.AST) -> list[ast.AST]:
    """`ast.walk(node)`, in its order (breadth first), as a list built without generators."""
    found = [node]
    index = 0
    while index < len(found):
        for name in found[index]._fields:
            value = getattr(found[index], name, None)
            if isinstance(value, ast.AST):
                found.append(value)
            elif isinstance(value, list):
                found += [item for item in value if isinstance(item, ast.AST)]
        index += 1
    return found


def module_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's statements, with those of its top-level `if`, `try` and `with` blocks."""
    found = []
    for statement in body:
        found.append(statement)
        if isinstance(statement, ast.If | ast.Try | ast.With | ast.TryStar):
            for field in ("body", "orelse", "finalbody"):
                found += module_statements(getattr(statement, field, []))
            for handler in getattr(statement, "handlers", []):
                found += module_statements(handler.body)
    return found


def bound(statement: ast.stmt) -> list[str]:
    """The module-level names a statement defines."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [statement.name]
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).partition(".")[0] for a in statement.names]
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
        targets = [statement.target]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
