# SPDX-License-Identifier: MIT
"""The docs rules every kind shares: each listed section exists (DP005) and names (DP004).

A section runs from its heading to the next heading of the same or a higher level, so it
includes its subsections: a name given only in a subsection counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docpact._model.findings import cannot_read
from docpact._model.rules import Rule
from docpact._readers.files import Unreadable, read_text
from docpact._readers.markdown.prose import inline_code_names
from docpact._readers.markdown.sections import Section, sections

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from docpact._model.rules import Subject

__all__ = ["DOCS_EXIST", "DOCS_NAME", "docs_pages", "docs_sections", "unnamed_in_sections"]


def _pages(subject: Subject) -> dict[str, str | Unreadable]:
    pages: dict[str, str | Unreadable] = {}
    for section in subject.contract.docs:
        page = section.partition("#")[0]
        if page not in pages:
            try:
                pages[page] = read_text(subject.config.root / page)
            except Unreadable as error:
                pages[page] = error
    return pages


def docs_pages(subject: Subject) -> dict[str, str | Unreadable]:
    """Each listed docs page's text, or the error reading it, by its path."""
    return subject.shared(_pages)


def _sections(subject: Subject) -> dict[str, Section | None]:
    parsed = {
        page: sections(text, subject.config.headings)
        for page, text in docs_pages(subject).items()
        if isinstance(text, str)
    }
    found: dict[str, Section | None] = {}
    for ref in subject.contract.docs:
        page, _, anchor = ref.partition("#")
        found[ref] = next((s for s in parsed.get(page, []) if s.anchor == anchor), None)
    return found


def docs_sections(subject: Subject) -> dict[str, Section | None]:
    """Each listed `page#anchor`'s section, `None` where its page or heading is missing."""
    return subject.shared(_sections)


def _missing_sections(subject: Subject) -> Iterator[tuple[str, int, str]]:
    contract, pyproject = subject.contract, subject.config.pyproject.name
    for ref, section in docs_sections(subject).items():
        if section is not None:
            continue
        page, _, anchor = ref.partition("#")
        text = docs_pages(subject)[page]
        if isinstance(text, Unreadable) and text.missing:
            message = f"docs page {page} of {contract.label} does not exist"
        elif isinstance(text, Unreadable):
            message = f"docs page {page} of {contract.label} {cannot_read(text)}"
        else:
            message = f"{page} has no heading with anchor #{anchor}, listed for {contract.label}"
            message += _closest(anchor, sections(text, subject.config.headings))
        yield pyproject, contract.line, message


def _closest(anchor: str, found: list[Section]) -> str:
    """The page's anchors closest to a missing one, as a hint; its first five when none is."""
    anchors = list(dict.fromkeys(section.anchor for section in found))
    if not anchors:
        return " (the page has no headings)"
    import difflib  # only for a finding

    close = difflib.get_close_matches(anchor, anchors, n=3, cutoff=0.6)
    named = ", ".join(f"#{name}" for name in close or anchors[:5])
    more = "" if close or len(anchors) <= 5 else f" and {len(anchors) - 5} more"
    return f" (closest: {named})" if close else f" (the page's anchors: {named}{more})"


def unnamed_in_sections(
    subject: Subject, names: Iterable[str], read: Callable[[str], set[str]]
) -> Iterator[tuple[str, int, str]]:
    """A finding for each name a listed docs section does not give as inline code.

    Args:
        subject: The contract.
        names: The names each section must give.
        read: What a section gives: its names (`inline_code_names`) or its spans.

    Yields:
        Each finding's page as listed, line and message; a missing section is DP005's.
    """
    for ref, section in docs_sections(subject).items():
        if section is None:
            continue
        page, _, anchor = ref.partition("#")
        named = read(section.text)
        for name in names:
            if name not in named:
                message = (
                    f"section #{anchor} does not name {subject.kind.noun} `{name}` as inline code"
                )
                yield page, section.line, message


def _unnamed_in_sections(subject: Subject) -> Iterator[tuple[str, int, str]]:
    found = unnamed_in_sections(subject, subject.contract.identifiers, inline_code_names)
    for page, line, message in found:
        yield Path(page).as_posix(), line, message


DOCS_EXIST = Rule(
    "DP005",
    "every listed docs page and heading anchor exists",
    "the contract",
    _missing_sections,
)
DOCS_NAME = Rule(
    "DP004",
    "every listed docs section, subsections included, names every operand or name as inline "
    "code (HTML comments do not count)",
    "the heading",
    _unnamed_in_sections,
)
