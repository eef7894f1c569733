# SPDX-License-Identifier: MIT
"""Divisions in a function body, and the names each divisor is computed from.

A division is `a / b` or `a // b`, `a /= b`, or a call such as `torch.div(a, b)`,
`a.div(b)` or `operator.truediv(a, b)`. In a chain `a / b / c` the divisor is `b` and `c`
together. The divisor's names are expanded through the function's local assignments
(plain, annotated and augmented assignment, the walrus, simple tuple unpacking, `for` and
`with` targets), transitively, so `divisor = clamp(count * rows)` then `x / divisor` uses
`count` and `rows`. The expansion ignores the order of statements: a name is traced through
every assignment to it in the function's own scope (nested functions and classes excluded).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Division", "divisions"]

_DIVIDE_CALLS = frozenset(
    {"div", "div_", "divide", "divide_", "true_divide", "true_divide_", "truediv", "floordiv"}
    | {"floor_divide", "floor_divide_"}
)
_NEW_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@dataclass(frozen=True)
class Division:
    """One division in a function body.

    Attributes:
        line: The 1-based line of the division in its file.
        names: Every name and attribute name that the divisor is computed from, through
            local assignments.
    """

    line: int
    names: frozenset[str]


def divisions(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Division]:
    """Find the divisions in a function body and trace each divisor's names.

    Args:
        function: The function's node, with the line numbers of its file.

    Returns:
        The divisions, in source order.
    """
    assignments: dict[str, list[ast.AST]] = {}
    for node in _own_scope(function):
        for target, value in _bindings(node):
            _bind(target, value, assignments)
    nodes = list(_own_scope(function))
    # In `a / b / c` the inner `a / b` is part of the outer division, not one of its own.
    inner = {id(node.left) for node in nodes if _is_division(node)}
    found = []
    for node in nodes:
        divisors = [] if id(node) in inner else _divisors(node)
        if divisors:
            names = _expand(set().union(*map(_names, divisors)), assignments)
            found.append(Division(node.lineno, frozenset(names)))
    return sorted(found, key=lambda division: division.line)


def _own_scope(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    stack: list[ast.AST] = [node for node in function.body if not isinstance(node, _NEW_SCOPES)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(
            child for child in ast.iter_child_nodes(node) if not isinstance(child, _NEW_SCOPES)
        )


def _is_division(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.FloorDiv)


def _divisors(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and _is_division(node):
        divisors = [node.right]
        while isinstance(node.left, ast.BinOp) and _is_division(node.left):
            node = node.left
            divisors.append(node.right)
        return divisors
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Div | ast.FloorDiv):
        return [node.value]
    if isinstance(node, ast.Call):
        return _call_divisor(node)
    return []


def _call_divisor(call: ast.Call) -> list[ast.AST]:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name not in _DIVIDE_CALLS:
        return []
    if len(call.args) >= 2:  # torch.div(a, b), operator.truediv(a, b)
        return [call.args[1]]
    if len(call.args) == 1 and isinstance(func, ast.Attribute):  # a.div(b)
        return [call.args[0]]
    return [keyword.value for keyword in call.keywords if keyword.arg == "other"]


def _bindings(node: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    if isinstance(node, ast.Assign):
        return [(target, node.value) for target in node.targets]
    if isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value:
        return [(node.target, node.value)]
    if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        return [(node.target, node.iter)]
    if isinstance(node, ast.withitem) and node.optional_vars:
        return [(node.optional_vars, node.context_expr)]
    return []


def _bind(target: ast.AST, value: ast.AST, assignments: dict[str, list[ast.AST]]) -> None:
    if isinstance(target, ast.Name):
        assignments.setdefault(target.id, []).append(value)
    elif isinstance(target, ast.Starred | ast.Subscript):
        # `x[mask] = v` changes x, so x now depends on v too.
        _bind(target.value, value, assignments)
    elif isinstance(target, ast.Tuple | ast.List):
        pairwise = (
            isinstance(value, ast.Tuple | ast.List)
            and len(value.elts) == len(target.elts)
            and not any(isinstance(elt, ast.Starred) for elt in (*target.elts, *value.elts))
        )
        for i, elt in enumerate(target.elts):
            _bind(elt, value.elts[i] if pairwise else value, assignments)


def _names(node: ast.AST) -> set[str]:
    names = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            names.add(child.id)
        elif isinstance(child, ast.Attribute):
            names.add(child.attr)
    return names


def _expand(names: set[str], assignments: dict[str, list[ast.AST]]) -> set[str]:
    seen = set(names)
    pending = list(names)
    while pending:
        for value in assignments.get(pending.pop(), ()):
            new = _names(value) - seen
            seen |= new
            pending.extend(new)
    return seen
