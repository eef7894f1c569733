# SPDX-License-Identifier: MIT
"""Contracts that keep a project's docs, docstrings and code in agreement."""

from __future__ import annotations

__all__: list[str] = []
