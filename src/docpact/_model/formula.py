# SPDX-License-Identifier: MIT
r"""A divisor's formula as a tree, in one normal form for the code and the docs alike.

The normal form is all the algebra docpact does: the arguments of `+` and `*` are flattened
(`a * (b * c)` is `a * b * c`) and sorted, so that their order never counts; the guard's
spellings (`max(1, x)`, `torch.clamp(x, min=1)`, `x.clamp_min(1)`, `torch.maximum`, LaTeX's
`\max`) are one form; and a number is its value, so `1` and `1.0` are equal. Nothing else is
rewritten: `a * b + a * c` is not `a * (b + c)`, and `a - b` is not `-b + a`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Expr",
    "add",
    "call",
    "divide",
    "guard",
    "keyword",
    "leaf",
    "multiply",
    "negate",
    "number",
    "power",
    "render",
    "substitute",
    "subtract",
    "unknown",
]


@dataclass(frozen=True)
class Expr:
    """One node of a formula, in normal form: build it with this module's functions.

    Attributes:
        op: What the node is: `name`, `number`, `+`, `*`, `-`, `/`, `//`, `**`, `neg`,
            `guard` (the guard `max(value, args[0])`), `call` (a function `value` of
            `args`), `kw` (a call's keyword argument `value=args[0]`) or `unknown` (a
            LaTeX macro `value` that docpact does not read).
        args: The node's arguments, in normal order.
        value: A name's or function's name, a macro, a number's or guard's value.
    """

    op: str
    args: tuple[Expr, ...] = ()
    value: str | float = ""

    def __str__(self) -> str:
        return _render(self, 0)

    def names(self) -> frozenset[str]:
        """Every name that is a leaf of the formula."""
        if self.op == "name":
            return frozenset({str(self.value)})
        return frozenset().union(*(arg.names() for arg in self.args))

    def macros(self) -> list[str]:
        """The LaTeX macros of the formula that docpact could not read, in order."""
        own = [str(self.value)] if self.op == "unknown" else []
        return own + [macro for arg in self.args for macro in arg.macros()]


def leaf(name: str) -> Expr:
    """A name: an operand, or any other value the formula uses."""
    return Expr("name", value=name)


def number(value: float) -> Expr:
    """A number, compared by value (`1` equals `1.0`)."""
    return Expr("number", value=float(value))


def unknown(macro: str) -> Expr:
    """A LaTeX macro that docpact does not read; a statement holding one is not compared."""
    return Expr("unknown", value=macro)


def _flat(op: str, args: tuple[Expr, ...]) -> Expr:
    flat = [part for arg in args for part in (arg.args if arg.op == op else (arg,))]
    if len(flat) == 1:
        return flat[0]
    return Expr(op, tuple(sorted(flat, key=_key)))


def add(*args: Expr) -> Expr:
    """A sum, flattened and sorted."""
    return _flat("+", args)


def multiply(*args: Expr) -> Expr:
    """A product, flattened and sorted."""
    return _flat("*", args)


def subtract(left: Expr, right: Expr) -> Expr:
    """A difference."""
    return Expr("-", (left, right))


def divide(left: Expr, right: Expr, *, floor: bool = False) -> Expr:
    """A quotient, `//` where `floor`."""
    return Expr("//" if floor else "/", (left, right))


def power(base: Expr, exponent: Expr) -> Expr:
    """A power."""
    return Expr("**", (base, exponent))


def negate(value: Expr) -> Expr:
    """A negation; a negated number is the negative number."""
    if value.op == "number":
        return number(-float(value.value))
    return Expr("neg", (value,))


def guard(bound: float, value: Expr) -> Expr:
    """The guard `max(bound, value)`, whichever of its spellings the source uses."""
    return Expr("guard", (value,), float(bound))


def call(name: str, args: tuple[Expr, ...]) -> Expr:
    """A call of any other function, its arguments in order."""
    return Expr("call", args, name)


def keyword(name: str, value: Expr) -> Expr:
    """A keyword argument of a call, `name=value`."""
    return Expr("kw", (value,), name)


def _key(expr: Expr) -> str:
    return _render(expr, 0)


def substitute(expr: Expr, defined: dict[str, Expr], depth: int = 8) -> Expr:
    """A formula with each name of `defined` replaced by its definition, in normal form.

    Args:
        expr: The formula.
        defined: Definitions by name (`d` for `d = max(1, a * b)`).
        depth: How many definitions deep to follow; one defined by itself stops there.

    Returns:
        The formula, rebuilt.
    """
    if expr.op == "name":
        value = defined.get(str(expr.value))
        if value is None or depth == 0:
            return expr
        return substitute(value, defined, depth - 1)
    args = tuple(substitute(arg, defined, depth) for arg in expr.args)
    if expr.op == "+":
        return add(*args)
    if expr.op == "*":
        return multiply(*args)
    return Expr(expr.op, args, expr.value)


def render(expr: Expr, order: tuple[str, ...] = ()) -> str:
    """A formula as Python writes it, the names of `order` first in sums and products.

    Args:
        expr: The formula.
        order: Names to write first, in this order (a contract's operands), where `+` and
            `*` do not care which comes first.

    Returns:
        The formula's text, such as `max(1, rollout_token_count * num_trained_rows)`.
    """
    return _render(expr, 0, {name: i for i, name in enumerate(order)})


# How tightly each operator binds, to put parentheses where the rendered form needs them.
_BINDS = {"+": 1, "-": 1, "*": 2, "/": 2, "//": 2, "neg": 3, "**": 4}


def _render(expr: Expr, outer: int, order: dict[str, int] | None = None) -> str:
    op = expr.op
    order = order or {}
    if op == "name":
        return str(expr.value)
    if op == "number":
        value = float(expr.value)
        return str(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)
    if op == "unknown":
        return str(expr.value)
    if op == "guard":
        bound = _render(number(float(expr.value)), 0)
        return f"max({bound}, {_render(expr.args[0], 0, order)})"
    if op == "call":
        return f"{expr.value}({', '.join(_render(arg, 0, order) for arg in expr.args)})"
    if op == "kw":
        return f"{expr.value}={_render(expr.args[0], 0, order)}"
    binds = _BINDS[op]
    if op == "neg":
        text = f"-{_render(expr.args[0], binds, order)}"
    elif op in {"+", "*"}:
        first = sorted(expr.args, key=lambda arg: order.get(str(arg.value), len(order)))
        text = f" {op} ".join(_render(arg, binds, order) for arg in first)
    else:  # the right side of `-`, `/`, `//` binds one tighter: a - (b - c); `**` the left
        left, right = (binds + 1, binds) if op == "**" else (binds, binds + 1)
        text = f"{_render(expr.args[0], left, order)} {op} {_render(expr.args[1], right, order)}"
    return f"({text})" if binds < outer else text
