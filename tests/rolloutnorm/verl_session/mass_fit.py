# SPDX-License-Identifier: MIT
"""Each rollout's mass in verl's real loop, read off the captured step gradients.

At learning rate 0 every ratio is 1, so a step's gradient is minus a weighted sum of the
trained rows' own gradients (each row's summed response log-probs, from a plain copy of the
model): the weight of a row is its per-token advantage in the step. A least-squares fit
recovers the weights; the fit is trusted only with well-conditioned row gradients (smallest
over largest singular value above 1e-3) and a relative residual of at most 1e-5, so an
ill-conditioned fit cannot produce plausible masses.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import loop_batches
import torch

MAX_RESIDUAL = 1e-5
MIN_CONDITIONING = 1e-3  # smallest over largest singular value of the row gradients


@dataclasses.dataclass(frozen=True)
class Fit:
    """Per step, each row's fitted mass (its weight times its response tokens)."""

    row_masses: torch.Tensor  # (steps, rows)
    residuals: tuple[float, ...]  # each step's relative residual

    def rollout_masses(self, rollout_ids: list, steps: slice = slice(None)) -> dict[str, float]:
        """Each rollout's mass summed over its rows and the given steps."""
        totals: dict[str, float] = defaultdict(float)
        per_row = self.row_masses[steps].sum(0).tolist()
        for rollout, mass in zip(rollout_ids, per_row, strict=True):
            totals[rollout] += mass
        return dict(totals)


def basis(batch: loop_batches.Rows, model) -> torch.Tensor:
    """The gradients of the rows with response tokens as columns, in the capture's order.

    A row without response tokens (verl V1's padding) has no gradient and no column.
    """
    per_parameter = loop_batches.row_gradients(model, batch)
    live = batch.trained.response_mask.sum(-1) > 0
    return torch.cat([per_parameter[name][live] for name in sorted(per_parameter)], dim=1).T


def conditioning(columns: torch.Tensor) -> float:
    """The smallest singular value of the row gradients over the largest."""
    singular = torch.linalg.svdvals(columns)
    return float(singular.min() / singular.max())


def fit(
    columns: torch.Tensor,
    batch: loop_batches.Rows,
    steps: list[torch.Tensor],
    max_residual: float | None = MAX_RESIDUAL,
) -> Fit:
    """Fit every step gradient as minus a weighted sum of the row gradients.

    ``max_residual`` None leaves the residuals unchecked, for steps that are known not to be
    such a sum (bf16): the fit's ``residuals`` say how far they are.

    Raises:
        AssertionError: If the row gradients' conditioning is at most `MIN_CONDITIONING`, or
            a step's relative residual exceeds ``max_residual``.
    """
    ratio = conditioning(columns)
    assert ratio > MIN_CONDITIONING, f"row gradients' sigma_min/sigma_max {ratio:.2e} too small"
    weights, residuals = project(columns, steps)
    if max_residual is not None:
        assert max(residuals) <= max_residual, f"fit residuals {residuals} above {max_residual}"
    tokens = batch.trained.response_mask.sum(-1).double()
    live = tokens > 0
    masses = torch.zeros(len(steps), len(tokens), dtype=torch.float64)
    masses[:, live] = weights.T * tokens[live]
    return Fit(masses, tuple(residuals))


def project(columns: torch.Tensor, steps: list[torch.Tensor]) -> tuple[torch.Tensor, list[float]]:
    """The least-squares weights of every step, and each step's relative residual."""
    targets = -torch.stack(steps, dim=1)
    weights = torch.linalg.lstsq(columns, targets).solution
    residuals = ((columns @ weights - targets).norm(dim=0) / targets.norm(dim=0)).tolist()
    return weights, residuals
