# SPDX-License-Identifier: MIT
"""Retention then normalization, composed the way a trainer step runs them."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence

import numpy as np
import torch

from rolloutnorm._config import KEYS, LOSS_MODE, RolloutNormConfig
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._ids import IdCodes, RolloutIds
from rolloutnorm._normalize import encode_batch, normalize_advantages_by_rollout
from rolloutnorm._report import MassReport, rollout_mass_report
from rolloutnorm._retention import RetentionPlan, plan_retention

__all__ = ["TrainedBatch", "retain_and_normalize"]


@dataclasses.dataclass(frozen=True, slots=True)
class TrainedBatch:
    """The rows one PPO update trains on, with their normalized advantages.

    Attributes:
        plan: Which rows were kept and why the others went.
        advantages: The kept rows' advantages, normalized per rollout; 0 on padding rows.
        response_mask: The kept rows' response mask; padding rows hold no token.
        rollout_ids: The kept rows' rollout ids, in the container type given.

    Examples:
        >>> import torch
        >>> from rolloutnorm import load_config
        >>> config = load_config(
        ...     overrides={"actor_rollout_ref.actor.ppo_mini_batch_size": 2}
        ... )
        >>> ones = torch.ones(3, 4)
        >>> batch = retain_and_normalize(ones, ones, ["a", "a", "b"], config=config)
        >>> (
        ...     isinstance(batch, TrainedBatch),
        ...     batch.rollout_ids,
        ...     batch.plan.num_trained_rows,
        ... )
        (True, ['a', 'a'], 2)
        >>> batch.advantages[0, 0].item()
        0.0625
    """

    plan: RetentionPlan
    advantages: torch.Tensor
    response_mask: torch.Tensor
    rollout_ids: RolloutIds

    def report(self) -> MassReport:
        """Every kept rollout's normalized token mass, computed on request.

        The masses are those of one epoch, which every epoch repeats; the schedule over
        all epochs is the plan's (``plan.update_units``). Padding rows carry no mass and
        are left out.

        Returns:
            The report for the kept rows that are not padding, and the plan's
            `num_trained_rows`.
        """
        plan, mask, ids = self.plan, self.response_mask, self.rollout_ids
        if plan.padding_indices:
            real = _real_positions(plan)
            mask = mask[torch.tensor(real, dtype=torch.int64, device=mask.device)]
            ids = _take(ids, real)
        return rollout_mass_report(mask, ids, num_trained_rows=plan.num_trained_rows)


def retain_and_normalize(
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    rollout_ids: RolloutIds,
    *,
    config: RolloutNormConfig,
    drop: Sequence[bool] | np.ndarray | None = None,
    group_ids: Sequence[Hashable] | np.ndarray | None = None,
    rewards: Sequence[float] | np.ndarray | None = None,
    padding: Sequence[bool] | np.ndarray | None = None,
) -> TrainedBatch:
    """Plan which rows are trained, then normalize them with `num_trained_rows` = rows trained.

    Retention follows `plan_retention` with the mini-batch size
    ``ppo_mini_batch_size * rollout.n``, the ``max_ppo_update_times`` cap, the retention
    seed and the ``ppo_epochs`` of ``config`` (the plan's ``update_units`` count every
    epoch). The kept rows that are not padding are then normalized with `num_trained_rows`
    equal to their number, as a trainer step does.

    Padding rows, which a trainer adds so that its batch divides into ranks and
    mini-batches (verl's V1 trainer does), fill the mini-batches as `plan_retention` keeps
    them, get advantage 0 and are not counted: the other rows are normalized as if the
    padding were not there. A padding row must hold no response token (verl V1's hold
    none): a token left in the mask would still count in a trainer's KL and entropy terms
    and in the loss's token means, so such a row is refused, not silently masked.

    Args:
        advantages: All rows' advantages, float, ``(rows, tokens)``.
        response_mask: All rows' response mask, 0 and 1, same shape.
        rollout_ids: One rollout id per row.
        config: The configuration, from `load_config`.
        drop: Per row, whether it is marked for dropping.
        group_ids: Per row, the prompt group id (with ``rewards``, same-reward groups
            are dropped first).
        rewards: Per row, the sequence-level reward.
        padding: Per row, whether it is padding, a row without response tokens: kept only
            as far as the mini-batches need it, advantage 0, not counted in
            `num_trained_rows` (`plan_retention`'s ``padding``).

    Returns:
        The kept rows, normalized, with the plan; ``report()`` gives their masses.

    Raises:
        RolloutNormError: If an argument is malformed, ``config`` selects another policy
            loss than ``per_rollout_mean``, a padding row holds a response token, or no row
            is left to train (no candidate row, or fewer candidate and padding rows than one
            mini-batch).

    Examples:
        Three rows of two rollouts and one padding row, without response tokens, in one
        mini-batch of four:

        >>> import torch
        >>> from rolloutnorm import load_config
        >>> config = load_config(
        ...     overrides={"actor_rollout_ref.actor.ppo_mini_batch_size": 4}
        ... )
        >>> mask = torch.tensor([[1, 1], [1, 1], [1, 1], [0, 0]])
        >>> padded = retain_and_normalize(
        ...     torch.ones(4, 2),
        ...     mask,
        ...     ["a", "a", "b", "pad"],
        ...     config=config,
        ...     padding=[False, False, False, True],
        ... )
        >>> padded.plan.num_trained_rows, padded.plan.update_units
        (3, 1)
        >>> [round(mass, 4) for mass in padded.advantages.sum(-1).tolist()]
        [0.1667, 0.1667, 0.3333, 0.0]
        >>> print(padded.report())
        rollout  rows  tokens  mass
        a           2       4  1/3 (0.3333)
        b           1       2  1/3 (0.3333)
        batch: 2 rollouts over 3 trained rows, mass 2/3 (0.6667)
    """
    if not isinstance(config, RolloutNormConfig):
        msg = f"config must be a RolloutNormConfig from load_config, got {type(config).__name__}"
        raise RolloutNormError(msg)
    if config.loss_mode != LOSS_MODE:
        # Another policy loss aggregates the token losses itself (loss_agg_mode): advantages
        # normalized here first would be divided twice.
        msg = (
            f"config must select {KEYS['loss_mode']} {LOSS_MODE!r}, the loss normalized for, "
            f"got {config.loss_mode!r}"
        )
        raise RolloutNormError(msg)
    # The whole batch, dropped rows included: whether bad input raises must not hang on the seed.
    ids = encode_batch(advantages, response_mask, rollout_ids)
    plan = plan_retention(
        advantages.shape[0],
        mini_batch_size=config.mini_batch_size,
        max_ppo_update_times=config.max_ppo_update_times,
        drop=drop,
        group_ids=group_ids,
        rewards=rewards,
        seed=config.retention_seed,
        ppo_epochs=config.ppo_epochs,
        padding=padding,
    )
    _check_empty_padding(response_mask, plan.padding_indices + plan.spare_padding_indices)
    if plan.num_trained_rows == 0:
        dropped = plan.dropped
        spare = len(plan.spare_padding_indices)
        msg = (
            f"no rows left to train: of {plan.num_rows} rows, {dropped['marked']} marked, "
            f"{dropped['mini_batch_floor']} dropped at the floor to whole mini-batches of "
            f"{plan.mini_batch_size} rows{',' if spare else ' and'} "
            f"{dropped['max_ppo_update_times']} at the update cap"
            + (f" and {spare} padding, kept only with rows to train" if spare else "")
        )
        raise RolloutNormError(msg)
    if plan.num_trained_rows == plan.num_rows:
        # Every row kept: the division reads the advantages as given, since a gathered copy
        # would be a second tensor of the batch's size (128 MiB at 65,536 x 256 float64),
        # written then read once. Both outputs keep the row-major layout a gather gives.
        kept_mask = response_mask.clone(memory_format=torch.contiguous_format)
        normalized = normalize_advantages_by_rollout(
            advantages, kept_mask, ids, num_trained_rows=plan.num_trained_rows
        ).contiguous()
    else:
        # encode_batch made sure the mask is on the device of the advantages.
        kept = torch.tensor(plan.kept_indices, dtype=torch.int64, device=advantages.device)
        kept_mask = response_mask[kept]
        if plan.padding_indices:
            normalized = _normalize_around_padding(advantages, kept, kept_mask, ids, plan)
        else:
            normalized = normalize_advantages_by_rollout(
                advantages[kept], kept_mask, ids.take(kept), num_trained_rows=plan.num_trained_rows
            )
    return TrainedBatch(plan, normalized, kept_mask, _take(rollout_ids, plan.kept_indices))


def _check_empty_padding(response_mask: torch.Tensor, rows: tuple[int, ...]) -> None:
    """Raise unless the padding rows hold no response token."""
    if not rows:
        return
    rows = tuple(sorted(rows))
    index = torch.tensor(rows, dtype=torch.int64, device=response_mask.device)
    tokens = (response_mask.index_select(0, index) != 0).sum(-1).tolist()
    full = [(row, count) for row, count in zip(rows, tokens, strict=True) if count]
    if full:
        row, count = full[0]
        msg = (
            f"padding must mark only rows without response tokens, got {len(full)} padding "
            f"row{'' if len(full) == 1 else 's'} with tokens, the first row {row} with {count}"
        )
        raise RolloutNormError(msg)


def _real_positions(plan: RetentionPlan) -> tuple[int, ...]:
    """The positions, among the kept rows, of those that are not padding."""
    padding = set(plan.padding_indices)
    return tuple(at for at, row in enumerate(plan.kept_indices) if row not in padding)


def _normalize_around_padding(
    advantages: torch.Tensor,
    kept: torch.Tensor,
    kept_mask: torch.Tensor,
    ids: IdCodes,
    plan: RetentionPlan,
) -> torch.Tensor:
    """The kept rows' normalized advantages, the padding rows' left at 0.

    ``kept`` holds the kept rows' indices and ``kept_mask`` their mask, as the caller gathered.
    """
    at = torch.tensor(_real_positions(plan), dtype=torch.int64, device=kept.device)
    real = kept[at]
    normalized = advantages.new_zeros((len(plan.kept_indices), advantages.shape[1]))
    normalized[at] = normalize_advantages_by_rollout(
        advantages[real], kept_mask[at], ids.take(real), num_trained_rows=plan.num_trained_rows
    )
    return normalized


def _take(rollout_ids: RolloutIds, indices: tuple[int, ...]) -> RolloutIds:
    """The kept rows' ids, in the container type given."""
    if isinstance(rollout_ids, torch.Tensor):
        return rollout_ids[torch.tensor(indices, dtype=torch.int64, device=rollout_ids.device)]
    if isinstance(rollout_ids, np.ndarray):
        return rollout_ids[np.asarray(indices, dtype=np.int64)]
    kept = [rollout_ids[i] for i in indices]
    return tuple(kept) if isinstance(rollout_ids, tuple) else kept
