# SPDX-License-Identifier: MIT
"""Metrics of a training step, written without torch."""

from __future__ import annotations

__all__ = ["StepCounts", "kept_fraction"]


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


class StepCounts:
    """The row counts of one training step.

    Args:
        kept_rows: The rows kept for training.
        total_rows: The rows the step generated.
    """

    def __init__(self, kept_rows: int, total_rows: int) -> None:
        self.kept_rows = kept_rows
        self.total_rows = total_rows

    @property
    def kept_share(self) -> float:
        """The share of the step's rows kept: ``kept_rows / max(1, total_rows)``.

        `total_rows` counts every row the step generated; a step without rows keeps 0.0.
        """
        return self.kept_rows / max(1, self.total_rows)
