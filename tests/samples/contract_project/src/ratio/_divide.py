# SPDX-License-Identifier: MIT
"""The division that the contract in pyproject.toml guards."""

from __future__ import annotations

import torch

__all__ = ["RolloutStats", "scale_by_rollout"]


class RolloutStats:
    """Counts kept per rollout."""


def scale_by_rollout(
    advantages: torch.Tensor,
    codes: torch.Tensor,
    tokens_per_rollout: torch.Tensor,
    *,
    num_trained_rows: int,
) -> torch.Tensor:
    """Divide each row by `rollout_token_count` times `num_trained_rows`.

    Args:
        advantages: Advantages of shape (rows, tokens).
        codes: The rollout of each row.
        tokens_per_rollout: Response tokens per rollout.
        num_trained_rows: Rows trained in this step.

    Returns:
        The advantages, each row divided by ``max(1, rollout_token_count * num_trained_rows)``.
    """
    rollout_token_count = tokens_per_rollout[codes]
    divisor = torch.clamp(rollout_token_count * num_trained_rows, min=1)
    opmath = torch.float32
    scaled = advantages.to(opmath) / divisor.to(opmath).unsqueeze(-1)
    return scaled.to(advantages.dtype)
