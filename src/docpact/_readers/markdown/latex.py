# SPDX-License-Identifier: MIT
r"""LaTeX math read as formulas: the sides of each relation, and every division's parts.

The tokens are pylatexenc's (`pylatexenc.latexwalker.LatexWalker.get_token`, with no
macro definitions: each macro, character, brace and environment boundary as TeX reads it);
this module groups a number's digits and a name macro's argument, and puts the tokens into
expressions.
It reads what divisor formulas are written with: `+`, `-`, `\cdot`, `\times`, `*`, `/`,
`\div` and juxtaposition; `\frac` (and `\dfrac`, `\tfrac`, `\cfrac`); `\max`, `\min`
and other named functions; `\left(`...`\right)`, braces and sized delimiters; names
written as letters, `\mathrm{...}`, `\text{...}`, `\operatorname{...}` and the like, with
escaped underscores; a function application such as `\mathrm{name}(r)`; subscripts,
powers, accents (`\hat{A}`) and spacing. Any other macro (`\sum`, `\in`) is kept as an
`unknown` node, which a statement may not hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from docpact._model import formula as f

if TYPE_CHECKING:
    from docpact._model.formula import Expr

__all__ = ["LatexError", "Math", "read_latex"]


class LatexError(ValueError):
    """Math that docpact cannot read: unbalanced braces or a misplaced token."""


@dataclass
class Math:
    r"""What one math expression says, read.

    Attributes:
        sides: Each side of its relations (`a = b \le c` has three), with the offset in
            the source where it starts.
        divisions: Every division in it: numerator, denominator, and the offset in the
            source where the denominator starts.
        definitions: Each name it defines (`D = \max(1, a)`, `D := ...`), with its value.
    """

    sides: list[tuple[Expr, int]] = field(default_factory=list)
    divisions: list[tuple[Expr, Expr, int]] = field(default_factory=list)
    definitions: list[tuple[str, Expr]] = field(default_factory=list)


_FRACTIONS = frozenset({r"\frac", r"\dfrac", r"\tfrac", r"\cfrac"})
_NAMES = frozenset(
    {r"\mathrm", r"\text", r"\textrm", r"\textit", r"\textsf", r"\texttt", r"\mathit"}
    | {r"\mathsf", r"\mathtt", r"\mathbf", r"\textbf", r"\mathnormal", r"\mbox"}
    | {r"\mathbb", r"\mathcal", r"\mathfrak", r"\mathscr", r"\boldsymbol", r"\bm"}
)
_ACCENTS = frozenset(
    {r"\hat", r"\bar", r"\tilde", r"\vec", r"\overline", r"\widehat", r"\widetilde", r"\dot"}
)
_FUNCTIONS = frozenset({r"\max", r"\min", r"\log", r"\ln", r"\exp", r"\sqrt"})
_TIMES = frozenset({r"\cdot", r"\times", "*", r"\ast"})
_OVER = frozenset({"/", r"\div"})
_RELATIONS = frozenset(
    {
        "=",
        "<",
        ">",
        ",",
        ";",
        ".",
        ":",
        r"\le",
        r"\leq",
        r"\ge",
        r"\geq",
        r"\ne",
        r"\neq",
        r"\approx",
    }
    | {r"\equiv", r"\sim", r"\propto", r"\to", r"\coloneqq", r"\eqqcolon", r"\mapsto", r"\quad"}
    | {r"\qquad", r"\implies", r"\iff", r"\Rightarrow", r"\rightarrow", r"\leftarrow"}
)
_SPACES = frozenset({"\\ ", r"\,", r"\;", r"\:", r"\!", "~", r"\>", r"\displaystyle"})
_SIZES = frozenset(
    {r"\left", r"\right", r"\big", r"\Big", r"\bigg", r"\Bigg", r"\bigl", r"\bigr", r"\Bigl"}
    | {r"\Bigr", r"\biggl", r"\biggr", r"\Biggl", r"\Biggr", r"\middle"}
)
_OPENS = {"(": ")", "[": "]", r"\{": r"\}", r"\lbrace": r"\rbrace", r"\langle": r"\rangle"}
_BARS = {"|": "|", r"\lvert": r"\rvert", r"\vert": r"\vert", r"\lVert": r"\rVert"}
_CLOSES = frozenset({*_OPENS.values(), "}", r"\rvert", r"\rVert"})
_NUMBER = re.compile(r"\d+(?:\.\d*)?|\.\d+")
_NUMBERS = re.compile(r"\d+(?:\.\d+)?|\.\d+|\.")  # a run of digits and dots, split
_LETTER = re.compile(r"[A-Za-z]")


def read_latex(source: str, operands: frozenset[str] = frozenset()) -> Math:
    r"""Read a math expression into its relation sides and divisions.

    Args:
        source: The LaTeX, without its `$` delimiters.
        operands: The names that an application such as `\mathrm{name}(r)` reads as the
            name itself; any other name applied is a function call.

    Returns:
        What it says.

    Raises:
        LatexError: When its braces or delimiters do not balance, or a token stands where
            no expression can.
    """
    tokens, offsets = _tokens(source)
    kept, at = _layout_dropped(tokens)
    return _Parser(kept, [offsets[i] for i in at], operands).relation()


def _tokens(source: str) -> tuple[list[str], list[int]]:
    r"""The tokens of the math, each with its offset in the source; comments left out.

    A macro is its backslash and name (`\cdot`, `\_`, `\\`, `\tag*`), `\begin{aligned}`
    and `\end{aligned}` are one token each, as is `\operatorname{clip}`; a name macro's
    braced argument (`\text{ where }`, `\mathrm{num\_rows}`) is one token after it, as
    written; a run of digits and dots is its numbers (`2.5`, `.5`) and its other dots.
    """
    # Only for a page with math. No macro definitions: no specials (`&`, `~`) either.
    from pylatexenc.latexwalker import LatexWalker, LatexWalkerEndOfStream, LatexWalkerError
    from pylatexenc.macrospec import LatexContextDb

    walker = LatexWalker(source, latex_context=LatexContextDb(), tolerant_parsing=False)
    raw: list[tuple[str, str, int, int]] = []  # kind, text, offset, end
    at = 0
    while True:
        try:
            token = walker.get_token(at)
        except LatexWalkerEndOfStream:
            break
        except LatexWalkerError as error:
            raise LatexError(str(error).splitlines()[0]) from None
        at = token.pos + token.len
        if token.tok == "comment":
            continue
        text = {
            "macro": f"\\{token.arg}",
            "begin_environment": f"\\begin{{{token.arg}}}",
            "end_environment": f"\\end{{{token.arg}}}",
        }.get(token.tok, str(token.arg))
        if raw and raw[-1][1] in _STARRED and text == "*" and raw[-1][3] == token.pos:
            raw[-1] = (raw[-1][0], raw[-1][1] + "*", raw[-1][2], at)  # `\tag*`
            continue
        raw.append((token.tok, text, token.pos, at))
    return _grouped(source, raw)


def _grouped(source: str, raw: list[tuple[str, str, int, int]]) -> tuple[list[str], list[int]]:
    r"""The tokens as the reader takes them: numbers, and name macros with their argument.

    A fraction takes its next two arguments and `^` and `_` their next one: a digit there is
    an argument of its own (`\frac12` is one half, `x^23` is `x` squared times 3), as TeX
    reads it. A math alphabet's argument (`\mathrm{num\_rows}`) is one name, its spaces
    dropped, and a single character is that letter alone (`\mathrm{r}` is `r`); a text
    macro's (`\text{ where }`) is kept as written, spaces and all.
    """
    closes: dict[int, int] = {}
    opened: list[int] = []
    for index, (kind, *_) in enumerate(raw):
        if kind == "brace_open":
            opened.append(index)
        elif kind == "brace_close" and opened:
            closes[opened.pop()] = index
    tokens: list[str] = []
    offsets: list[int] = []
    pending, resume = 0, []  # arguments still to take; each open brace's, to take after it
    i = 0
    while i < len(raw):
        kind, text, start, end = raw[i]
        i += 1
        if kind == "brace_open":
            resume.append(max(pending - 1, 0))
            pending = 0
        elif kind == "brace_close":
            pending = resume.pop() if resume else 0
        grouped = text in _NAMES or text in _OPERATOR_NAMES
        if kind == "macro" and grouped and i < len(raw) and (close := closes.get(i)) is not None:
            inner = source[raw[i][3] : raw[close][2]]
            alphabet = text not in _TEXT_NAMES and text not in _OPERATOR_NAMES
            if alphabet:
                inner = "".join(inner.split())
            if text in _OPERATOR_NAMES:
                found = [(f"{text}{{{inner}}}", start)]
            elif alphabet and len(inner) == 1:
                found = [(inner, raw[i][3])]  # `\mathrm{r}` is the letter `r`
            else:
                found = [(text, start), (inner, raw[i][3])] if inner else []  # `\text{}`: none
            tokens += [token for token, _ in found]
            offsets += [offset for _, offset in found]
            pending = max(pending - 1, 0)
            i = close + 1
            continue
        if kind == "char" and text in _DIGITS and pending == 0:
            while i < len(raw) and raw[i][1] in _DIGITS and raw[i][2] == end:
                text, end = text + raw[i][1], raw[i][3]
                i += 1
            for match in _NUMBERS.finditer(text):
                tokens.append(match[0])
                offsets.append(start + match.start())
            continue
        tokens.append(text)
        offsets.append(start)
        if kind in {"brace_open", "brace_close"}:
            continue
        pending = 2 if text in _FRACTIONS else 1 if text in {"^", "_"} else max(pending - 1, 0)
    return tokens, offsets


_DIGITS = frozenset("0123456789.")
_STARRED = frozenset({r"\tag", r"\operatorname"})
_OPERATOR_NAMES = frozenset({r"\operatorname", r"\operatorname*"})
_TEXT_NAMES = frozenset({r"\text", r"\textrm", r"\textit", r"\textsf", r"\texttt", r"\textbf"}) | {
    r"\mbox"
}


# Layout, not formula: what separates formulas, and what is dropped with its argument.
_SEPARATES = {r"\\": ";", "&": None, r"\nonumber": None, r"\notag": None}
_DROPPED_WITH_GROUP = frozenset({r"\tag", r"\label", r"\tag*"})
_DEFINES = frozenset({"=", ":=", r"\coloneqq"})
# Unicode operators, by code point: the middle and multiplication dots, minus and division.
_UNICODE = {
    "\u00b7": r"\cdot",
    "\u22c5": r"\cdot",
    "\u00d7": r"\times",
    "\u2212": "-",
    "\u00f7": r"\div",
}


def _layout_dropped(tokens: list[str]) -> tuple[list[str], list[int]]:
    r"""The tokens with layout made separators or dropped, and each kept token's index.

    `\\`, `\begin{...}` and `\end{...}` separate formulas; `&`, `\nonumber` and `\notag`
    go, as do `\tag{...}` and `\label{...}`; `\text{ where }` with spaces is prose between
    formulas; Unicode's middle dot and multiplication sign are `\cdot` and `\times`.
    """
    kept: list[str] = []
    at: list[int] = []
    i = 0
    while i < len(tokens):
        token = _UNICODE.get(tokens[i], tokens[i])
        if token in _DROPPED_WITH_GROUP:
            i += 1
            if i < len(tokens) and tokens[i] != "{":  # `\tag{1}`: its content is one token
                i += 1
                continue
            depth = 0
            while i < len(tokens):
                depth += {"{": 1, "}": -1}.get(tokens[i], 0)
                i += 1
                if depth == 0:
                    break
            continue
        if token.startswith((r"\begin", r"\end")):
            token = ";"
        elif token in _SEPARATES:
            token = _SEPARATES[token]
        elif token in _NAMES and i + 1 < len(tokens) and tokens[i + 1] != "{":
            text = tokens[i + 1]  # `\text{...}`'s content, one token
            if text != text.strip() or " " in text.strip():
                kept.append(";")
                at.append(i)
                i += 2
                continue
        if token is not None:
            kept.append(token)
            at.append(i)
        i += 1
    return kept, at


class _Parser:
    """A recursive-descent reader of one math expression's tokens."""

    def __init__(self, tokens: list[str], offsets: list[int], operands: frozenset[str]) -> None:
        self.operands = operands
        self.tokens = [t for t in tokens if t not in _SPACES]
        self.offsets = [o for t, o in zip(tokens, offsets, strict=True) if t not in _SPACES]
        self.at = 0
        self.math = Math()

    def peek(self) -> str:
        return self.tokens[self.at] if self.at < len(self.tokens) else ""

    def offset(self) -> int:
        return self.offsets[min(self.at, len(self.offsets) - 1)] if self.offsets else 0

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if expected is not None and token != expected:
            got = f"`{token}`" if token else "the end"
            msg = f"expected `{expected}`, got {got}"
            raise LatexError(msg)
        if not token:
            msg = "the math ends where an expression should follow"
            raise LatexError(msg)
        self.at += 1
        return token

    def relation(self) -> Math:
        sides = self.math.sides
        while True:
            between = []
            while self.peek() in _RELATIONS:
                between.append(self.take())
            if not self.peek():
                return self.math
            start = self.offset()
            side = self.sum()
            if "".join(between) in _DEFINES and sides and sides[-1][0].op == "name":
                self.math.definitions.append((str(sides[-1][0].value), side))
            sides.append((side, start))
            if self.peek() and self.peek() not in _RELATIONS:
                msg = f"unexpected `{self.peek()}`"
                raise LatexError(msg)

    def sum(self) -> Expr:
        value = self.product()
        while self.peek() in {"+", "-"}:
            sign = self.take()
            term = self.product()
            value = f.subtract(value, term) if sign == "-" else f.add(value, term)
        return value

    def product(self) -> Expr:
        value = self.unary()
        while True:
            token = self.peek()
            if token in _TIMES:
                self.take()
                value = f.multiply(value, self.unary())
            elif token in _OVER:
                self.take()
                start = self.offset()
                denominator = self.unary()
                self.math.divisions.append((value, denominator, start))
                value = f.divide(value, denominator)
            elif self._starts_atom(token):  # juxtaposition: `2 n`, `T_r \mathrm{rows}`
                value = f.multiply(value, self.unary())
            else:
                return value

    def unary(self) -> Expr:
        if self.peek() == "-":
            self.take()
            return f.negate(self.unary())
        if self.peek() == "+":
            self.take()
        return self.postfix()

    def postfix(self) -> Expr:
        value, name = self.atom()
        while True:
            token = self.peek()
            if token == "_":
                self.take()
                subscript = self.raw_group()
                if name and name not in self.operands:  # an operand's subscript is its index
                    value = f.leaf(f"{name}_{{{subscript}}}")
                name = name if name in self.operands else ""
            elif token == "^":
                self.take()
                value, name = f.power(value, self.argument()), ""
            elif token == "(" and name:  # `name(r)`: an operand's application is the operand
                args = self.arguments("(")
                value = f.leaf(name) if name in self.operands else f.call(name, tuple(args))
                name = ""
            else:
                return value

    def _starts_atom(self, token: str) -> bool:
        if token in _SIZES:  # `\right)` closes; `\left(` opens
            ahead = self.at
            while ahead < len(self.tokens) and self.tokens[ahead] in _SIZES:
                ahead += 1
            token = self.tokens[ahead] if ahead < len(self.tokens) else ""
        if not token or token in _RELATIONS or token in _CLOSES or token in {"+", "-", "_", "^"}:
            return False
        # A bar closes an absolute value as often as it opens one: it opens only a term.
        return token not in _TIMES and token not in _OVER and token not in {"&", *_BARS}

    def atom(self) -> tuple[Expr, str]:
        """An atom, and its name where it is a plain name that may take `(r)` or `_i`."""
        token = self.peek()
        if _NUMBER.fullmatch(token):
            self.take()
            return f.number(float(token)), ""
        if _LETTER.fullmatch(token) or token == r"\_":
            name = self.letters()
            return f.leaf(name), name
        if token in _NAMES:
            self.take()
            name = self.name_group()
            return f.leaf(name), name
        if token.startswith(r"\operatorname"):
            self.take()
            name = token.partition("{")[2].rstrip("}").strip()
            if self.peek() == "(":
                return self.function(name), ""
            return f.leaf(name), name
        if token in _FRACTIONS:
            self.take()
            numerator = self.argument()
            start = self.offset()
            denominator = self.argument()
            self.math.divisions.append((numerator, denominator, start))
            return f.divide(numerator, denominator), ""
        if token in _FUNCTIONS:
            self.take()
            return self.function(token[1:]), ""
        if token in _ACCENTS:
            self.take()
            inner = self.raw_group()
            name = f"{token[1:]}({inner})"
            return f.leaf(name), name
        if token in _SIZES:
            self.take()
            return self.atom()
        if token == "{":
            return self.braced(), ""
        if token in _BARS:  # |x|, \lvert x \rvert: the absolute value
            close = _BARS[self.take()]
            value = self.sum()
            self.skip_sizes()
            self.take(close)
            return f.call("abs", (value,)), ""
        if token in _OPENS:
            close = _OPENS[self.take()]
            value = self.sum()
            self.skip_sizes()
            self.take(close)
            return value, ""
        if token.startswith("\\") and token not in _CLOSES:
            self.take()
            return f.unknown(token), ""
        got = f"`{token}`" if token else "the end"
        msg = f"expected an expression, got {got}"
        raise LatexError(msg)

    def letters(self) -> str:
        """A run of letters, digits and escaped underscores with no space between: one name."""
        parts: list[str] = []
        end = -1
        while (token := self.peek()) and (
            _LETTER.fullmatch(token) or token == r"\_" or (parts and token.isdigit())
        ):
            if parts and self.offset() != end:  # `b a`: a space ends the name
                break
            end = self.offset() + len(token)
            self.take()
            parts.append("_" if token == r"\_" else token)
        return "".join(parts)

    def name_group(self) -> str:
        r"""The name in `\mathrm{...}` or `\text{...}` (whose content is one token)."""
        if self.peek() != "{":
            token = self.take()
            return token.replace(r"\_", "_").strip()
        return self.raw_group().replace(r"\_", "_").replace(" ", "")

    def raw_group(self) -> str:
        """A braced group or a single token, as text: a subscript, an accent's argument."""
        if self.peek() != "{":
            return self.take()
        self.take("{")
        parts, depth = [], 1
        while True:
            token = self.take("}") if self.peek() == "" else self.take()
            depth += {"{": 1, "}": -1}.get(token, 0)
            if depth == 0:
                return "".join(parts)
            # A name macro's argument, one token, as written: `x_{\mathrm{rows}}`.
            parts.append(f"{{{token}}}" if parts and parts[-1] in _NAMES else token)

    def braced(self) -> Expr:
        self.take("{")
        value = self.sum()
        self.take("}")
        return value

    def argument(self) -> Expr:
        r"""One argument, as TeX takes it: a braced group, else one token (`x^ab` is `x^a b`)."""
        token = self.peek()
        if token == "{":
            return self.braced()
        if _LETTER.fullmatch(token):
            return f.leaf(self.take())
        return self.atom()[0]

    def group_or_atom(self) -> Expr:
        return self.braced() if self.peek() == "{" else self.postfix()

    def skip_sizes(self) -> None:
        while self.peek() in _SIZES:
            self.take()

    def function(self, name: str) -> Expr:
        r"""`\max(1, x)` and the like: the guard where it is `max` of a number and another."""
        self.skip_sizes()
        if self.peek() not in _OPENS:
            value = self.group_or_atom()
            return f.call(name, (value,))
        args = self.arguments(self.peek())
        if name == "max" and len(args) == 2:
            numbers = [arg for arg in args if arg.op == "number"]
            if len(numbers) == 1:
                other = args[1] if args[0] is numbers[0] else args[0]
                return f.guard(float(numbers[0].value), other)
        return f.call(name, tuple(args))

    def arguments(self, opener: str) -> list[Expr]:
        close = _OPENS[self.take(opener)]
        args = [self.sum()]
        while self.peek() == ",":
            self.take()
            args.append(self.sum())
        self.skip_sizes()
        self.take(close)
        return args
