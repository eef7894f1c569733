# SPDX-License-Identifier: MIT
"""Where a test module's definitions are: its statements, what each binds, its local imports.

What `docpact.claims._bindings` and `.fingerprint` find in a syntax tree, found
without visiting more of it than they need: definitions and imports are statements, so
`statements` visits no expression, and `walk` is `ast.walk`'s order without its generators.
"""

from __future__ import annotations

import ast
from pathlib import Path

__all__ = ["bound", "local_module", "module_statements", "statements", "walk"]


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


def local_module(name: str, path: Path, local: tuple[Path, ...]) -> Path | None:
    """The file of module `name` as the test at `path` imports it, if it lies under `local`.

    It is looked for beside the test, then in each folder above it up to the top of the
    properties folder it lies in.
    """
    if not name:
        return None
    relative = Path(*name.split("."))
    for folder in (path.parent, *path.parent.parents):
        if not any(folder == top or top in folder.parents for top in local):
            break
        for candidate in (folder / relative.with_suffix(".py"), folder / relative / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


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
