# SPDX-License-Identifier: MIT
"""Run the examples in rolloutnorm's docstrings as tests.

``rolloutnorm/verl.py`` imports verl, which only the ``verl`` session installs; without verl
its examples are not collected (the session fails if they are not run there).
"""

from __future__ import annotations

from sybil import Sybil
from sybil.parsers.rest import DocTestParser

from docpact.sybil import importable

pytest_collect_file = Sybil(
    parsers=[DocTestParser()],
    patterns=["*.py"],
    excludes=[] if importable("verl") else ["rolloutnorm/verl.py"],
).pytest()
