# SPDX-License-Identifier: MIT
"""aggregation_masses: the per-row loop, all-masked rollouts per mode, the modes and bad input."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from batches import response_mask
from oracle import aggregation_loop
from rolloutnorm import (
    RolloutNormError,
    aggregation_masses,
    plan_retention,
    rollout_mass_report,
)
from rolloutnorm._aggregation import MODES
from rolloutnorm._loss import _LOSS_AGG_MODES

VERL_MODES = (
    "token-mean",
    "token-sum",
    "seq-mean-token-sum",
    "seq-mean-token-mean",
    "seq-mean-token-sum-norm",
)


@dataclasses.dataclass(frozen=True)
class Drawn:
    """A batch, its retention plan's inputs and the settings of one call."""

    mask: torch.Tensor
    ids: list
    container: str
    drop: list[bool]
    padding: list[bool]
    mini_batch_size: int
    dp_size: int
    cap: int | None
    seed: int
    loss_scale_factor: int | None

    def rollout_ids(self) -> object:
        """The ids in the drawn container."""
        if self.container == "tuple":
            return tuple(self.ids)
        if self.container == "numpy":
            return np.array(self.ids)
        if self.container == "tensor":
            return torch.tensor(self.ids, dtype=torch.int64)
        return list(self.ids)


@st.composite
def drawn_batches(draw: st.DrawFn) -> Drawn:
    """1..6 rollouts of 1..4 rows of 0..12 tokens, shuffled and offset, with padding rows.

    Some rows are marked for dropping, up to 3 padding rows without tokens are appended,
    the mini-batch is ``dp_size`` times 1..3 rows, with or without an update cap.
    """
    counts = [
        (rollout, draw(st.just(0) | st.integers(1, 12)))
        for rollout in range(draw(st.integers(1, 6)))
        for _ in range(draw(st.integers(1, 4)))
    ]
    counts = draw(st.permutations(counts))
    num_padding = draw(st.integers(0, 3))
    id_kind = draw(st.sampled_from(["str", "int"]))
    ids = [f"r{rollout}" if id_kind == "str" else 7 * rollout - 9 for rollout, _ in counts]
    ids += ["pad" if id_kind == "str" else 1000] * num_padding
    tokens = [count for _, count in counts] + [0] * num_padding
    width = max(1, *tokens) + draw(st.integers(0, 3))
    offsets = [draw(st.integers(0, width - count)) for count in tokens]
    columns = torch.arange(width)
    starts = torch.tensor(offsets).unsqueeze(-1)
    ends = starts + torch.tensor(tokens).unsqueeze(-1)
    mask_dtype = draw(st.sampled_from([torch.bool, torch.int64, torch.float32, torch.float64]))
    mask = ((columns >= starts) & (columns < ends)).to(mask_dtype)
    drop = [draw(st.booleans()) for _ in counts] + [False] * num_padding
    dp_size = draw(st.sampled_from([1, 2, 4]))
    containers = ["list", "tuple", "numpy"] + (["tensor"] if id_kind == "int" else [])
    return Drawn(
        mask=mask,
        ids=ids,
        container=draw(st.sampled_from(containers)),
        drop=drop,
        padding=[False] * len(counts) + [True] * num_padding,
        mini_batch_size=dp_size * draw(st.integers(1, 3)),
        dp_size=dp_size,
        cap=draw(st.none() | st.integers(1, 3)),
        seed=draw(st.integers(0, 2**16)),
        loss_scale_factor=draw(st.none() | st.integers(1, 50)),
    )


def _plan(batch: Drawn):
    return plan_retention(
        len(batch.ids),
        mini_batch_size=batch.mini_batch_size,
        max_ppo_update_times=batch.cap,
        drop=batch.drop,
        padding=batch.padding,
        seed=batch.seed,
    )


@settings(max_examples=300, deadline=None)
@given(drawn_batches())
def test_every_mode_equals_the_per_row_loop(batch: Drawn) -> None:
    """Every rollout's mass under every mode equals the loop's, rollouts in the loop's order."""
    plan = _plan(batch)
    result = aggregation_masses(
        batch.mask,
        batch.rollout_ids(),
        plan=plan,
        dp_size=batch.dp_size,
        loss_scale_factor=batch.loss_scale_factor,
    )
    expected = aggregation_loop(
        batch.mask,
        batch.ids,
        plan.kept_indices,
        plan.padding_indices + plan.spare_padding_indices,
        mini_batch_size=batch.mini_batch_size,
        dp_size=batch.dp_size,
        scale=batch.loss_scale_factor or batch.mask.shape[1],
    )
    assert list(result.masses) == list(MODES)
    assert (result.num_trained_rows, result.update_units_per_epoch) == (
        plan.num_trained_rows,
        plan.update_units_per_epoch,
    )
    for mode in MODES:
        assert list(result.rollout_ids) == list(expected[mode])
        assert result[mode].dtype == torch.float64
        assert result[mode].tolist() == pytest.approx(list(expected[mode].values()), rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(drawn_batches())
def test_per_rollout_mean_is_the_normalizations_mass(batch: Drawn) -> None:
    """per_rollout_mean gives the mass that the normalization itself gives the kept rows."""
    plan = _plan(batch)
    real = [row for row in plan.kept_indices if row not in plan.padding_indices]
    result = aggregation_masses(batch.mask, batch.ids, plan=plan, dp_size=batch.dp_size)
    masses = dict(zip(result.rollout_ids, result["per_rollout_mean"].tolist(), strict=True))
    if real:
        report = rollout_mass_report(
            batch.mask[real], [batch.ids[row] for row in real], num_trained_rows=len(real)
        )
        for rollout_id, mass in report.masses().items():
            assert masses.pop(rollout_id) == pytest.approx(mass, rel=1e-12)
    assert set(masses.values()) <= {0.0}  # the rollouts whose rows were all dropped


def test_the_docstring_batch_pinned() -> None:
    """Rollout a in rows of 2 and 4 tokens, b in one row of 3, trained in one step of 3 rows."""
    mask = response_mask([2, 4, 3], width=4)
    result = aggregation_masses(mask, ["a", "a", "b"])
    expected = {
        "token-mean": [6 / 9, 3 / 9],
        "token-sum": [6, 3],
        "seq-mean-token-sum": [2, 1],
        "seq-mean-token-mean": [2 / 3, 1 / 3],
        "seq-mean-token-sum-norm": [6 / 12, 3 / 12],
        "per_rollout_mean": [1 / 3, 1 / 3],
    }
    for mode, masses in expected.items():
        assert result[mode].tolist() == pytest.approx(masses, rel=1e-15)


def test_token_mean_depends_on_the_ranks_chunks() -> None:
    """At 2 ranks, step j takes each rank's j-th mini-batch, so the step token counts change.

    Rows of 1, 1, 9, 9 tokens in mini-batches of 2 rows: one rank puts rows 0 and 1 in step 0
    (2 tokens) and rows 2 and 3 in step 1; two ranks put rows 0 and 2 in step 0 (10 tokens).
    """
    mask = response_mask([1, 1, 9, 9])
    plan = plan_retention(4, mini_batch_size=2)
    one = aggregation_masses(mask, ["a", "b", "c", "d"], plan=plan)
    two = aggregation_masses(mask, ["a", "b", "c", "d"], plan=plan, dp_size=2)
    assert one["token-mean"].tolist() == pytest.approx([1 / 2, 1 / 2, 1 / 2, 1 / 2])
    assert two["token-mean"].tolist() == pytest.approx([1 / 10, 1 / 10, 9 / 10, 9 / 10])
    for mode in MODES[1:]:
        torch.testing.assert_close(one[mode], two[mode], rtol=0, atol=0)


def test_modes_are_verls_and_per_rollout_mean() -> None:
    """The modes are verl 0.9's loss_agg_mode values, in the loss's list, then per_rollout_mean."""
    assert list(MODES) == [*VERL_MODES, "per_rollout_mean"]
    assert _LOSS_AGG_MODES == VERL_MODES


def test_modes_selects_and_orders_the_masses() -> None:
    """Only the modes asked for are computed, in the order asked, a repeated one once."""
    mask = response_mask([2, 3])
    result = aggregation_masses(mask, ["a", "b"], modes=["token-sum", "token-mean", "token-sum"])
    assert list(result.masses) == ["token-sum", "token-mean"]
    assert result["token-sum"].tolist() == [2.0, 3.0]


# An all-masked rollout "z" (two rows without tokens) beside "a" (3 + 1 tokens) and "b" (4).
ALL_MASKED_IDS = ["a", "z", "b", "z", "a", "b"]
ALL_MASKED_TOKENS = [3, 0, 4, 0, 1, 0]
# What "a" and "b" get with z's rows in the batch (6 rows, 8 tokens, one step of 6 rows).
WITH_EMPTY_ROLLOUT = {
    "token-mean": [4 / 8, 4 / 8],
    "token-sum": [4, 4],
    "seq-mean-token-sum": [4 / 6, 4 / 6],
    "seq-mean-token-mean": [2 / 6, 1 / 6],
    "seq-mean-token-sum-norm": [4 / 6 / 4, 4 / 6 / 4],
    "per_rollout_mean": [1 / 6, 1 / 6],
}


@pytest.mark.parametrize("mode", MODES)
def test_an_all_masked_rollout_has_mass_0_and_its_rows_still_count(mode: str) -> None:
    """A rollout without response tokens carries 0; its rows fill the mini-batch all the same.

    The seq-mean modes divide by the mini-batch's 6 rows and per_rollout_mean by the 6 trained
    rows, the empty rows included; token-mean and token-sum count only tokens.
    """
    mask = response_mask(ALL_MASKED_TOKENS, width=4)
    result = aggregation_masses(mask, ALL_MASKED_IDS)
    assert result.rollout_ids == ("a", "z", "b")
    masses = dict(zip(result.rollout_ids, result[mode].tolist(), strict=True))
    assert masses["z"] == 0.0
    assert [masses["a"], masses["b"]] == pytest.approx(WITH_EMPTY_ROLLOUT[mode], rel=1e-15)


def test_a_step_without_tokens_gives_its_rows_0_under_token_mean() -> None:
    """A mini-batch whose rows are all masked carries 0 under token-mean, never NaN."""
    mask = response_mask([0, 0, 2, 3])
    plan = plan_retention(4, mini_batch_size=2)
    result = aggregation_masses(mask, ["z", "z", "a", "b"], plan=plan)
    assert result["token-mean"].tolist() == [0.0, 2 / 5, 3 / 5]
    assert not result["token-mean"].isnan().any()


def test_a_plan_that_trains_nothing_gives_every_rollout_0() -> None:
    """Three rows against mini-batches of four: no row is trained and every mass is 0."""
    mask = response_mask([1, 2, 3])
    result = aggregation_masses(mask, ["a", "b", "a"], plan=plan_retention(3, mini_batch_size=4))
    assert result.rollout_ids == ("a", "b")
    assert (result.num_trained_rows, result.update_units_per_epoch) == (0, 0)
    for mode in MODES:
        assert result[mode].tolist() == [0.0, 0.0]


def test_padding_rows_are_no_rollouts() -> None:
    """Padding rows fill the mini-batch (seq-mean divides by 4) but are not reported."""
    mask = response_mask([2, 2, 0, 0])
    plan = plan_retention(4, mini_batch_size=4, padding=[False, False, True, True])
    result = aggregation_masses(mask, ["a", "b", "pad", "pad"], plan=plan)
    assert result.rollout_ids == ("a", "b")
    assert result["seq-mean-token-mean"].tolist() == [1 / 4, 1 / 4]
    assert result["per_rollout_mean"].tolist() == [1 / 2, 1 / 2]


def test_the_function_works_without_verl() -> None:
    """In a fresh interpreter, importing rolloutnorm and computing masses imports no verl."""
    code = (
        "import sys, torch\n"
        "from rolloutnorm import aggregation_masses\n"
        "aggregation_masses(torch.ones(2, 2), ['a', 'b'])\n"
        "print(any(name.split('.')[0] == 'verl' for name in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("modes", "message"),
    [
        (["token_mean"], r"modes must be one of 'token-mean', 'token-sum', .*, got 'token_mean'"),
        (["token-mean", 3], r"modes must be one of .*'per_rollout_mean', got 3"),
        ("token-mean", r"modes must be a sequence of modes, got str 'token-mean'"),
    ],
)
def test_an_unknown_mode_lists_the_known_ones(modes, message) -> None:
    """An unknown mode is an error listing every known mode; modes as one str is refused."""
    with pytest.raises(RolloutNormError, match=message):
        aggregation_masses(torch.ones(1, 1), ["a"], modes=modes)


def test_an_unknown_mode_looked_up_lists_the_known_ones() -> None:
    """result[mode] with a mode not computed or not known names the known modes."""
    result = aggregation_masses(torch.ones(1, 1), ["a"])
    known = ", ".join(map(repr, MODES))
    with pytest.raises(RolloutNormError) as error:
        result["token_sum"]
    assert str(error.value) == f"mode must be one of {known}, got 'token_sum'"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dp_size": 0}, r"dp_size must be a positive int, got 0"),
        ({"dp_size": 2.0}, r"dp_size must be a positive int, got float 2\.0"),
        ({"dp_size": 3}, r"dp_size must divide the mini-batch size, as verl asserts: got "),
        ({"loss_scale_factor": 0}, r"loss_scale_factor must be a positive int, got 0"),
        ({"loss_scale_factor": True}, r"loss_scale_factor must be a positive int, got bool"),
        ({"plan": "all"}, r"plan must be a RetentionPlan from plan_retention, got str"),
        (
            {"plan": plan_retention(5, mini_batch_size=2)},
            r"plan must be a plan over this batch: it plans 5 rows, the response mask has 4",
        ),
        (
            {"plan": plan_retention(4, mini_batch_size=4, padding=[0, 0, 0, 1])},
            r"padding must mark only rows without response tokens",
        ),
    ],
)
def test_bad_settings_are_errors_naming_them(kwargs, message) -> None:
    """Each bad setting is an error that names it."""
    with pytest.raises(RolloutNormError, match=message):
        aggregation_masses(torch.ones(4, 2), ["a", "a", "b", "c"], **kwargs)


@pytest.mark.parametrize(
    ("mask", "ids", "message"),
    [
        (torch.ones(3), ["a"] * 3, r"response_mask must be 2-D"),
        (torch.zeros(0, 2), [], r"response_mask must hold at least one row"),
        (torch.full((2, 2), 2.0), ["a", "b"], r"response_mask must hold only 0 and 1"),
        (torch.ones(2, 2), ["a"], r"rollout_ids must hold one id per row: got 1 ids for 2"),
        (torch.ones(2, 2), ["a", 1], r"rollout_ids must all be of one kind"),
        ([[1, 1]], ["a"], r"response_mask must be a torch\.Tensor, got list"),
    ],
)
def test_a_malformed_batch_is_refused_as_the_normalization_refuses_it(mask, ids, message) -> None:
    """The mask and the ids go through the package's one validator."""
    with pytest.raises(RolloutNormError, match=message):
        aggregation_masses(mask, ids)


@pytest.mark.parametrize("loss_scale_factor", [10**19, 2**64, 10**300])
def test_a_loss_scale_factor_past_int64_divides_as_a_float(loss_scale_factor) -> None:
    """seq-mean-token-sum-norm divides by a factor past int64 in float64, no OverflowError."""
    result = aggregation_masses(
        torch.ones(4, 2), ["a", "a", "b", "c"], loss_scale_factor=loss_scale_factor
    )
    expected = [4 / (4 * float(loss_scale_factor)), 2 / (4 * float(loss_scale_factor))]
    assert result["seq-mean-token-sum-norm"].tolist() == [expected[0], expected[1], expected[1]]


def test_a_loss_scale_factor_past_a_float_is_an_error_naming_it() -> None:
    """A factor no float holds (400 digits) is refused under its name."""
    message = "loss_scale_factor must be a positive int a float can hold, got one past it"
    with pytest.raises(RolloutNormError, match=message):
        aggregation_masses(torch.ones(4, 2), ["a", "a", "b", "c"], loss_scale_factor=10**400)


def test_a_plan_that_trains_no_row_gives_every_mode_no_mass_whatever_its_mini_batch() -> None:
    """A mini-batch larger than int64 trains no row: zeros, not an OverflowError (fuzzing)."""
    response_mask = torch.ones(4, 3)
    plan = plan_retention(4, mini_batch_size=10**400)
    result = aggregation_masses(response_mask, ["a", "a", "b", "b"], plan=plan)
    assert result.num_trained_rows == 0
    for mode in result.masses:
        assert result[mode].tolist() == [0.0, 0.0]


def test_a_mode_the_call_did_not_compute_is_an_error_naming_those_it_did() -> None:
    """Asking a result for a mode left out of `modes` names the ones it holds, not a KeyError."""
    result = aggregation_masses(torch.ones(2, 3), ["a", "b"], modes=["token-sum"])
    with pytest.raises(
        RolloutNormError, match="mode 'token-mean' was not computed: this result holds token-sum"
    ):
        result["token-mean"]
