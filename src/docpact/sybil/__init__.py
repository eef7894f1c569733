# SPDX-License-Identifier: MIT
"""Sybil parsers that run the docs pages as tests.

Needs Sybil, which the `sybil` extra installs; the rest of docpact does not.
"""

from __future__ import annotations

from docpact.sybil._config_defaults import ConfigDefaultsParser
from docpact.sybil._console import ConsoleParser
from docpact.sybil._docs import docs_sybil
from docpact.sybil._skip import ReasonedSkipParser, importable

__all__ = [
    "ConfigDefaultsParser",
    "ConsoleParser",
    "ReasonedSkipParser",
    "docs_sybil",
    "importable",
]
