# SPDX-License-Identifier: MIT
"""The ``--modes`` view: each rollout's mass under every loss aggregation mode, side by side.

The masses are `aggregation_masses` on the rows the plan keeps, under verl's defaults
(one data-parallel rank, ``loss_scale_factor`` the padded width). This module gives them as
cells, a legend and data; the table, Markdown, JSON and plot renderers lay them out, and
mark the mode the configuration selects.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import torch

from rolloutnorm._aggregation import MODES, aggregation_masses
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._ids import RolloutIds
from rolloutnorm._retention import RetentionPlan

__all__ = ["ModeMasses", "as_data", "cells", "header", "legend", "mode_masses"]


@dataclasses.dataclass(frozen=True, slots=True)
class ModeMasses:
    """Every rollout's mass under each mode, in the explanation's order of rollouts.

    Attributes:
        masses: One float64 array per mode, in the order of `MODES`.
        selected: The mode the configuration selects.
        dp_size: The data-parallel ranks the masses assume.
        loss_scale_factor: What ``seq-mean-token-sum-norm`` divides by besides the
            mini-batch size: verl's default, the padded width.
    """

    masses: dict[str, np.ndarray]
    selected: str
    dp_size: int
    loss_scale_factor: int

    def totals(self) -> dict[str, float]:
        """The batch's mass under each mode."""
        return {mode: float(values.sum()) for mode, values in self.masses.items()}


def mode_masses(
    response_mask: torch.Tensor,
    rollout_ids: RolloutIds,
    plan: RetentionPlan,
    *,
    selected: str,
    num_rollouts: int,
) -> ModeMasses:
    """The masses of a batch under every mode, with verl's default settings.

    Args:
        response_mask: The batch's response mask.
        rollout_ids: Its rollout ids, one per row.
        plan: The retention plan the explanation shows.
        selected: The mode the configuration selects.
        num_rollouts: The explanation's rollouts, which the masses must match one for one.

    Returns:
        The masses.

    Raises:
        RolloutNormError: If the masses do not cover the explanation's rollouts.
    """
    if plan.num_trained_rows == 0:
        # Nothing trained weighs nothing in any mode; and a mini-batch larger than the batch
        # (rollout.n of 400 digits) is past the int64 that aggregation_masses computes in.
        masses = {mode: np.zeros(num_rollouts) for mode in MODES}
    else:
        result = aggregation_masses(response_mask, rollout_ids, plan=plan)
        if len(result.rollout_ids) != num_rollouts:  # both list rollouts by first row
            msg = f"--modes: {len(result.rollout_ids)} rollouts for the {num_rollouts} explained"
            raise RolloutNormError(msg)
        masses = {mode: result.masses[mode].cpu().numpy() for mode in MODES}
    return ModeMasses(
        masses=masses,
        selected=selected,
        dp_size=1,
        loss_scale_factor=int(response_mask.shape[1]),
    )


def _decimal(value: float) -> str:
    """A mass to four significant digits, a whole number (``token-sum``'s counts) as it is."""
    return str(int(value)) if value == int(value) else f"{value:.4g}"


def header(modes: ModeMasses, *, mark: str = "*") -> list[str]:
    """The columns: ``rollout``, then every mode, the selected one followed by ``mark``."""
    return ["rollout", *(f"{mode}{mark if mode == modes.selected else ''}" for mode in MODES)]


def cells(rollout_ids: list[str | int], modes: ModeMasses) -> list[list[str]]:
    """One line per rollout, then the batch line: the id, then its mass under each mode."""
    columns = [modes.masses[mode].tolist() for mode in MODES]
    lines = [
        [str(rollout_id), *(_decimal(column[at]) for column in columns)]
        for at, rollout_id in enumerate(rollout_ids)
    ]
    totals = modes.totals()
    lines.append(["batch", *(_decimal(totals[mode]) for mode in MODES)])
    return lines


def legend(modes: ModeMasses, *, mark: str = "*") -> list[str]:
    """What the masses assume, and what the mark means."""
    return [
        "modes: each rollout's mass under each loss aggregation; unit advantages over one "
        f"epoch of the rows kept; dp_size {modes.dp_size}, loss_scale_factor "
        f"{modes.loss_scale_factor} (the padded width), verl's defaults",
        f"{mark}: the mode the config selects",
    ]


def as_data(rollout_ids: list[str | int], modes: ModeMasses) -> dict[str, Any]:
    """The view as JSON data: the settings, then per rollout and for the batch, mode by mode."""
    columns = {mode: modes.masses[mode].tolist() for mode in MODES}
    return {
        "selected": modes.selected,
        "names": list(MODES),
        "dp_size": modes.dp_size,
        "loss_scale_factor": modes.loss_scale_factor,
        "rollouts": [
            {"rollout_id": rollout_id, **{mode: columns[mode][at] for mode in MODES}}
            for at, rollout_id in enumerate(rollout_ids)
        ],
        "batch": modes.totals(),
    }
