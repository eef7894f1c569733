# SPDX-License-Identifier: MIT
"""Run every Python example and config-defaults block of the docs pages."""

from __future__ import annotations

from pathlib import Path

from docpact.sybil import docs_sybil

pytest_collect_file = docs_sybil(root=Path(__file__).parents[1]).pytest()
