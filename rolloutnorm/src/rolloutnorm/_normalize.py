# SPDX-License-Identifier: MIT
"""The per-rollout normalization of advantages: the division the docs describe."""

from __future__ import annotations

import torch

from rolloutnorm._counts import as_count
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._ids import IdCodes, RolloutIds, encode_ids
from rolloutnorm._validate import MASK, check_layout, check_values, count_row_tokens, probe_mask

__all__ = ["check_batch", "encode_batch", "normalize_advantages_by_rollout"]


def normalize_advantages_by_rollout(
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    rollout_ids: RolloutIds,
    *,
    num_trained_rows: int,
) -> torch.Tensor:
    """Divide every row's advantages by its rollout's token count times the trained row count.

    For a row of rollout ``r`` the divisor is
    ``max(1, rollout_token_count(r) * num_trained_rows)``, with two operands:

    - `rollout_token_count`: the response tokens (``response_mask`` summed over the
      token axis) of all rows in this batch whose rollout id is ``r``. A rollout
      split into several rows (one per turn, say) is counted once, over all its rows.
    - `num_trained_rows`: the number of rows trained in this step, that is the rows
      left after marked drops, the floor to whole PPO mini-batches and the
      ``max_ppo_update_times`` cap. It counts rows, not rollouts: the caller passes
      the length of the retained batch.

    With unit advantages, the rows of every rollout with at least one response token
    together carry normalized token mass exactly ``1 / num_trained_rows``, however
    many rows or tokens it has, and the batch carries
    ``num_rollouts / num_trained_rows``. Extra PPO updates do not make up for extra
    rows: each trained row is consumed once per epoch, so more updates only cut the
    same rows into more mini-batches.

    Token counts are exact integers whatever the dtype of ``advantages``; the
    division runs in float32 (float64 for float64 input), and the result keeps
    the dtype and device of ``advantages`` (float16 flushes magnitudes below about
    6e-8 to zero: prefer bfloat16 or float32 for large batches). Validation costs
    at most one host synchronization per call, never one per row.

    Args:
        advantages: Float tensor of shape ``(rows, tokens)``, with at least one row
            and one token column. A NaN or inf is not rejected here: the division
            never mixes values, so it comes out at its own position and nowhere
            else. The loss rejects it, since a masked sum is poisoned by it
            (``NaN * 0`` is NaN); `check_batch` and `retain_and_normalize` reject
            it up front.
        response_mask: Tensor of the same shape holding only 0 and 1 (bool, integer
            or floating dtype); 1 marks a response token.
        rollout_ids: One id per row (list, tuple, numpy array of str, int or
            objects, or a 1-D integer tensor); rows with equal ids belong to one
            rollout. Ids must be hashable and all of one kind (all str, all int...):
            ``1``, ``True`` and ``1.0`` are equal to Python but of different kinds, and
            bools and floats are no ids.
        num_trained_rows: Rows trained in this step, a Python or numpy int, at least
            the number of rows passed (the rows passed are part of the trained batch,
            never more).

    Returns:
        The normalized advantages, same shape, dtype and device as ``advantages``.

    Raises:
        RolloutNormError: If an argument is malformed; the message names it.

    Examples:
        Rollout ``"a"`` is split over two rows, ``"b"`` has one; three rows are trained:

        >>> import torch
        >>> mask = torch.tensor([[1, 1, 0], [1, 0, 0], [1, 1, 1]])
        >>> normalize_advantages_by_rollout(
        ...     torch.ones(3, 3), mask, ["a", "a", "b"], num_trained_rows=3
        ... ) * mask
        tensor([[0.1111, 0.1111, 0.0000],
                [0.1111, 0.0000, 0.0000],
                [0.1111, 0.1111, 0.1111]])
    """
    check_layout({"advantages": advantages, MASK: response_mask})
    num_trained_rows = _check_num_trained_rows(num_trained_rows, advantages)
    # Queued first: on a GPU the mask reductions run while the host encodes the ids.
    row_tokens, mask_probes = count_row_tokens(response_mask)
    ids = encode_ids(rollout_ids, num_rows=advantages.shape[0], device=advantages.device)
    codes = ids.codes

    tokens_per_rollout = torch.zeros(ids.size, dtype=torch.int64, device=advantages.device)
    tokens_per_rollout.index_add_(0, codes, row_tokens)
    rollout_token_count = tokens_per_rollout.index_select(0, codes)
    divisor = torch.clamp(rollout_token_count * num_trained_rows, min=1)

    if advantages.dtype.itemsize < 4:
        # A half-precision divisor would overflow at 65504: divide in float32 instead.
        divisor = divisor.to(torch.float32)
    # Type promotion converts an int64 divisor to the dtype of float32 and float64 advantages.
    normalized = advantages / divisor.unsqueeze(-1)
    check_values(response_mask, mask_probes)
    if normalized.dtype != advantages.dtype:
        normalized = normalized.to(advantages.dtype)
    return normalized


def check_batch(
    advantages: torch.Tensor, response_mask: torch.Tensor, rollout_ids: RolloutIds
) -> None:
    """Validate a whole batch up front: all the normalization checks, and finite advantages.

    The normalization lets a non-finite advantage through at its own position, and
    the loss rejects it. This rejects it before either runs, padding included, with
    the position of the first one: call it before handing the advantages to another
    loss, whose masked sum a NaN would poison.

    Args:
        advantages: Float tensor of shape ``(rows, tokens)``, finite everywhere.
        response_mask: Tensor of the same shape holding only 0 and 1.
        rollout_ids: One id per row.

    Raises:
        RolloutNormError: If an argument is malformed; the message names it.

    Examples:
        >>> import math, textwrap
        >>> advantages = torch.ones(2, 3)
        >>> advantages[1, 2] = math.nan
        >>> try:
        ...     check_batch(advantages, torch.ones(2, 3), ["a", "b"])
        ... except RolloutNormError as error:
        ...     print(textwrap.fill(str(error), 72))
        advantages must be finite everywhere, padding included: 1 non-finite
        values, the first at row 1, token 2
    """
    encode_batch(advantages, response_mask, rollout_ids)


def encode_batch(
    advantages: torch.Tensor, response_mask: torch.Tensor, rollout_ids: RolloutIds | IdCodes
) -> IdCodes:
    """`check_batch`, returning the rollout ids encoded, for a caller that needs them again.

    Args:
        advantages: As for `check_batch`.
        response_mask: As for `check_batch`.
        rollout_ids: As for `check_batch`.

    Returns:
        The rollout ids' codes, on the device of ``advantages``.

    Raises:
        RolloutNormError: As `check_batch` does.
    """
    check_layout({"advantages": advantages, MASK: response_mask})
    ids = encode_ids(rollout_ids, num_rows=advantages.shape[0], device=advantages.device)
    check_values(response_mask, probe_mask(response_mask), {"advantages": advantages})
    return ids


def _check_num_trained_rows(num_trained_rows: object, advantages: torch.Tensor) -> int:
    count = as_count(num_trained_rows, "num_trained_rows")
    num_rows = advantages.shape[0]
    if count < num_rows:
        msg = (
            f"num_trained_rows must count every row passed: got {count} for a batch of "
            f"{num_rows} rows (pass the length of the retained batch)"
        )
        raise RolloutNormError(msg)
    # The divisor is an int64 product; the batch's size bounds its token count.
    if count * advantages.numel() >= 2**63:
        msg = (
            f"num_trained_rows is too large: {count} times the batch's "
            f"{advantages.numel()} token slots overflows int64"
        )
        raise RolloutNormError(msg)
    return count
