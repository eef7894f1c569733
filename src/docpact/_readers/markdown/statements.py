# SPDX-License-Identifier: MIT
r"""The statements of a divisor's formula in a docstring or a docs section.

A statement is a code span or a math expression (`$...$`, `$$...$$`, `\(...\)`, `\[...\]`,
reStructuredText's `:math:` role), or the denominator of a `/` or `\frac` inside one, that
holds every operand, or the guard applied to any of them. A division whose numerator is the
code's numerator states its divisor too, whatever its denominator. Where a division's
denominator is a statement, the division around it is not; a name alone is a mention, not a
statement, unless it is a denominator (`hits / lookups`). Other formulas
(`1 / num_trained_rows`) are neither compared nor reported. Only what a reader sees counts:
fenced code and HTML comments hold no statement.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docpact._readers.markdown.latex import LatexError, read_latex
from docpact._readers.markdown.prose import INLINE, page_lines, prose_lines
from docpact._readers.python.formula import read_python

if TYPE_CHECKING:
    from collections.abc import Iterator

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
    r"|(?<![\\$])\$(?P<inline>[^\s$](?:[^$\n]*[^\s$\\])?)\$(?!\d)",
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
    prose = "\n".join(prose_lines(page_lines(text)))
    # What may hold a statement names an operand or the numerator: the rest is not read.
    wanted = set(operands) | (numerator.names() if numerator is not None else set())
    found: list[tuple[int, Statement]] = []
    blanked = []
    at = 0
    for span in INLINE.finditer(prose):
        blanked += [prose[at : span.start], re.sub(r"[^\n]", " ", span[0] or "")]
        at = span.end
        code = span["code"]
        if code is not None and _words(code) & wanted:
            start = span.start + len(span["ticks"] or "")
            # reStructuredText's :math:`...` role holds LaTeX, not code.
            read = _latex if prose.endswith(":math:", 0, span.start) else _python
            found += [
                (start + offset, statement)
                for offset, statement in read(code, operands, numerator, prose, start, first_line)
            ]
    blanked.append(prose[at:])
    math_text = "".join(blanked)
    for match in _MATH.finditer(math_text):
        group = next(name for name in ("display", "bracket", "paren", "inline") if match[name])
        if not _words(match[group]) & wanted:
            continue
        start = match.start(group)
        found += [
            (start + offset, statement)
            for offset, statement in _latex(
                match[group], operands, numerator, prose, start, first_line
            )
        ]
    return [statement for _, statement in sorted(found, key=lambda item: item[0])]


def _line(prose: str, offset: int, first_line: int) -> int:
    return first_line + prose.count("\n", 0, offset)


def _holds(expr: Expr, operands: tuple[str, ...]) -> bool:
    """Whether a formula is a statement: it holds every operand, or guards one."""
    names = expr.names()
    return set(operands) <= names or (expr.op == "guard" and bool(names & set(operands)))


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


def _python(
    code: str,
    operands: tuple[str, ...],
    numerator: Expr | None,
    prose: str,
    start: int,
    first_line: int,
) -> Iterator[tuple[int, Statement]]:
    source = code.strip()
    lead = len(code) - len(code.lstrip())
    flat = source.replace("\n", " ")
    try:
        tree = ast.parse(flat, mode="eval").body
    except SyntaxError as error:
        try:  # `divisor = max(1, ...)`: the value assigned
            body = ast.parse(flat, mode="exec").body
        except SyntaxError:
            body = []
        if len(body) == 1 and isinstance(body[0], ast.Assign | ast.AnnAssign) and body[0].value:
            tree = body[0].value
        else:
            if _named(source, operands):
                problem = f"is not a Python expression ({error.msg})"
                line = _line(prose, start + lead, first_line)
                yield lead, Statement(line, source, None, problem)
            return
    names = {operand: operand for operand in operands}
    sides = [(read_python(tree, names), tree.col_offset)]
    divisions = [
        (read_python(node.left, names), read_python(node.right, names), node.right.col_offset)
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.FloorDiv)
    ]
    for expr, column in _chosen(sides, divisions, operands, numerator):
        offset = lead + column
        yield offset, Statement(_line(prose, start + offset, first_line), source, expr)


def _latex(
    math: str,
    operands: tuple[str, ...],
    numerator: Expr | None,
    prose: str,
    start: int,
    first_line: int,
) -> Iterator[tuple[int, Statement]]:
    try:
        read = read_latex(math, frozenset(operands))
    except LatexError as error:
        if _named(math, operands):
            lead = len(math) - len(math.lstrip())
            line = _line(prose, start + lead, first_line)
            yield lead, Statement(line, math.strip(), None, f"cannot be read as math: {error}")
        return
    for expr, offset in _chosen(read.sides, read.divisions, operands, numerator):
        line = _line(prose, start + offset, first_line)
        if macros := expr.macros():
            problem = f"uses the LaTeX macro `{macros[0]}`, which docpact does not read"
            yield offset, Statement(line, math.strip(), None, problem)
        else:
            yield offset, Statement(line, math.strip(), expr)
