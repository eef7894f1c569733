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

__all__ = ["CONFIG_DEFAULTS", "block_after"]

_COMMENT = re.compile(r"<!--\s*docpact:\s*config-defaults\s+(?P<file>\S+)\s*-->")
_OPEN = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*ya?ml(?:[ \t].*)?")


def block_after(text: str, end: int) -> tuple[str, int] | None:
    """The fenced `yaml` block that follows an announcing comment ending at `end`.

    Only blank lines may come between the comment and the block. The block may be indented
    (in a list item), and closes at a fence of the same character at least as long, as in
    CommonMark; its lines are given back without the opening fence's indent.

    Args:
        text: The page.
        end: Where the comment ends.

    Returns:
        The block's YAML source and where the block ends, or `None` if no block follows.
    """
    rest = text[end:]
    newline = rest.find("\n")
    # A lexer may end the comment before its `-->`.
    if newline < 0 or not re.fullmatch(r"\s*(?:--+>)?\s*", rest[:newline]):
        return None
    offset = end + newline + 1
    lines = text[offset:].split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    opening = _OPEN.fullmatch(lines[i]) if i < len(lines) else None
    if opening is None:
        return None
    fence, indent = opening["fence"], len(opening["indent"])
    closing = re.compile(rf"[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*")
    body = []
    for j in range(i + 1, len(lines)):
        if closing.fullmatch(lines[j]):
            block_end = offset + sum(len(line) + 1 for line in lines[: j + 1]) - 1
            return "\n".join(body) + "\n", min(block_end, len(text))
        line = lines[j]
        body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
    return None


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
        blocks = [
            (comment, found)
            for comment in _COMMENT.finditer(section.text)
            if comment["file"] == contract.file
            and (found := block_after(section.text, comment.end())) is not None
        ]
        if not blocks:
            message = (
                f"section #{anchor} has no yaml block announced by "
                f"<!-- docpact: config-defaults {contract.file} -->"
            )
            findings.append(Finding(page, section.line, "DP007", message))
        for comment, (source, _) in blocks:
            line = section.line + 1 + section.text.count("\n", 0, comment.start())
            try:
                documented = yaml.safe_load(source)
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
