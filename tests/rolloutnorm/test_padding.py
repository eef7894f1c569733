# SPDX-License-Identifier: MIT
"""Padding rows: kept so that the sizes divide, mass 0, not counted in num_trained_rows."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
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
def test_padding_rows_fill_the_mini_batches_and_are_never_counted(seed: int) -> None:
    """Ten real rows and two padding rows, mini-batch 4: every row kept, 10 trained, 3 updates."""
    plan = plan_retention(12, mini_batch_size=4, padding=[False] * 10 + [True] * 2, seed=seed)
    assert plan.kept_indices == tuple(range(12))
    assert (plan.padding_indices, plan.spare_padding_indices) == ((10, 11), ())
    assert (plan.num_trained_rows, plan.update_units_per_epoch) == (10, 3)
    assert dict(plan.dropped) == {"marked": 0, "mini_batch_floor": 0, "max_ppo_update_times": 0}


@pytest.mark.parametrize("seed", range(6))
def test_padding_not_needed_at_the_floor_is_left_out_not_a_real_row(seed: int) -> None:
    """Nine real rows and two padding rows, mini-batch 4: 8 real rows kept, as without padding.

    The floor keeps 8 of the 11 rows; real rows fill them, so the padding is left out.
    """
    plan = plan_retention(11, mini_batch_size=4, padding=[False] * 9 + [True] * 2, seed=seed)
    assert (plan.padding_indices, plan.spare_padding_indices) == ((), (9, 10))
    assert plan.num_trained_rows == 8 == plan_retention(9, mini_batch_size=4).num_trained_rows
    assert dict(plan.dropped) == {"marked": 0, "mini_batch_floor": 1, "max_ppo_update_times": 0}
    assert set(plan.drop_reasons) == set(plan.dropped_indices) <= set(range(9))


def test_the_cap_keeps_real_rows_before_padding() -> None:
    """Capped at one update of 4, ten real rows and two padding rows train 4 real rows.

    Before the fix, the padding took two of the four places (2 trained + 2 padding).
    """
    plan = plan_retention(12, mini_batch_size=4, max_ppo_update_times=1, padding=[0] * 10 + [1] * 2)
    assert (plan.padding_indices, plan.spare_padding_indices) == ((), (10, 11))
    assert (plan.num_trained_rows, plan.update_units) == (4, 1)
    assert dict(plan.dropped) == {"marked": 0, "mini_batch_floor": 0, "max_ppo_update_times": 6}
    assert str(plan) == (
        "RetentionPlan: 12 rows -> 4 trained, 1 update unit per epoch\n"
        "  dropped: 0 marked, 0 at the mini-batch floor, 6 at the update cap\n"
        "  padding left out: 2 rows, not needed for whole mini-batches"
    )


def test_only_the_padding_still_needed_is_kept() -> None:
    """One real row and four padding rows, mini-batch 4: the real row and 3 padding rows."""
    plan = plan_retention(5, mini_batch_size=4, padding=[0, 1, 1, 1, 1])
    assert plan.kept_indices == (0, 1, 2, 3)
    assert (plan.padding_indices, plan.spare_padding_indices) == ((1, 2, 3), (4,))
    assert (plan.num_trained_rows, plan.update_units) == (1, 1)
    assert str(plan) == (
        "RetentionPlan: 5 rows -> 1 trained + 3 padding, 1 update unit per epoch\n"
        "  dropped: 0 marked, 0 at the mini-batch floor, 0 at the update cap\n"
        "  padding left out: 1 row, not needed for whole mini-batches"
    )


def test_padding_and_the_cap_through_retain_and_normalize() -> None:
    """Six rows, two of them padding, mini-batch 2, cap 1: one mini-batch of two real rows."""
    ids = ["a", "b", "c", "d", "pad", "pad"]
    mask = response_mask([2, 2, 1, 3, 0, 0], width=3)
    batch = retain_and_normalize(
        torch.ones(6, 3), mask, ids, config=_config(2, cap=1), padding=[0, 0, 0, 0, 1, 1]
    )
    assert (batch.plan.num_trained_rows, batch.plan.update_units) == (2, 1)
    assert batch.plan.spare_padding_indices == (4, 5)
    assert set(batch.plan.kept_indices) <= {0, 1, 2, 3}
    assert list(batch.report().masses().values()) == pytest.approx([1 / 2] * 2)


@pytest.mark.parametrize(("epochs", "cap"), [(1, None), (2, None), (3, 2), (2, 1)])
def test_padding_with_epochs_and_the_cap_through_retain_and_normalize(
    epochs: int, cap: int | None
) -> None:
    """Five real rows and three padding rows, mini-batch 4: the cap and the epochs set the units."""
    config = load_config(
        overrides={
            "actor_rollout_ref.actor.ppo_mini_batch_size": 4,
            "actor_rollout_ref.actor.ppo_epochs": epochs,
            "rolloutnorm.max_ppo_update_times": cap,
        }
    )
    ids = ["a", "a", "b", "c", "c", "p", "p", "p"]
    mask = response_mask([1, 2, 3, 2, 2, 0, 0, 0], width=3)
    batch = retain_and_normalize(
        torch.ones(8, 3), mask, ids, config=config, padding=[0] * 5 + [1] * 3
    )
    plan = batch.plan
    # Eight rows make two mini-batches: a cap of 1 keeps one, of four real rows.
    trained = 4 if cap == 1 else 5
    assert plan.num_trained_rows == trained
    assert plan.padding_indices == (() if cap == 1 else (5, 6, 7))
    assert plan.update_units == (1 if cap == 1 else 2) * epochs
    assert dict(plan.dropped)["max_ppo_update_times"] == 5 - trained
    for rollout in batch.report().rollouts:
        assert rollout.mass == pytest.approx(1 / trained)


def test_all_padding_keeps_nothing_and_makes_no_update() -> None:
    """A batch of padding only has no trained row, so no update unit and no kept padding."""
    plan = plan_retention(4, mini_batch_size=4, padding=[True] * 4, ppo_epochs=2)
    assert (plan.kept_indices, plan.padding_indices) == ((), ())
    assert plan.spare_padding_indices == (0, 1, 2, 3)
    assert (plan.num_trained_rows, plan.update_units) == (0, 0)
    assert plan.drop_reasons == {}
    assert str(plan).splitlines()[0] == (
        "RetentionPlan: 4 rows -> 0 trained, 0 update units per epoch, 0 over 2 epochs"
    )


def test_padding_with_every_real_row_marked_keeps_nothing() -> None:
    """Two marked rows and two padding rows in one mini-batch of four: nothing to train."""
    plan = plan_retention(4, mini_batch_size=4, drop=[1, 1, 0, 0], padding=[0, 0, 1, 1])
    assert (plan.kept_indices, plan.update_units) == ((), 0)
    assert plan.spare_padding_indices == (2, 3)
    assert dict(plan.dropped) == {"marked": 2, "mini_batch_floor": 0, "max_ppo_update_times": 0}


@pytest.mark.parametrize(
    ("drop", "padding", "message"),
    [
        (
            None,
            [True] * 4,
            "no rows left to train: of 4 rows, 0 marked, 0 dropped at the floor to whole "
            "mini-batches of 4 rows, 0 at the update cap and 4 padding, kept only with rows "
            "to train",
        ),
        (
            [0, 1, 0, 0],
            [0, 0, 1, 0],
            "no rows left to train: of 4 rows, 1 marked, 2 dropped at the floor to whole "
            "mini-batches of 4 rows, 0 at the update cap and 1 padding, kept only with rows "
            "to train",
        ),
    ],
)
def test_no_row_left_to_train_counts_the_padding(drop, padding, message: str) -> None:
    """The error's accounting adds up to the batch, the padding left out included."""
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message)}$"):
        retain_and_normalize(
            torch.ones(4, 2),
            response_mask([0 if pad else 2 for pad in padding], width=2),
            ["a", "b", "c", "d"],
            config=_config(4),
            drop=drop,
            padding=padding,
        )


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
    ],
)
def test_bad_padding_is_an_error_naming_the_argument(kwargs: dict, message: str) -> None:
    """Padding is validated like drop: booleans, one per row, never a marked row."""
    with pytest.raises(RolloutNormError, match=message):
        plan_retention(4, mini_batch_size=4, **kwargs)


_BY_HAND = {
    "kept_indices": (0, 1, 2, 3),
    "num_rows": 6,
    "mini_batch_size": 2,
    "max_ppo_update_times": None,
    "dropped": {"marked": 0, "mini_batch_floor": 0, "max_ppo_update_times": 0},
}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"padding_indices": (3, 5)}, r"^padding_indices must be kept rows: row 5 is not in kept"),
        ({"padding_indices": (3, 3)}, r"^padding_indices must not repeat a row, got row 3 more"),
        (
            {"padding_indices": (True,)},
            r"^padding_indices must hold only int row indices, got bool",
        ),
        (
            {"padding_indices": (2.0,)},
            r"^padding_indices must hold only int row indices, got float",
        ),
        ({"padding_indices": 3}, r"^padding_indices must be a sequence of row indices, got int 3"),
        ({"padding_indices": "3"}, r"^padding_indices must be a sequence of row indices, got str"),
        (
            {"padding_indices": (0, 1, 2, 3)},
            r"^padding_indices must leave a trained row: a plan without trained rows keeps no "
            r"padding, got all 4 kept rows as padding$",
        ),
        (
            {"spare_padding_indices": (2,)},
            r"^spare_padding_indices must be rows left out, got row 2, a kept row$",
        ),
        (
            {"spare_padding_indices": (4, 6)},
            r"^spare_padding_indices must be rows left out, got row 6, outside the 6 rows$",
        ),
        ({"spare_padding_indices": (4, 4)}, r"^spare_padding_indices must not repeat a row"),
        (
            {"spare_padding_indices": (4,)},
            r"^drop_reasons must hold one reason per dropped row: row 5",
        ),
    ],
)
def test_a_plan_by_hand_with_bad_padding_is_refused(fields: dict, message: str) -> None:
    """Padding rows by hand: distinct ints, kept (never every kept row), or spare and left out."""
    with pytest.raises(RolloutNormError, match=message):
        RetentionPlan(**_BY_HAND, **fields)


def test_a_plan_by_hand_normalizes_its_padding_rows() -> None:
    """Indices given as numpy ints become Python ints, ascending; spare padding is not dropped."""
    plan = RetentionPlan(
        **_BY_HAND,
        padding_indices=np.array([3, 1]),
        spare_padding_indices=[5, np.int64(4)],
    )
    assert plan.padding_indices == (1, 3)
    assert plan.spare_padding_indices == (4, 5)
    assert all(type(row) is int for row in plan.padding_indices + plan.spare_padding_indices)
    assert (plan.num_trained_rows, plan.dropped_indices) == (2, ())


def test_a_padding_row_with_response_tokens_is_refused() -> None:
    """A padding row holding tokens would count in a trainer's token terms: an error names it."""
    message = (
        "padding must mark only rows without response tokens, got 2 padding rows with "
        "tokens, the first row 1 with 5"
    )
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message)}$"):
        retain_and_normalize(
            torch.ones(5, 5),
            response_mask([3, 5, 2, 0, 1]),
            ["a", "b", "c", "d", "e"],
            config=_config(4),
            padding=[False, True, False, True, True],
        )


def test_a_spare_padding_row_with_response_tokens_is_refused_too() -> None:
    """Padding left out is checked as well: the padding marks are wrong whatever is kept."""
    with pytest.raises(RolloutNormError, match="got 1 padding row with tokens, the first row 4"):
        retain_and_normalize(
            torch.ones(5, 2),
            response_mask([1, 2, 1, 2, 1]),
            list("abcde"),
            config=_config(4),
            padding=[0, 0, 0, 0, 1],
        )


def test_padding_rows_get_no_mass_even_with_a_real_rollouts_id() -> None:
    """A padding row with the id of rollout a gets 0 and leaves a alone."""
    ids = ["a", "a", "b", "a"]
    mask = response_mask([3, 2, 4, 0], width=5)
    batch = retain_and_normalize(
        torch.ones(4, 5), mask, ids, config=_config(4), padding=[False, False, False, True]
    )
    assert batch.plan.num_trained_rows == 3
    assert torch.equal(batch.advantages[3], torch.zeros(5))
    # a's real rows hold 5 tokens, normalized over 3 trained rows.
    assert batch.advantages[0, 0].item() == pytest.approx(1 / (5 * 3))
    assert batch.report().masses() == pytest.approx({"a": 1 / 3, "b": 1 / 3})
    assert torch.equal(batch.response_mask, mask)


def test_padding_rows_rewards_and_group_ids_are_not_read() -> None:
    """A NaN reward, a None or float group id on a padding row pass; real rows are checked."""
    plan = plan_retention(
        4,
        mini_batch_size=2,
        group_ids=["g", "g", None, 1.5],
        rewards=[1.0, 1.0, float("nan"), float("inf")],
        padding=[0, 0, 1, 1],
    )
    assert (plan.num_trained_rows, plan.padding_indices) == (2, (2, 3))
    with pytest.raises(RolloutNormError, match="rewards must hold only finite real numbers"):
        plan_retention(
            4,
            mini_batch_size=2,
            group_ids=[0] * 4,
            rewards=[1, float("nan"), 0, 0],
            padding=[0, 0, 1, 1],
        )
    with pytest.raises(RolloutNormError, match=r"^group_ids\[1\] is unhashable: list$"):
        plan_retention(
            4, mini_batch_size=2, group_ids=[0, [1], 0, [2]], rewards=[0] * 4, padding=[0, 0, 1, 1]
        )
    with pytest.raises(RolloutNormError, match="group_ids must all be of one kind, got int, str"):
        plan_retention(
            4, mini_batch_size=2, group_ids=[0, "x", 0, 0], rewards=[0] * 4, padding=[0, 0, 0, 1]
        )


@pytest.mark.parametrize("container", [list, tuple, np.array, torch.tensor])
def test_a_padding_row_in_a_real_group_does_not_change_its_tier(container) -> None:
    """Group 0's real rows share reward 1: still a same-reward group beside a padding row of 5."""
    plan = plan_retention(
        6,
        mini_batch_size=4,
        group_ids=container([0, 0, 1, 1, 0, 1]),
        rewards=[1.0, 1.0, 0.0, 1.0, 5.0, 0.5],
        padding=[0, 0, 0, 0, 1, 0],
        seed=4,
    )
    # Five real rows and one padding row: real rows fill the 4 places, the floor drops one.
    assert plan.spare_padding_indices == (4,)
    (row,) = plan.dropped_indices
    assert plan.drop_reasons[row].same_reward_group
    assert row in {0, 1}


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
    mask = response_mask([0 if pad else next(counts) for pad in padding], width=6)
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


@st.composite
def _padded_inputs(draw: st.DrawFn) -> dict:
    """A batch with padding rows anywhere, marks, groups and a cap, so the floor and cap act."""
    num_rows = draw(st.integers(0, 30))
    padding = draw(st.lists(st.booleans(), min_size=num_rows, max_size=num_rows))
    marks = draw(st.lists(st.booleans(), min_size=num_rows, max_size=num_rows))
    kwargs = {
        "num_rows": num_rows,
        "mini_batch_size": draw(st.integers(1, 8)),
        "max_ppo_update_times": draw(st.none() | st.integers(1, 4)),
        "seed": draw(st.integers(0, 2**32)),
        "ppo_epochs": draw(st.integers(1, 3)),
        "padding": padding,
        "drop": [mark and not pad for mark, pad in zip(marks, padding, strict=True)],
    }
    if draw(st.booleans()):
        rows = st.lists(st.integers(0, 4), min_size=num_rows, max_size=num_rows)
        kwargs["group_ids"] = draw(rows)
        kwargs["rewards"] = [float(reward % 2) for reward in draw(rows)]
    return kwargs


@settings(deadline=None, max_examples=300)
@given(_padded_inputs())
def test_padding_never_displaces_a_real_row(kwargs: dict) -> None:
    """Real rows fill the kept total first; padding only tops it up and is never a drop."""
    plan = plan_retention(**kwargs)
    padding = [row for row, pad in enumerate(kwargs["padding"]) if pad]
    candidates = [
        row
        for row in range(plan.num_rows)
        if not kwargs["padding"][row] and not kwargs["drop"][row]
    ]
    mbs, cap = plan.mini_batch_size, plan.max_ppo_update_times
    total = (len(candidates) + len(padding)) // mbs * mbs
    if cap is not None:
        total = min(total, mbs * cap)
    kept_real = [row for row in plan.kept_indices if row not in set(padding)]
    assert plan.num_trained_rows == len(kept_real) == min(len(candidates), total)
    assert not set(padding) & set(plan.drop_reasons)
    assert plan.padding_indices + plan.spare_padding_indices == tuple(padding)
    if plan.padding_indices:
        assert kept_real == candidates
        assert dict(plan.dropped)["mini_batch_floor"] == 0
        assert dict(plan.dropped)["max_ppo_update_times"] == 0
    if plan.num_trained_rows:
        assert len(plan.kept_indices) == total
    else:
        assert (plan.kept_indices, plan.update_units) == ((), 0)
    assert plan.update_units == len(plan.kept_indices) // mbs * plan.ppo_epochs
    assert len(plan.kept_indices) % mbs == 0
    counted = sum(plan.dropped.values()) + len(plan.kept_indices)
    assert counted + len(plan.spare_padding_indices) == plan.num_rows
    # Padding never trains fewer real rows than its absence would.
    alone = len(candidates) // mbs * mbs
    assert plan.num_trained_rows >= (alone if cap is None else min(alone, mbs * cap))


@settings(deadline=None, max_examples=60)
@given(_padded_inputs(), st.data())
def test_every_kept_rollout_carries_one_over_the_trained_rows(
    kwargs: dict, data: st.DataObject
) -> None:
    """Through retain_and_normalize, each kept rollout's mass is 1/num_trained_rows."""
    rows = kwargs["num_rows"]
    assume(rows > 0)  # an empty batch is refused before any plan
    tokens = [0 if pad else data.draw(st.integers(1, 4)) for pad in kwargs["padding"]]
    ids = data.draw(st.lists(st.sampled_from("abcdef"), min_size=rows, max_size=rows))
    config = load_config(
        overrides={
            "actor_rollout_ref.actor.ppo_mini_batch_size": kwargs["mini_batch_size"],
            "actor_rollout_ref.actor.ppo_epochs": kwargs["ppo_epochs"],
            "rolloutnorm.max_ppo_update_times": kwargs["max_ppo_update_times"],
            "rolloutnorm.retention_seed": kwargs["seed"] % 2**31,
        }
    )
    args = (torch.ones(rows, 4, dtype=torch.float64), response_mask(tokens, width=4), ids)
    options = {key: kwargs.get(key) for key in ("drop", "group_ids", "rewards", "padding")}
    plan = plan_retention(
        rows,
        mini_batch_size=config.mini_batch_size,
        max_ppo_update_times=config.max_ppo_update_times,
        seed=config.retention_seed,
        ppo_epochs=config.ppo_epochs,
        **options,
    )
    if plan.num_trained_rows == 0:
        with pytest.raises(RolloutNormError, match=r"^no rows left to train"):
            retain_and_normalize(*args, config=config, **options)
        return
    batch = retain_and_normalize(*args, config=config, **options)
    assert batch.plan == plan
    masses = batch.report().masses()
    assert masses == pytest.approx(dict.fromkeys(masses, 1 / plan.num_trained_rows))
    padded = [at for at, row in enumerate(plan.kept_indices) if row in plan.padding_indices]
    assert not batch.advantages[padded].any()
