# SPDX-License-Identifier: MIT
"""The `kinds` kind: an object's docstring and docs sections name every registered kind.

The names come from the registry, the kinds that other distributions register under
`docpact.kinds` included, so a list of kinds in prose cannot fall behind the kinds
docpact has: docpact keeps its own package docstring and README so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docpact._kinds.docs import DOCS_EXIST, unnamed_in_sections
from docpact._kinds.objects import OBJECT, ObjectContract, unnamed_in_docstring, usable
from docpact._model import keys
from docpact._model.rules import Kind, Rule
from docpact._readers.markdown.prose import inline_code_spans

if TYPE_CHECKING:
    from collections.abc import Iterator

    from docpact._model.rules import Subject

__all__ = ["KIND_NAMES", "NAMES_EVERY_KIND", "KindsContract"]


@dataclass(frozen=True, kw_only=True)
class KindsContract(ObjectContract):
    """A `kinds` contract: an object and docs sections that name every registered kind."""

    kind: str = "kinds"


def _parse(entry: dict[str, Any], key: str) -> KindsContract:
    keys.require(entry, key, "kinds", ("object",))
    return KindsContract(
        object=keys.dotted_path(entry.get("object"), f"{key}.object"),
        docs=keys.sections(entry.get("docs", []), f"{key}.docs", kind="kinds"),
    )


def _names_every_kind(subject: Subject) -> Iterator[tuple[str, int, str]]:
    names = sorted(subject.kinds())
    yield from unnamed_in_docstring(subject, names, inline_code_spans)
    yield from unnamed_in_sections(subject, names, inline_code_spans)


NAMES_EVERY_KIND = Rule(
    "DP017",
    "the docstring and every listed docs section name every registered kind as inline code, "
    "the kinds of other distributions included",
    "the docstring, or the heading",
    _names_every_kind,
    needs=usable,
)

KIND_NAMES = Kind(
    name="kinds",
    summary="an object's docstring and docs keep naming every registered kind of contract",
    required=frozenset({"object"}),
    optional=frozenset({"docs"}),
    noun="kind",
    rules=(OBJECT, NAMES_EVERY_KIND, DOCS_EXIST),
    parse=_parse,
)
