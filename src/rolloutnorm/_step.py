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
from rolloutnorm._normalize import normalize_advantages_by_rollout
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
        report: Every kept rollout's normalized token mass.
    """

    plan: RetentionPlan
    advantages: torch.Tensor
    response_mask: torch.Tensor
    rollout_ids: RolloutIds
    report: MassReport


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
    ``ppo_mini_batch_size * rollout.n``, the ``max_ppo_update_times`` cap and the
    retention seed of ``config``. The kept rows are then normalized with
    `num_trained_rows` equal to their number, as a trainer step does.

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
        The kept rows, normalized, with the plan and the mass report.

    Raises:
        RolloutNormError: If an argument is malformed, or no row is left to train
            (fewer candidate rows than one mini-batch).
    """
    if not isinstance(advantages, torch.Tensor) or advantages.ndim != 2:
        msg = "advantages must be a 2-D torch.Tensor (rows, tokens)"
        raise RolloutNormError(msg)
    if not isinstance(response_mask, torch.Tensor) or response_mask.shape != advantages.shape:
        got = getattr(response_mask, "shape", type(response_mask).__name__)
        want = tuple(advantages.shape)
        msg = f"response_mask must be a tensor of the shape of advantages {want}, got {got}"
        raise RolloutNormError(msg)
    if not isinstance(rollout_ids, torch.Tensor | np.ndarray | Sequence) or isinstance(
        rollout_ids, str | bytes
    ):
        msg = f"rollout_ids must be a list, tuple, numpy array or tensor, got {type(rollout_ids)}"
        raise RolloutNormError(msg)
    if len(rollout_ids) != advantages.shape[0]:
        msg = (
            f"rollout_ids must hold one id per row: got {len(rollout_ids)} ids "
            f"for {advantages.shape[0]} rows"
        )
        raise RolloutNormError(msg)
    plan = plan_retention(
        advantages.shape[0],
        mini_batch_size=config.mini_batch_size,
        max_ppo_update_times=config.max_ppo_update_times,
        drop=drop,
        group_ids=group_ids,
        rewards=rewards,
        seed=config.retention_seed,
    )
    if plan.num_trained_rows == 0:
        msg = f"no rows left to train: {plan}"
        raise RolloutNormError(msg)
    kept = torch.tensor(plan.kept_indices, dtype=torch.int64)
    kept_ids = _take(rollout_ids, plan.kept_indices, kept)
    kept_mask = response_mask[kept.to(response_mask.device)]
    normalized = normalize_advantages_by_rollout(
        advantages[kept.to(advantages.device)],
        kept_mask,
        kept_ids,
        num_trained_rows=plan.num_trained_rows,
    )
    report = rollout_mass_report(kept_mask, kept_ids, num_trained_rows=plan.num_trained_rows)
    return TrainedBatch(plan, normalized, kept_mask, kept_ids, report)


def _take(rollout_ids: RolloutIds, indices: tuple[int, ...], kept: torch.Tensor) -> RolloutIds:
    if isinstance(rollout_ids, torch.Tensor):
        return rollout_ids[kept.to(rollout_ids.device)]
    if isinstance(rollout_ids, np.ndarray):
        return rollout_ids[np.asarray(indices, dtype=np.int64)]
    kept = [rollout_ids[i] for i in indices]
    return tuple(kept) if isinstance(rollout_ids, tuple) else kept
