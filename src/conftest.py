# SPDX-License-Identifier: MIT
"""Run the examples in docpact's docstrings as tests."""

from __future__ import annotations

from sybil import Sybil
from sybil.parsers.rest import DocTestParser

pytest_collect_file = Sybil(parsers=[DocTestParser()], patterns=["*.py"]).pytest()
