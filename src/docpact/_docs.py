# SPDX-License-Identifier: MIT
"""The docs rules every kind shares: each listed section exists (DP005) and names (DP004).

A section runs from its heading to the next heading of the same or a higher level, so it
includes its subsections: a name given only in a subsection counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docpact._findings import Finding, cannot_read
from docpact._markdown import inline_code_names
from docpact._rule import Rule

if TYPE_CHECKING:
    from docpact._rule import Subject

__all__ = ["DOCS_EXIST", "DOCS_NAME"]


def _missing_sections(subject: Subject) -> list[Finding]:
    contract, pyproject = subject.contract, subject.config.pyproject.name
    findings = []
    for ref, section in subject.sections.items():
        if section is not None:
            continue
        page, _, anchor = ref.partition("#")
        text = subject.pages[page]
        if isinstance(text, FileNotFoundError):
            message = f"docs page {page} of {contract.label} does not exist"
        elif isinstance(text, OSError | UnicodeDecodeError):
            message = f"docs page {page} of {contract.label} {cannot_read(text)}"
        else:
            message = f"{page} has no heading with anchor #{anchor}, listed for {contract.label}"
        findings.append(Finding(pyproject, contract.line, "DP005", message))
    return findings


def _unnamed_in_sections(subject: Subject) -> list[Finding]:
    findings = []
    for ref, section in subject.sections.items():
        if section is None:
            continue
        page, _, anchor = ref.partition("#")
        named = inline_code_names(section.text)
        findings.extend(
            Finding(
                Path(page).as_posix(),
                section.line,
                "DP004",
                f"section #{anchor} does not name {subject.kind.noun} `{name}` as inline code",
            )
            for name in subject.contract.identifiers
            if name not in named
        )
    return findings


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
