# SPDX-License-Identifier: MIT
"""The object rules of the kinds that name one: it exists (DP001) and its docstring names (DP002).

Nothing here imports the checked package: the object comes from griffe's static view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docpact._findings import Finding, relative
from docpact._markdown import inline_code_names
from docpact._rule import Rule
from docpact._sources import filepath, missing_object

if TYPE_CHECKING:
    from docpact._rule import Subject

__all__ = ["DOCSTRING_NAMES", "OBJECT"]


def _object(subject: Subject) -> list[Finding]:
    contract, config, obj = subject.contract, subject.config, subject.obj
    if obj is None:
        return [missing_object(contract, package=subject.package, config=config)]
    path = relative(filepath(obj), config.root)
    if subject.kind.name == "divisor" and not obj.is_function:
        kind = obj.kind.value
        article = "an" if kind[0] in "aeiou" else "a"
        message = f"{contract.object} is {article} {kind}, not a function"
        return [Finding(path, obj.lineno or 1, "DP001", message)]
    divisor = subject.kind.name == "divisor"  # the only kind that reads the body
    line = (getattr(subject.node, "lineno", None) if divisor else None) or obj.lineno or 1
    if not obj.docstring or not obj.docstring.value.strip():
        return [Finding(path, line, "DP001", f"{contract.object} has no docstring")]
    if divisor and subject.node is None:
        message = f"{contract.object} has no source that docpact can read"
        return [Finding(path, line, "DP001", message)]
    return []


def _docstring_names(subject: Subject) -> list[Finding]:
    contract, obj = subject.contract, subject.obj
    named = inline_code_names(obj.docstring.value)
    path = relative(filepath(obj), subject.config.root)
    line = obj.docstring.lineno or obj.lineno or 1
    noun = subject.kind.noun
    return [
        Finding(
            path,
            line,
            "DP002",
            f"docstring of {contract.object} does not name {noun} `{name}` as inline code",
        )
        for name in contract.identifiers
        if name not in named
    ]


OBJECT = Rule(
    "DP001",
    "the object exists, its source can be read and parsed, it has a docstring, and for a "
    "divisor contract it is a function",
    "the contract, or the file and line at fault",
    _object,
)
DOCSTRING_NAMES = Rule(
    "DP002",
    "the docstring names every operand or name as inline code",
    "the docstring",
    _docstring_names,
    needs_object=True,
)
