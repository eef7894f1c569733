# SPDX-License-Identifier: MIT
"""Metrics of a training step, written without torch."""

from __future__ import annotations

__all__ = ["kept_fraction"]


def kept_fraction(kept_rows: int, total_rows: int) -> float:
    """The share of a step's rows that its rollouts kept.

    ```python
    from agentrl.metrics import kept_fraction

    assert kept_fraction(3, 4) == 0.75
    ```

    Args:
        kept_rows: The rows kept for training.
        total_rows: The rows the step generated.

    Returns:
        ``kept_rows / total_rows``, 0.0 for a step without rows.
    """
    return kept_rows / total_rows if total_rows else 0.0
