# SPDX-License-Identifier: MIT
"""What ``rolloutnorm explain`` shows of a batch: the retention plan and every rollout's mass.

The masses come from `retain_and_normalize` itself, run on unit advantages: each rollout's
share is its normalized advantages summed over its trained response tokens. Beside them
stands the mass a divisor counting distinct rollouts would give, the reading the code does
not implement, computed here by hand and labelled as such. A configuration of another policy
loss is explained too, its masses still those of ``per_rollout_mean``; the explanation
records the mode it selects.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import torch

from rolloutnorm._config import LOSS_MODE, RolloutNormConfig
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._explain.batch import Batch
from rolloutnorm._explain.modes import ModeMasses, mode_masses
from rolloutnorm._ids import encode_ids
from rolloutnorm._normalize import check_batch
from rolloutnorm._retention import DropReason, RetentionPlan, plan_retention
from rolloutnorm._step import retain_and_normalize
from rolloutnorm._validate import count_row_tokens

__all__ = ["ALTERNATIVE", "IMPLEMENTED", "Explanation", "explain", "significant"]

IMPLEMENTED = "max(1, rollout_token_count * num_trained_rows)"
ALTERNATIVE = "max(1, rollout_token_count * distinct_trained_rollouts)"
_HOST = torch.device("cpu")


def significant(value: float) -> float:
    """A mass to 15 significant digits, as the JSON output gives it.

    A float64 sum of a row's shares can differ in its last bit from one machine's vector
    width to another's; 15 digits are what every machine agrees on.

    Args:
        value: The mass.

    Returns:
        The nearest float to its first 15 significant digits.
    """
    return float(f"{value:.15g}")


@dataclasses.dataclass(frozen=True, slots=True)
class Explanation:
    """A batch explained: its plan and, per rollout in order of first appearance, its share.

    Attributes:
        source: The batch file, as named on the command line.
        config: The configuration read; the batch was retained and normalized with it,
            under ``per_rollout_mean`` whatever policy loss it selects.
        plan: The retention plan.
        rollout_ids: Each rollout's id.
        rows: Each rollout's rows in the batch.
        trained_rows: Each rollout's trained rows.
        tokens: Each rollout's response tokens over its trained rows (its
            `rollout_token_count`).
        mass: Each rollout's normalized token mass, from the code.
        alternative_mass: Each rollout's mass under the divisor the code does not use.
        dropped_rows: ``(row, rollout id, reason)`` for every dropped row, by row.
        modes: Each rollout's mass under every loss aggregation mode, where asked for
            (``--modes``), else ``None``.
    """

    source: str
    config: RolloutNormConfig
    plan: RetentionPlan
    rollout_ids: list[str | int]
    rows: np.ndarray
    trained_rows: np.ndarray
    tokens: np.ndarray
    mass: np.ndarray
    alternative_mass: np.ndarray
    dropped_rows: list[tuple[int, str | int, DropReason]]
    modes: ModeMasses | None = None

    @property
    def selected_mode(self) -> str:
        """The loss aggregation the configuration selects (`RolloutNormConfig.selected_mode`)."""
        return self.config.selected_mode

    @property
    def distinct_trained_rollouts(self) -> int:
        """The rollouts with a trained row: the alternative divisor's count."""
        return int(np.count_nonzero(self.trained_rows))

    def totals(self) -> dict[str, Any]:
        """The batch totals, as the JSON output gives them."""
        return {
            "rollouts": len(self.rollout_ids),
            "trained_rollouts": self.distinct_trained_rollouts,
            "rows": self.plan.num_rows,
            "trained_rows": self.plan.num_trained_rows,
            "tokens": int(self.tokens.sum()),
            "mass": significant(float(self.mass.sum())),
            "alternative_mass": significant(float(self.alternative_mass.sum())),
        }


def explain(
    batch: Batch, config: RolloutNormConfig, *, source: str, modes: bool = False
) -> Explanation:
    """Retain and normalize a batch with the code a trainer step runs, and sum every share.

    Args:
        batch: The batch, from `read_batch`.
        config: The configuration, from `load_config`, of any policy loss: the batch is
            normalized as ``per_rollout_mean`` would, with its other settings.
        source: The file's name, for the output.
        modes: Whether to compute every rollout's mass under each aggregation mode too.

    Returns:
        The explanation; with no row trained (fewer candidates than one mini-batch), every
        mass is 0 and the plan says why.

    Raises:
        RolloutNormError: If the batch is malformed; the message names the argument.
    """
    mask = batch.response_mask
    num_rows = mask.shape[0]
    # Unit advantages as a view of one value: the code reads them all, memory holds one.
    ones = torch.ones((1, 1), dtype=torch.float64).expand(mask.shape)
    groups = {"drop": batch.drop, "group_ids": batch.group_ids, "rewards": batch.rewards}
    ours = config if config.loss_mode == LOSS_MODE else config.replace(loss_mode=LOSS_MODE)
    try:
        trained = retain_and_normalize(ones, mask, batch.rollout_ids, config=ours, **groups)
    except RolloutNormError:
        check_batch(ones, mask, batch.rollout_ids)
        plan = plan_retention(
            num_rows,
            mini_batch_size=config.mini_batch_size,
            max_ppo_update_times=config.max_ppo_update_times,
            seed=config.retention_seed,
            ppo_epochs=config.ppo_epochs,
            **groups,
        )
        if plan.num_trained_rows:
            raise
        trained = None
    else:
        plan = trained.plan
    ids = encode_ids(batch.rollout_ids, num_rows=num_rows, device=_HOST)
    codes = ids.codes.numpy()
    _, first_rows = np.unique(codes, return_index=True)
    first_rows.sort()
    position = np.empty(ids.size, dtype=np.int64)
    position[codes[first_rows]] = np.arange(len(first_rows))
    rollout_of_row = position[codes]
    count = len(first_rows)
    kept = np.asarray(plan.kept_indices, dtype=np.int64)
    kept_rollouts = rollout_of_row[kept]
    row_mass = np.zeros(0)
    row_tokens = np.zeros(0, dtype=np.int64)
    if trained is not None:
        # In place: the kept advantages are this call's own copy, and a product of the
        # batch's size would fault in as many fresh pages again (32,768 at 65,536 x 256).
        response = trained.response_mask.bool()
        row_mass = trained.advantages.masked_fill_(~response, 0).sum(-1).numpy()
        if batch.row_tokens is not None:
            row_tokens = batch.row_tokens[kept]
        else:
            row_tokens = count_row_tokens(trained.response_mask).counts.numpy()
    trained_rows = np.bincount(kept_rollouts, minlength=count)
    tokens = np.bincount(kept_rollouts, weights=row_tokens, minlength=count).astype(np.int64)
    distinct = int(np.count_nonzero(trained_rows))
    labels = _values(batch.rollout_ids, first_rows)
    row_labels = _values(batch.rollout_ids, np.asarray(list(plan.drop_reasons), dtype=np.int64))
    by_mode = None
    if modes:
        selected = config.selected_mode
        by_mode = mode_masses(
            mask, batch.rollout_ids, plan, selected=selected, num_rollouts=len(labels)
        )
    return Explanation(
        source=source,
        config=config,
        plan=plan,
        rollout_ids=labels,
        rows=np.bincount(rollout_of_row, minlength=count),
        trained_rows=trained_rows,
        tokens=tokens,
        mass=np.bincount(kept_rollouts, weights=row_mass, minlength=count),
        alternative_mass=tokens / np.maximum(1, tokens * distinct),
        dropped_rows=[
            (row, label, reason)
            for (row, reason), label in zip(plan.drop_reasons.items(), row_labels, strict=True)
        ],
        modes=by_mode,
    )


def _values(ids: Any, rows: np.ndarray) -> list[str | int]:
    """The ids of some rows as JSON can hold them: str and int as they are, others as text."""
    if isinstance(ids, torch.Tensor):
        values = ids[torch.from_numpy(rows)].tolist()
    elif isinstance(ids, np.ndarray):
        values = ids[rows].tolist()
    else:
        values = [ids[row] for row in rows.tolist()]
    if all(type(value) is str for value in values):
        return values
    return [_label(value) for value in values]


def _label(value: object) -> str | int:
    """An id of another kind than str and int (bytes, a tuple) as text."""
    if isinstance(value, str | int):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return str(value)
