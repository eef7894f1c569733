# SPDX-License-Identifier: MIT
"""The `kinds` kind: an object's docstring and docs sections name every registered kind.

The names come from the registry, the kinds that other distributions register under
`docpact.kinds` included, so a list of kinds in prose cannot fall behind the kinds
docpact has: docpact keeps its own package docstring and README so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docpact._kinds.docs import DOCS_EXIST, docs_sections
from docpact._kinds.objects import OBJECT, ObjectContract, obj, usable
from docpact._model import keys
from docpact._model.findings import relative
from docpact._model.rules import Kind, Rule
from docpact._readers.markdown.prose import inline_code_spans
from docpact._readers.python.sources import filepath

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
    found = obj(subject)
    spans = inline_code_spans(found.docstring.value)
    path = relative(filepath(found), subject.config.root)
    line = found.docstring.lineno or found.lineno or 1
    for name in names:
        if name not in spans:
            yield (
                path,
                line,
                (
                    f"docstring of {subject.contract.object} does not name kind `{name}` as "
                    "inline code"
                ),
            )
    for ref, section in docs_sections(subject).items():
        if section is None:
            continue  # DP005's finding
        page, _, anchor = ref.partition("#")
        spans = inline_code_spans(section.text)
        for name in names:
            if name not in spans:
                yield (
                    page,
                    section.line,
                    f"section #{anchor} does not name kind `{name}` as inline code",
                )


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
