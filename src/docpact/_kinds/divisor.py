# SPDX-License-Identifier: MIT
"""The `divisor` kind: a function whose division must keep dividing by the contract's operands.

DP006 requires a division at all; DP003 that a division, or a chain of divisions of one value,
computes its divisor from every operand, and that an operand the docstring documents as a
parameter is still one (a renamed parameter). The body comes from the syntax tree of the
function's module, never from importing it.

An operand is named in the docstring and the docs as the docs speak of it; where the code
spells it otherwise, `code-names` maps it to the code's name, which the divisor must then be
computed from. The code's name counts in every form the trace follows: the name itself
(`counts`), subscripted (`counts[rid]`), as an attribute (`self.counts`) or through a method
(`counts.get(rid)`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from griffe import DocstringSectionKind

from docpact._kinds.docs import DOCS_EXIST, DOCS_NAME
from docpact._kinds.formula import (
    FORMULA_AGREES,
    FORMULA_STATED,
    FORMULA_TRACED,
    declared_formula,
    function_divisions,
)
from docpact._kinds.objects import DOCSTRING_NAMES, OBJECT, ObjectContract, node, obj, usable
from docpact._model import keys
from docpact._model.findings import relative
from docpact._model.rules import Kind, Rule
from docpact._readers.python.trace import chains
from docpact._readers.python.uses import describe, names_torch, uses

if TYPE_CHECKING:
    from collections.abc import Iterator

    from docpact._model.formula import Expr
    from docpact._model.rules import Subject

__all__ = ["DIVISOR", "DivisorContract"]


@dataclass(frozen=True, kw_only=True)
class DivisorContract(ObjectContract):
    """A `divisor` contract: a function whose division keeps dividing by its operands.

    Attributes:
        operands: The names the divisor is computed from, each named as inline code in the
            docstring and in every docs section.
        code_names: Each operand the code spells otherwise, with the code's name, in the
            order of `operands` (the `code-names` table).
        formula: The divisor's formula as the contract declares it (`formula`), for code
            docpact cannot read as one; empty where the code's own formula counts.
        declared: `formula`, read.
        statements: Whether the docstring and docs must state the formula (DP022-DP024);
            `statements = false` keeps only the naming rules.
        restated: Other objects of the package that restate the formula, each a place
            like the docstring: a module, class or function by its docstring, a string
            constant by its value.
    """

    kind: str = "divisor"
    operands: tuple[str, ...] = ()
    code_names: tuple[tuple[str, str], ...] = ()
    formula: str = ""
    declared: Expr | None = field(default=None, compare=False, repr=False)
    statements: bool = True
    restated: tuple[str, ...] = ()

    @property
    def identifiers(self) -> tuple[str, ...]:
        """What the docstring and docs must name: the operands."""
        return self.operands

    def in_code(self, operand: str) -> str:
        """The name the code gives an operand: its `code-names` entry, else the operand."""
        return dict(self.code_names).get(operand, operand)


def _parse(entry: dict[str, Any], key: str) -> DivisorContract:
    keys.require(entry, key, "divisor", ("object",))
    operands = keys.identifiers(entry.get("operands"), f"{key}.operands")
    stated = entry.get("statements", True)
    if not isinstance(stated, bool):
        msg = f"{key}.statements must be true or false, got {stated!r}"
        raise ValueError(msg)
    formula = entry.get("formula", "")
    if "formula" in entry and not stated:
        msg = f"{key}.formula is compared with the statements, which statements = false turns off"
        raise ValueError(msg)
    declared = declared_formula(formula, operands, f"{key}.formula") if "formula" in entry else None
    obj = keys.dotted_path(entry.get("object"), f"{key}.object")
    restated = (
        _restated(entry["restated"], f"{key}.restated", obj, stated=stated)
        if "restated" in entry
        else ()
    )
    return DivisorContract(
        object=obj,
        operands=operands,
        code_names=_code_names(entry.get("code-names", {}), f"{key}.code-names", operands),
        docs=keys.sections(entry.get("docs", []), f"{key}.docs", kind="divisor"),
        formula=formula,
        declared=declared,
        statements=stated,
        restated=restated,
    )


def _restated(value: object, key: str, obj: str, *, stated: bool) -> tuple[str, ...]:
    """The `restated` list: dotted paths in the object's own package, each once.

    Raises:
        ValueError: When the value is not such a list, or `statements = false` is set.
    """
    if not isinstance(value, list) or not value:
        msg = f"{key} must be a non-empty list of dotted Python paths, got {value!r}"
        raise ValueError(msg)
    if not stated:
        msg = f"{key} lists places of the formula, which statements = false turns off"
        raise ValueError(msg)
    paths = tuple(keys.dotted_path(path, key) for path in value)
    package = obj.partition(".")[0]
    if others := [path for path in paths if path.partition(".")[0] != package]:
        msg = f"{key} may list objects of package {package} only, got {others[0]!r}"
        raise ValueError(msg)
    if obj in paths:
        msg = f"{key} lists the contract's object {obj!r}, whose docstring is checked already"
        raise ValueError(msg)
    if len(set(paths)) < len(paths):
        msg = f"{key} lists an object twice: {list(paths)}"
        raise ValueError(msg)
    return paths


def _code_names(table: object, key: str, operands: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The `code-names` table: operand to the code's name, each name the code's for one.

    Raises:
        ValueError: When the value is not a table of operands to Python names, or two
            operands would share a name of the code.
    """
    if not isinstance(table, dict) or not all(map(keys.is_name, table.values())):
        msg = (
            f'{key} must be a table of operand = "the code\'s name", each a Python name, '
            f"got {table!r}"
        )
        raise ValueError(msg)
    if unknown := sorted(set(table) - set(operands)):
        msg = f"{key} maps {unknown}, which operands does not list; it lists {list(operands)}"
        raise ValueError(msg)
    names = {operand: table.get(operand, operand) for operand in operands}
    for operand, name in names.items():
        if shared := [other for other, same in names.items() if same == name and other != operand]:
            msg = (
                f"{key} gives operands `{operand}` and `{shared[0]}` the one name `{name}` in "
                "the code; each operand needs a name of its own"
            )
            raise ValueError(msg)
    return tuple((operand, table[operand]) for operand in operands if operand in table)


def _where(subject: Subject) -> tuple[str, int]:
    path = relative(obj(subject).filepath, subject.config.root)  # a function's one file
    line = node(subject).lineno if node(subject) is not None else obj(subject).lineno
    return path, line or 1


def _divides(subject: Subject) -> Iterator[tuple[str, int, str]]:
    body = node(subject)
    if body is None or function_divisions(subject):
        return  # no source: DP001's finding
    contract = subject.contract
    operands = ", ".join(f"`{operand}`" for operand in contract.operands)
    message = f"{contract.object} has no division; its divisor must use {operands}"
    torch = names_torch(body, obj(subject).module.imports.values())
    yield *_where(subject), message + _hint(body, torch=torch)


def _hint(node: ast.AST, *, torch: bool) -> str:
    """How to write a division docpact follows, where the body divides another way.

    Torch's words (`torch.div`, `.div()`) only where the function works with torch.
    """
    for sub in ast.walk(node):
        name = getattr(sub, "attr", None) or getattr(sub, "id", None)
        reciprocal = name in _RECIPROCALS or (
            isinstance(sub, ast.BinOp)
            and isinstance(sub.op, ast.Pow)
            and isinstance(sub.right, ast.UnaryOp | ast.Constant)
            and ast.unparse(sub.right) in {"-1", "-1.0"}
        )
        if reciprocal:
            write = "`x / divisor` or `torch.div(x, divisor)`" if torch else "`x / divisor`"
            return (
                f" (line {sub.lineno} multiplies by a reciprocal, which docpact does not "  # type: ignore[attr-defined]
                f"follow: write {write})"
            )
    follows = "`/`, `//`, `torch.div` and `.div()`" if torch else "`/`, `//` and `operator.truediv`"
    return (
        f" (docpact follows {follows} in this body, through its local assignments; a "
        "division inside a helper function is not followed)"
    )


def _divides_by_operands(subject: Subject) -> Iterator[tuple[str, int, str]]:
    contract, body = subject.contract, node(subject)
    path, line = _where(subject)
    # A renamed parameter is reported once, as renamed, even if the divisor lost it too.
    # A property has no parameters to rename: griffe gives its attribute none.
    renamed = _renamed_parameters(subject) if obj(subject).is_function else []
    for operand in renamed:
        yield (
            path,
            line,
            f"operand {_spelled(contract, operand)} is documented as a parameter of "
            f"{contract.object} but the signature has none (renamed?)",
        )
    found = function_divisions(subject)
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
    wanted = {contract.in_code(operand) for operand in contract.operands}
    best = max(live, key=lambda chain: len(chain.names & wanted))
    spelled = {
        sub.id if isinstance(sub, ast.Name) else sub.attr
        for sub in ast.walk(body)
        if isinstance(sub, ast.Name | ast.Attribute) and isinstance(sub.ctx, ast.Load)
    }
    for operand in contract.operands:
        name = contract.in_code(operand)
        if name not in best.names and operand not in renamed:
            still = describe(uses(body, name))
            yield (
                path,
                best.line,
                f"no division in {contract.object} computes its divisor from operand "
                f"{_spelled(contract, operand)}"
                + (f" ({still})" if still else _near_miss(operand, name, spelled)),
            )


def _spelled(contract: DivisorContract, operand: str) -> str:
    """An operand in a message, with the code's name where `code-names` maps it."""
    name = contract.in_code(operand)
    return f"`{operand}`" if name == operand else f"`{operand}` (`{name}` in the code)"


def _near_miss(operand: str, name: str, spelled: set[str]) -> str:
    """A hint naming the body's closest spelling of a missing operand, if it has one."""
    import difflib  # only for a finding

    close = difflib.get_close_matches(name, sorted(spelled - {name}), n=1, cutoff=0.8)
    if not close:
        return ""
    return (
        f" (did you mean `{close[0]}`? if the code spells the operand so, map it: "
        f'code-names = {{ {operand} = "{close[0]}" }})'
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
    contract = subject.contract
    return [
        operand
        for operand in contract.operands
        if (name := contract.in_code(operand)) in documented and name not in function.parameters
    ]


DIVISOR = Kind(
    name="divisor",
    summary="a function's docstring, division and docs keep naming the operands of its divisor",
    required=frozenset({"object", "operands"}),
    optional=frozenset({"docs", "code-names", "formula", "statements", "restated"}),
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
        FORMULA_STATED,
        FORMULA_AGREES,
        FORMULA_TRACED,
    ),
)
