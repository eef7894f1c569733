# SPDX-License-Identifier: MIT
"""The straightforward per-row loop that the vectorized normalization must equal."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import torch


def per_row_loop(
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    rollout_ids: Sequence[Hashable],
    num_trained_rows: int,
) -> torch.Tensor:
    """Normalize row by row, reading each row's token count back to the host."""
    tokens: dict[Hashable, int] = {}
    for row, rollout_id in enumerate(rollout_ids):
        tokens[rollout_id] = tokens.get(rollout_id, 0) + int(response_mask[row].sum().item())
    out = torch.empty_like(advantages)
    for row, rollout_id in enumerate(rollout_ids):
        out[row] = advantages[row] / max(1, tokens[rollout_id] * num_trained_rows)
    return out
