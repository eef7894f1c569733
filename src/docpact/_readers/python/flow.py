# SPDX-License-Identifier: MIT
"""Local assignments in a function body, and which of them reach a use of a name.

An assignment reaches a use when it comes before the use in source order and no later
assignment overwrites it. Only straight-line code overwrites: an assignment in the block of
the use, or in a block around it, replaces every earlier one, while assignments in nested
blocks (`if`, `for`, `while`, `with`, `try` bodies and `match` cases) may or may not run,
so they add to what reaches the use instead. Augmented assignment (`x /= d`), item
assignment (`x[mask] = v`) and loop targets also only add. Inside a loop (comprehensions
included) every assignment in the loop reaches a use, unless straight-line code in the loop
overwrites the name before the use on each pass.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["CUTS_VALUES", "MODULES", "Assignment", "Scope", "is_module_path"]

_NEW_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp)
_LOOPS += (ast.GeneratorExp,)

_Position = tuple[int, int]
_Block = int  # a statement list, by its id


@dataclass(frozen=True)
class _Context:
    blocks: frozenset[_Block]  # the statement lists around a node, innermost included
    block: _Block  # the innermost one
    loops: tuple[ast.AST, ...]


@dataclass(frozen=True, eq=False)
class Assignment:
    """One assignment of a value to a local name.

    Attributes:
        source: The expression the new value is computed from; for augmented assignment,
            the whole statement.
        position: Where the name is bound: the end of the assignment, as (line, column).
        kills: Whether it replaces the name's value rather than adding to it.
        context: The blocks and loops around it.
        how: How the name gets its value: `assign` (an assignment, walrus or `with`),
            `augment` (`x /= d`: `source` is the statement), `loop` (a `for` or
            comprehension target: `source` is the iterable), `item` (`x[k] = v` or
            `x.a = v`: the object changes, `source` is `v`) or `call` (`x.append(v)`,
            `x.div_(n)`: the object changes, `source` is the call).
        element: Where the name sits in an unpacked target whose value is not a tuple of
            as many values (`a, (b, c) = value` gives `b` the element `(1, 0)`).
    """

    source: ast.AST
    position: _Position
    kills: bool
    context: _Context
    how: str = "assign"
    element: tuple[int, ...] = ()


class Scope:
    """The assignments of a function's own scope, nested functions and classes excluded.

    Args:
        function: The function's node.
    """

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.nodes: list[ast.AST] = []
        self._contexts: dict[int, _Context] = {}
        self._bindings: dict[str, list[Assignment]] = {}
        self._visit_block(function.body, frozenset(), ())

    def trace(
        self, roots: Iterable[ast.AST], *, values_only: bool = False
    ) -> tuple[set[str], list[Assignment]]:
        """Follow the names in some expressions through the assignments that reach them.

        Args:
            roots: Expressions of this scope.
            values_only: Whether to stop at an attribute, method or function that does not
                give its object's values (`x.numel()`, `x.shape`, `x.sum()`, `len(x)`): `x`
                is not followed there. `x.to(...)`, `x.unsqueeze(...)`, `x.mul(y)` and the
                like keep them.

        Returns:
            Every name and attribute name met on the way, and every assignment passed.
        """
        names: set[str] = set()
        passed: dict[int, Assignment] = {}
        pending = list(roots)
        while pending:
            for node in _walk(pending.pop(), values_only=values_only):
                if isinstance(node, ast.Attribute):
                    names.add(node.attr)
                elif isinstance(node, ast.Name):
                    names.add(node.id)
                    for binding in self.reaching(node):
                        if id(binding) not in passed:
                            passed[id(binding)] = binding
                            pending.append(binding.source)
        return names, list(passed.values())

    def reaching(self, use: ast.Name) -> list[Assignment]:
        """The assignments whose value may reach a use of a name, in source order.

        Args:
            use: A name of this scope, as read (or as the target of `x /= d`).

        Returns:
            The assignments; none for a parameter or a name of another scope.
        """
        context = self._contexts.get(id(use))
        bindings = self._bindings.get(use.id, [])
        if context is None:
            return []
        at = (use.lineno, use.col_offset)
        before = [b for b in bindings if b.position <= at]
        kills = [b.position for b in before if b.kills and b.context.block in context.blocks]
        last = max(kills, default=())  # `()` sorts before every position
        found = [b for b in before if b.position >= last]
        for loop in context.loops:
            if (loop.lineno, loop.col_offset) > last:  # type: ignore[attr-defined]
                found += [b for b in bindings if loop in b.context.loops and b not in found]
        return found

    def straight(self, binding: Assignment, use: ast.Name) -> bool:
        """Whether an assignment runs whenever the use does: it is in a block around the use.

        Args:
            binding: An assignment that reaches the use.
            use: A name of this scope.

        Returns:
            True where the assignment's block holds the use, directly or in nested blocks.
        """
        context = self._contexts.get(id(use))
        return context is not None and binding.context.block in context.blocks

    def _visit_block(
        self, statements: list[ast.stmt], blocks: frozenset[_Block], loops: tuple[ast.AST, ...]
    ) -> None:
        block = id(statements)
        inner = _Context(blocks | {block}, block, loops)
        for statement in statements:
            if not isinstance(statement, _NEW_SCOPES):
                self._visit(statement, inner)

    def _visit(self, node: ast.AST, context: _Context) -> None:
        self.nodes.append(node)
        if isinstance(node, _LOOPS):
            context = _Context(context.blocks, context.block, (*context.loops, node))
        if isinstance(node, ast.Name):
            self._contexts[id(node)] = context
        for target, value, kills, position, how in _bindings(node):
            self._bind(target, value, kills=kills, position=position, context=(context, how))
        for _, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self._visit_block(value, context.blocks, context.loops)
                continue
            children = value if isinstance(value, list) else [value]
            for child in children:
                if isinstance(child, ast.AST) and not isinstance(child, _NEW_SCOPES):
                    self._visit(child, context)

    def _bind(
        self,
        target: ast.AST,
        value: ast.AST,
        *,
        kills: bool,
        position: _Position,
        context: tuple[_Context, str],
        element: tuple[int, ...] = (),
    ) -> None:
        where, how = context
        if isinstance(target, ast.Name):
            binding = Assignment(value, position, kills, where, how, element)
            self._bindings.setdefault(target.id, []).append(binding)
        elif isinstance(target, ast.Attribute | ast.Subscript):
            # `self.x = v`, `x.attr.method()` or `x[mask] = v` changes the object the name
            # holds, so it now depends on v too, and on its old value.
            changed = (where, "item" if how == "assign" else how)
            self._bind(target.value, value, kills=False, position=position, context=changed)
        elif isinstance(target, ast.Starred):
            self._bind(
                target.value,
                value,
                kills=kills,
                position=position,
                context=context,
                element=element,
            )
        elif isinstance(target, ast.Tuple | ast.List):
            pairwise = (
                isinstance(value, ast.Tuple | ast.List)
                and len(value.elts) == len(target.elts)
                and not any(isinstance(elt, ast.Starred) for elt in (*target.elts, *value.elts))
            )
            for i, elt in enumerate(target.elts):
                part = value.elts[i] if pairwise else value  # type: ignore[attr-defined]
                self._bind(
                    elt,
                    part,
                    kills=kills,
                    position=position,
                    context=context,
                    element=element if pairwise else (*element, i),
                )


# Attributes and methods that do not give their object's values, element by element: its
# size, shape or type, a reduction over it, or a new tensor shaped like it. A divisor computed
# through one of them is not computed from the object. Any other keeps it (`.to()`,
# `.unsqueeze()`, `.clamp()`, `.mul()`...).
CUTS_VALUES = frozenset(
    {"numel", "nelement", "shape", "size", "dim", "ndim", "ndimension", "dtype", "device"}
    | {"sum", "nansum", "mean", "nanmean", "prod", "max", "min", "amax", "amin", "norm"}
    | {"std", "var", "median", "mode", "argmax", "argmin", "count_nonzero", "unique", "all"}
    | {"any", "new_ones", "new_zeros", "new_empty", "new_full", "new_tensor", "is_floating_point"}
)
# Functions of the same kind, called on the object: `len(x)`, `torch.numel(x)`,
# `torch.ones_like(x)`.
_CUTTING_CALLS = frozenset(
    {"len", "numel", "ones_like", "zeros_like", "empty_like", "full_like", "rand_like"}
    | {"randn_like", "count_nonzero", "unique"}
)


def _walk(root: ast.AST, *, values_only: bool) -> Iterable[ast.AST]:
    """`ast.walk`, that with `values_only` leaves out what `CUTS_VALUES` cuts off."""
    pending = [root]
    while pending:
        node = pending.pop()
        yield node
        if values_only and _cuts(node):
            continue  # `x.numel()`, `len(x)`: the call's or attribute's own name counts, `x` not
        pending.extend(ast.iter_child_nodes(node))


def _cuts(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in CUTS_VALUES
    if isinstance(node, ast.Call) and node.args:
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        builtin = isinstance(node.func, ast.Name) and name == "len"
        module = isinstance(node.func, ast.Attribute) and is_module_path(node.func.value)
        return name in _CUTTING_CALLS and (builtin or module)
    return False


def _bindings(node: ast.AST) -> list[tuple[ast.AST, ast.AST, bool, _Position, str]]:
    """The (target, value, kills, position, how) of each assignment that a node makes."""
    if isinstance(node, ast.Assign):
        return [(target, node.value, True, _end(node), "assign") for target in node.targets]
    if isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value:
        return [(node.target, node.value, True, _end(node), "assign")]
    if isinstance(node, ast.AugAssign):
        return [(node.target, node, False, _end(node), "augment")]
    if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        return [(node.target, node.iter, False, _end(node.iter), "loop")]
    if isinstance(node, ast.withitem) and node.optional_vars:
        return [(node.optional_vars, node.context_expr, True, _end(node.context_expr), "assign")]
    if isinstance(node, ast.Call):
        # `x.div_(n)`, `out.append(x / n)`, `torch.div(x, n, out=buf)` change an object in
        # place: it now depends on the call too, and on its old value.
        targets = [k.value for k in node.keywords if k.arg == "out"]
        if isinstance(node.func, ast.Attribute) and not is_module_path(node.func.value):
            targets.append(node.func.value)
        return [(target, node, False, _end(node), "call") for target in targets]
    return []


def is_module_path(node: ast.AST) -> bool:
    """Whether `node` reads like a module (`torch`, `torch.linalg`), not a local value.

    Args:
        node: An expression.

    Returns:
        True for a name of `MODULES`, or an attribute path from one.
    """
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in MODULES


MODULES = frozenset({"torch", "operator", "numpy", "np", "math", "jax", "jnp"})
"""The names of the numeric modules, as code commonly imports them."""


def _end(node: ast.AST) -> _Position:
    return (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
