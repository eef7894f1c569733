# SPDX-License-Identifier: MIT
"""The per-rollout normalization: pinned facts, the invariant, the oracle and bad input."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from batches import response_mask, split_rollouts
from oracle import per_row_loop
from rolloutnorm import RolloutNormError, _ids, check_batch, normalize_advantages_by_rollout


def _int_mask(lengths: list[int], width: int | None = None) -> torch.Tensor:
    return response_mask(lengths, width, dtype=torch.int64)


def _masses(lengths: list[int], ids: list, num_trained_rows: int) -> dict:
    mask = _int_mask(lengths)
    ones = torch.ones(mask.shape, dtype=torch.float64)
    out = normalize_advantages_by_rollout(ones, mask, ids, num_trained_rows=num_trained_rows)
    masses: dict = {}
    for rollout_id, row_mass in zip(ids, (out * mask).sum(-1).tolist(), strict=True):
        masses[rollout_id] = masses.get(rollout_id, 0.0) + row_mass
    return masses


def test_two_rollouts_over_two_rows_carry_half_each():
    """One row per rollout, two trained rows: masses {1/2, 1/2}, batch 1."""
    masses = _masses([5, 7], ["a", "b"], 2)
    assert masses == pytest.approx({"a": 0.5, "b": 0.5}, abs=1e-15)
    assert sum(masses.values()) == pytest.approx(1.0, abs=1e-15)


def test_same_two_rollouts_over_three_rows_carry_a_third_each():
    """Splitting one of the rollouts over two rows makes three trained rows: {1/3, 1/3}."""
    masses = _masses([3, 2, 7], ["a", "a", "b"], 3)
    assert masses == pytest.approx({"a": 1 / 3, "b": 1 / 3}, abs=1e-15)
    assert sum(masses.values()) == pytest.approx(2 / 3, abs=1e-15)


def test_batch_of_rollouts_with_uneven_rows_carries_a_sixth_each():
    """A (50 + 100 tokens), B (3 x 30), C (40) over six rows: 1/6 each, batch 1/2."""
    masses = _masses([50, 100, 30, 30, 30, 40], ["A", "A", "B", "B", "B", "C"], 6)
    assert masses == pytest.approx({"A": 1 / 6, "B": 1 / 6, "C": 1 / 6}, abs=1e-15)
    assert sum(masses.values()) == pytest.approx(0.5, abs=1e-15)
    assert 1 / 3 not in masses.values()  # what a distinct-rollout divisor would give


def test_divisor_is_rollout_token_count_times_num_trained_rows():
    """Each row is divided by its rollout's tokens over all its rows times the trained rows."""
    mask = _int_mask([2, 3, 4])
    out = normalize_advantages_by_rollout(
        torch.full((3, 4), 60.0, dtype=torch.float64), mask, [1, 1, 2], num_trained_rows=5
    )
    assert out[:, 0].tolist() == [60 / (5 * 5), 60 / (5 * 5), 60 / (4 * 5)]


def test_rollout_without_tokens_is_divided_by_one():
    """The max(1, ...) guard leaves a rollout with no response tokens unchanged."""
    mask = torch.tensor([[0, 0], [1, 1]])
    advantages = torch.tensor([[3.0, -2.0], [4.0, 4.0]])
    out = normalize_advantages_by_rollout(advantages, mask, ["x", "y"], num_trained_rows=2)
    assert out[0].tolist() == [3.0, -2.0]
    assert out[1].tolist() == [1.0, 1.0]


def test_more_trained_rows_than_rows_passed_divides_by_the_larger_count():
    """A micro-batch of a larger trained batch is divided by the trained batch's row count."""
    out = normalize_advantages_by_rollout(
        torch.ones(2, 1), torch.ones(2, 1), ["a", "b"], num_trained_rows=8
    )
    assert out.flatten().tolist() == [0.125, 0.125]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_output_keeps_dtype_and_equals_the_loop(dtype):
    """The result has the dtype of advantages and equals the per-row loop bit for bit."""
    generator = torch.Generator().manual_seed(0)
    advantages = torch.randn(6, 9, generator=generator).to(dtype)
    mask = _int_mask([9, 3, 0, 5, 9, 1])
    ids = ["p", "q", "p", "r", "q", "p"]
    out = normalize_advantages_by_rollout(advantages, mask, ids, num_trained_rows=7)
    assert out.dtype == dtype
    assert out.device == advantages.device
    assert torch.equal(out, per_row_loop(advantages, mask, ids, 7))


def test_bf16_token_counts_stay_exact_past_256():
    """A 300-token rollout divides bf16 advantages by exactly 300, not by bf16's 300-ish."""
    advantages = torch.full((1, 300), 300.0, dtype=torch.bfloat16)
    out = normalize_advantages_by_rollout(
        advantages, torch.ones(1, 300, dtype=torch.bfloat16), ["a"], num_trained_rows=1
    )
    assert out.dtype == torch.bfloat16
    assert out.float().unique().tolist() == [1.0]


def test_every_mask_dtype_gives_the_same_result():
    """Float, int, uint8 and bool masks give the same result."""
    advantages = torch.randn(4, 5, generator=torch.Generator().manual_seed(1))
    mask = _int_mask([5, 2, 0, 4])
    ids = ["a", "b", "a", "c"]
    expected = normalize_advantages_by_rollout(advantages, mask, ids, num_trained_rows=4)
    for variant in (mask.bool(), mask.float(), mask.double(), mask.to(torch.uint8)):
        out = normalize_advantages_by_rollout(advantages, variant, ids, num_trained_rows=4)
        assert torch.equal(out, expected)


@pytest.mark.parametrize(
    "ids",
    [
        ["u1", "u2", "u1", "u3"],
        ("u1", "u2", "u1", "u3"),
        np.array(["u1", "u2", "u1", "u3"]),
        np.array(["u1", "u2", "u1", "u3"], dtype=object),
        [10, 20, 10, 30],
        np.array([10, 20, 10, 30], dtype=np.int32),
        torch.tensor([10, 20, 10, 30]),
        torch.tensor([10, 20, 10, 30], dtype=torch.int16),
        [(0, 1), (0, 2), (0, 1), (1, 0)],
        [b"u1", b"u2", b"u1", b"u3"],
    ],
    ids=[
        "list",
        "tuple",
        "np-str",
        "np-object",
        "int-list",
        "np-int",
        "tensor",
        "int16",
        "tuples",
        "bytes",
    ],
)
def test_every_id_container_groups_rows_alike(ids):
    """Lists, tuples, numpy arrays and integer tensors of ids group the same rows."""
    mask = _int_mask([1, 2, 3, 4])
    out = normalize_advantages_by_rollout(torch.ones(4, 4), mask, ids, num_trained_rows=4)
    expected = per_row_loop(torch.ones(4, 4), mask, ["a", "b", "a", "c"], 4)
    assert torch.equal(out, expected)


_HOST_READS = ("item", "tolist", "__bool__", "__int__", "__float__", "__index__", "nonzero")


@pytest.mark.parametrize(
    ("ids_kind", "mask_dtype", "dtype"),
    [
        ("str", torch.float32, torch.float32),
        ("tensor", torch.int64, torch.float32),
        ("str", torch.bool, torch.bfloat16),
        ("str", torch.int64, torch.float16),
    ],
)
def test_normalization_reads_back_once_whatever_the_rows(monkeypatch, ids_kind, mask_dtype, dtype):
    """At most one host read per call for 4 or 4,096 rows, none for a bool mask: none per row."""
    calls = dict.fromkeys(_HOST_READS, 0)
    for name in _HOST_READS:
        original = getattr(torch.Tensor, name)

        def counted(self, *args, _name=name, _original=original, **kwargs):
            calls[_name] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(torch.Tensor, name, counted)
    for rows in (4, 4096):
        # Rows of 32 ones: a float16 sum of them overflows 65504 unless accumulated wider.
        advantages = torch.ones(rows, 32, dtype=dtype)
        mask = torch.ones(rows, 32, dtype=mask_dtype)
        ids = [f"r{row // 3}" for row in range(rows)]
        if ids_kind == "tensor":
            ids = torch.arange(rows) // 3
        for name in calls:
            calls[name] = 0
        normalize_advantages_by_rollout(advantages, mask, ids, num_trained_rows=rows)
        reads = 0 if mask_dtype == torch.bool else 1
        assert calls == dict.fromkeys(_HOST_READS, 0) | {"tolist": reads}


def test_list_of_scalar_tensors_is_rejected():
    """Tensors hash by identity, so a list of 0-d tensors must not silently split rollouts."""
    with pytest.raises(RolloutNormError, match="rollout_ids must hold str or int ids, got Tensor"):
        normalize_advantages_by_rollout(
            torch.ones(3, 2), torch.ones(3, 2), list(torch.tensor([7, 7, 9])), num_trained_rows=3
        )


def test_float_mask_value_just_below_one_is_rejected():
    """A float64 mask value of 1 - 2**-53 is neither 0 nor 1 and is caught exactly."""
    mask = torch.ones(1, 3, dtype=torch.float64)
    mask[0, 2] = 1 - 2**-53
    with pytest.raises(
        RolloutNormError, match="response_mask must hold only 0 and 1, got fractions"
    ):
        normalize_advantages_by_rollout(torch.ones(1, 3), mask, ["a"], num_trained_rows=1)


def test_nan_in_float_mask_is_rejected():
    """A NaN in a float mask is not a 0 or a 1."""
    mask = torch.ones(2, 2)
    mask[1, 1] = math.nan
    with pytest.raises(RolloutNormError, match="response_mask must hold only 0 and 1, got NaN"):
        normalize_advantages_by_rollout(torch.ones(2, 2), mask, ["a", "b"], num_trained_rows=2)


@pytest.mark.parametrize(
    "value",
    [2, -1, 2**32, 2**32 + 1, -(2**32), 2**63 - 1, -(2**63), 2**31, 2**32 - 1],
)
def test_int64_mask_value_is_rejected_whatever_its_halves(value):
    """An int64 value whose int32 halves are each 0 or 1 (2**32, 2**32 + 1) is still no token."""
    mask = _int_mask([4, 3, 2], width=4)
    mask[1, 3] = value
    with pytest.raises(RolloutNormError, match=r"response_mask must hold only 0 and 1, got values"):
        normalize_advantages_by_rollout(torch.ones(3, 4), mask, ["a", "b", "c"], num_trained_rows=3)


@settings(deadline=None, max_examples=100)
@given(
    st.lists(
        st.lists(st.sampled_from([0, 1, 0, 1, 2, -1, 2**32, 2**32 + 1]), min_size=3, max_size=3),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
)
def test_int64_mask_passes_exactly_when_every_value_is_0_or_1(rows, strided):
    """Contiguous (checked by halves) or strided (checked whole), an int64 mask passes iff 0/1."""
    mask = torch.tensor(rows, dtype=torch.int64)
    if strided:
        mask = torch.stack([mask, torch.zeros_like(mask)], dim=-1)[..., 0]
    ids = list(range(len(rows)))
    advantages = torch.ones(mask.shape)
    if all(value in (0, 1) for row in rows for value in row):
        out = normalize_advantages_by_rollout(advantages, mask, ids, num_trained_rows=len(rows))
        assert torch.equal(out, per_row_loop(advantages, mask, ids, len(rows)))
    else:
        with pytest.raises(RolloutNormError, match="response_mask must hold only 0 and 1"):
            normalize_advantages_by_rollout(advantages, mask, ids, num_trained_rows=len(rows))


def test_half_precision_sum_overflow_is_no_error():
    """float16 advantages whose sum passes 65504 are finite and pass check_batch."""
    advantages = torch.full((64, 1024), 2.0, dtype=torch.float16)
    check_batch(advantages, torch.ones(64, 1024), list(range(64)))
    out = normalize_advantages_by_rollout(
        advantages, torch.ones(64, 1024), list(range(64)), num_trained_rows=64
    )
    assert out.dtype == torch.float16
    assert torch.isfinite(out).all()


def test_sum_overflow_of_finite_values_is_not_mistaken_for_inf():
    """Huge but finite float32 advantages pass check_batch's finite check."""
    check_batch(torch.full((4, 4), 3.0e38), torch.ones(4, 4), [0, 1, 2, 3])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rollout_ids": ["a", "b"]}, "rollout_ids must hold one id per row: got 2 ids for 3 rows"),
        ({"num_trained_rows": 0}, "num_trained_rows must be a positive int, got 0"),
        ({"num_trained_rows": -3}, "num_trained_rows must be a positive int, got -3"),
        ({"num_trained_rows": True}, "num_trained_rows must be a positive int, got bool"),
        ({"num_trained_rows": 3.0}, "num_trained_rows must be a positive int, got float"),
        ({"num_trained_rows": np.bool_(True)}, "num_trained_rows must be a positive int, got bool"),
        (
            {"num_trained_rows": torch.tensor(3)},
            "num_trained_rows must be a positive int, got Tensor",
        ),
        (
            {"num_trained_rows": torch.tensor(True)},
            "num_trained_rows must be a positive int, got Tensor",
        ),
        ({"num_trained_rows": 2**62}, "num_trained_rows is too large: 4611686018427387904 times"),
        ({"num_trained_rows": 2**64}, "num_trained_rows is too large"),
        (
            {"advantages": torch.ones(3, 0), "response_mask": torch.ones(3, 0)},
            r"advantages must hold at least one token column, got shape \(3, 0\)",
        ),
        ({"num_trained_rows": 2}, "num_trained_rows must count every row passed: got 2"),
        ({"response_mask": torch.ones(3, 5)}, r"response_mask must have the shape of advantages"),
        ({"advantages": torch.ones(3), "response_mask": torch.ones(3)}, "advantages must be 2-D"),
        ({"advantages": torch.ones(3, 4, dtype=torch.int64)}, "advantages must have a floating"),
        ({"advantages": [[1.0] * 4] * 3}, "advantages must be a torch.Tensor, got list"),
        ({"response_mask": [[1] * 4] * 3}, "response_mask must be a torch.Tensor, got list"),
        (
            {"response_mask": torch.full((3, 4), 2)},
            r"response_mask must hold only 0 and 1, got values in \[2, 2\]",
        ),
        (
            {"response_mask": torch.full((3, 4), -1)},
            r"response_mask must hold only 0 and 1, got values in \[-1, -1\]",
        ),
        (
            {"response_mask": torch.full((3, 4), 0.5)},
            "response_mask must hold only 0 and 1, got fractions",
        ),
        (
            {"response_mask": torch.ones(3, 4, dtype=torch.complex64)},
            "response_mask must have a bool, integer or floating dtype, got torch.complex64",
        ),
        ({"rollout_ids": [["a"], ["b"], ["c"]]}, r"rollout_ids\[0\] is unhashable: list"),
        ({"rollout_ids": [1, "1", 2]}, "rollout_ids must all be of one kind, got int, str"),
        ({"rollout_ids": [1.0, 2.0, 3.0]}, "rollout_ids must hold str or int ids, got float"),
        ({"rollout_ids": [True, False, True]}, "rollout_ids must hold str or int ids, got bool"),
        ({"rollout_ids": [1, True, 2]}, "rollout_ids must hold str or int ids, got bool"),
        (
            {"rollout_ids": "abc"},
            "rollout_ids must be a list, tuple, numpy array or 1-D integer tensor, got str",
        ),
        ({"rollout_ids": {"a", "b", "c"}}, "got set"),
        (
            {"rollout_ids": torch.tensor([1.0, 2.0, 3.0])},
            "rollout_ids must be an integer tensor, got dtype torch.float32",
        ),
        (
            {"rollout_ids": torch.tensor([True, False, True])},
            "rollout_ids must be an integer tensor, got dtype torch.bool",
        ),
        (
            {"rollout_ids": torch.zeros(3, 1, dtype=torch.int64)},
            r"rollout_ids must be 1-D, got a tensor of shape \(3, 1\)",
        ),
        (
            {"rollout_ids": np.zeros((3, 1), dtype=np.int64)},
            r"rollout_ids must be 1-D, got an array of shape \(3, 1\)",
        ),
        (
            {"rollout_ids": np.array([0.5, 1.5, 2.5])},
            "rollout_ids must hold str or int ids, got an array of dtype float64",
        ),
        (
            {"rollout_ids": torch.tensor([1, 2])},
            "rollout_ids must hold one id per row: got 2 ids for 3 rows",
        ),
    ],
)
def test_bad_input_raises_naming_the_argument(kwargs, match):
    """Each malformed argument raises RolloutNormError whose message names it."""
    arguments = {
        "advantages": torch.ones(3, 4),
        "response_mask": torch.ones(3, 4),
        "rollout_ids": ["a", "b", "c"],
        "num_trained_rows": 3,
    } | kwargs
    with pytest.raises(RolloutNormError, match=match):
        normalize_advantages_by_rollout(
            arguments["advantages"],
            arguments["response_mask"],
            arguments["rollout_ids"],
            num_trained_rows=arguments["num_trained_rows"],
        )


def test_empty_batch_is_rejected():
    """A batch with no rows is an error naming advantages."""
    with pytest.raises(RolloutNormError, match="advantages must hold at least one row"):
        normalize_advantages_by_rollout(torch.ones(0, 4), torch.ones(0, 4), [], num_trained_rows=1)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_advantage_comes_out_at_its_own_position_only(value):
    """The division never mixes values: a NaN or inf stays put, every other value is exact."""
    advantages = torch.ones(3, 4)
    advantages[2, 3] = value
    mask = _int_mask([4, 4, 2], width=4)
    out = normalize_advantages_by_rollout(advantages, mask, ["a", "a", "c"], num_trained_rows=3)
    expected = per_row_loop(advantages, mask, ["a", "a", "c"], 3)
    assert torch.equal(torch.isfinite(out), torch.isfinite(advantages))
    assert torch.equal(out.nan_to_num(), expected.nan_to_num())
    assert out[2, 3].item() == pytest.approx(value / 6, nan_ok=True)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_check_batch_rejects_non_finite_advantages_even_in_padding(value):
    """check_batch names the count and first position of NaN or inf, padding included."""
    advantages = torch.ones(3, 4)
    advantages[2, 3] = value
    mask = _int_mask([4, 4, 2], width=4)
    with pytest.raises(
        RolloutNormError,
        match="advantages must be finite everywhere, padding included: 1 non-finite values, "
        "the first at row 2, token 3",
    ):
        check_batch(advantages, mask, ["a", "b", "c"])


def test_numpy_integer_num_trained_rows_is_accepted():
    """A numpy integer is a valid row count."""
    out = normalize_advantages_by_rollout(
        torch.ones(1, 2), torch.ones(1, 2), ["a"], num_trained_rows=np.int64(2)
    )
    assert out.flatten().tolist() == [0.25, 0.25]


@settings(deadline=None, max_examples=150)
@given(split_rollouts())
def test_every_rollout_carries_one_over_num_trained_rows(batch):
    """However a rollout is split into rows and ordered, its rows carry mass 1/num_trained_rows."""
    ids, lengths, extra = batch
    num_trained_rows = len(ids) + extra
    masses = _masses(lengths, ids, num_trained_rows)
    for mass in masses.values():
        assert mass == pytest.approx(1 / num_trained_rows, rel=1e-12)
    assert Fraction(sum(masses.values())).limit_denominator(1000) == Fraction(
        len(masses), num_trained_rows
    )


@settings(deadline=None, max_examples=100)
@given(split_rollouts(), st.randoms(use_true_random=False))
def test_permuting_rows_permutes_the_result(batch, rng):
    """Reordering the rows reorders the output and changes nothing else."""
    ids, lengths, extra = batch
    mask = _int_mask(lengths)
    advantages = torch.randn(
        mask.shape, generator=torch.Generator().manual_seed(rng.randint(0, 99))
    )
    order = list(range(len(ids)))
    rng.shuffle(order)
    n = len(ids) + extra
    out = normalize_advantages_by_rollout(advantages, mask, ids, num_trained_rows=n)
    permuted = normalize_advantages_by_rollout(
        advantages[order], mask[order], [ids[i] for i in order], num_trained_rows=n
    )
    assert torch.equal(permuted, out[order])


@settings(deadline=None, max_examples=100)
@given(
    split_rollouts(),
    st.sampled_from([torch.float32, torch.float64, torch.bfloat16]),
    st.sampled_from(["list", "tensor"]),
)
def test_vectorized_equals_the_per_row_loop(batch, dtype, container):
    """The vectorized function equals the straightforward per-row loop bit for bit."""
    ids, lengths, extra = batch
    mask = _int_mask(lengths)
    advantages = (
        torch.randn(mask.shape, generator=torch.Generator().manual_seed(len(ids))) * 5
    ).to(dtype)
    n = len(ids) + extra
    given_ids = torch.tensor([int(i[1:]) for i in ids]) if container == "tensor" else ids
    out = normalize_advantages_by_rollout(advantages, mask, given_ids, num_trained_rows=n)
    assert torch.equal(out, per_row_loop(advantages, mask, ids, n))


@pytest.mark.parametrize("max_cached", [2**20, 4])
@pytest.mark.parametrize("rows", [1, 2, 3, 511, 512, 513])
def test_codes_are_each_ids_first_row_whatever_the_size(monkeypatch, rows, max_cached):
    """Shared row numbers (or a fresh range past the cache's cap) give each id its first row."""
    monkeypatch.setattr(_ids, "_MAX_CACHED_ROWS", max_cached)
    ids = [f"r{row // 2}" for row in range(rows)]
    encoded = _ids.encode_ids(ids, num_rows=rows, device=torch.device("cpu"))
    assert encoded.codes.tolist() == [row - row % 2 for row in range(rows)]
    assert encoded.size == rows
