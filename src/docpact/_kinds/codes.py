# SPDX-License-Identifier: MIT
"""The `codes` kind: an object's docstring and docs sections name the codes of some kinds.

A module that lists the finding codes of its rules in prose goes stale when a rule is added
or removed. A `codes` contract names the kinds (`kinds`), installed ones included; the
docstring and each listed docs section must name every code of those kinds' rules, and
name no code, of the same prefix, that no installed rule has. docpact holds the claims
extension's own docstring so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docpact._kinds.coverage import COVERAGE_RULES
from docpact._kinds.docs import DOCS_EXIST, docs_sections
from docpact._kinds.impact import CONTRACT_AT_RISK
from docpact._kinds.objects import OBJECT, ObjectContract, obj, usable
from docpact._model import keys
from docpact._model.findings import relative
from docpact._model.rules import Kind, Rule
from docpact._readers.python.sources import filepath

if TYPE_CHECKING:
    from collections.abc import Iterator

    from docpact._model.rules import Subject

__all__ = ["CODES_NAMED", "NAMES_THE_CODES", "CodesContract"]

_CODE = re.compile(r"\b([A-Z]{2,})(\d{3})\b")


@dataclass(frozen=True, kw_only=True)
class CodesContract(ObjectContract):
    """A `codes` contract: an object whose docstring and docs name the codes of some kinds.

    Attributes:
        kinds: The kinds whose rules' codes must be named.
    """

    kind: str = "codes"
    kinds: tuple[str, ...] = ()


_KIND_NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")


def _parse(entry: dict[str, Any], key: str) -> CodesContract:
    keys.require(entry, key, "codes", ("object", "kinds"))
    kinds = entry.get("kinds")
    if (
        not isinstance(kinds, list)
        or not kinds
        or not all(isinstance(k, str) and _KIND_NAME.fullmatch(k) for k in kinds)
        or len(set(kinds)) < len(kinds)
    ):
        msg = f"{key}.kinds must be a non-empty list of kind names, each once, got {kinds!r}"
        raise ValueError(msg)
    return CodesContract(
        object=keys.dotted_path(entry.get("object"), f"{key}.object"),
        kinds=tuple(kinds),
        docs=keys.sections(entry.get("docs", []), f"{key}.docs", kind="codes"),
    )


def _names_the_codes(subject: Subject) -> Iterator[tuple[str, int, str]]:
    contract, installed = subject.contract, subject.kinds()
    if unknown := [name for name in contract.kinds if name not in installed]:
        message = (
            f"kinds lists {', '.join(unknown)}, which no installed kind is "
            f"(installed: {', '.join(sorted(installed))})"
        )
        yield subject.config.pyproject.name, contract.line, message
    wanted = {
        rule.code: name
        for name in contract.kinds
        if name in installed
        for rule in installed[name].rules
    }
    known = {rule.code for kind in installed.values() for rule in kind.rules}
    known |= {rule.code for rule in (*COVERAGE_RULES, CONTRACT_AT_RISK)}
    prefixes = {match[1] for code in wanted if (match := _CODE.fullmatch(code)) is not None}
    found = obj(subject)
    places = [
        (
            relative(filepath(found), subject.config.root),
            found.docstring.lineno or found.lineno or 1,
            f"docstring of {contract.object}",
            found.docstring.value,
        )
    ]
    for ref, section in docs_sections(subject).items():
        if section is not None:
            page, _, anchor = ref.partition("#")
            places.append((page, section.line, f"section #{anchor}", section.text))
    for path, line, what, text in places:
        named = {match[0] for match in _CODE.finditer(text)}
        for code in sorted(set(wanted) - named):
            yield path, line, f"{what} does not name code {code}, a rule of kind {wanted[code]}"
        for code in sorted(named - known):
            match = _CODE.fullmatch(code)
            if match is not None and match[1] in prefixes:
                yield path, line, f"{what} names code {code}, which no installed rule has"


NAMES_THE_CODES = Rule(
    "DP025",
    "the docstring and every listed docs section name each code of the rules of the "
    "contract's `kinds`, and no code of their prefix that no installed rule has",
    "the docstring, or the heading",
    _names_the_codes,
    needs=usable,
)

CODES_NAMED = Kind(
    name="codes",
    summary="an object's docstring and docs keep naming the codes of some kinds' rules",
    required=frozenset({"object", "kinds"}),
    optional=frozenset({"docs"}),
    noun="code",
    rules=(OBJECT, NAMES_THE_CODES, DOCS_EXIST),
    parse=_parse,
)
