# SPDX-License-Identifier: MIT
"""The per-rollout mean loss, written without torch."""

from __future__ import annotations


def per_rollout_mean(
    advantages: list[float],
    rollout_ids: list[str],
    token_counts: list[int],
    *,
    num_trained_rows: int,
) -> list[float]:
    """Divide each row's advantage by its rollout's token count times the trained rows.

    The divisor of a row of rollout ``r`` is ``rollout_token_count(r) * num_trained_rows``:
    `rollout_token_count` (the response tokens of every row of ``r``) times
    `num_trained_rows` (the rows trained in the step).

    Args:
        advantages: One advantage per row.
        rollout_ids: The rollout of each row.
        token_counts: The response tokens of each row.
        num_trained_rows: The rows trained in the step.

    Returns:
        The scaled advantages, one per row.
    """
    rollout_token_counts: dict[str, int] = {}
    for rid, count in zip(rollout_ids, token_counts, strict=True):
        rollout_token_counts[rid] = rollout_token_counts.get(rid, 0) + count
    divisors = [rollout_token_counts[rid] * num_trained_rows for rid in rollout_ids]
    return [advantage / divisor for advantage, divisor in zip(advantages, divisors, strict=True)]
