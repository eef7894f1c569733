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


def aggregation_loop(
    response_mask: torch.Tensor,
    rollout_ids: Sequence[Hashable],
    kept_rows: Sequence[int],
    padding_rows: Sequence[int],
    *,
    mini_batch_size: int,
    dp_size: int,
    scale: int,
) -> dict[str, dict[Hashable, float]]:
    """Each rollout's mass under every mode, placing the kept rows one at a time.

    The kept rows are dealt out as verl deals them: ``dp_size`` contiguous chunks, each cut
    into mini-batches of ``mini_batch_size // dp_size`` rows in order; step ``j`` is every
    chunk's ``j``-th mini-batch. Rollouts are those of the rows that are not padding, in
    order of first appearance.
    """
    tokens = {row: int(response_mask[row].sum().item()) for row in range(len(rollout_ids))}
    chunk = len(kept_rows) // dp_size
    per_rank = mini_batch_size // dp_size
    step_of: dict[int, int] = {}
    step_tokens: dict[int, int] = {}
    for position, row in enumerate(kept_rows):
        step = (position % chunk) // per_rank
        step_of[row] = step
        step_tokens[step] = step_tokens.get(step, 0) + tokens[row]
    trained = sum(row not in padding_rows for row in kept_rows)
    rollout_tokens: dict[Hashable, int] = {}
    for row in kept_rows:
        rollout_tokens[rollout_ids[row]] = rollout_tokens.get(rollout_ids[row], 0) + tokens[row]

    masses: dict[str, dict[Hashable, float]] = {}
    rollouts = [rollout_ids[row] for row in range(len(rollout_ids)) if row not in padding_rows]
    for mode in (
        "token-mean",
        "token-sum",
        "seq-mean-token-sum",
        "seq-mean-token-mean",
        "seq-mean-token-sum-norm",
        "per_rollout_mean",
    ):
        masses[mode] = dict.fromkeys(rollouts, 0.0)
    for row in kept_rows:
        rollout, count = rollout_ids[row], tokens[row]
        if row in padding_rows:
            continue
        weights = {
            "token-mean": count / step_tokens[step_of[row]] if count else 0.0,
            "token-sum": float(count),
            "seq-mean-token-sum": count / mini_batch_size,
            "seq-mean-token-mean": (1.0 if count else 0.0) / mini_batch_size,
            "seq-mean-token-sum-norm": count / mini_batch_size / scale,
            "per_rollout_mean": count / max(1, rollout_tokens[rollout] * trained),
        }
        for mode, weight in weights.items():
            masses[mode][rollout] += weight
    return masses
