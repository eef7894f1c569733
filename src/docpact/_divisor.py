# SPDX-License-Identifier: MIT
"""The `divisor` kind: a function whose division must keep dividing by the contract's operands.

DP006 requires a division at all; DP003 that a division, or a chain of divisions of one value,
computes its divisor from every operand, and that an operand the docstring documents as a
parameter is still one (a renamed parameter). The body comes from the syntax tree of the
function's module, never from importing it.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from griffe import DocstringSectionKind

from docpact._docs import DOCS_EXIST, DOCS_NAME
from docpact._findings import Finding, relative
from docpact._objects import DOCSTRING_NAMES, OBJECT
from docpact._rule import Kind, Rule
from docpact._trace import chains, divisions

if TYPE_CHECKING:
    from docpact._rule import Subject

__all__ = ["DIVISOR"]


def _where(subject: Subject) -> tuple[str, int]:
    path = relative(subject.obj.filepath, subject.config.root)  # a function's file is one path
    line = subject.node.lineno if subject.node is not None else subject.obj.lineno
    return path, line or 1


def _divides(subject: Subject) -> list[Finding]:
    if subject.node is None or divisions(subject.node):
        return []  # no source: DP001's finding
    contract = subject.contract
    operands = ", ".join(f"`{operand}`" for operand in contract.operands)
    message = f"{contract.object} has no division; its divisor must use {operands}"
    return [Finding(*_where(subject), "DP006", message + _hint(subject.node))]


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


def _divides_by_operands(subject: Subject) -> list[Finding]:
    contract = subject.contract
    path, line = _where(subject)
    # A renamed parameter is reported once, as renamed, even if the divisor lost it too.
    renamed = _renamed_parameters(subject)
    findings = [
        Finding(
            path,
            line,
            "DP003",
            f"operand `{operand}` is documented as a parameter of {contract.object} "
            "but the signature has none (renamed?)",
        )
        for operand in renamed
    ]
    found = divisions(subject.node) if subject.node is not None else []
    if not found:
        return findings  # DP006's finding, or DP001's for a function without source
    live = [chain for chain in chains(found) if chain.live]
    if not live:
        message = (
            f"no division in {contract.object} reaches the value it returns (its result is "
            "unused, or overwritten before the return): return what the division computes"
        )
        return [*findings, Finding(path, found[0].line, "DP003", message)]
    best = max(live, key=lambda chain: len(chain.names & set(contract.operands)))
    used = {
        node.id
        for node in ast.walk(subject.node)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    findings.extend(
        Finding(
            path,
            best.line,
            "DP003",
            f"no division in {contract.object} computes its divisor from operand `{operand}`"
            + (_ELSEWHERE if operand in used else ""),
        )
        for operand in contract.operands
        if operand not in best.names and operand not in renamed
    )
    return findings


_ELSEWHERE = (
    " (the body uses it, but not as a value of a returned division's divisor: through an "
    "attribute or method such as `.numel()` or `.shape`, or elsewhere)"
)


# A multiplication by one of these is a division docpact cannot follow.
_RECIPROCALS = frozenset({"reciprocal", "reciprocal_", "rsqrt", "inverse"})


def _renamed_parameters(subject: Subject) -> list[str]:
    """The operands that the docstring's parameters section lists but the signature lacks."""
    obj = subject.obj
    sections = obj.docstring.parse(subject.config.docstring_style, warnings=False)
    documented = {
        parameter.name
        for section in sections
        if section.kind is DocstringSectionKind.parameters
        for parameter in section.value
    }
    return [
        operand
        for operand in subject.contract.operands
        if operand in documented and operand not in obj.parameters
    ]


DIVISOR = Kind(
    name="divisor",
    summary="a function's docstring, division and docs keep naming the operands of its divisor",
    required=frozenset({"object", "operands"}),
    optional=frozenset({"docs"}),
    noun="operand",
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
            needs_object=True,
        ),
        Rule("DP006", "the body divides at all", "the def", _divides, needs_object=True),
        DOCS_EXIST,
        DOCS_NAME,
    ),
)
