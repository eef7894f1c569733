# SPDX-License-Identifier: MIT
"""Padding rows: kept so that the sizes divide, mass 0, not counted in num_trained_rows."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from batches import response_mask
from rolloutnorm import (
    RetentionPlan,
    RolloutNormError,
    load_config,
    normalize_advantages_by_rollout,
    plan_retention,
    retain_and_normalize,
)


def _config(mini: int, cap: int | None = None, seed: int = 0):
    return load_config(
        overrides={
            "actor_rollout_ref.actor.ppo_mini_batch_size": mini,
            "rolloutnorm.max_ppo_update_times": cap,
            "rolloutnorm.retention_seed": seed,
        }
    )


@pytest.mark.parametrize("seed", range(6))
def test_padding_rows_are_always_kept_and_never_counted(seed: int) -> None:
    """Nine real rows and two padding rows, mini-batch 4: 6 real and both padding rows kept."""
    padding = [False] * 9 + [True] * 2
    plan = plan_retention(11, mini_batch_size=4, padding=padding, seed=seed)
    assert plan.padding_indices == (9, 10)
    assert set(plan.padding_indices) <= set(plan.kept_indices)
    assert plan.num_trained_rows == 6
    assert plan.update_units_per_epoch == 2
    assert dict(plan.dropped) == {"marked": 0, "mini_batch_floor": 3, "max_ppo_update_times": 0}


def test_the_cap_takes_real_rows_only() -> None:
    """Capped at one update of 4, six real rows and two padding rows keep 2 real and 2 padding."""
    plan = plan_retention(8, mini_batch_size=4, max_ppo_update_times=1, padding=[0] * 6 + [1] * 2)
    assert plan.padding_indices == (6, 7)
    assert (plan.num_trained_rows, plan.update_units) == (2, 1)
    assert dict(plan.dropped) == {"marked": 0, "mini_batch_floor": 0, "max_ppo_update_times": 4}


def test_without_padding_the_plan_is_the_same() -> None:
    """padding=None and an all-False padding give the plan the argument's absence gives."""
    plain = plan_retention(10, mini_batch_size=4, seed=3)
    assert plan_retention(10, mini_batch_size=4, seed=3, padding=[False] * 10) == plain
    assert plain.padding_indices == ()
    assert str(plain).startswith("RetentionPlan: 10 rows -> 8 trained, 2 update units")


def test_str_names_the_padding_rows() -> None:
    """The summary's first line says how many kept rows are padding."""
    plan = plan_retention(8, mini_batch_size=4, padding=[False] * 6 + [True] * 2, ppo_epochs=2)
    assert str(plan).splitlines()[0] == (
        "RetentionPlan: 8 rows -> 6 trained + 2 padding, 2 update units per epoch, 4 over 2 epochs"
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"padding": [True, False, False, "x"]}, "padding must hold only booleans"),
        ({"padding": [True, False]}, r"padding must be 1-D with one entry per row \(4\)"),
        ({"padding": [0, 2, 0, 0]}, "padding must hold only booleans or the ints 0 and 1"),
        (
            {"padding": [True, False, False, False], "drop": [True, False, False, False]},
            "drop and padding must not both mark a row: row 0 is marked and padding",
        ),
        (
            {"padding": [True, True, True, False], "drop": [False, False, False, True]},
            "padding holds 3 rows, more than the 0 rows that the mini-batch floor",
        ),
    ],
)
def test_bad_padding_is_an_error_naming_the_argument(kwargs: dict, message: str) -> None:
    """Padding is validated like drop: booleans, one per row, never a marked row, not too many."""
    with pytest.raises(RolloutNormError, match=message):
        plan_retention(4, mini_batch_size=4, **kwargs)


def test_a_plan_by_hand_with_padding_outside_the_kept_rows_is_refused() -> None:
    """padding_indices must name kept rows."""
    with pytest.raises(RolloutNormError, match=r"padding_indices must be kept rows: row 3"):
        RetentionPlan(
            kept_indices=(0, 1),
            num_rows=4,
            mini_batch_size=2,
            max_ppo_update_times=None,
            dropped={"marked": 0, "mini_batch_floor": 0, "max_ppo_update_times": 0},
            padding_indices=(3,),
        )


def test_padding_rows_get_no_mass_even_with_tokens_and_a_real_rollouts_id() -> None:
    """A padding row with response tokens and the id of rollout a gets 0 and leaves a alone."""
    ids = ["a", "a", "b", "a"]
    mask = response_mask([3, 2, 4, 5])
    batch = retain_and_normalize(
        torch.ones(4, 5), mask, ids, config=_config(4), padding=[False, False, False, True]
    )
    assert batch.plan.num_trained_rows == 3
    assert torch.equal(batch.advantages[3], torch.zeros(5))
    # a's three real rows hold 5 tokens, normalized over 3 trained rows.
    assert batch.advantages[0, 0].item() == pytest.approx(1 / (5 * 3))
    assert {r.rollout_id: r.mass for r in batch.report().rollouts} == pytest.approx(
        {"a": 1 / 3, "b": 1 / 3}
    )
    assert torch.equal(batch.response_mask, mask)


@settings(deadline=None, max_examples=40)
@given(
    tokens=st.lists(st.integers(0, 6), min_size=1, max_size=12),
    num_padding=st.integers(1, 5),
    data=st.data(),
)
def test_the_real_rows_are_normalized_as_if_the_padding_were_not_there(
    tokens: list[int], num_padding: int, data: st.DataObject
) -> None:
    """With one mini-batch of every row, the real rows get their normalization without padding."""
    rows = len(tokens) + num_padding
    ids = data.draw(st.lists(st.sampled_from("abcd"), min_size=rows, max_size=rows))
    padding = data.draw(st.permutations([True] * num_padding + [False] * len(tokens)))
    counts = iter(tokens)
    mask = response_mask(
        [data.draw(st.integers(0, 6)) if pad else next(counts) for pad in padding], width=6
    )
    advantages = torch.randn(rows, mask.shape[1], dtype=torch.float64)
    batch = retain_and_normalize(advantages, mask, ids, config=_config(rows), padding=padding)
    real = [row for row in range(rows) if not padding[row]]
    expected = normalize_advantages_by_rollout(
        advantages[real], mask[real], [ids[row] for row in real], num_trained_rows=len(real)
    )
    assert batch.plan.num_trained_rows == len(real)
    assert torch.equal(batch.advantages[real], expected)
    padded = [row for row in range(rows) if padding[row]]
    assert not batch.advantages[padded].any()
