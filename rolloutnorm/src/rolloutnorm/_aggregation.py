# SPDX-License-Identifier: MIT
"""Each rollout's normalized token mass under every loss aggregation mode, side by side."""

from __future__ import annotations

import dataclasses
import sys
import types
from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import torch

from rolloutnorm._config import LOSS_MODE
from rolloutnorm._counts import as_count
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._ids import RolloutIds, encode_ids
from rolloutnorm._loss import _LOSS_AGG_MODES
from rolloutnorm._retention import RetentionPlan
from rolloutnorm._step import _check_empty_padding
from rolloutnorm._validate import MASK, check_layout, check_values, count_row_tokens

__all__ = ["MODES", "AggregationMasses", "aggregation_masses"]

MODES: tuple[str, ...] = (*_LOSS_AGG_MODES, LOSS_MODE)
"""verl's ``loss_agg_mode`` values (those its ``agg_loss`` accepts), then ``per_rollout_mean``."""


@dataclasses.dataclass(frozen=True, slots=True)
class AggregationMasses:
    """Every rollout's normalized token mass over one epoch, under each aggregation mode.

    ``masses[mode][i]`` is the mass of ``rollout_ids[i]``: a float64 tensor per mode, one
    entry per rollout, on the device of the response mask. ``result[mode]`` gives the same
    tensor, and an unknown mode is an error that lists the known ones.

    Attributes:
        rollout_ids: The rollouts of the batch, padding rows left out, in order of first
            appearance; a rollout whose rows were all dropped is there, with mass 0.
        masses: The masses by mode, read-only, in the order the modes were asked for.
        num_trained_rows: The rows trained, padding left out (the plan's).
        update_units_per_epoch: The optimizer steps of one epoch (the plan's).

    Examples:
        >>> import torch
        >>> result = aggregation_masses(torch.ones(3, 2), ["a", "a", "b"])
        >>> isinstance(result, AggregationMasses), result.rollout_ids
        (True, ('a', 'b'))
        >>> result["seq-mean-token-mean"].tolist()
        [0.6666666666666666, 0.3333333333333333]
        >>> import textwrap
        >>> try:
        ...     result["token_mean"]
        ... except RolloutNormError as error:
        ...     print(textwrap.fill(str(error), 72))
        mode must be one of 'token-mean', 'token-sum', 'seq-mean-token-sum',
        'seq-mean-token-mean', 'seq-mean-token-sum-norm', 'per_rollout_mean',
        got 'token_mean'
    """

    rollout_ids: tuple[Hashable, ...]
    masses: Mapping[str, torch.Tensor]
    num_trained_rows: int
    update_units_per_epoch: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "masses", types.MappingProxyType(dict(self.masses)))

    def __getitem__(self, mode: str) -> torch.Tensor:
        """One mode's masses, in the order of `rollout_ids`.

        Raises:
            RolloutNormError: When `mode` is no mode, or one the call did not compute.
        """
        _check_modes([mode], "mode")
        if mode not in self.masses:
            computed = ", ".join(self.masses)
            msg = f"mode {mode!r} was not computed: this result holds {computed}"
            raise RolloutNormError(msg)
        return self.masses[mode]


def aggregation_masses(
    response_mask: torch.Tensor,
    rollout_ids: RolloutIds,
    *,
    plan: RetentionPlan | None = None,
    modes: Sequence[str] | None = None,
    dp_size: int = 1,
    loss_scale_factor: int | None = None,
) -> AggregationMasses:
    """Each rollout's normalized token mass under verl's aggregation modes and per_rollout_mean.

    A rollout's mass is the weight its response tokens carry in the policy loss, with unit
    advantages and ratios, summed over one epoch's update units: minus the gradient of the
    loss with respect to each token's log-prob, averaged over the data-parallel ranks as
    verl's FSDP engine averages gradients. Every mode sees the rows that ``plan`` keeps,
    padding included, in the order given: verl's dispatch hands rank ``r`` the ``r``-th
    of ``dp_size`` contiguous chunks, and each rank cuts its chunk into mini-batches of
    ``mini_batch_size / dp_size`` rows in order (``actor.shuffle`` false, verl's default);
    the ranks' ``j``-th mini-batches make optimizer step ``j``.

    With ``n`` the response tokens of a kept row, ``M`` the plan's ``mini_batch_size``
    and ``T`` the response tokens of the row's step over all ranks, a row weighs:

    - ``token-mean``: ``n / T``; every step with a token carries mass 1.
    - ``token-sum``: ``n``.
    - ``seq-mean-token-sum``: ``n / M``.
    - ``seq-mean-token-mean``: ``1 / M`` if ``n > 0``, else 0 (verl adds 1e-8 to ``n`` in
      the row's mean, a relative 1e-8 left out here).
    - ``seq-mean-token-sum-norm``: ``n / (M * loss_scale_factor)``.
    - ``per_rollout_mean``: its share of the rollout's ``1 / num_trained_rows``.

    verl 0.9.1's engine gives every micro-batch its mini-batch's token count over all
    ranks, ``dp_size`` and ``M`` (``global_batch_size``), so neither the micro-batch size
    nor ``use_dynamic_bsz`` changes a mass.

    A rollout whose kept rows hold no response token has mass 0 in every mode, and its rows
    still fill their mini-batch: the ``seq-mean`` modes count them in ``M``, as verl's
    ``global_batch_size`` counts rows, and ``per_rollout_mean`` in `num_trained_rows`.
    Under ``token-mean`` they add nothing to ``T``; a step without any response token
    gives its rows 0, where verl divides 0 by 0.

    Args:
        response_mask: The batch's response mask, ``(rows, tokens)``, 0 and 1, rows in the
            order the trainer hands them to the actor.
        rollout_ids: One id per row, as for `normalize_advantages_by_rollout`.
        plan: Which rows are trained, from `plan_retention` over these rows. ``None``:
            every row, in one mini-batch.
        modes: The modes to compute, in order: verl's five above and ``per_rollout_mean``;
            ``None`` for all six, in the order listed above.
        dp_size: Data-parallel ranks; it must divide the mini-batch size, as verl asserts.
        loss_scale_factor: What ``seq-mean-token-sum-norm`` divides by besides ``M``, a
            positive int (verl's ``actor.loss_scale_factor``); ``None``, verl's default, is
            the padded width ``response_mask.shape[1]``.

    Returns:
        The masses of every rollout under each mode asked for.

    Raises:
        RolloutNormError: If the mask or the ids are malformed (as in the normalization),
            ``plan`` is not a plan over these rows or marks a padding row with response
            tokens, a mode is unknown (the message lists the known ones), ``dp_size``
            does not divide the mini-batch size, a count is not a positive int, or
            ``loss_scale_factor`` is past a float's range.

    Examples:
        Rollout ``"a"`` split into two rows, ``"b"`` in one, all trained in one step:

        >>> import torch
        >>> mask = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 0]])
        >>> result = aggregation_masses(mask, ["a", "a", "b"])
        >>> for mode, masses in result.masses.items():
        ...     print(f"{mode:<24}", [round(mass, 4) for mass in masses.tolist()])
        token-mean               [0.6667, 0.3333]
        token-sum                [6.0, 3.0]
        seq-mean-token-sum       [2.0, 1.0]
        seq-mean-token-mean      [0.6667, 0.3333]
        seq-mean-token-sum-norm  [0.5, 0.25]
        per_rollout_mean         [0.3333, 0.3333]
    """
    check_layout({MASK: response_mask}, like=MASK)
    wanted = MODES if modes is None else _check_modes(modes, "modes")
    dp_size = as_count(dp_size, "dp_size")
    if loss_scale_factor is not None:
        loss_scale_factor = as_count(loss_scale_factor, "loss_scale_factor")
        if loss_scale_factor > sys.float_info.max:
            msg = "loss_scale_factor must be a positive int a float can hold, got one past it"
            raise RolloutNormError(msg)
    num_rows, width = response_mask.shape
    row_tokens, probes = count_row_tokens(response_mask)
    ids = encode_ids(rollout_ids, num_rows=num_rows, device=response_mask.device)
    check_values(response_mask, probes)
    plan = _check_plan(plan, response_mask)
    mini_batch_size = plan.mini_batch_size if plan is not None else num_rows
    if mini_batch_size % dp_size:
        msg = (
            f"dp_size must divide the mini-batch size, as verl asserts: got dp_size {dp_size} "
            f"for mini-batches of {mini_batch_size} rows"
        )
        raise RolloutNormError(msg)

    device = response_mask.device
    if plan is None:
        kept = torch.arange(num_rows, device=device)
        num_trained_rows, units = num_rows, 1
        padding = np.zeros(num_rows, dtype=bool)
    else:
        kept = torch.tensor(plan.kept_indices, dtype=torch.int64, device=device)
        num_trained_rows, units = plan.num_trained_rows, plan.update_units_per_epoch
        padding = np.zeros(num_rows, dtype=bool)
        padding[list(plan.padding_indices + plan.spare_padding_indices)] = True
    tokens = row_tokens.index_select(0, kept).to(torch.float64)
    codes = ids.codes.index_select(0, kept)
    if len(kept):
        step = _steps(len(kept), mini_batch_size, dp_size, device)
        row_masses = _row_masses(
            tokens,
            codes,
            step,
            units=units,
            mini_batch_size=mini_batch_size,
            scale=float(width if loss_scale_factor is None else loss_scale_factor),
            num_trained_rows=num_trained_rows,
            size=ids.size,
        )
    else:  # nothing trained: no step, and a mini-batch size past int64 is never divided by
        row_masses = dict.fromkeys(MODES, tokens)
    order, first_rows = _rollouts(ids.codes, ids.size, padding)
    masses = {}
    for mode in wanted:
        totals = torch.zeros(ids.size, dtype=torch.float64, device=device)
        masses[mode] = totals.index_add_(0, codes, row_masses[mode]).index_select(0, order)
    return AggregationMasses(
        rollout_ids=_ids_at(rollout_ids, first_rows),
        masses=masses,
        num_trained_rows=num_trained_rows,
        update_units_per_epoch=units,
    )


def _check_modes(modes: object, name: str) -> tuple[str, ...]:
    """The modes as a tuple, or an error naming the first unknown one and the known ones."""
    if isinstance(modes, str) or not isinstance(modes, Sequence):
        msg = f"{name} must be a sequence of modes, got {type(modes).__name__} {modes!r}"
        raise RolloutNormError(msg)
    known = ", ".join(map(repr, MODES))
    for mode in modes:
        if not isinstance(mode, str) or mode not in MODES:
            msg = f"{name} must be one of {known}, got {mode!r}"
            raise RolloutNormError(msg)
    return tuple(dict.fromkeys(modes))


def _check_plan(plan: object, response_mask: torch.Tensor) -> RetentionPlan | None:
    """The plan, checked against the batch; padding rows must hold no response token."""
    if plan is None:
        return None
    if not isinstance(plan, RetentionPlan):
        msg = f"plan must be a RetentionPlan from plan_retention, got {type(plan).__name__}"
        raise RolloutNormError(msg)
    if plan.num_rows != response_mask.shape[0]:
        msg = (
            f"plan must be a plan over this batch: it plans {plan.num_rows} rows, "
            f"the response mask has {response_mask.shape[0]}"
        )
        raise RolloutNormError(msg)
    _check_empty_padding(response_mask, plan.padding_indices + plan.spare_padding_indices)
    return plan


def _steps(num_kept: int, mini_batch_size: int, dp_size: int, device: torch.device) -> torch.Tensor:
    """Each kept row's optimizer step, from its position: rank chunk, then local mini-batch."""
    position = torch.arange(num_kept, device=device)
    chunk = max(1, num_kept // dp_size)
    return (position % chunk) // (mini_batch_size // dp_size)


def _row_masses(
    tokens: torch.Tensor,
    codes: torch.Tensor,
    step: torch.Tensor,
    *,
    units: int,
    mini_batch_size: int,
    scale: float,
    num_trained_rows: int,
    size: int,
) -> dict[str, torch.Tensor]:
    """Every kept row's mass under each mode, from its float64 token count.

    ``scale`` is a float: a divisor past 2**64 is an OverflowError in torch, not a float64.
    """
    step_tokens = torch.zeros(units, dtype=torch.float64, device=tokens.device)
    step_tokens.index_add_(0, step, tokens)
    rollout_tokens = torch.zeros(size, dtype=torch.float64, device=tokens.device)
    rollout_tokens.index_add_(0, codes, tokens)
    # A row's share of its rollout's 1 / num_trained_rows: the per-rollout normalization.
    per_rollout = torch.clamp(rollout_tokens.index_select(0, codes) * num_trained_rows, min=1)
    return {
        "token-mean": tokens / step_tokens.index_select(0, step).clamp(min=1),
        "token-sum": tokens,
        "seq-mean-token-sum": tokens / mini_batch_size,
        "seq-mean-token-mean": (tokens > 0).to(torch.float64) / mini_batch_size,
        "seq-mean-token-sum-norm": tokens / (mini_batch_size * scale),
        LOSS_MODE: tokens / per_rollout,
    }


def _rollouts(
    codes: torch.Tensor, size: int, padding: np.ndarray
) -> tuple[torch.Tensor, list[int]]:
    """The codes of the rollouts with a row that is not padding, by first row, and those rows."""
    rows = torch.arange(codes.shape[0], device=codes.device)
    real = rows[torch.from_numpy(~padding).to(codes.device)]
    first = torch.full((size,), codes.shape[0], device=codes.device)
    first.scatter_reduce_(0, codes.index_select(0, real), real, reduce="amin")
    first_rows = first[first < codes.shape[0]].sort().values
    return codes.index_select(0, first_rows), first_rows.tolist()


def _ids_at(rollout_ids: RolloutIds, rows: list[int]) -> tuple[Hashable, ...]:
    """The ids of the given rows, as Python values."""
    if isinstance(rollout_ids, torch.Tensor | np.ndarray):
        return tuple(rollout_ids[rows].tolist())
    return tuple(map(rollout_ids.__getitem__, rows))
