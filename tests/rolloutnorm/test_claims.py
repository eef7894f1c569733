# SPDX-License-Identifier: MIT
"""The claims of docs/trainer-configuration.md and docs/verl.md, one property each.

A rollout's normalized mass is the sum, over its rows and tokens, of its normalized unit
advantages times the response mask, taken here in float64 from the values the code returns.
Each docstring states its claim as the code makes it true, with its conditions and tolerance,
and names the drift of scripts/drift_catalogue.toml that it fails on.
"""

from __future__ import annotations

import types
from collections.abc import Hashable

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from batches import RolloutBatch, retention_configs, rollout_batches
from docpact import claim
from rolloutnorm import (
    PolicyLossConfig,
    TrainedBatch,
    compute_policy_loss_per_rollout_mean,
    normalize_advantages_by_rollout,
    retain_and_normalize,
)

# Relative tolerance of a mass: each normalized token is one correctly rounded division.
MASS_RTOL = {torch.float32: 1e-6, torch.float64: 1e-12}


def _as_list(rollout_ids: object) -> list[Hashable]:
    if isinstance(rollout_ids, torch.Tensor | np.ndarray):
        return rollout_ids.tolist()
    return list(rollout_ids)


def _masses(
    advantages: torch.Tensor, mask: torch.Tensor, rollout_ids: object
) -> tuple[dict[Hashable, float], dict[Hashable, int]]:
    """Each rollout's normalized mass, summed in float64, and its response tokens."""
    row_masses = (advantages.double() * mask.double()).sum(-1).tolist()
    row_tokens = mask.to(torch.int64).sum(-1).tolist()
    masses: dict[Hashable, float] = {}
    tokens: dict[Hashable, int] = {}
    for rollout_id, row_mass, row_count in zip(
        _as_list(rollout_ids), row_masses, row_tokens, strict=True
    ):
        masses[rollout_id] = masses.get(rollout_id, 0.0) + row_mass
        tokens[rollout_id] = tokens.get(rollout_id, 0) + row_count
    return masses, tokens


def _retain(batch: RolloutBatch, config: object) -> TrainedBatch:
    return retain_and_normalize(
        batch.advantages(),
        batch.mask(),
        batch.rollout_ids(),
        config=config,
        **batch.retention_inputs(),
    )


def _is_close(value: float, expected: float, rtol: float) -> bool:
    return abs(value - expected) <= rtol * abs(expected)


@claim("mass-per-rollout")
@settings(max_examples=300, deadline=None)
@given(batch=rollout_batches(), data=st.data())
def test_mass_per_rollout(batch: RolloutBatch, data: st.DataObject) -> None:
    """Every retained rollout with a response token carries 1 / num_trained_rows.

    With unit advantages on the response tokens (any finite value on the padding), a rollout
    with at least one response token in the rows passed carries normalized mass
    ``1 / num_trained_rows``, for any split into rows (zero-token rows included), in any order,
    with str or int ids in any container. Through `retain_and_normalize`, with any marked
    drops, mini-batch size, ``max_ppo_update_times`` cap (None included) and seed,
    ``num_trained_rows`` is the number of kept rows, and the tokens counted are those of the
    rollout's kept rows: a rollout that retention cut short still carries
    ``1 / num_trained_rows`` over what is left. Directly through
    `normalize_advantages_by_rollout`, ``num_trained_rows`` may exceed the rows passed, but
    every row of the rollout must be in the call: the function counts only the rows it is
    given. Tolerance: relative 1e-6 for float32 advantages, 1e-12 for float64.

    Fails on the drifts "divisor uses the row's own tokens, not the rollout's" and "divisor
    counts distinct rollouts instead of trained rows".
    """
    config = data.draw(retention_configs(batch.num_candidates), label="config")
    trained = _retain(batch, config)
    num_trained_rows = trained.plan.num_trained_rows
    assert num_trained_rows == len(_as_list(trained.rollout_ids))
    masses, tokens = _masses(trained.advantages, trained.response_mask, trained.rollout_ids)
    for rollout_id, mass in masses.items():
        if tokens[rollout_id]:
            assert _is_close(mass, 1 / num_trained_rows, MASS_RTOL[batch.dtype]), rollout_id

    num_trained_rows = len(batch.rows) + data.draw(st.integers(0, 5), label="extra rows")
    direct = normalize_advantages_by_rollout(
        batch.advantages(), batch.mask(), batch.rollout_ids(), num_trained_rows=num_trained_rows
    )
    masses, tokens = _masses(direct, batch.mask(), batch.rollout_ids())
    for rollout_id, mass in masses.items():
        if tokens[rollout_id]:
            assert _is_close(mass, 1 / num_trained_rows, MASS_RTOL[batch.dtype]), rollout_id


@claim("batch-mass")
@settings(max_examples=300, deadline=None)
@given(batch=rollout_batches(), data=st.data())
def test_batch_mass(batch: RolloutBatch, data: st.DataObject) -> None:
    """A batch of R rollouts with response tokens carries R / num_trained_rows.

    Under the conditions of `test_mass_per_rollout`, the normalized mass of all the rows
    passed, summed, is ``R / num_trained_rows``, where R counts the distinct rollouts with at
    least one response token in those rows (for `retain_and_normalize`: in the kept rows). A
    rollout without response tokens adds exactly nothing: the ``max(1, ...)`` guard keeps its
    advantages finite, and the mask zeroes them. So it is 1 only when R equals
    ``num_trained_rows``. Checked through `retain_and_normalize` and directly through
    `normalize_advantages_by_rollout` (with ``num_trained_rows`` at least the rows passed).
    Tolerance: relative 1e-6 for float32 advantages, 1e-12 for float64.

    Fails on the drifts "divisor counts distinct rollouts instead of trained rows", "divisor
    uses the row's own tokens, not the rollout's" and "max(1, ...) guard removed" (a rollout
    without tokens then turns the batch's mass NaN).
    """
    config = data.draw(retention_configs(batch.num_candidates), label="config")
    trained = _retain(batch, config)
    masses, tokens = _masses(trained.advantages, trained.response_mask, trained.rollout_ids)
    with_tokens = sum(1 for count in tokens.values() if count)
    expected = with_tokens / trained.plan.num_trained_rows
    assert _is_close(sum(masses.values()), expected, MASS_RTOL[batch.dtype])

    num_trained_rows = len(batch.rows) + data.draw(st.integers(0, 5), label="extra rows")
    direct = normalize_advantages_by_rollout(
        batch.advantages(), batch.mask(), batch.rollout_ids(), num_trained_rows=num_trained_rows
    )
    masses, tokens = _masses(direct, batch.mask(), batch.rollout_ids())
    with_tokens = sum(1 for count in tokens.values() if count)
    expected = with_tokens / num_trained_rows
    assert _is_close(sum(masses.values()), expected, MASS_RTOL[batch.dtype])


def _epoch_masses(
    trained: TrainedBatch, order: list[int]
) -> tuple[dict[Hashable, float], dict[Hashable, int]]:
    """Each rollout's mass summed over the epoch's update units, rows taken in ``order``."""
    plan = trained.plan
    units = plan.update_units_per_epoch
    # Every trained row is consumed exactly once per epoch, in one of its update units.
    assert units * plan.mini_batch_size == plan.num_trained_rows
    masses: dict[Hashable, float] = {}
    tokens: dict[Hashable, int] = {}
    ids = _as_list(trained.rollout_ids)
    for unit in range(units):
        rows = order[unit * plan.mini_batch_size : (unit + 1) * plan.mini_batch_size]
        unit_masses, unit_tokens = _masses(
            trained.advantages[rows], trained.response_mask[rows], [ids[i] for i in rows]
        )
        for rollout_id, mass in unit_masses.items():
            masses[rollout_id] = masses.get(rollout_id, 0.0) + mass
            tokens[rollout_id] = tokens.get(rollout_id, 0) + unit_tokens[rollout_id]
    return masses, tokens


@claim("no-update-compensation")
@settings(max_examples=300, deadline=None)
@given(batch=rollout_batches(), data=st.data())
def test_no_update_compensation(batch: RolloutBatch, data: st.DataObject) -> None:
    """Splitting a rollout into more rows never raises any rollout's epoch mass.

    One row of a random batch is cut in two (anywhere in its tokens, so either part may have
    none; the new row goes anywhere in the batch and keeps the row's rollout and drop mark),
    and `retain_and_normalize` runs before and after with the same configuration (any
    mini-batch size, ``max_ppo_update_times`` cap, None included, and seed). The epoch is
    modelled as the page does: the trained rows, in any order, fill exactly
    ``update_units_per_epoch`` mini-batches, each row consumed once, so a rollout's epoch mass
    is its normalized mass summed over the units. For every rollout retained with at least
    one response token both before and after the split, the epoch mass after is at most the
    mass before, times 1 + 1e-6 for float32 advantages or 1 + 1e-12 for float64: the extra
    update units the new row may bring never make up for the larger ``num_trained_rows``.
    Rollouts retention drops in one run but not the other are not compared, since the random
    drops change with the rows.

    Fails on the drifts "divisor uses the row's own tokens, not the rollout's" and "divisor
    counts distinct rollouts instead of trained rows" (a split then raises a mass), and on
    "mini-batch floor removed from retention" (the trained rows no longer fill whole units).
    """
    config = data.draw(retention_configs(batch.num_candidates), label="config")
    index = data.draw(st.integers(0, len(batch.rows) - 1), label="row split")
    row = batch.rows[index]
    remainder_tokens = row.tokens - data.draw(st.integers(0, row.tokens), label="cut")
    split = batch.split(
        index,
        row.tokens - remainder_tokens,
        position=data.draw(st.integers(0, len(batch.rows)), label="new row position"),
        offset=data.draw(st.integers(0, batch.width - remainder_tokens), label="new offset"),
    )

    epoch_masses = []
    for rows in (batch, split):
        trained = _retain(rows, config)
        order = data.draw(st.permutations(range(trained.plan.num_trained_rows)), label="order")
        epoch_masses.append(_epoch_masses(trained, order))
    (before, tokens_before), (after, tokens_after) = epoch_masses
    for rollout_id in before.keys() & after.keys():
        if tokens_before[rollout_id] and tokens_after[rollout_id]:
            bound = before[rollout_id] * (1 + MASS_RTOL[batch.dtype])
            assert after[rollout_id] <= bound, rollout_id


@st.composite
def _shards(draw: st.DrawFn, num_rows: int) -> list[list[int]]:
    """The rows split over 1..8 ranks, any row on any rank, in any order; a rank may get none."""
    num_ranks = draw(st.integers(1, 8))
    order = draw(st.permutations(range(num_rows)))
    ranks = draw(st.lists(st.integers(0, num_ranks - 1), min_size=num_rows, max_size=num_rows))
    pairs = list(zip(order, ranks, strict=True))
    return [[row for row, rank in pairs if rank == r] for r in range(num_ranks)]


def _loss_config(dp_size: int, low: float, high: float, c: float, verl_style: bool) -> object:
    """The loss's config for ``dp_size`` ranks: a PolicyLossConfig or a verl actor config."""
    if not verl_style:
        return PolicyLossConfig(low, high, c, dp_size=dp_size)
    info = {} if dp_size == 1 else {"dp_size": dp_size}
    return types.SimpleNamespace(
        clip_ratio_low=low, clip_ratio_high=high, clip_ratio_c=c, global_batch_info=info
    )


@claim("dp-size-sum")
@settings(max_examples=200, deadline=None)
@given(
    batch=rollout_batches(),
    data=st.data(),
    seed=st.integers(0, 2**32 - 1),
    low=st.floats(0.0, 1.0, exclude_max=True),
    high=st.floats(0.0, 1e4),
    c=st.floats(1.0, 1e4, exclude_min=True),
    verl_style=st.booleans(),
    use_weights=st.booleans(),
)
def test_dp_size_sum(
    batch: RolloutBatch,
    data: st.DataObject,
    seed: int,
    low: float,
    high: float,
    c: float,
    verl_style: bool,
    use_weights: bool,
) -> None:
    """The dp_size factor turns the ranks' gradient average into the whole batch's sum.

    Advantages (random, of both signs) are normalized once over the whole batch, with
    ``num_trained_rows`` its rows, as a trainer does before sharding. The rows are then split
    over k simulated ranks (k from 1 to 8, any row on any rank, so a rollout may straddle
    ranks and a rank may hold no row), each rank's loss is
    `compute_policy_loss_per_rollout_mean` on its rows with ``dp_size`` k (from a
    `PolicyLossConfig` or a verl-style ``global_batch_info``), and the
    ranks' gradients with respect to ``log_prob`` are averaged as DDP's all-reduce does. The
    average equals the gradient of the single-process loss over the whole batch with
    ``dp_size`` 1 (absent from ``global_batch_info``), with any valid clip ratios, clipped and
    dual-clipped tokens, and optional importance weights. Tolerance: relative 16 machine
    epsilons of the dtype (about 2e-6 in float32, 4e-15 in float64, with zeros exactly zero),
    the rounding of multiplying by k and dividing by it again.

    Fails on the drift "dp_size factor removed from the loss". The divisor drifts change the
    normalization, which both sides share, so they leave it standing; "max(1, ...) guard
    removed" makes it fail too, but only because the loss rejects the non-finite advantages
    of a rollout without tokens.
    """
    generator = torch.Generator().manual_seed(seed)
    shape = (len(batch.rows), batch.width)
    mask = batch.mask()
    raw = torch.randn(shape, generator=generator, dtype=batch.dtype) * 3
    advantages = normalize_advantages_by_rollout(
        raw, mask, batch.rollout_ids(), num_trained_rows=len(batch.rows)
    )
    old_log_prob = -3 * torch.rand(shape, generator=generator, dtype=batch.dtype)
    log_prob = old_log_prob + torch.randn(shape, generator=generator, dtype=batch.dtype) * 0.5
    log_prob.requires_grad_(True)
    weights = torch.rand(shape, generator=generator, dtype=batch.dtype) * 2
    weights = weights if use_weights else None

    def loss_of(rows: list[int], dp_size: int) -> torch.Tensor:
        index = torch.tensor(rows, dtype=torch.int64)
        loss, _ = compute_policy_loss_per_rollout_mean(
            old_log_prob[index],
            log_prob[index],
            advantages[index],
            mask[index],
            config=_loss_config(dp_size, low, high, c, verl_style),
            rollout_is_weights=None if weights is None else weights[index],
        )
        return loss

    whole = loss_of(list(range(len(batch.rows))), 1)
    (reference,) = torch.autograd.grad(whole, log_prob)
    shards = data.draw(_shards(len(batch.rows)), label="shards")
    losses = [loss_of(rows, len(shards)) for rows in shards]
    gradients = [torch.autograd.grad(loss, log_prob)[0] for loss in losses]
    average = torch.stack(gradients).sum(0) / len(shards)

    rtol = 16 * torch.finfo(batch.dtype).eps
    torch.testing.assert_close(average, reference, rtol=rtol, atol=0.0)
