# SPDX-License-Identifier: MIT
"""Tests for plan_retention: the counts and reasons per stage, the tiers, and input validation."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rolloutnorm._errors import RolloutNormError
from rolloutnorm._retention import DropReason, RetentionPlan, plan_retention

# --- pinned examples -------------------------------------------------------------------------


def test_floor_to_whole_mini_batches() -> None:
    """Ten rows with mini-batch 4 keep 8, drop 2 to the floor and give 2 update units."""
    plan = plan_retention(10, mini_batch_size=4)
    assert plan.num_trained_rows == 8
    assert dict(plan.dropped) == {"marked": 0, "mini_batch_floor": 2, "max_ppo_update_times": 0}
    assert plan.update_units_per_epoch == 2
    assert plan.num_rows == 10
    assert plan.mini_batch_size == 4
    assert plan.max_ppo_update_times is None


def test_marked_row_counts_against_the_floor() -> None:
    """One marked row of ten leaves 9 candidates: marked 1, floor 1, 8 kept."""
    plan = plan_retention(10, mini_batch_size=4, drop=[False] * 9 + [True])
    assert dict(plan.dropped) == {"marked": 1, "mini_batch_floor": 1, "max_ppo_update_times": 0}
    assert plan.num_trained_rows == 8
    assert 9 in plan.dropped_indices


def test_cap_on_update_times() -> None:
    """max_ppo_update_times=1 keeps one mini-batch of 4 and drops 4 to the cap."""
    plan = plan_retention(10, mini_batch_size=4, max_ppo_update_times=1)
    assert plan.num_trained_rows == 4
    assert dict(plan.dropped) == {"marked": 0, "mini_batch_floor": 2, "max_ppo_update_times": 4}
    assert plan.update_units_per_epoch == 1


def test_cap_above_the_floor_drops_nothing_more() -> None:
    """A cap larger than the floored count leaves the max_ppo_update_times count at zero."""
    plan = plan_retention(10, mini_batch_size=4, max_ppo_update_times=5)
    assert plan.num_trained_rows == 8
    assert plan.dropped["max_ppo_update_times"] == 0


def test_fewer_rows_than_a_mini_batch_keep_none() -> None:
    """Three rows with mini-batch 4 give a valid plan with no trained rows."""
    plan = plan_retention(3, mini_batch_size=4)
    assert plan.num_trained_rows == 0
    assert plan.kept_indices == ()
    assert plan.dropped_indices == (0, 1, 2)
    assert plan.update_units_per_epoch == 0
    assert plan.dropped["mini_batch_floor"] == 3


def test_no_rows_is_a_valid_plan() -> None:
    """Zero rows give an empty plan with every count zero."""
    plan = plan_retention(0, mini_batch_size=4, drop=[], group_ids=[], rewards=[])
    assert plan.num_trained_rows == 0
    assert set(plan.dropped.values()) == {0}


def test_str_format() -> None:
    """The str of a plan is the documented summary: counts of rows, one line per kind."""
    plan = plan_retention(10, mini_batch_size=4, drop=[True] + [False] * 9)
    assert str(plan) == (
        "RetentionPlan: 10 rows -> 8 trained, 2 update units per epoch\n"
        "  dropped: 1 marked, 1 at the mini-batch floor, 0 at the update cap"
    )


def test_str_says_one_update_unit_and_the_same_reward_drops() -> None:
    """One update unit is singular, and drops taken from same-reward groups get their line."""
    plan = plan_retention(
        6, mini_batch_size=4, group_ids=["g", "g", "h", "h", "k", "k"], rewards=[1, 1, 0, 1, 0, 1]
    )
    assert str(plan) == (
        "RetentionPlan: 6 rows -> 4 trained, 1 update unit per epoch\n"
        "  dropped: 0 marked, 2 at the mini-batch floor, 0 at the update cap\n"
        "  same-reward groups first: 2 of the floor and cap drops"
    )
    assert plan.dropped_indices == (0, 1)


def test_plan_is_immutable() -> None:
    """The plan's fields cannot be reassigned and its dropped mapping is read-only."""
    plan = plan_retention(10, mini_batch_size=4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.num_rows = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.dropped["marked"] = 5  # type: ignore[index]
    assert isinstance(plan.kept_indices, tuple)


def test_numpy_inputs_are_accepted() -> None:
    """Numpy ints, bool arrays, id arrays and reward arrays give the same plan as lists."""
    drop = [False, True] * 5
    ids = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    rewards = [0.0, 1.0] * 5
    from_lists = plan_retention(10, mini_batch_size=3, drop=drop, group_ids=ids, rewards=rewards)
    from_arrays = plan_retention(
        np.int64(10),
        mini_batch_size=np.int32(3),
        drop=np.array(drop),
        group_ids=np.array(ids),
        rewards=np.array(rewards),
        seed=np.uint8(0),
    )
    assert from_arrays == from_lists
    assert all(type(index) is int for index in from_arrays.kept_indices)


def test_drop_accepts_zero_one_ints() -> None:
    """The drop argument may hold the ints 0 and 1 in place of booleans."""
    plan = plan_retention(4, mini_batch_size=1, drop=[0, 1, 1, 0])
    assert plan.kept_indices == (0, 3)


def test_tuple_group_ids_are_one_id_per_row() -> None:
    """Tuples work as group ids and are not read as an extra dimension."""
    ids = [("a", 0), ("a", 0), ("b", 1), ("b", 1), ("b", 1)]
    plan = plan_retention(5, mini_batch_size=4, group_ids=ids, rewards=[1, 1, 0, 1, 0])
    assert plan.dropped_indices in {(0,), (1,)}
    assert plan.dropped_from_same_reward_groups == 1


def test_large_batch() -> None:
    """A 65,536-row batch with 8,192 groups plans without trouble."""
    rng = np.random.default_rng(1)
    n = 65_536
    plan = plan_retention(
        n,
        mini_batch_size=1000,
        drop=rng.random(n) < 0.05,
        group_ids=np.arange(n) // 8,
        rewards=rng.integers(0, 2, n).astype(float),
    )
    assert plan.num_trained_rows % 1000 == 0
    assert plan.num_trained_rows + sum(plan.dropped.values()) == n


def test_update_units_count_every_epoch() -> None:
    """ppo_epochs=3 keeps the rows and gives three times the update units per epoch."""
    plan = plan_retention(10, mini_batch_size=4, ppo_epochs=3)
    assert (plan.ppo_epochs, plan.update_units_per_epoch, plan.update_units) == (3, 2, 6)
    assert plan.kept_indices == plan_retention(10, mini_batch_size=4).kept_indices
    assert plan_retention(10, mini_batch_size=4).update_units == 2


def test_str_gives_the_update_units_over_all_epochs() -> None:
    """With more than one epoch the first line ends with the update units over all of them."""
    plan = plan_retention(10, mini_batch_size=4, drop=[True] + [False] * 9, ppo_epochs=2)
    assert str(plan) == (
        "RetentionPlan: 10 rows -> 8 trained, 2 update units per epoch, 4 over 2 epochs\n"
        "  dropped: 1 marked, 1 at the mini-batch floor, 0 at the update cap"
    )
    single = plan_retention(6, mini_batch_size=4, ppo_epochs=3)
    assert str(single).splitlines()[0] == (
        "RetentionPlan: 6 rows -> 4 trained, 1 update unit per epoch, 3 over 3 epochs"
    )


def test_drop_reasons_of_floor_and_cap() -> None:
    """Seed 0 drops row 3 at the floor and six rows at the cap, same-reward rows first."""
    ids = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2]
    rewards = [0.5, 0.5, 0.5, 0.5, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    plan = plan_retention(
        11, mini_batch_size=2, max_ppo_update_times=2, group_ids=ids, rewards=rewards
    )
    floor, cap = "mini_batch_floor", "max_ppo_update_times"
    assert plan.drop_reasons == {
        0: DropReason(cap, same_reward_group=True),
        1: DropReason(cap, same_reward_group=True),
        2: DropReason(cap, same_reward_group=True),
        3: DropReason(floor, same_reward_group=True),
        4: DropReason(cap),
        9: DropReason(cap),
        10: DropReason(cap),
    }
    uncapped = plan_retention(11, mini_batch_size=2, group_ids=ids, rewards=rewards)
    assert uncapped.drop_reasons == {3: DropReason(floor, same_reward_group=True)}


def test_drop_reasons_of_marked_rows_and_the_documented_floor() -> None:
    """Marked rows have the reason marked; the floor of ten one-row rollouts drops rows 6, 7."""
    plan = plan_retention(10, mini_batch_size=4, drop=[True] + [False] * 9)
    assert plan.drop_reasons == {0: DropReason("marked"), 8: DropReason("mini_batch_floor")}
    assert tuple(plan_retention(10, mini_batch_size=4).drop_reasons) == (6, 7)


def test_drop_reasons_are_read_only_and_ascending() -> None:
    """The reasons mapping cannot be changed, and its keys are the dropped rows in order."""
    plan = plan_retention(10, mini_batch_size=4, max_ppo_update_times=1)
    with pytest.raises(TypeError):
        plan.drop_reasons[3] = DropReason("marked")  # type: ignore[index]
    assert tuple(plan.drop_reasons) == plan.dropped_indices == (0, 1, 5, 6, 7, 9)


@pytest.mark.parametrize(
    ("reason", "text"),
    [
        (DropReason("marked"), "marked"),
        (DropReason("mini_batch_floor"), "mini-batch floor"),
        (
            DropReason("mini_batch_floor", same_reward_group=True),
            "mini-batch floor, same-reward group first",
        ),
        (DropReason("max_ppo_update_times"), "update cap"),
        (DropReason("max_ppo_update_times", True), "update cap, same-reward group first"),
    ],
)
def test_drop_reason_str(reason: DropReason, text: str) -> None:
    """A reason prints its stage in words, and the same-reward tier when it applies."""
    assert str(reason) == text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("floor",),
            "stage must be one of 'marked', 'mini_batch_floor', 'max_ppo_update_times', "
            "got 'floor'",
        ),
        (("marked", 1), "same_reward_group must be a bool, got int 1"),
        (("mini_batch_floor", None), "same_reward_group must be a bool, got NoneType None"),
        (
            ("marked", True),
            "same_reward_group must be False for a marked row: groups count candidates",
        ),
    ],
)
def test_bad_drop_reason_names_the_field(args: tuple[object, ...], message: str) -> None:
    """A reason with an unknown stage, a non-bool flag or a same-reward marked row is refused."""
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message)}$"):
        DropReason(*args)  # type: ignore[arg-type]


def test_drop_reason_is_frozen_and_takes_numpy_bools() -> None:
    """A reason cannot be changed, and a numpy bool flag becomes a Python bool."""
    reason = DropReason("max_ppo_update_times", np.bool_(True))
    assert reason.same_reward_group is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        reason.stage = "marked"  # type: ignore[misc]


_FLOOR_PLAN = {
    "kept_indices": (0, 1, 2, 3),
    "num_rows": 5,
    "mini_batch_size": 4,
    "max_ppo_update_times": None,
    "dropped": {"marked": 0, "mini_batch_floor": 1, "max_ppo_update_times": 0},
}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {},
            "drop_reasons must hold one reason per dropped row: row 4 is dropped without a reason",
        ),
        (
            {"drop_reasons": {3: DropReason("mini_batch_floor")}},
            "drop_reasons must hold one reason per dropped row: row 3 is not a dropped row",
        ),
        ({"drop_reasons": {4: "floor"}}, "drop_reasons[4] must be a DropReason, got str"),
        (
            {"drop_reasons": {4: DropReason("max_ppo_update_times")}},
            "drop_reasons must agree with dropped: they count {'marked': 0, "
            "'mini_batch_floor': 0, 'max_ppo_update_times': 1}, dropped is {'marked': 0, "
            "'mini_batch_floor': 1, 'max_ppo_update_times': 0}",
        ),
        (
            {"drop_reasons": {4: DropReason("mini_batch_floor", same_reward_group=True)}},
            "drop_reasons must agree with dropped_from_same_reward_groups: they count 1 "
            "same-reward drops, the field is 0",
        ),
        (
            {"drop_reasons": {4: DropReason("mini_batch_floor")}, "ppo_epochs": 0},
            "ppo_epochs must be a positive int, got 0",
        ),
    ],
)
def test_plan_built_by_hand_must_agree_with_its_reasons(
    changes: dict[str, object], message: str
) -> None:
    """A plan whose reasons miss a row, name a kept row or miscount a stage is refused."""
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message)}$"):
        RetentionPlan(**{**_FLOOR_PLAN, **changes})  # type: ignore[arg-type]


def test_plan_built_by_hand_sorts_its_reasons() -> None:
    """Reasons given in any order are kept in ascending order of the rows."""
    fields = {
        **_FLOOR_PLAN,
        "kept_indices": (1, 2, 3),
        "mini_batch_size": 3,
        "dropped": {"marked": 1, "mini_batch_floor": 1, "max_ppo_update_times": 0},
    }
    reasons = {4: DropReason("mini_batch_floor"), 0: DropReason("marked")}
    plan = RetentionPlan(**fields, drop_reasons=reasons)  # type: ignore[arg-type]
    assert tuple(plan.drop_reasons) == (0, 4)
    assert plan == RetentionPlan(**fields, drop_reasons=dict(sorted(reasons.items())))  # type: ignore[arg-type]


# --- tiers and seeds -------------------------------------------------------------------------

# Group 0 (rows 0-3) shares one reward; groups 1 and 2 vary.
_TIER_IDS = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
_TIER_REWARDS = [0.5, 0.5, 0.5, 0.5, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize("seed", range(10))
def test_same_reward_rows_go_first(seed: int) -> None:
    """With fewer drops than same-reward rows, only same-reward rows are dropped."""
    plan = plan_retention(
        10, mini_batch_size=4, group_ids=_TIER_IDS, rewards=_TIER_REWARDS, seed=seed
    )
    assert len(plan.dropped_indices) == 2
    assert set(plan.dropped_indices) <= {0, 1, 2, 3}
    assert plan.dropped_from_same_reward_groups == 2


@pytest.mark.parametrize("seed", range(10))
def test_random_rows_after_the_same_reward_tier(seed: int) -> None:
    """With more drops than same-reward rows, every same-reward row goes, then others."""
    plan = plan_retention(
        10,
        mini_batch_size=2,
        max_ppo_update_times=2,
        group_ids=_TIER_IDS,
        rewards=_TIER_REWARDS,
        seed=seed,
    )
    assert len(plan.dropped_indices) == 6
    assert {0, 1, 2, 3} <= set(plan.dropped_indices)
    assert plan.dropped_from_same_reward_groups == 4


def test_random_tier_varies_with_seed() -> None:
    """Different seeds pick different rows from the random tier."""
    kwargs = {"mini_batch_size": 4, "max_ppo_update_times": 1}
    tiers = {"group_ids": _TIER_IDS, "rewards": _TIER_REWARDS}
    plans = {plan_retention(10, seed=seed, **kwargs, **tiers).kept_indices for seed in range(20)}
    assert len(plans) > 1


def test_same_reward_is_judged_over_candidates() -> None:
    """A group becomes same-reward once its marked odd-reward row is left out."""
    kwargs = {"mini_batch_size": 4, "group_ids": [0, 0, 0, 1, 1, 1]}
    rewards = [1.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    unmarked = plan_retention(6, rewards=rewards, **kwargs)
    assert unmarked.dropped_from_same_reward_groups == 0
    for seed in range(10):
        marked = plan_retention(6, rewards=rewards, drop=[0, 0, 1, 0, 0, 0], seed=seed, **kwargs)
        assert marked.dropped_from_same_reward_groups == 1
        assert marked.dropped_indices in {(0, 2), (1, 2)}


def test_without_groups_every_drop_is_random() -> None:
    """Without group_ids and rewards no drop is counted as a same-reward drop."""
    plan = plan_retention(10, mini_batch_size=4)
    assert plan.dropped_from_same_reward_groups == 0


def test_same_seed_same_plan() -> None:
    """Two calls with the same inputs and seed give equal plans."""
    kwargs = {"mini_batch_size": 3, "group_ids": _TIER_IDS, "rewards": _TIER_REWARDS}
    assert plan_retention(10, seed=7, **kwargs) == plan_retention(10, seed=7, **kwargs)


@pytest.mark.parametrize(
    ("second", "same"),
    [
        (1.0, True),
        (1.0 + 1e-5, True),  # at rtol * |first| + atol: torch.allclose's bound, inclusive
        (1.0 - 9e-6, True),
        (1.0 + 2e-5, False),
        (1.0 - 2e-5, False),
    ],
)
def test_same_reward_is_torch_allclose_to_the_first_reward(second: float, same: bool) -> None:
    """A group is same-reward when each reward is torch.allclose to its first, as in the trainer."""
    first = torch.tensor([1.0], dtype=torch.float64)
    assert torch.allclose(torch.tensor([second], dtype=torch.float64), first) == same
    for seed in range(5):
        plan = plan_retention(
            4,
            mini_batch_size=3,
            group_ids=["g", "g", "h", "h"],
            rewards=[1.0, second, 0.0, 1.0],
            seed=seed,
        )
        assert plan.dropped_from_same_reward_groups == int(same)
        if same:
            assert plan.dropped_indices in {(0,), (1,)}


@pytest.mark.parametrize(
    ("rewards", "same"),
    [
        ([0.0, 9e-9, 1.8e-8], False),  # 1.8e-8 is beyond atol of the first, 0
        ([9e-9, 0.0, 1.8e-8], True),  # the same rewards, each within 1e-8 + 9e-14 of 9e-9
        ([1e-8, 0.0, 5e-9], True),
    ],
)
def test_same_reward_tolerance_is_measured_from_the_first_reward(
    rewards: list[float], same: bool
) -> None:
    """The group's first reward, not its spread, sets the tolerance: order can decide."""
    for seed in range(5):
        plan = plan_retention(
            5,
            mini_batch_size=4,
            group_ids=["g", "g", "g", "h", "h"],
            rewards=[*rewards, 0.0, 1.0],
            seed=seed,
        )
        assert plan.dropped_from_same_reward_groups == int(same)


def test_same_reward_tolerance_starts_from_the_first_candidate() -> None:
    """A marked first row does not set the tolerance: the first candidate's reward does."""
    for seed in range(5):
        plan = plan_retention(
            5,
            mini_batch_size=3,
            group_ids=["g", "g", "g", "h", "h"],
            rewards=[100.0, 0.0, 1e-8, 0.0, 1.0],
            drop=[True, False, False, False, False],
            seed=seed,
        )
        assert plan.dropped_from_same_reward_groups == 1
        assert plan.dropped_indices in {(0, 1), (0, 2)}


# --- properties ------------------------------------------------------------------------------


@st.composite
def _inputs(draw: st.DrawFn) -> dict[str, object]:
    num_rows = draw(st.integers(0, 40))
    rows = st.lists(st.booleans(), min_size=num_rows, max_size=num_rows)
    kwargs: dict[str, object] = {
        "num_rows": num_rows,
        "mini_batch_size": draw(st.integers(1, 8)),
        "max_ppo_update_times": draw(st.none() | st.integers(1, 5)),
        "seed": draw(st.integers(0, 2**32)),
    }
    if draw(st.booleans()):
        kwargs["drop"] = draw(rows)
    if draw(st.booleans()):
        ids = st.integers(0, 6)
        kwargs["group_ids"] = draw(st.lists(ids, min_size=num_rows, max_size=num_rows))
        # Rewards a hair apart, inside and outside torch.allclose's tolerance, among others.
        near = st.sampled_from([1.0 + 5e-6, 1.0 + 2e-5, 5e-9, 2e-8, -1e-9])
        reward = st.sampled_from([0.0, 1.0]) | near | st.floats(-2, 2)
        kwargs["rewards"] = draw(st.lists(reward, min_size=num_rows, max_size=num_rows))
    return kwargs


def _same_reward_candidates(kwargs: dict[str, object]) -> set[int]:
    """The candidate rows of same-reward groups, decided with torch.allclose as the trainer does."""
    drop = kwargs.get("drop") or [False] * kwargs["num_rows"]  # type: ignore[operator]
    if "group_ids" not in kwargs:
        return set()
    by_group: defaultdict[object, list[int]] = defaultdict(list)
    for row, group in enumerate(kwargs["group_ids"]):  # type: ignore[arg-type]
        if not drop[row]:
            by_group[group].append(row)
    rewards = kwargs["rewards"]
    tiers = set()
    for rows in by_group.values():
        group = torch.tensor([rewards[row] for row in rows], dtype=torch.float64)  # type: ignore[index]
        if torch.allclose(group, group[0].expand_as(group)):
            tiers.update(rows)
    return tiers


@settings(deadline=None, max_examples=200)
@given(_inputs())
def test_plan_invariants(kwargs: dict[str, object]) -> None:
    """Kept rows fill whole mini-batches under the cap, skip marked rows and stay sorted."""
    plan = plan_retention(**kwargs)  # type: ignore[arg-type]
    mbs, cap = plan.mini_batch_size, plan.max_ppo_update_times
    kept = plan.kept_indices
    assert plan.num_trained_rows % mbs == 0
    if cap is not None:
        assert plan.num_trained_rows <= mbs * cap
    assert list(kept) == sorted(set(kept))
    drop = kwargs.get("drop") or [False] * plan.num_rows  # type: ignore[operator]
    assert not any(drop[row] for row in kept)  # type: ignore[index]
    candidates = plan.num_rows - sum(drop)  # type: ignore[arg-type]
    floor = candidates // mbs * mbs
    target = floor if cap is None else min(floor, mbs * cap)
    assert plan.num_trained_rows == target
    assert dict(plan.dropped) == {
        "marked": plan.num_rows - candidates,
        "mini_batch_floor": candidates - floor,
        "max_ppo_update_times": floor - target,
    }


@settings(deadline=None, max_examples=200)
@given(_inputs())
def test_dropped_counts_and_indices_add_up(kwargs: dict[str, object]) -> None:
    """The dropped counts plus num_trained_rows give num_rows, and the indices partition."""
    plan = plan_retention(**kwargs)  # type: ignore[arg-type]
    assert sum(plan.dropped.values()) + plan.num_trained_rows == plan.num_rows
    assert sorted(plan.kept_indices + plan.dropped_indices) == list(range(plan.num_rows))
    assert list(plan.dropped_indices) == sorted(plan.dropped_indices)


@settings(deadline=None, max_examples=200)
@given(_inputs())
def test_same_reward_tier_empties_before_random_tier(kwargs: dict[str, object]) -> None:
    """No other candidate is dropped while a same-reward candidate is still kept."""
    plan = plan_retention(**kwargs)  # type: ignore[arg-type]
    tier = _same_reward_candidates(kwargs)
    excess = plan.dropped["mini_batch_floor"] + plan.dropped["max_ppo_update_times"]
    assert plan.dropped_from_same_reward_groups == min(excess, len(tier))
    assert len(tier - set(plan.kept_indices)) == plan.dropped_from_same_reward_groups
    assert plan_retention(**kwargs) == plan  # type: ignore[arg-type]


@settings(deadline=None, max_examples=200)
@given(_inputs())
def test_drop_reasons_partition_the_dropped_rows(kwargs: dict[str, object]) -> None:
    """One reason per dropped row; per stage they count as dropped, marked rows are marked."""
    plan = plan_retention(**kwargs)  # type: ignore[arg-type]
    assert tuple(plan.drop_reasons) == plan.dropped_indices
    stages = Counter(reason.stage for reason in plan.drop_reasons.values())
    assert {stage: stages[stage] for stage in plan.dropped} == dict(plan.dropped)
    drop = kwargs.get("drop") or [False] * plan.num_rows  # type: ignore[operator]
    marked = {row for row, reason in plan.drop_reasons.items() if reason.stage == "marked"}
    assert marked == {row for row, flag in enumerate(drop) if flag}  # type: ignore[arg-type]
    flagged = sum(reason.same_reward_group for reason in plan.drop_reasons.values())
    assert flagged == plan.dropped_from_same_reward_groups


@settings(deadline=None, max_examples=200)
@given(_inputs())
def test_same_reward_flags_match_the_same_reward_groups(kwargs: dict[str, object]) -> None:
    """A dropped row is flagged same-reward exactly when it is a candidate of such a group."""
    plan = plan_retention(**kwargs)  # type: ignore[arg-type]
    tier = _same_reward_candidates(kwargs)
    for row, reason in plan.drop_reasons.items():
        assert reason.same_reward_group == (row in tier)
    # Within each stage, a row outside the tier goes only once no tier row is left to draw.
    left = set(tier)
    for stage in ("mini_batch_floor", "max_ppo_update_times"):
        rows = {row for row, reason in plan.drop_reasons.items() if reason.stage == stage}
        if rows - tier:
            assert left <= rows
        left -= rows


@settings(deadline=None, max_examples=200)
@given(_inputs())
def test_floor_and_cap_are_drawn_separately_from_the_seed(kwargs: dict[str, object]) -> None:
    """The floor draws the same rows with or without a cap; the cap draws among the rest."""
    plan = plan_retention(**kwargs)  # type: ignore[arg-type]
    uncapped = plan_retention(**{**kwargs, "max_ppo_update_times": None})  # type: ignore[arg-type]
    floor = {row for row, r in plan.drop_reasons.items() if r.stage == "mini_batch_floor"}
    assert floor == {row for row, r in uncapped.drop_reasons.items() if r.stage != "marked"}
    cap = {row for row, r in plan.drop_reasons.items() if r.stage == "max_ppo_update_times"}
    assert set(plan.kept_indices) | cap == set(uncapped.kept_indices)
    again = plan_retention(**kwargs)  # type: ignore[arg-type]
    assert again.drop_reasons == plan.drop_reasons


@settings(deadline=None, max_examples=100)
@given(_inputs(), st.integers(1, 6))
def test_ppo_epochs_multiply_the_update_units_only(kwargs: dict[str, object], epochs: int) -> None:
    """ppo_epochs leaves the rows and reasons as they are and multiplies the update units."""
    plan = plan_retention(**kwargs, ppo_epochs=epochs)  # type: ignore[arg-type]
    one_epoch = plan_retention(**kwargs)  # type: ignore[arg-type]
    assert plan == dataclasses.replace(one_epoch, ppo_epochs=epochs)
    assert plan.update_units == one_epoch.update_units_per_epoch * epochs


# --- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_rows": -1}, "num_rows must be a non-negative int"),
        ({"num_rows": True}, "num_rows must be a non-negative int"),
        ({"num_rows": 4.0}, "num_rows must be a non-negative int"),
        ({"mini_batch_size": 0}, "mini_batch_size must be a positive int"),
        ({"mini_batch_size": True}, "mini_batch_size must be a positive int"),
        ({"mini_batch_size": np.bool_(True)}, "mini_batch_size must be a positive int"),
        ({"mini_batch_size": "2"}, "mini_batch_size must be a positive int"),
        ({"max_ppo_update_times": 0}, "max_ppo_update_times must be a positive int"),
        ({"max_ppo_update_times": False}, "max_ppo_update_times must be a positive int"),
        ({"max_ppo_update_times": 1.5}, "max_ppo_update_times must be a positive int"),
        ({"seed": -1}, "seed must be a non-negative int"),
        ({"seed": 0.5}, "seed must be a non-negative int"),
        ({"seed": True}, "seed must be a non-negative int"),
        ({"ppo_epochs": 0}, "ppo_epochs must be a positive int, got 0$"),
        ({"ppo_epochs": True}, "ppo_epochs must be a positive int, got bool True$"),
        ({"ppo_epochs": 2.0}, "ppo_epochs must be a positive int, got float 2.0$"),
        ({"ppo_epochs": "2"}, "ppo_epochs must be a positive int, got str '2'$"),
        ({"ppo_epochs": None}, "ppo_epochs must be a positive int, got NoneType None$"),
        ({"drop": [False] * 3}, "drop must be 1-D with one entry per row"),
        ({"drop": [[False, True]] * 2}, "drop must be 1-D with one entry per row"),
        ({"drop": [0, 1, 2, 0]}, "drop must hold only booleans"),
        ({"drop": [0.0, 1.0, 0.0, 1.0]}, "drop must hold only booleans"),
        ({"drop": [True, None, False, True]}, "drop must hold only booleans"),
        ({"drop": 7}, "drop must be 1-D"),
        (
            {"group_ids": [0, 0, 1], "rewards": [0, 1, 0, 1]},
            "group_ids must hold one id per row: got 3 ids for 4 rows",
        ),
        (
            {"group_ids": [[0], [0], [1], [1]], "rewards": [0, 1, 0, 1]},
            r"group_ids\[0\] is unhashable: list",
        ),
        ({"group_ids": np.zeros((4, 2)), "rewards": [0, 1, 0, 1]}, "group_ids must be 1-D"),
        (
            {"group_ids": 5, "rewards": [0, 1, 0, 1]},
            "group_ids must be a list, tuple, numpy array or 1-D integer tensor, got int",
        ),
        ({"group_ids": [0, 0, 1, 1], "rewards": [0, 1]}, "rewards must be 1-D"),
        ({"group_ids": [0, 0, 1, 1], "rewards": [0, 1, float("nan"), 0]}, "rewards must hold"),
        ({"group_ids": [0, 0, 1, 1], "rewards": [0, 1, float("inf"), 0]}, "rewards must hold"),
        ({"group_ids": [0, 0, 1, 1], "rewards": ["0", "1", "0", "1"]}, "rewards must hold"),
        ({"group_ids": [0, 0, 1, 1], "rewards": [0, 1, None, 1]}, "rewards must hold"),
        ({"group_ids": [0, 0, 1, 1], "rewards": [[0, 1], 1, 0, 1]}, "rewards must be a seq"),
        ({"group_ids": [0, 0, 1, 1]}, "rewards is required when group_ids is given"),
        ({"rewards": [0, 1, 0, 1]}, "group_ids is required when rewards is given"),
    ],
)
def test_bad_input_names_the_argument(kwargs: dict[str, object], match: str) -> None:
    """Each bad argument raises RolloutNormError with a message that names it."""
    arguments: dict[str, object] = {"num_rows": 4, "mini_batch_size": 2, **kwargs}
    with pytest.raises(RolloutNormError, match=match):
        plan_retention(**arguments)  # type: ignore[arg-type]


def test_error_is_a_value_error() -> None:
    """Callers that catch ValueError also catch bad retention input."""
    with pytest.raises(ValueError, match="mini_batch_size"):
        plan_retention(4, mini_batch_size=-2)


def test_plan_is_exported_type() -> None:
    """The function plan_retention returns a RetentionPlan."""
    assert isinstance(plan_retention(1, mini_batch_size=1), RetentionPlan)
