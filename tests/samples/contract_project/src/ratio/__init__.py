# SPDX-License-Identifier: MIT
"""A fixture package for docpact: one contract on one division."""

from __future__ import annotations

from ratio._divide import RolloutStats, scale_by_rollout

__all__ = ["RolloutStats", "scale_by_rollout"]
