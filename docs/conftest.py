# SPDX-License-Identifier: MIT
"""Run every Python example on the docs pages against the real code."""

from __future__ import annotations

from sybil import Sybil
from sybil.parsers.markdown import ClearNamespaceParser, PythonCodeBlockParser, SkipParser

pytest_collect_file = Sybil(
    parsers=[PythonCodeBlockParser(), SkipParser(), ClearNamespaceParser()],
    patterns=["*.md"],
).pytest()
