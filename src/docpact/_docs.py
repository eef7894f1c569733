# SPDX-License-Identifier: MIT
"""The docs rules of a contract: each listed section exists and names every operand.

A section runs from its heading to the next heading of the same or a higher level, so it
includes its subsections: an operand named only in a subsection counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docpact._findings import Finding
from docpact._markdown import inline_code_names, sections

if TYPE_CHECKING:
    from docpact._config import Config, Contract

__all__ = ["check_docs"]


def check_docs(contract: Contract, config: Config) -> list[Finding]:
    """Check that every docs section of a contract exists and names every operand.

    A section includes its subsections.

    Args:
        contract: The contract.
        config: The project's contracts, for its root and `pyproject.toml`.

    Returns:
        DP004 and DP005 findings, possibly none.
    """
    findings = []
    pyproject = config.pyproject.name
    for section_ref in contract.docs:
        page, _, anchor = section_ref.partition("#")
        try:
            text = (config.root / page).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            why = (
                "does not exist"
                if isinstance(error, FileNotFoundError)
                else f"cannot be read: {error}"
            )
            message = f"docs page {page} of {contract.object} {why}"
            findings.append(Finding(pyproject, contract.line, "DP005", message))
            continue
        section = next((s for s in sections(text) if s.anchor == anchor), None)
        if section is None:
            message = f"{page} has no heading with anchor #{anchor}, listed for {contract.object}"
            findings.append(Finding(pyproject, contract.line, "DP005", message))
            continue
        named = inline_code_names(section.text)
        findings.extend(
            Finding(
                Path(page).as_posix(),
                section.line,
                "DP004",
                f"section #{anchor} does not name operand `{operand}` as inline code",
            )
            for operand in contract.operands
            if operand not in named
        )
    return findings
