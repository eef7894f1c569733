# SPDX-License-Identifier: MIT
"""Tests for retain_and_normalize: retention by the config, then normalization of the kept rows."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from batches import response_mask
from rolloutnorm import (
    DropReason,
    RolloutNormConfig,
    RolloutNormError,
    TrainedBatch,
    load_config,
    normalize_advantages_by_rollout,
    retain_and_normalize,
)


def _config(mini: int = 1, n: int = 1, cap: int | None = None, seed: int = 0) -> RolloutNormConfig:
    return load_config(
        overrides={
            "actor_rollout_ref.actor.ppo_mini_batch_size": mini,
            "actor_rollout_ref.rollout.n": n,
            "rolloutnorm.max_ppo_update_times": cap,
            "rolloutnorm.retention_seed": seed,
        }
    )


def _random_batch(num_rows: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    advantages = torch.randn(num_rows, 6, generator=generator)
    mask = (torch.rand(num_rows, 6, generator=generator) < 0.7).float()
    mask[:, 0] = 1
    return advantages, mask


def _expected(
    advantages: torch.Tensor, mask: torch.Tensor, ids: Sequence[object], batch: TrainedBatch
) -> torch.Tensor:
    kept = list(batch.plan.kept_indices)
    return normalize_advantages_by_rollout(
        advantages[kept],
        mask[kept],
        [ids[i] for i in kept],
        num_trained_rows=batch.plan.num_trained_rows,
    )


# Ten one-row rollouts of 1 to 10 tokens.
TEN_IDS = [f"r{i}" for i in range(10)]
TEN_MASK = response_mask(range(1, 11))


# --- the composition -------------------------------------------------------------------------


def test_normalized_advantages_are_the_normalization_of_the_kept_rows() -> None:
    """The advantages are normalize_advantages_by_rollout of the kept rows, plan's row count."""
    advantages, mask = _random_batch(11)
    ids = ["a", "a", "b", "c", "c", "c", "d", "e", "e", "f", "g"]
    drop = [False, True] + [False] * 9
    batch = retain_and_normalize(advantages, mask, ids, config=_config(mini=3), drop=drop)
    assert batch.plan.num_trained_rows == 9
    assert torch.equal(batch.advantages, _expected(advantages, mask, ids, batch))
    assert torch.equal(batch.response_mask, mask[list(batch.plan.kept_indices)])


@pytest.mark.parametrize("layout", ["row-major", "column-major", "expanded"])
def test_every_row_kept_gives_what_the_gathered_copy_gave(layout: str) -> None:
    """With no row dropped the step skips the gather: same values, row-major, its own mask."""
    advantages, mask = _random_batch(8)
    if layout == "column-major":
        advantages, mask = advantages.t().contiguous().t(), mask.t().contiguous().t()
    elif layout == "expanded":
        advantages = torch.ones((1, 1)).expand(mask.shape)
    ids = ["a", "a", "b", "c", "c", "d", "e", "e"]
    batch = retain_and_normalize(advantages, mask, ids, config=_config(mini=4))
    assert batch.plan.kept_indices == tuple(range(8))
    expected = _expected(advantages, mask, ids, batch)
    assert torch.equal(batch.advantages, expected)
    assert batch.advantages.stride() == expected.stride() == (6, 1)
    assert torch.equal(batch.response_mask, mask)
    assert batch.response_mask.stride() == (6, 1)
    assert batch.response_mask.data_ptr() != mask.data_ptr()


@settings(deadline=None, max_examples=60)
@given(
    num_rows=st.integers(1, 14),
    mini=st.integers(1, 3),
    n=st.integers(1, 2),
    cap=st.none() | st.integers(1, 3),
    seed=st.integers(0, 2**16),
    data=st.data(),
)
def test_step_is_retention_then_normalization(
    num_rows: int, mini: int, n: int, cap: int | None, seed: int, data: st.DataObject
) -> None:
    """For any config and marks, the step keeps the planned rows and normalizes exactly them."""
    ids = data.draw(st.lists(st.integers(0, 4), min_size=num_rows, max_size=num_rows))
    drop = data.draw(st.lists(st.booleans(), min_size=num_rows, max_size=num_rows))
    config = _config(mini=mini, n=n, cap=cap, seed=seed)
    advantages, mask = _random_batch(num_rows, seed)
    candidates = num_rows - sum(drop)
    expected_rows = candidates // config.mini_batch_size * config.mini_batch_size
    if cap is not None:
        expected_rows = min(expected_rows, cap * config.mini_batch_size)
    if expected_rows == 0:
        with pytest.raises(RolloutNormError, match="no rows left to train"):
            retain_and_normalize(advantages, mask, ids, config=config, drop=drop)
        return
    batch = retain_and_normalize(advantages, mask, ids, config=config, drop=drop)
    assert batch.plan.num_trained_rows == expected_rows
    assert not {i for i, marked in enumerate(drop) if marked} & set(batch.plan.kept_indices)
    assert torch.equal(batch.advantages, _expected(advantages, mask, ids, batch))
    for rollout in batch.report().rollouts:
        assert abs(rollout.mass - 1 / expected_rows) <= 1e-12


# --- num_trained_rows from the config --------------------------------------------------------


def test_mini_batch_floor_sets_the_mass() -> None:
    """Ten rows with mini-batch 4 train 8, so every kept rollout carries 1/8."""
    batch = retain_and_normalize(torch.ones(10, 10), TEN_MASK, TEN_IDS, config=_config(mini=4))
    assert batch.plan.num_trained_rows == 8
    assert len(batch.report().rollouts) == 8
    assert batch.report().num_trained_rows == 8
    for rollout in batch.report().rollouts:
        assert rollout.mass == pytest.approx(1 / 8, abs=1e-12)
    assert batch.report().batch_mass == pytest.approx(1.0, abs=1e-12)


def test_mini_batch_is_prompts_times_rollout_n() -> None:
    """ppo_mini_batch_size 2 with rollout.n 2 floors ten rows to 8, as mini-batch 4 does."""
    batch = retain_and_normalize(torch.ones(10, 10), TEN_MASK, TEN_IDS, config=_config(mini=2, n=2))
    assert batch.plan.mini_batch_size == 4
    assert batch.plan.num_trained_rows == 8


def test_update_cap_sets_the_mass() -> None:
    """Capping at one update of mini-batch 4 trains 4 of 10 rows, so each carries 1/4."""
    batch = retain_and_normalize(
        torch.ones(10, 10), TEN_MASK, TEN_IDS, config=_config(mini=4, cap=1)
    )
    assert batch.plan.num_trained_rows == 4
    assert dict(batch.plan.dropped) == {
        "marked": 0,
        "mini_batch_floor": 2,
        "max_ppo_update_times": 4,
    }
    for rollout in batch.report().rollouts:
        assert rollout.mass == pytest.approx(1 / 4, abs=1e-12)
    assert batch.report().batch_mass == pytest.approx(1.0, abs=1e-12)


def test_per_token_advantage_follows_num_trained_rows() -> None:
    """A kept row of r tokens gets advantage 1/(r*8) with floor to 8, 1/(r*4) with cap 1."""
    for config, trained in ((_config(mini=4), 8), (_config(mini=4, cap=1), 4)):
        batch = retain_and_normalize(torch.ones(10, 10), TEN_MASK, TEN_IDS, config=config)
        for row, index in enumerate(batch.plan.kept_indices):
            tokens = index + 1
            assert batch.advantages[row, 0].item() == pytest.approx(1 / (tokens * trained))


def test_partly_dropped_rollout_counts_only_its_kept_rows() -> None:
    """A rollout that loses a marked row is normalized over its kept rows' tokens only."""
    ids = ["a", "a", "b", "c"]
    batch = retain_and_normalize(
        torch.ones(4, 4),
        response_mask([4, 2, 3, 1]),
        ids,
        config=_config(),
        drop=[True, False, False, False],
    )
    assert batch.plan.kept_indices == (1, 2, 3)
    assert batch.report().rollouts[0].tokens == 2
    assert batch.advantages[0, 0].item() == pytest.approx(1 / (2 * 3))


# --- which rows --------------------------------------------------------------------------------


def test_marked_rows_are_never_kept() -> None:
    """Rows marked for dropping are left out of the plan and of the returned batch."""
    drop = [i % 3 == 0 for i in range(10)]
    for seed in range(10):
        batch = retain_and_normalize(
            torch.ones(10, 10), TEN_MASK, TEN_IDS, config=_config(mini=2, seed=seed), drop=drop
        )
        assert batch.plan.dropped["marked"] == 4
        assert not set(batch.plan.kept_indices) & {0, 3, 6, 9}
        assert not set(batch.rollout_ids) & {"r0", "r3", "r6", "r9"}


def test_same_config_same_plan() -> None:
    """Two steps with the same config and inputs keep the same rows and give equal outputs."""
    advantages, mask = _random_batch(13)
    ids = list(range(13))
    first = retain_and_normalize(advantages, mask, ids, config=_config(mini=4, seed=5))
    second = retain_and_normalize(advantages, mask, ids, config=_config(mini=4, seed=5))
    assert first.plan == second.plan
    assert torch.equal(first.advantages, second.advantages)


def test_retention_seed_picks_the_rows() -> None:
    """Different retention seeds drop different rows."""
    advantages, mask = _random_batch(13)
    kept = {
        retain_and_normalize(
            advantages, mask, list(range(13)), config=_config(mini=4, seed=seed)
        ).plan.kept_indices
        for seed in range(20)
    }
    assert len(kept) > 1


def test_same_reward_groups_go_first() -> None:
    """With group ids and rewards, the floor drops rows of same-reward groups first."""
    batch = retain_and_normalize(
        torch.ones(5, 2),
        torch.ones(5, 2),
        ["a", "b", "c", "d", "e"],
        config=_config(mini=2),
        group_ids=[0, 0, 1, 1, 1],
        rewards=[1.0, 0.0, 1.0, 1.0, 1.0],
    )
    assert batch.plan.dropped_from_same_reward_groups == 1
    assert set(batch.plan.dropped_indices) <= {2, 3, 4}


def test_same_reward_drops_carry_their_reasons() -> None:
    """The step's plan gives each dropped row its stage and same-reward flag."""
    batch = retain_and_normalize(
        torch.ones(6, 2),
        torch.ones(6, 2),
        ["a", "b", "c", "d", "e", "f"],
        config=_config(mini=2),
        group_ids=[0, 0, 0, 1, 1, 1],
        rewards=[1.0, 1.0, 0.0, 1.0, 0.0, 1.0],
        drop=[False, False, True, False, False, False],
    )
    (row,) = set(batch.plan.dropped_indices) - {2}
    assert row in {0, 1}
    assert batch.plan.drop_reasons == {
        2: DropReason("marked"),
        row: DropReason("mini_batch_floor", same_reward_group=True),
    }


# --- epochs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("epochs", [1, 2, 5])
def test_ppo_epochs_set_the_update_units_and_nothing_else(epochs: int) -> None:
    """The config's ppo_epochs reaches the plan; rows, advantages and report stay as in 1."""
    config = _config(mini=4, cap=1)
    one = retain_and_normalize(torch.ones(10, 10), TEN_MASK, TEN_IDS, config=config)
    many = retain_and_normalize(
        torch.ones(10, 10), TEN_MASK, TEN_IDS, config=config.replace(ppo_epochs=epochs)
    )
    assert (many.plan.ppo_epochs, many.plan.update_units) == (epochs, epochs)
    assert many.plan.kept_indices == one.plan.kept_indices
    assert many.plan.drop_reasons == one.plan.drop_reasons
    assert torch.equal(many.advantages, one.advantages)
    assert many.report() == one.report()


def test_plan_prints_the_update_units_over_all_epochs() -> None:
    """A step of three epochs prints its update units per epoch and over the three."""
    config = _config(mini=4).replace(ppo_epochs=3)
    batch = retain_and_normalize(torch.ones(10, 10), TEN_MASK, TEN_IDS, config=config)
    assert str(batch.plan) == (
        "RetentionPlan: 10 rows -> 8 trained, 2 update units per epoch, 6 over 3 epochs\n"
        "  dropped: 0 marked, 2 at the mini-batch floor, 0 at the update cap"
    )


# --- the kept ids ----------------------------------------------------------------------------

IDS_BY_CONTAINER = {
    "list": [10, 11, 12, 13, 14],
    "tuple": (10, 11, 12, 13, 14),
    "numpy": np.array([10, 11, 12, 13, 14]),
    "tensor": torch.tensor([10, 11, 12, 13, 14]),
}


@pytest.mark.parametrize("container", list(IDS_BY_CONTAINER))
def test_kept_ids_follow_the_container_type(container: str) -> None:
    """The kept rollout ids come back in the container type given, holding the kept rows' ids."""
    ids = IDS_BY_CONTAINER[container]
    batch = retain_and_normalize(torch.ones(5, 2), torch.ones(5, 2), ids, config=_config(mini=2))
    assert type(batch.rollout_ids) is type(ids)
    kept = [10 + i for i in batch.plan.kept_indices]
    assert [int(i) for i in batch.rollout_ids] == kept


def test_numpy_kept_ids_keep_their_dtype() -> None:
    """Kept ids from a numpy str array stay a numpy str array."""
    ids = np.array(["a", "b", "c", "d", "e"])
    batch = retain_and_normalize(torch.ones(5, 2), torch.ones(5, 2), ids, config=_config(mini=2))
    assert batch.rollout_ids.dtype == ids.dtype


# --- errors ----------------------------------------------------------------------------------


def test_no_row_left_after_the_floor_names_the_cause() -> None:
    """Fewer rows than one mini-batch raise, naming the floor that dropped them."""
    message = (
        "no rows left to train: of 3 rows, 0 marked, 3 dropped at the floor to whole "
        "mini-batches of 4 rows and 0 at the update cap"
    )
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message)}$"):
        retain_and_normalize(
            torch.ones(3, 2), torch.ones(3, 2), ["a", "b", "c"], config=_config(mini=4)
        )


def test_no_row_left_after_marks_names_the_cause() -> None:
    """Marking every row raises, naming the marked drops."""
    with pytest.raises(RolloutNormError, match=r"^no rows left to train: of 3 rows, 3 marked, 0 "):
        retain_and_normalize(
            torch.ones(3, 2), torch.ones(3, 2), ["a", "b", "c"], config=_config(), drop=[True] * 3
        )


@pytest.mark.parametrize("num_ids", [9, 11])
def test_rollout_ids_length_must_match_the_rows(num_ids: int) -> None:
    """Rollout ids not one per row raise an error naming rollout_ids."""
    with pytest.raises(RolloutNormError, match=r"^rollout_ids must hold one id per row"):
        retain_and_normalize(
            torch.ones(10, 10), TEN_MASK, [f"r{i}" for i in range(num_ids)], config=_config()
        )


@pytest.mark.parametrize("mask_rows", [8, 12])
def test_response_mask_rows_must_match(mask_rows: int) -> None:
    """A response mask with another number of rows than the advantages raises, naming it."""
    with pytest.raises(RolloutNormError, match="response_mask"):
        retain_and_normalize(
            torch.ones(10, 3), torch.ones(mask_rows, 3), TEN_IDS, config=_config(mini=4)
        )


def test_advantages_must_be_a_2d_tensor() -> None:
    """Advantages that are not a 2-D tensor raise an error naming advantages."""
    with pytest.raises(RolloutNormError, match=r"^advantages"):
        retain_and_normalize(torch.ones(10), TEN_MASK, TEN_IDS, config=_config())


def test_str_rollout_ids_are_rejected() -> None:
    """A str passed as rollout_ids raises rather than being read one character per row."""
    with pytest.raises(RolloutNormError, match=r"^rollout_ids"):
        retain_and_normalize(torch.ones(3, 2), torch.ones(3, 2), "abc", config=_config())


# --- one row per rollout, or one row per turn --------------------------------------------------


def _turns_step(x_rows: list[int]) -> TrainedBatch:
    """Rollout X (12 tokens over the given rows) next to A (5), B (8) and C (2), one row each."""
    tokens = [*x_rows, 5, 8, 2]
    ids = ["X"] * len(x_rows) + ["A", "B", "C"]
    return retain_and_normalize(
        torch.ones(len(tokens), 12), response_mask(tokens, 12), ids, config=_config(mini=2)
    )


def test_splitting_a_rollout_into_turns_dilutes_every_rollout() -> None:
    """X as 1 of 4 rows, then as 3 of 6: X keeps 1/num_trained_rows, every mass drops 1/4 -> 1/6."""
    one_row = _turns_step([12])
    per_turn = _turns_step([4, 4, 4])

    assert one_row.plan.num_trained_rows == 4
    assert per_turn.plan.num_trained_rows == 6
    assert [(r.rollout_id, r.rows, r.tokens) for r in one_row.report().rollouts] == [
        ("X", 1, 12),
        ("A", 1, 5),
        ("B", 1, 8),
        ("C", 1, 2),
    ]
    assert per_turn.report().rollouts[0].rows == 3
    assert per_turn.report().rollouts[0].tokens == 12

    assert one_row.report().masses() == pytest.approx(dict.fromkeys("XABC", 1 / 4), abs=1e-12)
    assert per_turn.report().masses() == pytest.approx(dict.fromkeys("XABC", 1 / 6), abs=1e-12)
    assert one_row.report().batch_mass == pytest.approx(1.0, abs=1e-12)
    assert per_turn.report().batch_mass == pytest.approx(2 / 3, abs=1e-12)

    # Per token: X 1/(12*4) = 1/48 -> 1/(12*6) = 1/72; A 1/(5*4) = 1/20 -> 1/(5*6) = 1/30.
    assert one_row.advantages[0, 0].item() == pytest.approx(1 / 48)
    assert per_turn.advantages[0, 0].item() == pytest.approx(1 / 72)
    assert one_row.advantages[1, 0].item() == pytest.approx(1 / 20)
    assert per_turn.advantages[3, 0].item() == pytest.approx(1 / 30)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    ("bad", "match"),
    [
        ("mask", "response_mask must hold only 0 and 1"),
        ("nan", "advantages must be finite"),
        ("id", r"rollout_ids\[4\] is unhashable"),
    ],
)
def test_bad_dropped_row_raises_whatever_the_seed(seed, bad, match) -> None:
    """Bad input in a row that retention may drop raises for every seed, not by luck."""
    advantages, mask, ids = torch.ones(5, 4), torch.ones(5, 4), ["a", "b", "c", "d", "e"]
    if bad == "mask":
        mask[4, 0] = 7
    elif bad == "nan":
        advantages[4, 0] = float("nan")
    else:
        ids[4] = ["e"]
    with pytest.raises(RolloutNormError, match=match):
        retain_and_normalize(advantages, mask, ids, config=_config(mini=2, seed=seed))


@pytest.mark.parametrize("loss_mode", ["vanilla", "gspo"])
def test_a_config_of_another_policy_loss_is_refused(loss_mode: str) -> None:
    """A config that loads with another loss_mode is no config to normalize per rollout for."""
    config = load_config(
        overrides={
            "actor_rollout_ref.actor.policy_loss.loss_mode": loss_mode,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 1,
        }
    )
    with pytest.raises(RolloutNormError) as error:
        retain_and_normalize(torch.ones(2, 2), torch.ones(2, 2), ["a", "b"], config=config)
    assert str(error.value) == (
        "config must select actor_rollout_ref.actor.policy_loss.loss_mode 'per_rollout_mean', "
        f"the loss normalized for, got {loss_mode!r}"
    )


@pytest.mark.parametrize("config", [None, {"actor_rollout_ref.rollout.n": 1}])
def test_config_must_be_a_loaded_config(config) -> None:
    """A missing or raw-mapping config raises naming config, not an AttributeError."""
    with pytest.raises(RolloutNormError, match="config must be a RolloutNormConfig"):
        retain_and_normalize(torch.ones(2, 2), torch.ones(2, 2), ["a", "b"], config=config)
