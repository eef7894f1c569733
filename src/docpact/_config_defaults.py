# SPDX-License-Identifier: MIT
"""The `config-defaults` kind: a YAML block on each listed docs section equals a file as data.

The block is announced on the page by `<!-- docpact: config-defaults FILE -->`, just above a
fenced `yaml` block, as for `docpact.sybil.ConfigDefaultsParser`, which runs the same
comparison in the tests; `docpact check` and the mkdocs build run it with this code.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import yaml

from docpact._data import differences
from docpact._docs import DOCS_EXIST
from docpact._findings import Finding, cannot_read
from docpact._rule import Kind, Rule

if TYPE_CHECKING:
    from docpact._rule import Subject

__all__ = ["CONFIG_DEFAULTS"]

_BLOCK = re.compile(
    r"<!--\s*docpact:\s*config-defaults\s+(?P<file>\S+)\s*-->[ \t]*\n\s*"
    r"^(?P<fence>`{3,}|~{3,})[ \t]*ya?ml[^\n]*\n(?P<source>.*?)^[ \t]*(?P=fence)[ \t]*$",
    re.DOTALL | re.MULTILINE,
)


def _blocks_equal_the_file(subject: Subject) -> list[Finding]:
    contract, pyproject = subject.contract, subject.config.pyproject.name
    try:
        text = (subject.config.root / contract.file).read_text(encoding="utf-8")
        expected = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError) as error:
        return [Finding(pyproject, contract.line, "DP007", f"{contract.file} {cannot_read(error)}")]
    except yaml.YAMLError as error:
        message = f"{contract.file} is not valid YAML: {' '.join(str(error).split())}"
        return [Finding(pyproject, contract.line, "DP007", message)]
    findings = []
    for ref, section in subject.sections.items():
        if section is None:
            continue  # DP005's finding
        page, _, anchor = ref.partition("#")
        blocks = [b for b in _BLOCK.finditer(section.text) if b["file"] == contract.file]
        if not blocks:
            message = (
                f"section #{anchor} has no yaml block announced by "
                f"<!-- docpact: config-defaults {contract.file} -->"
            )
            findings.append(Finding(page, section.line, "DP007", message))
        for block in blocks:
            line = section.line + 1 + section.text.count("\n", 0, block.start())
            try:
                documented = yaml.safe_load(block["source"])
            except yaml.YAMLError as error:
                message = f"the yaml block is not valid YAML: {' '.join(str(error).split())}"
                findings.append(Finding(page, line, "DP007", message))
                continue
            if found := differences(documented, expected, file=contract.file):
                keys = "; ".join(difference.strip() for difference in found)
                message = f"the yaml block differs from {contract.file}: {keys}"
                findings.append(Finding(page, line, "DP007", message))
    return findings


CONFIG_DEFAULTS = Kind(
    name="config-defaults",
    summary="a YAML block on each listed docs section equals a packaged file as data",
    required=frozenset({"file", "docs"}),
    optional=frozenset(),
    noun="key",
    rules=(
        DOCS_EXIST,
        Rule(
            "DP007",
            "each listed docs section holds a yaml block, announced by "
            "`<!-- docpact: config-defaults FILE -->`, equal to the contract's file as data",
            "the block, the heading, or the contract",
            _blocks_equal_the_file,
        ),
    ),
    needs_package=False,
)
