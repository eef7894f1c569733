# SPDX-License-Identifier: MIT
"""Python expressions read as formulas: a statement in a code span, or the code's divisor.

`read_python` reads an expression as the docs write it (`max(1, a(r) * b)`); `code_formula`
derives a function's divisor from its body. Both give `docpact._model.formula` trees whose
operands carry the docs' names, and both read the same shapes:

- operators `+`, `-`, `*`, `/`, `//`, `**` and unary minus; `torch.mul`/`.mul()`,
  `torch.add`/`.add()`, `torch.sub`/`.sub()` and `torch.div`/`.div()` as their operators;
- the guard, one form however it is spelled: `max(1, x)`, `max(x, 1)`, `torch.clamp(x,
  min=1)`, `x.clamp(min=1)`, `x.clamp_min(1)`, `torch.clamp_min(x, 1)`, `x.clip(min=1)`,
  `torch.maximum(x, 1)`, `numpy.maximum(x, 1)` (any number in place of 1);
- an operand in every form the code reaches it: its name, `self.x` (or any `obj.x`),
  `x[rid]`, `x.get(rid)`, `x(r)`; it is a leaf, never traced into its own computation;
- what keeps a value's formula: `.to(...)`, `.unsqueeze(...)`, `.float()`, `.view(...)`,
  `float(x)`, `torch.as_tensor(x)` and the like, indexing (`d[:, None]`), a comprehension's
  element (`[a * b for ...]`), the `await` and the walrus.

The code's divisor is the divisor of the returned division that uses the most operands,
chained divisions multiplied (`x / a / b` divides by `a * b`), with local names expanded
through the assignments that reach them (`docpact._readers.python.flow`): a reassignment in
an `if` branch (`d = d.to(torch.float32)`) keeps the formula when it keeps the value, a
comprehension's target over `zip(a, b)` is the matching argument, `enumerate` and `.items()`
are followed, an empty container filled by `.append()` or item assignment takes the formula
of what is put in, and in-place `.mul_()`, `.add_()`, `.clamp_()` and `.clamp_min_()` apply
to the value before. What cannot be read as one formula raises `Untraced` with its line:
two assignments giving different formulas, a name computed from itself in a loop, an
unpacked value whose parts cannot be told apart, another in-place method.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docpact._model import formula as f
from docpact._readers.python.flow import MODULES, Scope
from docpact._readers.python.trace import chains, divisions

if TYPE_CHECKING:
    from collections.abc import Mapping

    from docpact._model.formula import Expr
    from docpact._readers.python.flow import Assignment
    from docpact._readers.python.trace import Division

__all__ = ["CodeFormula", "Untraced", "code_formula", "read_python"]


class Untraced(ValueError):
    """The code's divisor cannot be read as one formula.

    Attributes:
        reason: Why, in a sentence fragment (`line 12 and line 14 give `d` different
            values`).
        line: The line at fault.
    """

    def __init__(self, reason: str, line: int) -> None:
        super().__init__(reason)
        self.reason, self.line = reason, line


@dataclass(frozen=True)
class CodeFormula:
    """A function's divisor, read from its body.

    Attributes:
        divisor: The divisor's formula, in the docs' names.
        numerator: The dividend's formula, `None` where it cannot be read.
        line: The line where the divisor takes its form (the guard's, say), or the division's.
    """

    divisor: Expr
    numerator: Expr | None
    line: int


# Methods and functions that give their argument's values, element by element.
_KEEPS = frozenset(
    {"to", "unsqueeze", "squeeze", "float", "double", "half", "bfloat16", "int", "long", "view"}
    | {"reshape", "expand", "expand_as", "view_as", "type", "type_as", "detach", "clone"}
    | {"contiguous", "item", "flatten", "cpu", "cuda", "tolist", "numpy", "as_tensor", "asarray"}
    | {"tensor", "array", "astype", "unsqueeze_", "squeeze_", "detach_"}
)
_OPERATOR_CALLS = {
    "mul": f.multiply,
    "multiply": f.multiply,
    "add": f.add,
    "sub": f.subtract,
    "subtract": f.subtract,
    "div": f.divide,
    "divide": f.divide,
    "true_divide": f.divide,
    "truediv": f.divide,
}
_GUARDS = frozenset({"clamp", "clip", "clamp_min", "maximum", "fmax", "max"})
# Methods that give an element of the object they are called on: `counts.get(rid)`.
_ELEMENTS = frozenset({"get", "__getitem__", "index_select", "gather", "take", "take_along_dim"})
# Functions called by a bare name that docpact reads as themselves; any other bare name
# called in a divisor is a helper of the project's, whose body docpact does not follow.
_BUILTINS = frozenset(dir(builtins)) | frozenset(
    {"sqrt", "log", "exp", "log1p", "log2", "log10", "floor", "ceil", "prod", "fsum", "hypot"}
)
# Containers start empty and are filled in place: they add no formula of their own.
_FILLS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})


def read_python(node: ast.AST, operands: Mapping[str, str]) -> Expr:
    """Read a Python expression, as a code span writes it, into a formula.

    Args:
        node: The expression.
        operands: The operands' names in the expression, each to its name in the docs.

    Returns:
        The formula; a name that is not an operand is a leaf of its own.

    Raises:
        RecursionError: For an expression nested deeper than Python's recursion limit.
    """
    return _Reader(operands).read(node)


class _Reader:
    """Reads expressions whose names are not traced: a statement in the docs."""

    def __init__(
        self,
        operands: Mapping[str, str],
        modules: frozenset[str] = MODULES,
        renamed: Mapping[str, str] | None = None,
    ) -> None:
        self.operands = operands
        self.modules = modules
        self.renamed = renamed or {}
        self.origins: dict[Expr, int] = {}

    def module(self, node: ast.AST) -> bool:
        """Whether a node reads like a module (`torch`, `th` for `import torch as th`)."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.modules

    def read(self, node: ast.AST) -> Expr:
        expr = self._read(node)
        if not isinstance(node, ast.Name) and expr not in self.origins:
            self.origins[expr] = getattr(node, "lineno", 0)
        return expr

    def name(self, node: ast.Name) -> Expr:
        return f.leaf(self.operands.get(node.id, node.id))

    def operand(self, node: ast.AST) -> str | None:
        """The docs' name of an operand that the node names directly, or `None`."""
        if isinstance(node, ast.Name):
            return self.operands.get(node.id)
        if isinstance(node, ast.Attribute) and not self.module(node):
            return self.operands.get(node.attr)
        return None

    def _read(self, node: ast.AST) -> Expr:
        if (name := self.operand(node)) is not None:
            return f.leaf(name)
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, int | float) and not isinstance(value, bool):
                return f.number(value)
            return f.leaf(repr(value))
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}:
                return f.leaf(node.attr)
            return f.leaf(ast.unparse(node))
        if isinstance(node, ast.Subscript):  # counts[rid], d[:, None]: the element's formula
            return self.read(node.value)
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return f.negate(self.read(node.operand))
            if isinstance(node.op, ast.UAdd):
                return self.read(node.operand)
            return f.leaf(ast.unparse(node))
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return self.read(node.elt)
        if isinstance(node, ast.DictComp):
            return self.read(node.value)
        if isinstance(node, ast.IfExp):
            return self.conditional(node)
        if isinstance(node, ast.NamedExpr | ast.Await):
            return self.read(node.value)
        return f.leaf(ast.unparse(node))

    def conditional(self, node: ast.IfExp) -> Expr:
        """`a if c else b` as a statement writes it: a formula of its own."""
        return f.call(
            "if_else", (self.read(node.test), self.read(node.body), self.read(node.orelse))
        )

    def _binary(self, node: ast.BinOp) -> Expr:
        return _combine(node.op, self.read(node.left), self.read(node.right))

    def _call(self, node: ast.Call) -> Expr:
        func = node.func
        if (name := self.operand(func)) is not None:  # count(r)
            return f.leaf(name)
        method = isinstance(func, ast.Attribute) and not self.module(func.value)
        receiver = func.value if method else None  # type: ignore[union-attr]
        called = getattr(func, "attr", None) or getattr(func, "id", None) or ast.unparse(func)
        if isinstance(func, ast.Name):  # `from math import sqrt as root`: `root` is `sqrt`
            called = self.renamed.get(called, called)
        args = [receiver, *node.args] if receiver is not None else list(node.args)
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        builtin_max = called == "max" and isinstance(func, ast.Name)  # not torch.max(x, dim)
        guarding = called in _GUARDS - {"max"} or builtin_max
        if guarding and (guarded := self._guard(called, args, keywords)) is not None:
            return guarded
        if called in _KEEPS and args:
            return self.read(args[0])
        operator = _OPERATOR_CALLS.get(called)
        if operator is not None and len(args) == 2 and not keywords:
            return operator(self.read(args[0]), self.read(args[1]))
        operand = receiver is not None and self.operand(receiver) is not None
        if operand and called in _ELEMENTS:  # counts.get(rid): an element of the operand
            return self.read(receiver)  # type: ignore[arg-type]
        return self.other_call(node, called, args, keywords)

    def other_call(
        self, node: ast.Call, called: str, args: list[ast.AST], keywords: dict[str, ast.AST]
    ) -> Expr:
        """Any other call: its name, arguments and keyword arguments, in order."""
        read = [self.read(arg) for arg in args]
        read += [f.keyword(name, self.read(value)) for name, value in sorted(keywords.items())]
        return f.call(called, tuple(read))

    def _guard(self, called: str, args: list[ast.AST], keywords: dict) -> Expr | None:
        """The guard a call spells, or `None` where the call is no guard."""
        if called in {"clamp", "clip"}:
            if "max" in keywords or len(args) > 2:
                return None
            bound = keywords.get("min", args[1] if len(args) == 2 else None)
            value = args[0] if args else keywords.get("input")
        elif called == "clamp_min":
            bound = args[1] if len(args) == 2 else keywords.get("min")
            value = args[0] if args else None
        elif len(args) == 2:  # max(1, x), torch.maximum(x, 1)
            first, second = (_number(arg) for arg in args)
            if (first is None) == (second is None):
                return None
            bound, value = (args[0], args[1]) if first is not None else (args[1], args[0])
        else:
            return None
        number = _number(bound) if bound is not None else None
        if number is None or value is None:
            return None
        return f.guard(number, self.read(value))


def _number(node: ast.AST) -> float | None:
    """The number a node spells: `1`, `1.0`, `-1`, `torch.tensor(1)`; else `None`."""
    if isinstance(node, ast.Constant):
        value = node.value
        return (
            float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
        )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return -inner if inner is not None else None
    if (
        isinstance(node, ast.Call)
        and node.args
        and getattr(node.func, "attr", None)
        in {
            "tensor",
            "as_tensor",
        }
    ):
        return _number(node.args[0])
    return None


class _CodeReader(_Reader):
    """Reads a function's expressions, expanding local names through their assignments."""

    def __init__(
        self,
        scope: Scope,
        operands: Mapping[str, str],
        modules: frozenset[str],
        renamed: Mapping[str, str],
    ) -> None:
        super().__init__(operands, modules, renamed)
        self.scope = scope
        self.visiting: set[int] = set()

    def conditional(self, node: ast.IfExp) -> Expr:
        """`a if c else b` in code: one formula where both branches give it, else untraced."""
        forms = [self.read(branch) for branch in (node.body, node.orelse)]
        if len(set(forms)) > 1:
            shown = " or ".join(f"`{form}`" for form in dict.fromkeys(forms))
            msg = f"line {node.lineno} gives {shown}, depending on a condition"
            raise Untraced(msg, node.lineno)
        return forms[0]

    def other_call(
        self, node: ast.Call, called: str, args: list[ast.AST], keywords: dict[str, ast.AST]
    ) -> Expr:
        """A call of a project's helper is not followed into; any other is read as itself."""
        # A name imported from a numeric module (`from torch import numel`) is read as itself.
        if isinstance(node.func, ast.Name) and called not in _BUILTINS | self.modules:
            msg = (
                f"line {node.lineno} divides by what `{ast.unparse(node)}` returns, and docpact "
                f"does not follow into `{called}`"
            )
            raise Untraced(msg, node.lineno)
        return super().other_call(node, called, args, keywords)

    def name(self, node: ast.Name) -> Expr:
        bindings = self.scope.reaching(node)
        # `d *= b` or `d.clamp_(min=1)` on the way to the use replaces the value it changes.
        replaced = [
            i
            for i, binding in enumerate(bindings)
            if _replaces(binding) and self.scope.straight(binding, node)
        ]
        if replaced:
            last = bindings[replaced[-1]].position
            bindings = [b for b in bindings if b.position >= last]
        forms: dict[Expr, int] = {}
        for binding in bindings:
            form = self._binding(binding, node)
            if form is not None:
                forms.setdefault(form, binding.position[0])
        if not forms:
            return f.leaf(node.id)
        if len(forms) > 1:
            shown = ", ".join(f"line {line} `{form}`" for form, line in forms.items())
            msg = f"`{node.id}` takes different values: {shown}"
            raise Untraced(msg, min(forms.values()))
        return next(iter(forms))

    def _binding(self, binding: Assignment, use: ast.Name) -> Expr | None:
        if id(binding) in self.visiting:
            line = binding.position[0]
            msg = f"`{use.id}` is computed from itself, in a loop (line {line})"
            raise Untraced(msg, line)
        self.visiting.add(id(binding))
        try:
            return self._value(binding, use)
        finally:
            self.visiting.discard(id(binding))

    def _value(self, binding: Assignment, use: ast.Name) -> Expr | None:
        source, line = binding.source, binding.position[0]
        if binding.how == "assign" and _empty(source):
            return None  # filled later, in place
        if binding.how == "augment":
            return self._augmented(source)  # type: ignore[arg-type]
        if binding.how == "call":
            return self._in_place(source, use, line)  # type: ignore[arg-type]
        if binding.how == "loop" or binding.element:
            return self._element(source, binding.element, use, line)
        return self.read(source)

    def _augmented(self, statement: ast.AugAssign) -> Expr:
        target = statement.target
        if not isinstance(target, ast.Name):  # x[k] += v: the element's value
            return self.read(statement.value)
        combined = _combine(statement.op, self.name(target), self.read(statement.value))
        self.origins.setdefault(combined, statement.lineno)
        return combined

    def _in_place(self, call: ast.Call, use: ast.Name, line: int) -> Expr | None:
        method = getattr(call.func, "attr", "")
        if getattr(call.func, "value", None) is None or not isinstance(call.func.value, ast.Name):
            # torch.div(x, n, out=buf), or a method of an attribute: the object changes
            return self._unreadable_change(use, line, ast.unparse(call))
        if method in _FILLS:
            return self.read(call.args[-1]) if call.args else None
        if not method.endswith("_"):
            return None  # x.sum(), x.numel(): reads the object, does not change it
        receiver = call.func.value
        bare = method[:-1]
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        if bare in _KEEPS:
            return self.name(receiver)
        if bare in {"clamp", "clip", "clamp_min"}:  # the guard, as the call's own spelling
            guarded = self._guard(bare, [receiver, *call.args], keywords)
            if guarded is not None:
                return guarded
        elif (operator := _OPERATOR_CALLS.get(bare)) is not None and len(call.args) == 1:
            return operator(self.name(receiver), self.read(call.args[0]))
        return self._unreadable_change(use, line, ast.unparse(call))

    def _unreadable_change(self, use: ast.Name, line: int, code: str) -> Expr:
        msg = f"line {line} changes `{use.id}` in place with `{code}`, which docpact does not read"
        raise Untraced(msg, line)

    def _element(self, source: ast.AST, path: tuple[int, ...], use: ast.Name, line: int) -> Expr:
        """What a target takes of a value, at `path` in what it unpacks.

        A loop target takes an element of the iterable, which has the iterable's formula.
        """
        node: ast.AST | Expr = source
        for index in path:
            node = self._part(node, index, use, line)  # type: ignore[arg-type]
            if isinstance(node, f.Expr):
                return node
        return self.read(node)  # type: ignore[arg-type]

    def _part(self, node: ast.AST, index: int, use: ast.Name, line: int) -> ast.AST | Expr:
        func = getattr(node, "func", None)
        name = getattr(func, "id", None) or getattr(func, "attr", None)
        if isinstance(node, ast.Call) and name == "zip" and index < len(node.args):
            return node.args[index]
        if isinstance(node, ast.Call) and name == "enumerate" and node.args:
            return f.leaf(use.id) if index == 0 else node.args[0]
        if isinstance(node, ast.Call) and name == "items" and isinstance(func, ast.Attribute):
            return f.leaf(use.id) if index == 0 else func.value
        if isinstance(node, ast.Tuple | ast.List) and index < len(node.elts):
            return node.elts[index]
        code = ast.unparse(node)
        msg = f"line {line} unpacks `{code}` into `{use.id}`, which docpact cannot follow"
        raise Untraced(msg, line)


def _combine(op: ast.operator, left: Expr, right: Expr) -> Expr:
    """The formula of a binary operator on two formulas."""
    match op:
        case ast.Add():
            return f.add(left, right)
        case ast.Mult():
            return f.multiply(left, right)
        case ast.Sub():
            return f.subtract(left, right)
        case ast.Div():
            return f.divide(left, right)
        case ast.FloorDiv():
            return f.divide(left, right, floor=True)
        case ast.Pow():
            return f.power(left, right)
    return f.call(type(op).__name__, (left, right))


def _replaces(binding: Assignment) -> bool:
    """Whether an assignment changes a value into another (`d *= b`, `d.clamp_(min=1)`)."""
    if binding.how == "augment":
        return True
    method = getattr(getattr(binding.source, "func", None), "attr", "")
    return binding.how == "call" and method.endswith("_")


def _empty(node: ast.AST) -> bool:
    """Whether a value is an empty container: `[]`, `{}`, `set()`, `dict()`, `list()`."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set) and not node.elts:
        return True
    if isinstance(node, ast.Dict) and not node.keys:
        return True
    name = getattr(getattr(node, "func", None), "id", None)
    return isinstance(node, ast.Call) and name in {"list", "dict", "set"} and not node.args


def code_formula(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    operands: Mapping[str, str],
    found: list[Division] | None = None,
    modules: frozenset[str] = MODULES,
    renamed: Mapping[str, str] | None = None,
) -> CodeFormula | None:
    """Derive a function's divisor formula from its body.

    Args:
        function: The function's node, with the line numbers of its file.
        operands: The code's name of each operand, to its name in the docs.
        found: The function's divisions, where the caller has them (`divisions`).
        modules: The names the function's module gives numeric modules (`th` for
            `import torch as th`) and what it imports from them, besides the usual ones.
        renamed: The functions it imports under another name, to their own (`root` to
            `sqrt` for `from math import sqrt as root`).

    Returns:
        The formula of the returned division that uses the most operands; `None` where no
        division reaches the returned value (DP003 and DP006 report those).

    Raises:
        Untraced: When the divisor cannot be read as one formula.
    """
    found = divisions(function) if found is None else found
    live = [chain for chain in chains(found) if chain.live]
    if not live:
        return None
    wanted = set(operands)
    # The chain that uses the most operands, the longest of those: `y = x / d` then
    # `y / m` divides by both.
    rank = max((len(chain.names & wanted), len(chain.members)) for chain in live)
    best = [c for c in live if (len(c.names & wanted), len(c.members)) == rank]
    reader = _CodeReader(Scope(function), operands, modules, renamed or {})
    try:
        formulas = {_divisor(reader, found, chain): chain for chain in best}
    except RecursionError:
        line = best[0].line
        msg = f"the divisor at line {line} is nested too deeply to read"
        raise Untraced(msg, line) from None
    if len(formulas) > 1:
        shown = ", ".join(f"line {chain.line} `{form}`" for form, chain in formulas.items())
        msg = f"the function returns several divisions: {shown}"
        raise Untraced(msg, best[0].line)
    divisor, chain = next(iter(formulas.items()))
    try:
        first = found[chain.members[0]].dividend
        numerator = reader.read(first) if first is not None else None
    except (Untraced, RecursionError):
        numerator = None
    return CodeFormula(divisor, numerator, reader.origins.get(divisor, chain.line))


def _divisor(reader: _CodeReader, found: list[Division], chain: Division) -> Expr:
    return f.multiply(*(reader.read(node) for i in chain.members for node in found[i].divisors))
