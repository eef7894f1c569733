# SPDX-License-Identifier: MIT
"""Collect ``tests/verl_session/`` only where verl is installed: in the ``verl`` nox session."""

from __future__ import annotations

from docpact.sybil import importable

collect_ignore = [] if importable("verl") else ["verl_session"]
