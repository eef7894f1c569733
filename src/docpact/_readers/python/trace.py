# SPDX-License-Identifier: MIT
"""Divisions in a function body, and the names each divisor is computed from.

A division is `a / b` or `a // b`, `a /= b`, or a call such as `torch.div(a, b)`,
`torch.div(a, other=b)`, `a.div(b)`, `a.div(other=b)` or `operator.truediv(a, b)`. In a
chain `a / b / c` the divisor is `b` and `c` together. The divisor's names are expanded
through the function's local assignments (plain, annotated and augmented assignment, the
walrus, simple tuple unpacking, `for` and `with` targets), transitively, so
`divisor = clamp(count * rows)` then `x / divisor` uses `count` and `rows`.

The expansion follows statement order (see `docpact._readers.python.flow`): a use of a name
sees only the assignments before it, and the last one in straight-line code overwrites the
earlier ones, so `d = a * b` then `d = c * b` then `x / d` uses `c` and `b` only.
Assignments in nested blocks (`if`/`else` branches, loop, `with` and `try` bodies) may or
may not run, so all of them before the use are kept; inside a loop, a later assignment in
the loop is kept too. Nested functions and classes are another scope and are not followed.

Divisions also feed one another: when the dividend of one division is computed, through
local assignments, from the result of another (`y = x / a` then `y / b`, or `x /= a` then
`x /= b`), the two form a chain, and `chains` combines the divisors along each chain.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TypeGuard

from docpact._readers.python.flow import Scope, is_module_path

__all__ = ["Division", "chains", "divisions"]

_DIVIDE_CALLS = frozenset(
    {"div", "div_", "divide", "divide_", "true_divide", "true_divide_", "truediv", "floordiv"}
    | {"floor_divide", "floor_divide_"}
)


@dataclass(frozen=True)
class Division:
    """One division in a function body, or a chain of divisions ending with it.

    Attributes:
        line: The 1-based line of the division (the chain's last) in its file.
        names: Every name and attribute name that the divisor is computed from, through
            local assignments; for a chain, those of every divisor along it.
        fed_by: The indexes, in the list `divisions` returns, of the divisions whose result
            this division's dividend is computed from.
        live: Whether the division's result reaches a value the function returns (every
            division of a function that returns no value is live: it works in place).
        dividend: The value divided; for a chain, that of its first division.
        divisors: The divisor expressions, `a / b / c` giving `b` and `c`.
        members: For a chain (`chains`), the indexes of its divisions, first to last.
    """

    line: int
    names: frozenset[str]
    fed_by: tuple[int, ...] = ()
    live: bool = True
    dividend: ast.AST | None = field(default=None, compare=False, repr=False)
    divisors: tuple[ast.AST, ...] = field(default=(), compare=False, repr=False)
    members: tuple[int, ...] = ()


def divisions(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Division]:
    """Find the divisions in a function body and trace each divisor's names.

    Args:
        function: The function's node, with the line numbers of its file.

    Returns:
        The divisions, in source order.
    """
    scope = Scope(function)
    # In `a / b / c` the inner `a / b` is part of the outer division, not one of its own.
    inner = {id(node.left) for node in scope.nodes if _is_division(node)}
    found = [
        (node, *operands)
        for node in scope.nodes
        if id(node) not in inner and (operands := _operands(node)) is not None
    ]
    found.sort(key=lambda item: (item[0].lineno, item[0].col_offset))  # type: ignore[attr-defined]
    live = _reached(scope, returned) if (returned := _returned(function, scope)) else None
    result = []
    for i, (node, dividend, divisors) in enumerate(found):
        names, _ = scope.trace(divisors, values_only=True)
        _, passed = scope.trace([dividend] if dividend else [])
        reached = {
            id(sub)
            for root in [dividend, *(b.source for b in passed)]
            if root
            for sub in ast.walk(root)
        }
        fed_by = tuple(j for j, other in enumerate(found) if j != i and id(other[0]) in reached)
        alive = live is None or id(node) in live
        line = node.lineno  # type: ignore[attr-defined]
        parts = tuple(reversed(divisors))  # in the order they divide: `a / b / c` is b, c
        result.append(Division(line, frozenset(names), fed_by, alive, dividend, parts, (i,)))
    return result


def _returned(function: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> list[ast.AST]:
    """The values the function gives back, or none if it may work in place.

    A function whose body can end without a `return` (it falls off its end), that yields,
    or that returns only constants (`return None`) is taken to work in place: then every
    division counts.
    """
    returns = [node for node in scope.nodes if isinstance(node, ast.Return)]
    yields = [node for node in scope.nodes if isinstance(node, ast.Yield | ast.YieldFrom)]
    values = [node.value for node in returns if not isinstance(node.value, ast.Constant | None)]
    # With no value returned, `values` is empty too: every division counts.
    if yields or not isinstance(function.body[-1], ast.Return | ast.Raise):
        return []
    return values


def _reached(scope: Scope, roots: list[ast.AST]) -> set[int]:
    """The ids of every node that the values of `roots` are computed from, through assignments."""
    _, passed = scope.trace(roots)
    return {id(sub) for root in [*roots, *(b.source for b in passed)] for sub in ast.walk(root)}


def chains(found: list[Division]) -> list[Division]:
    """Combine each division with every chain of divisions that feeds it.

    Args:
        found: The divisions of one function, as `divisions` returns them.

    Returns:
        One division per distinct chain, at the line of its last division, with the names
        of all its divisors and the liveness of the last; a division that nothing feeds is a
        chain of its own.
    """
    return [
        Division(division.line, names, live=division.live, members=members)
        for i, division in enumerate(found)
        for names, members in _chain_names(found, i, frozenset())
    ]


def _chain_names(
    found: list[Division], i: int, visiting: frozenset[int]
) -> list[tuple[frozenset[str], tuple[int, ...]]]:
    """Each chain ending at division `i`: the names of its divisors, and its divisions."""
    own = found[i].names
    paths = {own: (i,)}
    for j in found[i].fed_by:
        if j not in visiting:  # a loop can feed a division its own result
            for names, members in _chain_names(found, j, visiting | {i}):
                paths.setdefault(own | names, (*members, i))
    return list(paths.items())


_DIVIDE = ast.Div | ast.FloorDiv


def _is_division(node: ast.AST) -> TypeGuard[ast.BinOp]:
    return isinstance(node, ast.BinOp) and isinstance(node.op, _DIVIDE)


def _operands(node: ast.AST) -> tuple[ast.AST | None, list[ast.AST]] | None:
    """The dividend and the divisors of a division, or `None` for any other node."""
    if _is_division(node):
        divisors = [node.right]
        while _is_division(node.left):
            node = node.left
            divisors.append(node.right)
        return node.left, divisors
    if isinstance(node, ast.AugAssign) and isinstance(node.op, _DIVIDE):
        return node.target, [node.value]
    if isinstance(node, ast.Call):
        return _call_operands(node)
    return None


def _call_operands(call: ast.Call) -> tuple[ast.AST | None, list[ast.AST]] | None:
    func = call.func
    if not isinstance(func, ast.Attribute | ast.Name):  # `fs[0](x, d)`
        return None
    name = func.attr if isinstance(func, ast.Attribute) else func.id
    if name not in _DIVIDE_CALLS:
        return None
    keywords = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
    receiver = func.value if isinstance(func, ast.Attribute) else None
    if receiver is not None and is_module_path(receiver):  # `torch.div(a)` is no method call
        receiver = None
    if "other" in keywords:  # torch.div(a, other=b), a.div(other=b)
        dividend = call.args[0] if call.args else receiver or keywords.get("input")
        return dividend, [keywords["other"]]
    if len(call.args) >= 2:  # torch.div(a, b), operator.truediv(a, b)
        return call.args[0], [call.args[1]]
    if len(call.args) == 1 and receiver is not None:  # a.div(b)
        return receiver, [call.args[0]]
    return None
