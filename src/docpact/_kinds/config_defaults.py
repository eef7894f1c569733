# SPDX-License-Identifier: MIT
"""The `config-defaults` kind: a YAML block on each listed docs section equals a file as data.

The block is announced on the page by `<!-- docpact: config-defaults FILE -->`, just above a
fenced `yaml` block, as for `docpact.sybil.ConfigDefaultsParser`, which runs the same
comparison in the tests; `docpact check` and the mkdocs build run it with this code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docpact._kinds.docs import DOCS_EXIST, docs_sections
from docpact._model import keys
from docpact._model.config import Contract
from docpact._model.findings import cannot_read
from docpact._model.rules import Kind, Rule
from docpact._readers.data import differences
from docpact._readers.files import Unreadable, read_text
from docpact._readers.markdown.directives import CONFIG_DEFAULTS as DIRECTIVE
from docpact._readers.markdown.directives import PREFIX, block_after

if TYPE_CHECKING:
    from collections.abc import Iterator

    from docpact._model.rules import Subject

__all__ = ["CONFIG_DEFAULTS", "ConfigDefaultsContract"]

_COMMENT = re.compile(rf"{PREFIX}{re.escape(DIRECTIVE)}\s+(?P<file>\S+)\s*-->")


@dataclass(frozen=True, kw_only=True)
class ConfigDefaultsContract(Contract):
    """A `config-defaults` contract: the docs' YAML blocks equal a file as data.

    Attributes:
        file: The file the docs' YAML block must equal, relative to the project root.
    """

    kind: str = "config-defaults"
    file: str = ""

    @property
    def label(self) -> str:
        """How messages name the contract: its file."""
        return self.file or self.kind


def _parse(entry: dict[str, Any], key: str) -> ConfigDefaultsContract:
    keys.require(entry, key, "config-defaults", ("file",))
    return ConfigDefaultsContract(
        file=keys.project_file(entry.get("file"), f"{key}.file"),
        docs=keys.sections(
            entry.get("docs", []), f"{key}.docs", kind="config-defaults", required=True
        ),
    )


def _blocks_equal_the_file(subject: Subject) -> Iterator[tuple[str, int, str]]:
    # Only for a project with a config-defaults contract: it imports PyYAML.
    from docpact._readers.yaml_safe import YamlProblem, safe_load

    contract, pyproject = subject.contract, subject.config.pyproject.name
    try:
        text = read_text(subject.config.root / contract.file)
        expected = safe_load(text)
    except Unreadable as error:
        yield pyproject, contract.line, f"{contract.file} {cannot_read(error)}"
        return
    except YamlProblem as problem:
        yield pyproject, contract.line, problem.about(contract.file)
        return
    for ref, section in docs_sections(subject).items():
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
            yield page, section.line, message
        for comment, (source, _) in blocks:
            line = section.line + 1 + section.text.count("\n", 0, comment.start())
            try:
                documented = safe_load(source)
            except YamlProblem as problem:
                yield page, line, problem.about("the yaml block")
                continue
            if found := differences(documented, expected, file=contract.file):
                differing = "; ".join(difference.strip() for difference in found)
                message = f"the yaml block differs from {contract.file}: {differing}"
                yield page, line, message


CONFIG_DEFAULTS = Kind(
    name="config-defaults",
    summary="a YAML block on each listed docs section equals a packaged file as data",
    required=frozenset({"file", "docs"}),
    optional=frozenset(),
    noun="key",
    parse=_parse,
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
)
