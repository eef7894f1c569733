# SPDX-License-Identifier: MIT
"""The `divisor` kind: a function whose division must keep dividing by the contract's operands.

DP006 requires a division at all; DP003 that a division, or a chain of divisions of one value,
computes its divisor from every operand, and that an operand the docstring documents as a
parameter is still one (a renamed parameter). The body comes from the syntax tree of the
function's module, never from importing it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from griffe import DocstringSectionKind

from docpact._kinds.docs import DOCS_EXIST, DOCS_NAME
from docpact._kinds.objects import DOCSTRING_NAMES, OBJECT, ObjectContract, node, obj, usable
from docpact._model import keys
from docpact._model.findings import relative
from docpact._model.rules import Kind, Rule
from docpact._readers.python.trace import chains, divisions

if TYPE_CHECKING:
    from collections.abc import Iterator

    from docpact._model.rules import Subject

__all__ = ["DIVISOR", "DivisorContract"]


@dataclass(frozen=True, kw_only=True)
class DivisorContract(ObjectContract):
    """A `divisor` contract: a function whose division keeps dividing by its operands.

    Attributes:
        operands: The names the divisor is computed from, each named as inline code in the
            docstring and in every docs section.
    """

    kind: str = "divisor"
    operands: tuple[str, ...] = ()

    @property
    def identifiers(self) -> tuple[str, ...]:
        """What the docstring and docs must name: the operands."""
        return self.operands


def _parse(entry: dict[str, Any], key: str) -> DivisorContract:
    keys.require(entry, key, "divisor", ("object",))
    return DivisorContract(
        object=keys.dotted_path(entry.get("object"), f"{key}.object"),
        operands=keys.identifiers(entry.get("operands"), f"{key}.operands"),
        docs=keys.sections(entry.get("docs", []), f"{key}.docs", kind="divisor"),
    )


def _where(subject: Subject) -> tuple[str, int]:
    path = relative(obj(subject).filepath, subject.config.root)  # a function's one file
    line = node(subject).lineno if node(subject) is not None else obj(subject).lineno
    return path, line or 1


def _divides(subject: Subject) -> Iterator[tuple[str, int, str]]:
    body = node(subject)
    if body is None or divisions(body):
        return  # no source: DP001's finding
    contract = subject.contract
    operands = ", ".join(f"`{operand}`" for operand in contract.operands)
    message = f"{contract.object} has no division; its divisor must use {operands}"
    yield *_where(subject), message + _hint(body)


def _hint(node: ast.AST) -> str:
    """How to write a division docpact follows, where the body divides another way."""
    for sub in ast.walk(node):
        name = getattr(sub, "attr", None) or getattr(sub, "id", None)
        reciprocal = name in _RECIPROCALS or (
            isinstance(sub, ast.BinOp)
            and isinstance(sub.op, ast.Pow)
            and isinstance(sub.right, ast.UnaryOp | ast.Constant)
            and ast.unparse(sub.right) in {"-1", "-1.0"}
        )
        if reciprocal:
            return (
                f" (line {sub.lineno} multiplies by a reciprocal, which docpact does not "  # type: ignore[attr-defined]
                "follow: write `x / divisor` or `torch.div(x, divisor)`)"
            )
    return (
        " (docpact follows `/`, `//`, `torch.div` and `.div()` in this body, through its "
        "local assignments; a division inside a helper function is not followed)"
    )


def _divides_by_operands(subject: Subject) -> Iterator[tuple[str, int, str]]:
    contract, body = subject.contract, node(subject)
    path, line = _where(subject)
    # A renamed parameter is reported once, as renamed, even if the divisor lost it too.
    renamed = _renamed_parameters(subject)
    for operand in renamed:
        yield (
            path,
            line,
            f"operand `{operand}` is documented as a parameter of {contract.object} "
            "but the signature has none (renamed?)",
        )
    found = divisions(body) if body is not None else []
    if not found:
        return  # DP006's finding, or DP001's for a function without source
    live = [chain for chain in chains(found) if chain.live]
    if not live:
        message = (
            f"no division in {contract.object} reaches the value it returns (its result is "
            "unused, or overwritten before the return): return what the division computes"
        )
        yield path, found[0].line, message
        return
    best = max(live, key=lambda chain: len(chain.names & set(contract.operands)))
    used = {
        name.id
        for name in ast.walk(body)
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load)
    }
    for operand in contract.operands:
        if operand not in best.names and operand not in renamed:
            yield (
                path,
                best.line,
                f"no division in {contract.object} computes its divisor from operand "
                f"`{operand}`" + (_ELSEWHERE if operand in used else ""),
            )


_ELSEWHERE = (
    " (the body uses it, but not as a value of a returned division's divisor: through an "
    "attribute or method such as `.numel()` or `.shape`, or elsewhere)"
)


# A multiplication by one of these is a division docpact cannot follow.
_RECIPROCALS = frozenset({"reciprocal", "reciprocal_", "rsqrt", "inverse"})


def _renamed_parameters(subject: Subject) -> list[str]:
    """The operands that the docstring's parameters section lists but the signature lacks."""
    function = obj(subject)
    sections = function.docstring.parse(subject.config.docstring_style, warnings=False)
    documented = {
        parameter.name
        for section in sections
        if section.kind is DocstringSectionKind.parameters
        for parameter in section.value
    }
    return [
        operand
        for operand in subject.contract.operands
        if operand in documented and operand not in function.parameters
    ]


DIVISOR = Kind(
    name="divisor",
    summary="a function's docstring, division and docs keep naming the operands of its divisor",
    required=frozenset({"object", "operands"}),
    optional=frozenset({"docs"}),
    noun="operand",
    parse=_parse,
    needs_function=True,
    rules=(
        OBJECT,
        DOCSTRING_NAMES,
        Rule(
            "DP003",
            "a division in the body (or a chain of divisions of one value) computes its "
            "divisor from every operand, and an operand the docstring documents as a "
            "parameter is still one",
            "the division, or the def for a renamed parameter",
            _divides_by_operands,
            needs=usable,
        ),
        Rule("DP006", "the body divides at all", "the def", _divides, needs=usable),
        DOCS_EXIST,
        DOCS_NAME,
    ),
)
