# SPDX-License-Identifier: MIT
"""Collect ``tests/rolloutnorm/verl_session/`` only where verl is installed: in ``nox -s verl``."""

from __future__ import annotations

from docpact.sybil import importable

collect_ignore = [] if importable("verl") else ["rolloutnorm/verl_session"]
