# SPDX-License-Identifier: MIT
"""Tests for rollout_mass_report: the normalized token mass of every rollout in a batch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from batches import response_mask, split_rollouts
from rolloutnorm import MassReport, RolloutMass, rollout_mass_report

# Batch A (rows of 50 and 100 tokens), B (three rows of 30), C (one row of 40), interleaved.
ABC_IDS = ["A", "B", "A", "B", "C", "B"]
ABC_TOKENS = [50, 30, 100, 30, 40, 30]


# --- pinned facts ----------------------------------------------------------------------------


def test_two_rollouts_one_row_each() -> None:
    """Two one-row rollouts over two trained rows carry 1/2 each, 1 in all."""
    report = rollout_mass_report(response_mask([3, 1]), ["a", "b"], num_trained_rows=2)
    assert report.masses() == pytest.approx({"a": 0.5, "b": 0.5}, abs=1e-12)
    assert report.batch_mass == pytest.approx(1.0, abs=1e-12)
    assert report.num_trained_rows == 2


def test_two_rollouts_over_three_rows() -> None:
    """The same two rollouts, one now split over two rows, carry 1/3 each; the batch 2/3."""
    report = rollout_mass_report(response_mask([2, 1, 1]), ["a", "a", "b"], num_trained_rows=3)
    assert report.masses() == pytest.approx({"a": 1 / 3, "b": 1 / 3}, abs=1e-12)
    assert report.batch_mass == pytest.approx(2 / 3, abs=1e-12)


def test_two_one_row_rollouts_in_a_three_row_step() -> None:
    """Two one-row rollouts passed from a step of three trained rows carry 1/3 each."""
    report = rollout_mass_report(response_mask([3, 1]), ["a", "b"], num_trained_rows=3)
    assert report.masses() == pytest.approx({"a": 1 / 3, "b": 1 / 3}, abs=1e-12)
    assert report.batch_mass == pytest.approx(2 / 3, abs=1e-12)


def test_abc_batch_masses() -> None:
    """A (50+100 tokens), B (3x30) and C (40) over six rows carry 1/6 each, 1/2 in all."""
    report = rollout_mass_report(response_mask(ABC_TOKENS, 100), ABC_IDS, num_trained_rows=6)
    assert report.masses() == pytest.approx({"A": 1 / 6, "B": 1 / 6, "C": 1 / 6}, abs=1e-12)
    assert report.batch_mass == pytest.approx(0.5, abs=1e-12)


def test_abc_batch_rows_and_tokens() -> None:
    """Each rollout entry counts its rows and its response tokens over those rows."""
    report = rollout_mass_report(response_mask(ABC_TOKENS, 100), ABC_IDS, num_trained_rows=6)
    assert [(r.rollout_id, r.rows, r.tokens) for r in report.rollouts] == [
        ("A", 2, 150),
        ("B", 3, 90),
        ("C", 1, 40),
    ]
    assert all(isinstance(rollout, RolloutMass) for rollout in report.rollouts)


def test_abc_batch_str() -> None:
    """str(report) prints one line per rollout in order of first appearance, then the batch."""
    report = rollout_mass_report(response_mask(ABC_TOKENS, 100), ABC_IDS, num_trained_rows=6)
    assert str(report) == (
        "rollout  rows  tokens  mass\n"
        "A           2     150  1/6 (0.1667)\n"
        "B           3      90  1/6 (0.1667)\n"
        "C           1      40  1/6 (0.1667)\n"
        "batch: 3 rollouts over 6 trained rows, mass 1/2 (0.5000)"
    )


def test_str_widens_for_long_ids() -> None:
    """The id column widens to the longest id."""
    report = rollout_mass_report(response_mask([2, 2]), ["episode-17", "b"], num_trained_rows=4)
    assert str(report) == (
        "rollout     rows  tokens  mass\n"
        "episode-17     1       2  1/4 (0.2500)\n"
        "b              1       2  1/4 (0.2500)\n"
        "batch: 2 rollouts over 4 trained rows, mass 1/2 (0.5000)"
    )


IDS_BY_CONTAINER = {
    "list": ["x", "y", "x", "z"],
    "tuple": ("x", "y", "x", "z"),
    "numpy-str": np.array(["x", "y", "x", "z"]),
    "numpy-int": np.array([7, 3, 7, 5]),
    "tensor-int": torch.tensor([7, 3, 7, 5]),
}


@pytest.mark.parametrize("container", list(IDS_BY_CONTAINER))
def test_id_containers_give_the_same_masses(container: str) -> None:
    """Ids as list, tuple, numpy str array, numpy int array or int tensor give the same masses."""
    mask = response_mask([4, 2, 1, 3])
    report = rollout_mass_report(mask, IDS_BY_CONTAINER[container], num_trained_rows=5)
    reference = rollout_mass_report(mask, IDS_BY_CONTAINER["list"], num_trained_rows=5)
    assert [(r.rows, r.tokens) for r in report.rollouts] == [(2, 5), (1, 2), (1, 3)]
    assert [r.mass for r in report.rollouts] == [r.mass for r in reference.rollouts]
    assert report.masses() == pytest.approx(dict.fromkeys(report.masses(), 1 / 5), abs=1e-12)


@pytest.mark.parametrize("container", ["numpy-str", "numpy-int", "tensor-int"])
def test_array_ids_are_reported_as_python_values(container: str) -> None:
    """Ids from numpy arrays and tensors appear in the report as plain str or int."""
    report = rollout_mass_report(
        response_mask([1, 1, 1, 1]), IDS_BY_CONTAINER[container], num_trained_rows=4
    )
    assert {type(rollout_id) for rollout_id in report.masses()} <= {str, int}


def test_zero_token_rollout_has_zero_mass() -> None:
    """A rollout whose rows have no response tokens has mass 0; the others keep theirs."""
    mask = response_mask([3, 0, 0, 2])
    report = rollout_mass_report(mask, ["a", "empty", "empty", "b"], num_trained_rows=4)
    by_id = {r.rollout_id: r for r in report.rollouts}
    assert (by_id["empty"].rows, by_id["empty"].tokens, by_id["empty"].mass) == (2, 0, 0.0)
    assert by_id["a"].mass == pytest.approx(0.25, abs=1e-12)
    assert report.batch_mass == pytest.approx(0.5, abs=1e-12)


def test_bool_mask_gives_the_same_report() -> None:
    """A bool response mask gives the same report as a float one."""
    mask = response_mask(ABC_TOKENS, 100)
    assert rollout_mass_report(mask.bool(), ABC_IDS, num_trained_rows=6) == rollout_mass_report(
        mask, ABC_IDS, num_trained_rows=6
    )


def test_report_is_a_mass_report() -> None:
    """rollout_mass_report returns a MassReport with a tuple of rollouts."""
    report = rollout_mass_report(response_mask([1]), ["a"], num_trained_rows=1)
    assert isinstance(report, MassReport)
    assert isinstance(report.rollouts, tuple)


# --- invariants ------------------------------------------------------------------------------


@st.composite
def _split_batches(draw: st.DrawFn) -> tuple[torch.Tensor, list[str], list[int], int, int]:
    """Rollouts split into random rows, rows shuffled, each row's tokens scattered."""
    ids, tokens, extra = draw(split_rollouts())
    width = 12
    mask = torch.zeros(len(ids), width)
    for row, count in enumerate(tokens):
        positions = draw(st.permutations(range(width)))[:count]
        mask[row, list(positions)] = 1
    return mask, ids, tokens, len(set(ids)), len(ids) + extra


@settings(deadline=None, max_examples=100)
@given(_split_batches())
def test_every_rollout_carries_one_over_trained_rows(
    batch: tuple[torch.Tensor, list[str], list[int], int, int],
) -> None:
    """However rollouts split into rows, each carries 1/num_trained_rows; the batch their sum."""
    mask, ids, tokens, num_rollouts, num_trained_rows = batch
    report = rollout_mass_report(mask, ids, num_trained_rows=num_trained_rows)
    assert len(report.rollouts) == num_rollouts
    for rollout in report.rollouts:
        assert abs(rollout.mass - 1 / num_trained_rows) <= 1e-12
        assert rollout.rows == ids.count(rollout.rollout_id)
        assert rollout.tokens == sum(
            t for i, t in zip(ids, tokens, strict=True) if i == rollout.rollout_id
        )
    assert abs(report.batch_mass - num_rollouts / num_trained_rows) <= 1e-12
    assert [r.rollout_id for r in report.rollouts] == list(dict.fromkeys(ids))


def test_masses_print_exactly_past_ten_thousand_rows() -> None:
    """With 65,536 trained rows a one-row rollout prints as 1/65536, not as 0."""
    report = rollout_mass_report(torch.ones(1, 3), ["a"], num_trained_rows=65_536)
    assert str(report).splitlines()[1] == "a           1       3  1/65536 (1.526e-05)"
    assert str(report).splitlines()[-1].endswith("mass 1/65536 (1.526e-05)")


# --- a report without rollouts -----------------------------------------------------------------


@pytest.mark.parametrize("num_trained_rows", [3, 0])
def test_report_without_rollouts_prints(num_trained_rows: int) -> None:
    """A MassReport of a batch with no rollouts prints its header and a zero batch line."""
    report = MassReport(rollouts=(), num_trained_rows=num_trained_rows)
    assert str(report) == (
        "rollout  rows  tokens  mass\n"
        f"batch: 0 rollouts over {num_trained_rows} trained rows, mass 0 (0.0000)"
    )
    assert repr(report) == f"MassReport(rollouts=(), num_trained_rows={num_trained_rows})"
    assert report.batch_mass == 0.0
    assert isinstance(report.batch_mass, float)
    assert report.masses() == {}


def test_report_groups_rows_by_the_encoders_codes() -> None:
    """Tuple and numpy-int ids group as in the normalization, each reported by its first row."""
    ids = [("p", np.int64(1)), ("p", 1), ("q", 1)]
    report = rollout_mass_report(response_mask([2, 1, 3]), ids, num_trained_rows=3)
    assert [(r.rollout_id, r.rows, r.tokens) for r in report.rollouts] == [
        (("p", np.int64(1)), 2, 3),
        (("q", 1), 1, 3),
    ]
    assert type(report.rollouts[0].rollout_id[1]) is np.int64
