# SPDX-License-Identifier: MIT
"""Where a function body uses a name, and how: what to say of an operand its divisor lost."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["Use", "describe", "names_torch", "uses"]


@dataclass(frozen=True)
class Use:
    """One line of a function body that reads a name.

    Attributes:
        line: The 1-based line in the function's file.
        how: How the line uses it: `in a comparison`, `as a call argument`...
        code: The code that uses it, as Python would print it, shortened to one short line.
    """

    line: int
    how: str
    code: str


def uses(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> list[Use]:
    """Each line of a body that reads a name, in line order, once per line.

    The name counts alone (`counts`) and as an attribute (`self.counts`), as the divisor's
    trace counts it.

    Args:
        function: The function's syntax tree.
        name: The name.

    Returns:
        The first use on each line, described by the closest construct around it: a branch
        that never runs, a comparison, a method or attribute, a call argument, a condition,
        the divisor of another division, or else the statement.
    """
    parents: dict[ast.AST, ast.AST] = {}
    for statement in function.body:
        parents[statement] = function
        for node in ast.walk(statement):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
    reads = sorted(
        (
            node
            for node in parents
            if isinstance(node, ast.Name | ast.Attribute)
            and name == (node.id if isinstance(node, ast.Name) else node.attr)
            and isinstance(node.ctx, ast.Load)
            and not _method_of_another(node, parents)
        ),
        key=lambda node: (node.lineno, node.col_offset),
    )
    found: dict[int, Use] = {}
    for node in reads:  # the first on each line, in reading order
        if node.lineno not in found:
            found[node.lineno] = _use(node, parents)
    return list(found.values())


def _method_of_another(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether a node is a method called on some object (`items.count(x)`), not the name."""
    if not isinstance(node, ast.Attribute):
        return False
    call = parents.get(node)
    return isinstance(call, ast.Call) and call.func is node


def _use(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> Use:
    line = node.lineno  # type: ignore[attr-defined]
    if dead := _dead_branch(node, parents):
        return Use(line, "in a branch that never runs", dead)
    child, parent = node, parents[node]
    while not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.Compare):
            return Use(line, "in a comparison", _code(parent))
        if isinstance(parent, ast.Attribute):
            method = parents[parent]
            if isinstance(method, ast.Call) and method.func is parent:
                return Use(line, "through a method", _code(method))
            return Use(line, "through an attribute", _code(parent))
        if isinstance(parent, ast.Call) and child is not parent.func:
            return Use(line, "as a call argument", _code(parent))
        if isinstance(parent, ast.IfExp) and child is parent.test:
            return Use(line, "in a condition", _code(parent))
        if isinstance(parent, ast.BinOp) and _divides(parent.op) and child is parent.right:
            return Use(line, "in another division's divisor", _code(parent))
        child, parent = parent, parents[parent]
    if isinstance(parent, ast.If | ast.While) and child is parent.test:
        keyword = "if" if isinstance(parent, ast.If) else "while"
        return Use(line, "in a condition", f"{keyword} {_code(child)}:")
    if isinstance(parent, ast.AugAssign) and _divides(parent.op) and child is parent.value:
        return Use(line, "in another division's divisor", _code(parent))
    return Use(line, "outside the divisor", _code(parent))


def _divides(operator: ast.operator) -> bool:
    return isinstance(operator, ast.Div | ast.FloorDiv)


def _dead_branch(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str:
    """The header of the branch around `node` whose constant test never lets it run, if any."""
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.If | ast.While) and isinstance(parent.test, ast.Constant):
            runs = parent.body if parent.test.value else parent.orelse
            if child not in runs and child is not parent.test:
                keyword = "if" if isinstance(parent, ast.If) else "while"
                return f"{keyword} {_code(parent.test)}:"
        child, parent = parent, parents.get(parent)
    return ""


def _code(node: ast.AST, width: int = 40) -> str:
    """The code of a node on one line, shortened to `width` characters."""
    code = ast.unparse(node).partition("\n")[0]
    return code if len(code) <= width else code[: width - 3] + "..."


def describe(found: list[Use], limit: int = 3) -> str:
    """Say where and how a name is still used, naming at most `limit` lines.

    Args:
        found: The uses, from `uses`.
        limit: How many lines to name; the rest are counted.

    Returns:
        Such as ``still used at line 12 in a comparison (`n == 0`), and 1 more line``, or
        the empty string when there is no use.
    """
    if not found:
        return ""
    named = [f"line {use.line} {use.how} (`{use.code}`)" for use in found[:limit]]
    if (rest := len(found) - limit) > 0:
        named.append(f"and {rest} more line{'s' if rest > 1 else ''}")
    return "still used at " + ", ".join(named)


def names_torch(function: ast.AST, imports: Iterable[str]) -> bool:
    """Whether a function works with torch: its module imports it, or the body names it.

    Args:
        function: The function's syntax tree.
        imports: The dotted paths its module imports (griffe's `Module.imports` values).

    Returns:
        True when an import's path starts with `torch`, or the body names `torch`.
    """
    if any(path.partition(".")[0] == "torch" for path in imports):
        return True
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == "torch":
            return True
        if isinstance(node, ast.Import | ast.ImportFrom):
            paths = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
            if any(path.partition(".")[0] == "torch" for path in paths):
                return True
    return False
