# SPDX-License-Identifier: MIT
"""The per-rollout normalization of advantages: the division the docs describe."""

from __future__ import annotations

import math
import sys

import torch

from rolloutnorm._counts import as_count
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._ids import RolloutIds, encode_rollout_ids

__all__ = ["check_batch", "normalize_advantages_by_rollout"]

# Where the high int32 half of an int64 sits in memory.
_HIGH_HALF = 1 if sys.byteorder == "little" else 0


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
            rollout. Ids must be hashable and all of one kind (all str, all int...).
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
    num_rows = _check_batch(advantages, response_mask)
    num_trained_rows = _check_num_trained_rows(num_trained_rows, advantages)
    # Queued first: on a GPU the mask reductions run while the host encodes the ids.
    row_tokens, mask_checks = _count_row_tokens(response_mask)
    codes, num_codes = encode_rollout_ids(rollout_ids, num_rows=num_rows, device=advantages.device)

    tokens_per_rollout = torch.zeros(num_codes, dtype=torch.int64, device=advantages.device)
    tokens_per_rollout.index_add_(0, codes, row_tokens)
    rollout_token_count = tokens_per_rollout.index_select(0, codes)
    divisor = torch.clamp(rollout_token_count * num_trained_rows, min=1)

    if advantages.dtype.itemsize < 4:
        # A half-precision divisor would overflow at 65504: divide in float32 instead.
        divisor = divisor.to(torch.float32)
    # Type promotion converts an int64 divisor to the dtype of float32 and float64 advantages.
    normalized = advantages / divisor.unsqueeze(-1)
    if mask_checks:
        _raise_on_bad_mask(response_mask, torch.stack(mask_checks).tolist())
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
    num_rows = _check_batch(advantages, response_mask)
    encode_rollout_ids(rollout_ids, num_rows=num_rows, device=advantages.device)
    mask_checks = _count_row_tokens(response_mask)[1]
    checks = [*mask_checks, _finite_probe(advantages)]
    *mask_values, total = torch.stack(checks).tolist()
    _raise_on_bad_mask(response_mask, mask_values)
    _raise_on_non_finite(advantages, total)


def _check_batch(advantages: torch.Tensor, response_mask: torch.Tensor) -> int:
    if not isinstance(advantages, torch.Tensor):
        msg = f"advantages must be a torch.Tensor, got {type(advantages).__name__}"
        raise RolloutNormError(msg)
    if not isinstance(response_mask, torch.Tensor):
        msg = f"response_mask must be a torch.Tensor, got {type(response_mask).__name__}"
        raise RolloutNormError(msg)
    if advantages.ndim != 2:
        msg = f"advantages must be 2-D (rows, tokens), got shape {tuple(advantages.shape)}"
        raise RolloutNormError(msg)
    if not advantages.dtype.is_floating_point:
        msg = f"advantages must have a floating dtype, got {advantages.dtype}"
        raise RolloutNormError(msg)
    if response_mask.shape != advantages.shape:
        msg = (
            f"response_mask must have the shape of advantages {tuple(advantages.shape)}, "
            f"got {tuple(response_mask.shape)}"
        )
        raise RolloutNormError(msg)
    if response_mask.device != advantages.device:
        msg = (
            f"response_mask must be on the device of advantages ({advantages.device}), "
            f"got {response_mask.device}"
        )
        raise RolloutNormError(msg)
    if response_mask.dtype.is_complex:
        msg = f"response_mask must hold 0 and 1, got dtype {response_mask.dtype}"
        raise RolloutNormError(msg)
    if advantages.shape[0] == 0:
        msg = "advantages must hold at least one row, got an empty batch"
        raise RolloutNormError(msg)
    if advantages.shape[1] == 0:
        msg = f"advantages must hold at least one token column, got shape {tuple(advantages.shape)}"
        raise RolloutNormError(msg)
    return advantages.shape[0]


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


def _count_row_tokens(response_mask: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Sum each row's tokens exactly, with the scalars that prove the mask is 0/1.

    The mask is valid when the first scalar is at least 0, the second at most 1 and
    any further one 0 (see `_raise_on_bad_mask`). All share one dtype, so that
    `torch.stack` needs no promotion before the single read.
    """
    if (
        response_mask.dtype == torch.int64
        and response_mask.stride(-1) == 1
        and response_mask.shape[-1] <= 2**30
    ):
        return _count_int64_row_tokens(response_mask)
    if response_mask.dtype == torch.bool:
        return response_mask.sum(-1), []
    low, high = torch.aminmax(response_mask)
    if response_mask.dtype.is_floating_point:
        # Exact, unlike arithmetic on sums: 1 - 2**-53 is neither 0 nor 1.
        fractional = torch.logical_and(response_mask != 0, response_mask != 1).any()
        row_tokens = response_mask.sum(-1, dtype=torch.float64)
        return row_tokens.to(torch.int64), [low, high, fractional.to(low.dtype)]
    return response_mask.sum(-1), [low, high]


def _count_int64_row_tokens(response_mask: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """`_count_row_tokens` for a contiguous int64 mask: its int32 halves are checked instead.

    x86's AVX2 has no 64-bit integer min or max, so ``aminmax`` over the int32 halves
    costs less. Halves in {0, 1} leave values in {0, 1, 2**32, 2**32 + 1}, and the
    high halves of the row sums rule out the last two: each such value adds 1 to its
    row's high half, while rows of at most 2**30 tokens keep the low halves from
    carrying into it. The high halves are a strided int32 view, so the third check
    needs no conversion before `torch.stack`.
    """
    row_tokens = response_mask.sum(-1)
    low, high = torch.aminmax(response_mask.view(torch.int32))
    row_high_halves = row_tokens.view(torch.int32)[_HIGH_HALF::2]
    return row_tokens, [low, high, row_high_halves.amax()]


def _finite_probe(advantages: torch.Tensor) -> torch.Tensor:
    """The sum of the advantages: finite only if every value is, at the cost of one reduction."""
    # Accumulated in float32 at least: a half-precision sum would overflow at 65504.
    return advantages.sum(dtype=torch.promote_types(advantages.dtype, torch.float32)).double()


def _raise_on_bad_mask(response_mask: torch.Tensor, values: list[float]) -> None:
    """Raise if the checks read back from `_count_row_tokens` say the mask is not 0/1."""
    if not values:
        return
    low, high, *flags = values
    if low >= 0 and high <= 1 and not any(flags):
        return
    low, high = (value.item() for value in torch.aminmax(response_mask.double()))
    if math.isnan(low):
        detail = "NaN"
    elif low < 0 or high > 1:
        detail = f"values in [{low:g}, {high:g}]"
    else:
        detail = "fractions"
    msg = f"response_mask must hold only 0 and 1, got {detail}"
    raise RolloutNormError(msg)


def _raise_on_non_finite(advantages: torch.Tensor, total: float) -> None:
    """Raise, naming the first position, if the finite probe says a value is NaN or inf."""
    if math.isfinite(total):
        return
    bad = (~torch.isfinite(advantages)).nonzero()
    if bad.shape[0] == 0:
        return  # the sum overflowed, every value is finite
    row, token = bad[0].tolist()
    msg = (
        f"advantages must be finite everywhere, padding included: {bad.shape[0]} "
        f"non-finite values, the first at row {row}, token {token}"
    )
    raise RolloutNormError(msg)
