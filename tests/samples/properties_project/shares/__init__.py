# SPDX-License-Identifier: MIT
"""Shares of rollouts."""


def share(tokens: int, rows: int) -> float:
    """One over the rollout's tokens times the trained rows."""
    if tokens < 1 or rows < 1:
        msg = f"tokens and rows must be positive, got {tokens} and {rows}"
        raise ValueError(msg)
    return 1 / (tokens * rows)
