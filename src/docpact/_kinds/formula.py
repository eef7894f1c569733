# SPDX-License-Identifier: MIT
"""The formula rules of a divisor contract: the docs state the divisor the code divides by.

The places are the object's docstring and each listed docs section. Each must state the
divisor's formula (DP022); every statement must equal the code's formula, derived from the
body, or the contract's `formula` where it declares one (DP023); and the code's divisor must
be one formula docpact can read, unless the contract declares it (DP024). Equal means equal
in `docpact._model.formula`'s normal form, nothing more.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from docpact._kinds.docs import docs_sections
from docpact._kinds.objects import node, obj, usable
from docpact._model.findings import relative
from docpact._model.formula import render
from docpact._model.rules import Rule
from docpact._readers.markdown.statements import statements
from docpact._readers.python.flow import MODULES
from docpact._readers.python.formula import Untraced, code_formula, read_python
from docpact._readers.python.sources import filepath, lookup
from docpact._readers.python.trace import divisions

if TYPE_CHECKING:
    from collections.abc import Iterator

    from docpact._model.formula import Expr
    from docpact._model.rules import Subject
    from docpact._readers.markdown.statements import Statement
    from docpact._readers.python.formula import CodeFormula
    from docpact._readers.python.trace import Division

__all__ = [
    "FORMULA_AGREES",
    "FORMULA_STATED",
    "FORMULA_TRACED",
    "declared_formula",
    "function_divisions",
]


def declared_formula(text: str, operands: tuple[str, ...], key: str) -> Expr:
    """A contract's `formula`, read as the docs' Python.

    Args:
        text: The key's value.
        operands: The contract's operands.
        key: The key, `tool.docpact.contract[N].formula`, for the message.

    Returns:
        The formula.

    Raises:
        ValueError: When the value is not one Python expression that holds an operand.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval").body if isinstance(text, str) else None
    except RecursionError:
        msg = f"{key} is nested too deeply to read, got {len(text)} characters"
        raise ValueError(msg) from None
    except SyntaxError as error:
        msg = (
            f'{key} must be a Python expression such as "max(1, a * b)", got {text!r} ({error.msg})'
        )
        raise ValueError(msg) from None
    if tree is None:
        msg = f"{key} must be a string holding a Python expression, got {text!r}"
        raise ValueError(msg)
    try:
        expr = read_python(tree, {operand: operand for operand in operands})
    except RecursionError:
        msg = f"{key} is nested too deeply to read, got {len(text)} characters"
        raise ValueError(msg) from None
    if not expr.names() & set(operands):
        msg = f"{key} must be an expression of the operands {list(operands)}, got {text!r}"
        raise ValueError(msg)
    if expr.op in {"/", "//"}:
        msg = (
            f"{key} is the divisor alone, without what it divides: got {text!r}, "
            f"write {str(expr.args[1])!r}"
        )
        raise ValueError(msg)
    return expr


@dataclass(frozen=True)
class _Place:
    """A docstring or docs section, and the statements in it."""

    path: str
    line: int
    label: str
    found: list[Statement]
    exists: bool = True


def _divisions(subject: Subject) -> list[Division]:
    body = node(subject)
    return divisions(body) if body is not None else []


def function_divisions(subject: Subject) -> list[Division]:
    """The divisions of the contract's function, found once for every rule that reads them."""
    return subject.shared(_divisions)


# Modules whose functions a divisor may call by a bare name, besides `MODULES`.
_NUMERIC = MODULES | {"statistics", "cmath", "fractions", "decimal", "scipy"}


def _imports(subject: Subject) -> tuple[frozenset[str], dict[str, str]]:
    """What the function's module imports from numeric modules, and the names it renames.

    `th` for `import torch as th`, `clamp` for `from torch import clamp`; and `root` to
    `sqrt` for `from math import sqrt as root`.
    """
    imports = getattr(obj(subject).module, "imports", {}) or {}
    numeric = {name: path for name, path in imports.items() if path.partition(".")[0] in _NUMERIC}
    renamed = {name: path.rpartition(".")[2] for name, path in numeric.items() if "." in path}
    return MODULES | frozenset(numeric), {k: v for k, v in renamed.items() if k != v}


def _code(subject: Subject) -> CodeFormula | Untraced | None:
    body = node(subject)
    if body is None:
        return None
    contract = subject.contract
    names = {contract.in_code(operand): operand for operand in contract.operands}
    try:
        modules, renamed = _imports(subject)
        return code_formula(body, names, function_divisions(subject), modules, renamed)
    except Untraced as error:
        return error


def _places(subject: Subject) -> list[_Place]:
    contract = subject.contract
    code = subject.shared(_code)
    numerator = code.numerator if code is not None and not isinstance(code, Untraced) else None
    places = []
    found = obj(subject)
    text, line = _docstring(subject)
    path = relative(filepath(found), subject.config.root)
    stated = statements(text, line, contract.operands, numerator)
    label = f"docstring of {contract.object}"
    places.append(_Place(path, found.docstring.lineno or line, label, stated))
    for ref, section in docs_sections(subject).items():
        if section is not None:
            page, _, anchor = ref.partition("#")
            first = section.body or section.line + 1
            stated = statements(section.text, first, contract.operands, numerator)
            places.append(_Place(page, section.line, f"section #{anchor}", stated))
    places += [_restatement(subject, dotted, numerator) for dotted in contract.restated]
    return places


def _restatement(subject: Subject, dotted: str, numerator: Expr | None) -> _Place:
    """A `restated` object as a place: a docstring, or a string constant's value as code."""
    operands = subject.contract.operands
    found = lookup(subject.package, dotted.split(".")[1:]) if subject.package else None
    if found is None:
        where = subject.config.pyproject.name
        return _Place(where, subject.contract.line, dotted, [], exists=False)
    path = relative(filepath(found), subject.config.root)
    line = found.lineno or 1
    if found.is_attribute and found.docstring is None and isinstance(found.value, str):
        try:
            value = ast.literal_eval(found.value)
        except (ValueError, SyntaxError):
            value = None
        if isinstance(value, str):  # the constant's text, read as a code span
            stated = statements(f"`{value}`", line, operands, numerator)
            return _Place(path, line, f"constant {dotted}", stated)
    if found.docstring is None:
        return _Place(path, line, f"{dotted}, which has no docstring,", [])
    line = found.docstring.lineno or line
    first = _first_line(subject.config.root / path, line, found.docstring.value)
    stated = statements(found.docstring.value, first, operands, numerator)
    return _Place(path, line, f"docstring of {dotted}", stated)


def _first_line(path: Path, opening: int, value: str) -> int:
    """The file's line of a cleaned docstring's first line: blank lines before it are gone."""
    first = next((line.strip() for line in value.splitlines() if line.strip()), "")
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return opening
    for number in range(opening, min(len(lines), opening + 50) + 1):
        if first and first in lines[number - 1]:
            return number
    return opening


def _docstring(subject: Subject) -> tuple[str, int]:
    """The docstring as written in the source, and its first line, for exact line numbers."""
    body = node(subject)
    first = body.body[0] if body is not None and body.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first.value.value, first.lineno
    docstring = obj(subject).docstring
    return docstring.value, docstring.lineno or 1


def _checked(subject: Subject) -> bool:
    """Whether the formula rules run: an object whose source DP001 accepts, not opted out."""
    return usable(subject) and subject.contract.statements and node(subject) is not None


def _stated(subject: Subject) -> Iterator[tuple[str, int, str]]:
    contract = subject.contract
    shown = _to_write(subject)
    for place in subject.shared(_places):
        for statement in place.found:
            if statement.formula is None:
                yield place.path, statement.line, f"`{statement.source}` {statement.problem}"
        if not place.exists:
            message = f"restated object {place.label} of {contract.object} does not exist"
            yield place.path, place.line, message
        elif not place.found:
            write = f": state it as inline code or math, e.g. `{shown}`" if shown else ""
            yield place.path, place.line, f"{place.label} states no formula of the divisor{write}"


def _to_write(subject: Subject) -> str | None:
    """The statement a place without one should write, in the docs' names, if docpact knows it.

    A formula that is a name alone would be a mention: the division is written out. A code
    formula that lost an operand is not offered (DP003 reports it).
    """
    contract, reference = subject.contract, _reference(subject)
    if reference is None or not set(contract.operands) <= reference.names():
        return None
    shown = render(reference, contract.operands)
    if reference.op != "name":
        return shown
    code = subject.shared(_code)
    numerator = getattr(code, "numerator", None)
    top = render(numerator, contract.operands) if numerator is not None else "x"
    return f"{top} / {shown}"


def _reference(subject: Subject) -> Expr | None:
    """What the statements must equal: the declared formula, else the code's."""
    declared = subject.contract.declared
    if declared is not None:
        return declared
    code = subject.shared(_code)
    return code.divisor if code is not None and not isinstance(code, Untraced) else None


def _agrees(subject: Subject) -> Iterator[tuple[str, int, str]]:
    contract, order = subject.contract, subject.contract.operands
    code = subject.shared(_code)
    traced = code if code is not None and not isinstance(code, Untraced) else None
    path = relative(filepath(obj(subject)), subject.config.root)
    declared = contract.declared
    if declared is not None and traced is not None and traced.divisor != declared:
        yield (
            path,
            traced.line,
            f"{contract.object} divides by `{render(traced.divisor, order)}`, but the contract's "
            f"formula is `{render(declared, order)}`",
        )
    stated = [
        (place, statement)
        for place in subject.shared(_places)
        for statement in place.found
        if statement.formula is not None
    ]
    reference = _reference(subject)
    if reference is None:  # nothing to compare with but one another
        if not stated:
            return
        first_place, first = stated[0]
        for place, statement in stated[1:]:
            if statement.formula != first.formula:
                yield (
                    place.path,
                    statement.line,
                    f"{_quoted(statement, order)}, but {first_place.label} (line "
                    f"{first.line}) states `{render(first.formula, order)}`",
                )
        return
    wrong = [(place, s) for place, s in stated if s.formula != reference]
    if not wrong:
        return
    forms = {statement.formula for _, statement in stated}
    # Two places or more that agree with one another, not with the code: the code changed.
    agreeing = len(forms) == 1 and len({place.path + place.label for place, _ in stated}) > 1
    if declared is None and traced is not None and agreeing:
        said = render(wrong[0][1].formula, order)
        where = ", ".join(
            dict.fromkeys(f"{place.path}:{statement.line}" for place, statement in wrong)
        )
        yield (
            path,
            traced.line,
            f"{contract.object} divides by `{render(reference, order)}`, but its docstring and "
            f"docs state `{said}` ({where}): change the code back, or the statements",
        )
        return
    source = "the contract's formula" if declared is not None else f"{contract.object}"
    verb = "is" if declared is not None else "divides by"
    for place, statement in wrong:
        yield (
            place.path,
            statement.line,
            f"{_quoted(statement, order)}, but {source} {verb} `{render(reference, order)}`",
        )


def _quoted(statement: Statement, order: tuple[str, ...]) -> str:
    """A statement and what it states, the latter only where it reads otherwise."""
    said = render(statement.formula, order)  # type: ignore[arg-type]
    if " ".join(statement.source.split()) == said:
        return f"`{statement.source}` is stated"
    return f"`{statement.source}` states `{said}`"


def _traced(subject: Subject) -> Iterator[tuple[str, int, str]]:
    code = subject.shared(_code)
    if not isinstance(code, Untraced) or subject.contract.declared is not None:
        return
    path = relative(filepath(obj(subject)), subject.config.root)
    yield (
        path,
        code.line,
        f"docpact cannot read the divisor of {subject.contract.object} as one formula: "
        f'{code.reason}; declare it in the contract: formula = "..."',
    )


FORMULA_STATED = Rule(
    "DP022",
    "the docstring and every listed docs section state the divisor's formula, as a code span "
    "or math docpact reads",
    "the docstring or heading, or the statement docpact cannot read",
    _stated,
    needs=_checked,
)
FORMULA_AGREES = Rule(
    "DP023",
    "every statement of the divisor's formula equals the code's (or the contract's "
    "`formula`), up to the order of `+` and `*` and the guard's spelling",
    "each statement that differs, or the code's divisor when every statement agrees",
    _agrees,
    needs=_checked,
)
FORMULA_TRACED = Rule(
    "DP024",
    "the code's divisor reads as one formula, or the contract declares `formula`",
    "the line that docpact cannot follow",
    _traced,
    needs=_checked,
)
