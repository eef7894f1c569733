# SPDX-License-Identifier: MIT
"""One quantitative rule per aggregation mode: a rollout's mass from its rows and tokens.

Each property draws rollouts split into 1 to 4 rows of 1 to 12 response tokens, shuffles
the rows and trains them all in one mini-batch of ``M`` rows, then checks every rollout's
mass against the mode's rule in ``k`` (the rows the rollout is split into), its tokens and
the batch's.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from docpact import claim
from rolloutnorm import aggregation_masses


@dataclasses.dataclass(frozen=True)
class Split:
    """Rollouts split into rows, the rows shuffled, and the masses of one mode."""

    rows: dict[str, int]  # k: the rows each rollout is split into
    tokens: dict[str, int]  # each rollout's response tokens over its rows
    num_rows: int  # M: every row is trained, in one mini-batch
    width: int  # the padded width of the mask
    masses: dict[str, float]


@st.composite
def splits(draw: st.DrawFn, mode: str, loss_scale_factor: int | None = None) -> Split:
    """1..6 rollouts of 1..4 rows of 1..12 tokens, rows shuffled, and their masses in ``mode``."""
    counts = [
        (f"r{rollout}", draw(st.integers(1, 12)))
        for rollout in range(draw(st.integers(1, 6)))
        for _ in range(draw(st.integers(1, 4)))
    ]
    counts = draw(st.permutations(counts))
    width = max(count for _, count in counts) + draw(st.integers(0, 4))
    lengths = torch.tensor([[count] for _, count in counts])
    mask = (torch.arange(width) < lengths).to(torch.int64)
    ids = [rollout for rollout, _ in counts]
    result = aggregation_masses(mask, ids, modes=[mode], loss_scale_factor=loss_scale_factor)
    rows: dict[str, int] = {}
    tokens: dict[str, int] = {}
    for rollout, count in counts:
        rows[rollout] = rows.get(rollout, 0) + 1
        tokens[rollout] = tokens.get(rollout, 0) + count
    masses = dict(zip(result.rollout_ids, result[mode].tolist(), strict=True))
    return Split(rows, tokens, len(counts), width, masses)


@claim("agg-token-mean")
@settings(max_examples=200, deadline=None)
@given(splits("token-mean"))
def test_rule_token_mean(split: Split) -> None:
    """token-mean: a rollout carries its tokens over the step's tokens, whatever its k rows."""
    total = sum(split.tokens.values())
    for rollout, mass in split.masses.items():
        assert mass == pytest.approx(split.tokens[rollout] / total, rel=1e-12)


@claim("agg-token-sum")
@settings(max_examples=200, deadline=None)
@given(splits("token-sum"))
def test_rule_token_sum(split: Split) -> None:
    """token-sum: a rollout carries its token count, whatever its k rows."""
    for rollout, mass in split.masses.items():
        assert mass == split.tokens[rollout]


@claim("agg-seq-mean-token-sum")
@settings(max_examples=200, deadline=None)
@given(splits("seq-mean-token-sum"))
def test_rule_seq_mean_token_sum(split: Split) -> None:
    """seq-mean-token-sum: a rollout carries its tokens over the M rows, whatever its k rows."""
    for rollout, mass in split.masses.items():
        assert mass == pytest.approx(split.tokens[rollout] / split.num_rows, rel=1e-12)


@claim("agg-seq-mean-token-mean")
@settings(max_examples=200, deadline=None)
@given(splits("seq-mean-token-mean"))
def test_rule_seq_mean_token_mean(split: Split) -> None:
    """seq-mean-token-mean: a rollout split into k rows carries k / M, k times a one-row one.

    Its tokens do not count: 1 token or 12 in a row, the row weighs 1 / M.
    """
    for rollout, mass in split.masses.items():
        assert mass == pytest.approx(split.rows[rollout] / split.num_rows, rel=1e-12)


@claim("agg-seq-mean-token-sum-norm")
@settings(max_examples=200, deadline=None)
@given(st.none() | st.integers(1, 4096), st.data())
def test_rule_seq_mean_token_sum_norm(loss_scale_factor: int | None, data: st.DataObject) -> None:
    """seq-mean-token-sum-norm: a rollout carries its tokens over M times the scale factor.

    The scale factor is ``loss_scale_factor``, or the mask's padded width when it is None;
    the rollout's k rows do not count.
    """
    split = data.draw(splits("seq-mean-token-sum-norm", loss_scale_factor))
    scale = split.width if loss_scale_factor is None else loss_scale_factor
    for rollout, mass in split.masses.items():
        expected = split.tokens[rollout] / (split.num_rows * scale)
        assert mass == pytest.approx(expected, rel=1e-12)


@claim("agg-per-rollout-mean")
@settings(max_examples=200, deadline=None)
@given(splits("per_rollout_mean"))
def test_rule_per_rollout_mean(split: Split) -> None:
    """per_rollout_mean: every rollout carries 1 / M (the trained rows), whatever k and tokens."""
    for mass in split.masses.values():
        assert mass == pytest.approx(1 / split.num_rows, rel=1e-12)
