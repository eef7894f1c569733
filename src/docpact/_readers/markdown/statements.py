# SPDX-License-Identifier: MIT
r"""The statements of a divisor's formula in a docstring or a docs section.

A statement is a code span or a math expression (`$...$`, `$$...$$`, `\(...\)`, `\[...\]`,
reStructuredText's `:math:` role), or the denominator of a `/` or `\frac` inside one, that
holds every operand, or the guard applied to any of them. A division whose numerator is the
code's numerator states its divisor too, whatever its denominator. Where a division's
denominator is a statement, the division around it is not; a name alone is a mention, not a
statement, unless it is a denominator (`hits / lookups`). Other formulas
(`1 / num_trained_rows`) are neither compared nor reported. Only what a reader sees counts:
fenced code, HTML comments, doctest lines and block quote markers hold no statement.

A place may name its divisor and define it apart: where a code span or math defines a name
(`d = max(1, a * b)`, `$D = \max(1, a \cdot b)$`), a statement that uses the name (`x / d`)
states what it is defined as.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docpact._model.formula import substitute
from docpact._readers.markdown.latex import LatexError, read_latex
from docpact._readers.markdown.prose import INLINE, page_lines, prose_lines
from docpact._readers.python.formula import read_python

if TYPE_CHECKING:
    from docpact._model.formula import Expr

__all__ = ["Statement", "statements"]


@dataclass(frozen=True)
class Statement:
    """One statement of the formula, or a would-be one docpact cannot read.

    Attributes:
        line: Its 1-based line in the file.
        source: The code span's or math's text.
        formula: What it states; `None` where it cannot be read.
        problem: Why it cannot be read, where `formula` is `None`.
    """

    line: int
    source: str
    formula: Expr | None
    problem: str = ""


# Display math first, so that its `$$` is not read as two empty inline `$`.
_MATH = re.compile(
    r"\$\$(?P<display>.+?)\$\$|\\\[(?P<bracket>.+?)\\\]|\\\((?P<paren>.+?)\\\)"
    r"|(?<![\\$])\$(?P<inline>[^\s$](?:(?:[^$\n]|\n(?![ \t]*\n))*?[^\s$\\])?)\$(?!\d)",
    re.DOTALL,
)
_WORD = re.compile(r"[A-Za-z_]\w*")


def statements(
    text: str, first_line: int, operands: tuple[str, ...], numerator: Expr | None = None
) -> list[Statement]:
    """Find the statements of a formula in Markdown or a docstring.

    Args:
        text: The Markdown (a section's body, or a docstring).
        first_line: The file's line of the text's first line.
        operands: The operands, in the docs' names.
        numerator: The code's numerator, in the docs' names, where it is known.

    Returns:
        The statements, in the order of the text.
    """
    prose = "\n".join(_shown(prose_lines(page_lines(text))))
    reading = _Reading(prose, first_line, operands, numerator)
    blanked = []
    at = 0
    for span in INLINE.finditer(prose):
        blanked += [prose[at : span.start], re.sub(r"[^\n]", " ", span[0] or "")]
        at = span.end
        code = span["code"]
        if code is not None and _words(code) & reading.wanted:
            start = span.start + len(span["ticks"] or "")
            # reStructuredText's :math:`...` role holds LaTeX, not code.
            if prose.endswith(":math:", 0, span.start):
                reading.latex(code, start)
            else:
                reading.python(code, start)
    blanked.append(prose[at:])
    for match in _MATH.finditer("".join(blanked)):
        group = next(name for name in ("display", "bracket", "paren", "inline") if match[name])
        if _words(match[group]) & reading.wanted:
            reading.latex(match[group], match.start(group))
    return reading.result()


# A doctest's lines, and the `>` markers of a block quote, are not what a reader reads.
_DOCTEST = re.compile(r"^[ \t]*(?:>>>|\.\.\.)(?:[ \t]|$)")
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+")


def _shown(lines: list[str]) -> list[str]:
    """The lines with doctest lines blanked and block quote markers made spaces.

    A doctest is a `>>>` line, the `...` lines that continue it, and its output up to a
    blank line; a `...` line elsewhere is prose.
    """
    out: list[str] = []
    doctest = False
    for line in lines:
        prompt = _DOCTEST.match(line)
        doctest = bool(prompt and prompt[0].lstrip().startswith(">>>")) or (
            doctest and bool(line.strip())
        )
        if doctest:
            out.append("")
        elif quote := _QUOTE.match(line):
            out.append(" " * quote.end() + line[quote.end() :])
        else:
            out.append(line)
    return out


class _Reading:
    """The statements of one place, and the names it defines, as they are read."""

    def __init__(
        self, prose: str, first_line: int, operands: tuple[str, ...], numerator: Expr | None
    ) -> None:
        self.prose, self.first_line = prose, first_line
        self.operands, self.numerator = operands, numerator
        # What may hold a statement names an operand or the numerator: the rest is not read.
        self.wanted = set(operands) | (numerator.names() if numerator is not None else set())
        self.found: list[tuple[int, Statement]] = []
        self.defined: dict[str, Expr] = {}

    def line(self, offset: int) -> int:
        return self.first_line + self.prose.count("\n", 0, offset)

    def result(self) -> list[Statement]:
        found = sorted(self.found, key=lambda item: item[0])
        return [_defined(statement, self.defined) for _, statement in found]

    def problem(self, offset: int, source: str, problem: str) -> None:
        self.found.append((offset, Statement(self.line(offset), _one_line(source), None, problem)))

    def python(self, code: str, start: int) -> None:
        source = code.strip()
        lead = start + len(code) - len(code.lstrip())
        flat = source.replace("\n", " ")
        try:
            tree = ast.parse(flat, mode="eval").body
        except SyntaxError as error:
            try:  # `divisor = max(1, ...)`: the value assigned, which defines the name
                body = ast.parse(flat, mode="exec").body
            except SyntaxError:
                body = []
            if len(body) != 1 or not isinstance(body[0], ast.Assign) or not body[0].value:
                if _named(source, self.operands) and _formula_like(source):
                    self.problem(lead, source, f"is not a Python expression ({error.msg})")
                return
            tree = body[0].value
            targets = body[0].targets
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                self.define(targets[0].id, tree)
        names = {operand: operand for operand in self.operands}
        try:
            sides = [(read_python(tree, names), tree.col_offset)]
            divisions = [
                (
                    read_python(node.left, names),
                    read_python(node.right, names),
                    node.right.col_offset,
                )
                for node in ast.walk(tree)
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.FloorDiv)
            ]
        except RecursionError:
            if _named(source, self.operands):
                self.problem(lead, source, "is nested too deeply to read")
            return
        for expr, column in _chosen(sides, divisions, self.operands, self.numerator):
            line = self.line(lead + column)
            self.found.append((lead + column, Statement(line, _one_line(source), expr)))

    def define(self, name: str, tree: ast.AST) -> None:
        names = {operand: operand for operand in self.operands}
        try:
            self.definition(name, read_python(tree, names))
        except RecursionError:
            return

    def definition(self, name: str, value: Expr) -> None:
        """Keep a name's definition, unless it would change what statements say.

        An operand or the numerator given a value is an example (`b = 0`), not the divisor's
        name; a definition that uses its own name, or a macro docpact does not read, is none.
        """
        if name in self.wanted or name in value.names() or value.macros():
            return
        self.defined.setdefault(name, value)

    def latex(self, math: str, start: int) -> None:
        lead = start + len(math) - len(math.lstrip())
        try:
            read = read_latex(math, frozenset(self.operands))
        except LatexError as error:
            if _named(math, self.operands):
                self.problem(lead, math.strip(), f"cannot be read as math: {error}")
            return
        except RecursionError:
            if _named(math, self.operands):
                self.problem(lead, math.strip(), "is nested too deeply to read")
            return
        for name, value in read.definitions:
            self.definition(name, value)
        for expr, offset in _chosen(read.sides, read.divisions, self.operands, self.numerator):
            if macros := expr.macros():
                problem = f"uses the LaTeX macro `{macros[0]}`, which docpact does not read"
                self.problem(start + offset, math.strip(), problem)
            else:
                line = self.line(start + offset)
                self.found.append((start + offset, Statement(line, _one_line(math), expr)))


def _one_line(source: str) -> str:
    """A statement's source on one line, for a finding's message."""
    return " ".join(source.split())


def _defined(statement: Statement, defined: dict[str, Expr]) -> Statement:
    """A statement with the names its place defines replaced by their definitions."""
    if statement.formula is None or not statement.formula.names() & set(defined):
        return statement
    formula = substitute(statement.formula, defined, depth=4)
    return Statement(statement.line, statement.source, formula, statement.problem)


# What a code span that is no formula looks like: a command line, a definition, a keyword.
_NOT_FORMULA = re.compile(r"--|\b(?:def|class|import|lambda|return|for|in)\b")
_OPERATOR = re.compile(r"[*/+]|\bmax\s*\(|\bclamp")


def _formula_like(text: str) -> bool:
    """Whether unreadable code reads like a formula (an operator, a guard), not a command."""
    return bool(_OPERATOR.search(text)) and not _NOT_FORMULA.search(text)


# A call of other names alone (`scale(x, a, b)`) is a signature, not a formula, unless the
# function is one formulas are written with.
_MATH_CALLS = frozenset(
    {"abs", "sqrt", "log", "exp", "min", "max", "sum", "mean", "prod", "clamp", "maximum"}
    | {"minimum", "floor", "ceil", "pow", "hypot", "norm", "log1p", "rsqrt"}
)


def _holds(expr: Expr, operands: tuple[str, ...]) -> bool:
    """Whether a formula is a statement: it holds every operand, or guards operands only."""
    signature = all(arg.op in {"name", "kw"} for arg in expr.args)
    if expr.op == "call" and signature and expr.value not in _MATH_CALLS:
        return False
    names, wanted = expr.names(), set(operands)
    if wanted <= names:
        return True
    # `max(1, a)` states the divisor without `b`; `max(1, c)`, naming another, states nothing.
    return expr.op == "guard" and bool(names) and names <= wanted


def _chosen(
    sides: list[tuple[Expr, int]],
    divisions: list[tuple[Expr, Expr, int]],
    operands: tuple[str, ...],
    numerator: Expr | None,
) -> list[tuple[Expr, int]]:
    """The statements among an expression's sides and division denominators."""
    denominators = [
        (denominator, start)
        for top, denominator, start in divisions
        if _holds(denominator, operands) or (numerator is not None and top == numerator)
    ]
    if denominators:
        return denominators
    # A name alone is a mention, not a formula: `lookups` states nothing of a guard.
    return [(side, start) for side, start in sides if side.op != "name" and _holds(side, operands)]


def _words(text: str) -> set[str]:
    r"""The names a code span or math writes, `\_` (or `\\_`) read as `_`."""
    return set(_WORD.findall(text.replace("\\\\", "\\").replace("\\_", "_")))


def _named(text: str, operands: tuple[str, ...]) -> bool:
    """Whether unreadable text still names every operand: a statement docpact must report."""
    return set(operands) <= _words(text)
