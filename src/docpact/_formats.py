# SPDX-License-Identifier: MIT
"""What `docpact check --format` prints: text, GitHub annotations, a JSON document, SARIF.

`text` and `github` print one line per finding. `json` and `sarif` print one document,
findings or none, for a program to read: `json` in docpact's own shape, whose `version`
changes with any change to it (docs/reference/contracts.md describes it), `sarif` as SARIF 2.1.0,
which code scanning services read. Both name each finding's rule by the summary the registry
gives it, and SARIF lists every rule of the registry, the registered kinds' included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from docpact._registry import all_kinds, codes

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from docpact._model.findings import Finding

__all__ = ["FORMATS", "JSON_VERSION", "SARIF_SCHEMA", "render"]

JSON_VERSION = 2
"""The version of the `json` format's shape: raised by any change to its keys or values."""

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
"""The SARIF 2.1.0 schema that `sarif` output follows, as its `$schema` names it."""


def render(findings: Sequence[Finding], form: str) -> list[str]:
    """Write findings in one of the formats.

    Args:
        findings: The findings, in the order to print them.
        form: The format's name, one of `FORMATS`.

    Returns:
        What to print: a line per finding for `text` and `github`, else one document.

    Raises:
        DocpactError: When `json` or `sarif` reads the registered kinds and one is broken.
    """
    if form == "text":
        return [str(finding) for finding in findings]
    if form == "github":
        return [finding.github() for finding in findings]
    rules = codes(all_kinds())
    return [json.dumps(_DOCUMENTS[form](findings, rules), indent=2)]


def _json(findings: Sequence[Finding], rules: Mapping[str, str]) -> dict[str, Any]:
    """The JSON document: the version of its shape, then each finding and its rule."""
    return {
        "version": JSON_VERSION,
        "tool": "docpact",
        "findings": [
            {
                "code": finding.code,
                "path": finding.path,
                "line": finding.line,
                "message": finding.message,
                "severity": finding.severity,
                "rule": rules[finding.code],
            }
            for finding in findings
        ],
    }


def _sarif(findings: Sequence[Finding], rules: Mapping[str, str]) -> dict[str, Any]:
    """A SARIF 2.1.0 log of one run: every rule of the registry, an error per finding."""
    from docpact import __version__

    index = {code: position for position, code in enumerate(rules)}
    driver = {
        "name": "docpact",
        "version": __version__,
        "rules": [
            {
                "id": code,
                "shortDescription": {"text": summary},
                "defaultConfiguration": {"level": "error"},
            }
            for code, summary in rules.items()
        ],
    }
    results = [
        {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": finding.severity,
            "message": {"text": finding.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _artifact(finding.path),
                        # A finding about a whole file has no line of its own.
                        "region": {"startLine": max(finding.line, 1)},
                    }
                }
            ],
        }
        for finding in findings
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }


def _artifact(path: str) -> dict[str, str]:
    """Where a finding's file is: relative to the project root, else an absolute file URI."""
    if Path(path).is_absolute():  # a file outside the project root
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path), "uriBaseId": "%SRCROOT%"}


# The formats that print one document, and the encoder of each.
_DOCUMENTS: dict[str, Callable[[Sequence[Finding], Mapping[str, str]], dict[str, Any]]] = {
    "json": _json,
    "sarif": _sarif,
}

FORMATS: tuple[str, ...] = ("text", "github", *_DOCUMENTS)
"""The names `--format` takes."""
