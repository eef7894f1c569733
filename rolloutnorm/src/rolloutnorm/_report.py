# SPDX-License-Identifier: MIT
"""How much normalized token mass each rollout carries: the quantity the docs reason about."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from fractions import Fraction

import torch

from rolloutnorm._ids import RolloutIds, encode_ids
from rolloutnorm._normalize import normalize_advantages_by_rollout
from rolloutnorm._validate import MASK, check_layout

__all__ = ["MassReport", "RolloutMass", "mass_fraction", "rollout_mass_report"]


@dataclasses.dataclass(frozen=True, slots=True)
class RolloutMass:
    """One rollout's share of a normalized batch.

    Attributes:
        rollout_id: The rollout's id.
        rows: How many rows of the batch belong to it.
        tokens: Its response tokens over all those rows (its `rollout_token_count`).
        mass: The sum of its normalized unit advantages over its response tokens.

    Examples:
        >>> import torch
        >>> report = rollout_mass_report(
        ...     torch.ones(3, 2), ["a", "a", "b"], num_trained_rows=3
        ... )
        >>> first = report.rollouts[0]
        >>> isinstance(first, RolloutMass), first.rollout_id, first.rows, first.tokens
        (True, 'a', 2, 4)
        >>> round(first.mass, 4)
        0.3333
    """

    rollout_id: Hashable
    rows: int
    tokens: int
    mass: float


@dataclasses.dataclass(frozen=True, slots=True)
class MassReport:
    """The normalized token mass of every rollout in a trained batch.

    ``str(report)`` prints one line per rollout (id, rows, tokens, mass as a fraction
    and a decimal) and a last line with the batch total.

    The masses are those of one epoch. Each of a step's ``ppo_epochs`` consumes every
    trained row once with the same normalized advantages, so the report shows no schedule;
    the step's plan gives it (`RetentionPlan.update_units`, over all epochs).

    Attributes:
        rollouts: One entry per rollout, in order of first appearance.
        num_trained_rows: The `num_trained_rows` the batch was normalized with.

    Examples:
        >>> import torch
        >>> report = rollout_mass_report(
        ...     torch.ones(3, 2), ["a", "a", "b"], num_trained_rows=3
        ... )
        >>> isinstance(report, MassReport), round(report.batch_mass, 4)
        (True, 0.6667)
        >>> print(report)
        rollout  rows  tokens  mass
        a           2       4  1/3 (0.3333)
        b           1       2  1/3 (0.3333)
        batch: 2 rollouts over 3 trained rows, mass 2/3 (0.6667)
    """

    rollouts: tuple[RolloutMass, ...]
    num_trained_rows: int

    @property
    def batch_mass(self) -> float:
        """The mass of the whole batch: ``num_rollouts / num_trained_rows`` if none is empty."""
        return sum((rollout.mass for rollout in self.rollouts), 0.0)

    def masses(self) -> dict[Hashable, float]:
        """Every rollout's mass by id.

        Returns:
            The masses, in order of first appearance.
        """
        return {rollout.rollout_id: rollout.mass for rollout in self.rollouts}

    def __str__(self) -> str:
        width = max([7, *(len(str(rollout.rollout_id)) for rollout in self.rollouts)])
        lines = [f"{'rollout':<{width}}  rows  tokens  mass"]
        lines += [
            f"{rollout.rollout_id!s:<{width}}  {rollout.rows:>4}  {rollout.tokens:>6}  "
            f"{mass_fraction(rollout.mass, self.num_trained_rows)}"
            for rollout in self.rollouts
        ]
        lines.append(
            f"batch: {len(self.rollouts)} rollouts over {self.num_trained_rows} trained rows, "
            f"mass {mass_fraction(self.batch_mass, self.num_trained_rows)}"
        )
        return "\n".join(lines)


def rollout_mass_report(
    response_mask: torch.Tensor, rollout_ids: RolloutIds, *, num_trained_rows: int
) -> MassReport:
    """Normalize unit advantages and sum each rollout's share over its response tokens.

    Args:
        response_mask: The trained rows' response mask, ``(rows, tokens)``, 0 and 1.
        rollout_ids: One id per row.
        num_trained_rows: Rows trained in the step, as for `normalize_advantages_by_rollout`.

    Returns:
        The report, computed in float64 through the real normalization.

    Raises:
        RolloutNormError: If an argument is malformed, as in the normalization.

    Examples:
        >>> mask = torch.ones(3, 4)
        >>> print(rollout_mass_report(mask, ["a", "a", "b"], num_trained_rows=3))
        rollout  rows  tokens  mass
        a           2       8  1/3 (0.3333)
        b           1       4  1/3 (0.3333)
        batch: 2 rollouts over 3 trained rows, mass 2/3 (0.6667)
    """
    check_layout({MASK: response_mask}, like=MASK)
    ids = encode_ids(rollout_ids, num_rows=response_mask.shape[0], device=response_mask.device)
    ones = torch.ones(response_mask.shape, dtype=torch.float64, device=response_mask.device)
    normalized = normalize_advantages_by_rollout(
        ones, response_mask, ids, num_trained_rows=num_trained_rows
    )
    row_mass = (normalized * response_mask.to(torch.float64)).sum(-1).tolist()
    row_tokens = response_mask.to(torch.int64).sum(-1).tolist()
    totals: dict[int, list[float]] = {}
    first_rows: dict[int, int] = {}
    for row, (code, tokens, mass) in enumerate(
        zip(ids.codes.tolist(), row_tokens, row_mass, strict=True)
    ):
        entry = totals.setdefault(code, [0, 0, 0.0])
        first_rows.setdefault(code, row)
        entry[0] += 1
        entry[1] += tokens
        entry[2] += mass
    values = rollout_ids.tolist() if hasattr(rollout_ids, "tolist") else list(rollout_ids)
    rollouts = tuple(
        RolloutMass(values[first_rows[code]], rows, tokens, mass)
        for code, (rows, tokens, mass) in totals.items()
    )
    return MassReport(rollouts=rollouts, num_trained_rows=num_trained_rows)


def mass_fraction(value: float, num_trained_rows: int) -> str:
    """A mass as a fraction and a decimal, as the report and the explain tables print it.

    Every rollout's mass is a multiple of 1 / num_trained_rows, so the fraction is exact.

    Args:
        value: The mass.
        num_trained_rows: The step's trained rows, the fraction's largest denominator.

    Returns:
        The fraction with the decimal in parentheses, e.g. ``1/8 (0.1250)``.
    """
    decimal = f"{value:.4f}" if value == 0 or abs(value) >= 1e-3 else f"{value:.3e}"
    # A report built by hand may say 0 trained rows; a fraction needs a denominator of 1 or more.
    return f"{Fraction(value).limit_denominator(max(1, num_trained_rows))} ({decimal})"
