# SPDX-License-Identifier: MIT
"""One validator of tensors: the same fault gets the same words from every entry point."""

from __future__ import annotations

import math
import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rolloutnorm import (
    PolicyLossConfig,
    RolloutNormError,
    check_batch,
    compute_policy_loss_per_rollout_mean,
    normalize_advantages_by_rollout,
    rollout_mass_report,
)
from rolloutnorm._validate import MaskProbes, RowTokens, count_row_tokens, probe_mask

_CONFIG = PolicyLossConfig(clip_ratio_low=0.2, clip_ratio_high=0.2, clip_ratio_c=3.0)


def _normalize(advantages: object, mask: object) -> None:
    normalize_advantages_by_rollout(advantages, mask, ["a", "b"], num_trained_rows=2)


def _check_batch(advantages: object, mask: object) -> None:
    check_batch(advantages, mask, ["a", "b"])


def _loss(advantages: object, mask: object) -> None:
    zeros = torch.zeros(2, 3)
    compute_policy_loss_per_rollout_mean(zeros, zeros, advantages, mask, config=_CONFIG)


_ENTRY_POINTS = {"normalize": _normalize, "check_batch": _check_batch, "loss": _loss}


def _with(value: float, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    tensor = torch.ones(2, 3, dtype=dtype)
    tensor[1, 2] = value
    return tensor


# (advantages, response_mask, the one message every entry point gives)
_FAULTS = {
    "mask-not-a-tensor": (
        torch.ones(2, 3),
        [[1, 1, 1]] * 2,
        "response_mask must be a torch.Tensor, got list",
    ),
    "advantages-not-a-tensor": (
        [[1.0] * 3] * 2,
        torch.ones(2, 3),
        "advantages must be a torch.Tensor, got list",
    ),
    "advantages-1d": (
        torch.ones(6),
        torch.ones(6),
        "advantages must be 2-D (rows, tokens), got shape (6,)",
    ),
    "mask-shape": (
        torch.ones(2, 3),
        torch.ones(2, 4),
        "response_mask must have the shape of advantages (2, 3), got (2, 4)",
    ),
    "mask-device": (
        torch.ones(2, 3),
        torch.ones(2, 3, device="meta"),
        "response_mask must be on the device of advantages (cpu), got meta",
    ),
    "integer-advantages": (
        torch.ones(2, 3, dtype=torch.int64),
        torch.ones(2, 3),
        "advantages must have a floating dtype, got torch.int64",
    ),
    "complex-mask": (
        torch.ones(2, 3),
        torch.ones(2, 3, dtype=torch.complex64),
        "response_mask must have a bool, integer or floating dtype, got torch.complex64",
    ),
    "mask-value-2": (
        torch.ones(2, 3),
        _with(2, torch.int64),
        "response_mask must hold only 0 and 1, got values in [1, 2]",
    ),
    "mask-value-minus-1": (
        torch.ones(2, 3),
        _with(-1, torch.int32),
        "response_mask must hold only 0 and 1, got values in [-1, 1]",
    ),
    "mask-fraction": (
        torch.ones(2, 3),
        _with(0.5),
        "response_mask must hold only 0 and 1, got fractions",
    ),
    "mask-nan": (
        torch.ones(2, 3),
        _with(math.nan, torch.float64),
        "response_mask must hold only 0 and 1, got NaN",
    ),
}


@pytest.mark.parametrize("entry", list(_ENTRY_POINTS))
@pytest.mark.parametrize("fault", list(_FAULTS))
def test_every_entry_point_words_a_fault_alike(entry: str, fault: str) -> None:
    """The normalization, check_batch and the loss raise one exact message per fault."""
    advantages, mask, message = _FAULTS[fault]
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message)}$"):
        _ENTRY_POINTS[entry](advantages, mask)


@pytest.mark.parametrize("entry", ["check_batch", "loss"])
def test_non_finite_advantages_are_worded_alike(entry: str) -> None:
    """check_batch and the loss name a NaN advantage, its count and first position alike."""
    message = (
        "advantages must be finite everywhere, padding included: 1 non-finite values, "
        "the first at row 1, token 2"
    )
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message)}$"):
        _ENTRY_POINTS[entry](_with(math.nan), torch.ones(2, 3))


def test_loss_names_each_non_finite_tensor() -> None:
    """The loss words a non-finite log_prob as check_batch words a non-finite advantage."""
    log_prob = _with(-math.inf)
    message = (
        "log_prob must be finite everywhere, padding included: 1 non-finite values, "
        "the first at row 1, token 2"
    )
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message)}$"):
        compute_policy_loss_per_rollout_mean(
            torch.zeros(2, 3), log_prob, torch.ones(2, 3), torch.ones(2, 3), config=_CONFIG
        )


def test_loss_keeps_its_gradient_through_the_finite_check() -> None:
    """The finite probe reads log_prob without adding to its autograd graph."""
    log_prob = torch.zeros(2, 3, requires_grad=True)
    loss, _ = compute_policy_loss_per_rollout_mean(
        torch.zeros(2, 3), log_prob, torch.ones(2, 3), torch.ones(2, 3), config=_CONFIG
    )
    loss.backward()
    assert log_prob.grad is not None
    assert torch.equal(log_prob.grad, torch.full((2, 3), -1.0))


def test_loss_still_takes_an_empty_batch() -> None:
    """The loss of a batch without rows is 0, as before: only the normalization needs a row."""
    empty = torch.zeros(0, 3)
    loss, metrics = compute_policy_loss_per_rollout_mean(
        empty, empty, empty, torch.zeros(0, 3, dtype=torch.int64), config=_CONFIG
    )
    assert loss.item() == 0.0
    assert list(metrics.values()) == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    ("mask", "message"),
    [
        ([[1, 1]], "response_mask must be a torch.Tensor, got list"),
        (torch.ones(3), "response_mask must be 2-D (rows, tokens), got shape (3,)"),
        (torch.ones(0, 3), "response_mask must hold at least one row, got an empty batch"),
    ],
)
def test_report_names_its_own_argument(mask: object, message: str) -> None:
    """rollout_mass_report names response_mask, the argument it was given, not advantages."""
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message)}$"):
        rollout_mass_report(mask, ["a"], num_trained_rows=1)


# --- the mask's probes, by name --------------------------------------------------------------


def test_bool_mask_has_no_probes() -> None:
    """A bool mask is 0/1 by its dtype: its row counts come without probes."""
    result = count_row_tokens(torch.tensor([[True, False], [True, True]]))
    assert isinstance(result, RowTokens)
    assert result.counts.tolist() == [1, 2]
    assert result.probes is None


@pytest.mark.parametrize("strided", [False, True])
def test_bool_mask_counts_are_torch_sums(strided: bool) -> None:
    """A bool mask's row counts, summed by numpy on the CPU, are torch's int64 sums."""
    mask = torch.rand(5, 300, generator=torch.Generator().manual_seed(0)) < 0.6
    if strided:
        mask = mask.t().contiguous().t()[:, ::3]
    counts = count_row_tokens(mask).counts
    assert counts.dtype == torch.int64
    assert torch.equal(counts, mask.long().sum(-1))


def test_probe_mask_gives_the_probes_alone() -> None:
    """probe_mask gives None for a bool mask, else the probes count_row_tokens gives."""
    assert probe_mask(torch.tensor([[True, False]])) is None
    mask = torch.tensor([[1, 0, 1], [0, 2, 0]])
    probes, expected = probe_mask(mask), count_row_tokens(mask).probes
    assert probes is not None
    assert expected is not None
    assert torch.equal(torch.stack(probes), torch.stack(expected))


@pytest.mark.parametrize(
    "dtype", [torch.int64, torch.int32, torch.uint8, torch.float32, torch.float64]
)
def test_probes_are_named_and_share_one_dtype(dtype: torch.dtype) -> None:
    """Every other dtype gives MaskProbes with low, high and stray, of one dtype for one stack."""
    result = count_row_tokens(torch.tensor([[1, 0, 1], [0, 0, 0]], dtype=dtype))
    assert result.counts.tolist() == [2, 0]
    assert result.counts.dtype == torch.int64
    probes = result.probes
    assert isinstance(probes, MaskProbes)
    assert probes._fields == ("low", "high", "stray")
    assert len({probes.low.dtype, probes.high.dtype, probes.stray.dtype}) == 1
    assert (probes.low.item(), probes.high.item(), probes.stray.item()) == (0, 1, 0)


def _passes(probes: MaskProbes[torch.Tensor]) -> bool:
    return probes.low.item() >= 0 and probes.high.item() <= 1 and not probes.stray.item()


@settings(deadline=None, max_examples=150)
@given(
    st.lists(
        st.lists(st.sampled_from([0, 1, 1, 0, 2, -1, 2**32, 2**32 + 1]), min_size=3, max_size=3),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from([torch.int64, torch.float64]),
    st.booleans(),
)
def test_probes_pass_exactly_when_every_value_is_0_or_1(rows, dtype, strided) -> None:
    """The probes' low >= 0, high <= 1 and stray == 0 hold exactly when the mask is 0/1."""
    mask = torch.tensor(rows, dtype=dtype)
    if strided:
        mask = torch.stack([mask, torch.zeros_like(mask)], dim=-1)[..., 0]
    result = count_row_tokens(mask)
    assert result.probes is not None
    assert _passes(result.probes) == all(value in (0, 1) for row in rows for value in row)
    if _passes(result.probes):
        assert result.counts.tolist() == [sum(row) for row in rows]
