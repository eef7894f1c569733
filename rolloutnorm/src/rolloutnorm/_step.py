# SPDX-License-Identifier: MIT
"""Retention then normalization, composed the way a trainer step runs them."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence

import numpy as np
import torch

from rolloutnorm._config import RolloutNormConfig
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._ids import RolloutIds
from rolloutnorm._normalize import encode_batch, normalize_advantages_by_rollout
from rolloutnorm._report import MassReport, rollout_mass_report
from rolloutnorm._retention import RetentionPlan, plan_retention

__all__ = ["TrainedBatch", "retain_and_normalize"]


@dataclasses.dataclass(frozen=True, slots=True)
class TrainedBatch:
    """The rows one PPO update trains on, with their normalized advantages.

    Attributes:
        plan: Which rows were kept and why the others went.
        advantages: The kept rows' advantages, normalized per rollout.
        response_mask: The kept rows' response mask.
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
        all epochs is the plan's (``plan.update_units``).

        Returns:
            The report for the kept rows and the plan's `num_trained_rows`.
        """
        return rollout_mass_report(
            self.response_mask, self.rollout_ids, num_trained_rows=self.plan.num_trained_rows
        )


def retain_and_normalize(
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    rollout_ids: RolloutIds,
    *,
    config: RolloutNormConfig,
    drop: Sequence[bool] | np.ndarray | None = None,
    group_ids: Sequence[Hashable] | np.ndarray | None = None,
    rewards: Sequence[float] | np.ndarray | None = None,
) -> TrainedBatch:
    """Plan which rows are trained, then normalize them with `num_trained_rows` = rows kept.

    Retention follows `plan_retention` with the mini-batch size
    ``ppo_mini_batch_size * rollout.n``, the ``max_ppo_update_times`` cap, the retention
    seed and the ``ppo_epochs`` of ``config`` (the plan's ``update_units`` count every
    epoch). The kept rows are then normalized with `num_trained_rows` equal to their
    number, as a trainer step does.

    Args:
        advantages: All rows' advantages, float, ``(rows, tokens)``.
        response_mask: All rows' response mask, 0 and 1, same shape.
        rollout_ids: One rollout id per row.
        config: The configuration, from `load_config`.
        drop: Per row, whether it is marked for dropping.
        group_ids: Per row, the prompt group id (with ``rewards``, same-reward groups
            are dropped first).
        rewards: Per row, the sequence-level reward.

    Returns:
        The kept rows, normalized, with the plan; ``report()`` gives their masses.

    Raises:
        RolloutNormError: If an argument is malformed, or no row is left to train
            (fewer candidate rows than one mini-batch).
    """
    if not isinstance(config, RolloutNormConfig):
        msg = f"config must be a RolloutNormConfig from load_config, got {type(config).__name__}"
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
    )
    if plan.num_trained_rows == 0:
        dropped = plan.dropped
        msg = (
            f"no rows left to train: of {plan.num_rows} rows, {dropped['marked']} marked, "
            f"{dropped['mini_batch_floor']} dropped at the floor to whole mini-batches of "
            f"{plan.mini_batch_size} rows and {dropped['max_ppo_update_times']} at the update cap"
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
        normalized = normalize_advantages_by_rollout(
            advantages[kept], kept_mask, ids.take(kept), num_trained_rows=plan.num_trained_rows
        )
    return TrainedBatch(plan, normalized, kept_mask, _take(rollout_ids, plan.kept_indices))


def _take(rollout_ids: RolloutIds, indices: tuple[int, ...]) -> RolloutIds:
    """The kept rows' ids, in the container type given."""
    if isinstance(rollout_ids, torch.Tensor):
        return rollout_ids[torch.tensor(indices, dtype=torch.int64, device=rollout_ids.device)]
    if isinstance(rollout_ids, np.ndarray):
        return rollout_ids[np.asarray(indices, dtype=np.int64)]
    kept = [rollout_ids[i] for i in indices]
    return tuple(kept) if isinstance(rollout_ids, tuple) else kept
