# SPDX-License-Identifier: MIT
"""Tests for the per-rollout-mean clipped PPO policy loss."""

from __future__ import annotations

import math
import re
import types
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rolloutnorm._errors import RolloutNormError
from rolloutnorm._loss import PolicyLossConfig, compute_policy_loss_per_rollout_mean

CONFIG = PolicyLossConfig(clip_ratio_low=0.2, clip_ratio_high=0.2, clip_ratio_c=3.0)

# Row 0: unclipped (A=1, r=1.1), upper clip (A=2, r=1.5), dual clip (A=-1, r=4).
# Row 1: lower clip (A=-2, r=0.5), then two masked-out tokens that would otherwise count.
RATIOS = [[1.1, 1.5, 4.0], [0.5, 2.0, 1.0]]
ADVANTAGES = [[1.0, 2.0, -1.0], [-2.0, 5.0, 0.0]]
MASK = [[1, 1, 1], [1, 0, 0]]
OLD = [[-0.5, -1.0, -2.0], [-0.3, -0.7, -1.2]]


def _batch(**overrides: object) -> dict[str, object]:
    old = torch.tensor(OLD, dtype=torch.float64)
    batch = {
        "old_log_prob": old,
        "log_prob": old + torch.tensor(RATIOS, dtype=torch.float64).log(),
        "advantages": torch.tensor(ADVANTAGES, dtype=torch.float64),
        "response_mask": torch.tensor(MASK),
        "config": CONFIG,
    }
    batch.update(overrides)
    return batch


def _token_loss(old: float, new: float, adv: float, cfg: PolicyLossConfig) -> float:
    """The dual-clip PPO loss of one token, in plain Python floats."""
    ratio = math.exp(min(max(new - old, -20.0), 20.0))
    clipped = min(max(ratio, 1 - cfg.clip_ratio_low), 1 + cfg.clip_ratio_high)
    loss = max(-adv * ratio, -adv * clipped)
    return min(loss, -adv * cfg.clip_ratio_c) if adv < 0 else loss


def _reference(old, new, adv, mask, cfg, weights=None) -> tuple[float, float]:
    """The loss as a Python sum over tokens, and the sum of absolute terms for a tolerance."""
    terms = [
        _token_loss(o, n, a, cfg) * (1.0 if weights is None else weights[i][j])
        for i, row in enumerate(mask)
        for j, m in enumerate(row)
        if m
        for o, n, a in [(old[i][j], new[i][j], adv[i][j])]
    ]
    return sum(terms) * cfg.dp_size, sum(map(abs, terms)) * cfg.dp_size


def test_pinned_loss_and_metrics_for_each_clip_case() -> None:
    """A hand-computed batch gives -1.1 - 2.4 + 3 + 1.6 and the clip fractions 2/4 and 1/4."""
    loss, metrics = compute_policy_loss_per_rollout_mean(**_batch())
    assert loss.item() == pytest.approx(1.1)
    assert list(metrics) == ["actor/pg_clipfrac", "actor/ppo_kl", "actor/pg_clipfrac_lower"]
    assert metrics["actor/pg_clipfrac"] == pytest.approx(0.5)
    assert metrics["actor/pg_clipfrac_lower"] == pytest.approx(0.25)
    assert metrics["actor/ppo_kl"] == pytest.approx(-math.log(1.1 * 1.5 * 4.0 * 0.5) / 4)


def test_metrics_are_python_floats_as_in_verl() -> None:
    """Every metric is a plain float, as verl's built-in losses return them, even with grad on."""
    log_prob = _batch()["log_prob"].requires_grad_()
    _, metrics = compute_policy_loss_per_rollout_mean(**_batch(log_prob=log_prob))
    assert [type(value) for value in metrics.values()] == [float, float, float]


def test_matches_python_reference() -> None:
    """The loss equals the per-token reference written with Python floats."""
    batch = _batch()
    want, _ = _reference(OLD, batch["log_prob"].tolist(), ADVANTAGES, MASK, CONFIG)
    loss, _ = compute_policy_loss_per_rollout_mean(**batch)
    assert loss.item() == pytest.approx(want, rel=1e-12)


def test_all_masked_gives_zero_loss_and_zero_metrics() -> None:
    """An all-zero mask yields a zero loss and metrics of 0, not NaN."""
    mask = torch.zeros(2, 3, dtype=torch.bool)
    loss, metrics = compute_policy_loss_per_rollout_mean(**_batch(response_mask=mask))
    assert loss.item() == 0.0
    assert list(metrics.values()) == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.float32, torch.float64])
def test_mask_dtypes_agree(dtype: torch.dtype) -> None:
    """Bool, integer and floating masks of the same 0/1 values give the same loss."""
    mask = torch.tensor(MASK).to(dtype)
    loss, _ = compute_policy_loss_per_rollout_mean(**_batch(response_mask=mask))
    assert loss.item() == pytest.approx(1.1)


@pytest.mark.parametrize(
    "mode",
    [
        "token-mean",
        "token-sum",
        "seq-mean-token-sum",
        "seq-mean-token-mean",
        "seq-mean-token-sum-norm",
    ],
)
def test_loss_agg_mode_does_not_change_the_loss(mode: str) -> None:
    """Each of verl's five loss_agg_mode values gives the same masked-sum loss."""
    loss, _ = compute_policy_loss_per_rollout_mean(**_batch(loss_agg_mode=mode))
    assert loss.item() == pytest.approx(1.1)


@pytest.mark.parametrize("dp_size", [1, 2, 7])
def test_dp_size_scales_loss_linearly(dp_size: int) -> None:
    """The loss with dp_size ranks is dp_size times the single-rank loss."""
    config = PolicyLossConfig(0.2, 0.2, 3.0, dp_size=dp_size)
    loss, _ = compute_policy_loss_per_rollout_mean(**_batch(config=config))
    assert loss.item() == pytest.approx(1.1 * dp_size)


def test_rollout_is_weights_multiply_each_token() -> None:
    """Importance weights multiply each token loss before the masked sum."""
    weights = [[0.5, 2.0, 0.0], [3.0, 9.0, 9.0]]
    loss, _ = compute_policy_loss_per_rollout_mean(
        **_batch(rollout_is_weights=torch.tensor(weights, dtype=torch.float64))
    )
    assert loss.item() == pytest.approx(-1.1 * 0.5 - 2.4 * 2.0 + 1.6 * 3.0)


def test_gradient_reaches_log_prob_only() -> None:
    """Only unclipped tokens pass gradient to log_prob, and old_log_prob gets none."""
    batch = _batch()
    old = batch["old_log_prob"].requires_grad_()
    log_prob = batch["log_prob"].detach().requires_grad_()
    loss, _ = compute_policy_loss_per_rollout_mean(**_batch(old_log_prob=old, log_prob=log_prob))
    loss.backward()
    assert old.grad is None
    want = torch.tensor([[-1.1, 0.0, 0.0], [0.0, 0.0, 0.0]], dtype=torch.float64)
    torch.testing.assert_close(log_prob.grad, want)


def _verl_style(**values: object) -> types.SimpleNamespace:
    """An actor config as verl's losses read it: clip_ratio always set, the rest optional."""
    return types.SimpleNamespace(**{"clip_ratio": 0.2, **values})


def test_verl_style_config_with_clip_ratio_fallback() -> None:
    """clip_ratio_low and clip_ratio_high left as None fall back to clip_ratio."""
    config = _verl_style(clip_ratio=0.2, clip_ratio_low=None, clip_ratio_high=None)
    loss, _ = compute_policy_loss_per_rollout_mean(**_batch(config=config))
    assert loss.item() == pytest.approx(1.1)
    wide = _verl_style(clip_ratio=0.6, clip_ratio_high=None)  # 1.5 no longer clipped above
    loss, _ = compute_policy_loss_per_rollout_mean(**_batch(config=wide))
    assert loss.item() == pytest.approx(-1.1 - 3.0 + 3.0 + 2 * 0.5)


def test_verl_style_config_defaults_clip_ratio_c_to_3() -> None:
    """Without a clip_ratio_c key the dual clip is at 3.0, as in verl's losses."""
    loss, _ = compute_policy_loss_per_rollout_mean(**_batch(config=_verl_style()))
    assert loss.item() == pytest.approx(1.1)
    loss, _ = compute_policy_loss_per_rollout_mean(**_batch(config=_verl_style(clip_ratio_c=5.0)))
    assert loss.item() == pytest.approx(-1.1 - 2.4 + 4.0 + 1.6)


@pytest.mark.parametrize(
    ("extra", "dp_size"),
    [
        ({}, 1),
        ({"global_batch_info": {}}, 1),
        ({"global_batch_info": {"batch_num_tokens": None}}, 1),
        ({"global_batch_info": {"dp_size": 4}}, 4),
        ({"global_batch_info": {"dp_size": 4}, "dp_size": 2}, 4),
    ],
)
def test_verl_style_config_reads_dp_size_from_global_batch_info(
    extra: dict[str, object], dp_size: int
) -> None:
    """dp_size is global_batch_info['dp_size'], 1 when absent, as verl's agg_loss treats it."""
    loss, _ = compute_policy_loss_per_rollout_mean(**_batch(config=_verl_style(**extra)))
    assert loss.item() == pytest.approx(1.1 * dp_size)


@pytest.mark.parametrize(
    ("config", "match"),
    [
        (None, "config is required"),
        (types.SimpleNamespace(clip_ratio_c=3.0), r"config\.clip_ratio_low is missing"),
        (_verl_style(clip_ratio_c=1), r"config\.clip_ratio_c must be greater than 1, got 1"),
        (_verl_style(clip_ratio_low=-0.2), r"config\.clip_ratio_low must be in \[0, 1\)"),
        (
            _verl_style(clip_ratio=1.5),
            r"config\.clip_ratio_low \(from config\.clip_ratio\) must be in \[0, 1\), got 1\.5",
        ),
        (_verl_style(clip_ratio_c=None), r"config\.clip_ratio_c must be a finite number, got None"),
        (
            _verl_style(global_batch_info={"dp_size": None}),
            r"config\.global_batch_info\['dp_size'\] must be a positive int, got NoneType",
        ),
        (_verl_style(clip_ratio_high=-1), r"config\.clip_ratio_high must be at least 0"),
        (_verl_style(clip_ratio_c="3"), r"config\.clip_ratio_c must be a finite number"),
        (
            _verl_style(global_batch_info={"dp_size": 0}),
            r"config\.global_batch_info\['dp_size'\] must be a positive int, got 0",
        ),
        (
            _verl_style(global_batch_info={"dp_size": 2.0}),
            r"config\.global_batch_info\['dp_size'\] must be a positive int",
        ),
        (
            _verl_style(global_batch_info=types.SimpleNamespace(dp_size=2)),
            r"config\.global_batch_info must be a mapping, got SimpleNamespace",
        ),
    ],
)
def test_bad_config_raises(config: object, match: str) -> None:
    """A missing config or clip ratio, or a value present but wrong, raises naming its key."""
    with pytest.raises(RolloutNormError, match=match):
        compute_policy_loss_per_rollout_mean(**_batch(config=config))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"clip_ratio_low": -0.1}, r"clip_ratio_low must be in \[0, 1\)"),
        ({"clip_ratio_low": 1.0}, r"clip_ratio_low must be in \[0, 1\)"),
        ({"clip_ratio_high": -0.1}, "clip_ratio_high must be at least 0"),
        ({"clip_ratio_c": 1.0}, "clip_ratio_c must be greater than 1"),
        ({"clip_ratio_high": math.inf}, "clip_ratio_high must be a finite number"),
        ({"clip_ratio_low": math.nan}, "clip_ratio_low must be a finite number"),
        ({"clip_ratio_high": 10**400}, "clip_ratio_high must be a finite number, got a number too"),
        ({"clip_ratio_c": "3"}, "clip_ratio_c must be a finite number"),
        ({"clip_ratio_low": False}, "clip_ratio_low must be a finite number"),
        ({"dp_size": 0}, "dp_size must be a positive int"),
        ({"dp_size": True}, "dp_size must be a positive int"),
        ({"dp_size": 2.0}, "dp_size must be a positive int"),
    ],
)
def test_policy_loss_config_rejects_bad_values(kwargs: dict[str, object], match: str) -> None:
    """PolicyLossConfig raises on each out-of-range or wrongly typed value, naming the field."""
    values = {"clip_ratio_low": 0.2, "clip_ratio_high": 0.2, "clip_ratio_c": 3.0, **kwargs}
    with pytest.raises(RolloutNormError, match=match):
        PolicyLossConfig(**values)


def _f64(values: object) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"loss_agg_mode": "seq-sum"}, "loss_agg_mode must be one of"),
        ({"loss_agg_mode": "token_mean"}, "loss_agg_mode must be one of"),
        ({"loss_agg_mode": 1}, "loss_agg_mode must be a str"),
        ({"old_log_prob": [[0.0] * 3] * 2}, "old_log_prob must be a torch.Tensor"),
        ({"advantages": _f64([1.0, 2.0])}, "advantages must be 2-D"),
        ({"log_prob": torch.zeros(2, 4, dtype=torch.float64)}, "log_prob must have the shape"),
        ({"response_mask": torch.ones(3, 2)}, "response_mask must have the shape"),
        ({"response_mask": torch.ones(2, 3, device="meta")}, "response_mask must be on the device"),
        ({"log_prob": torch.zeros(2, 3, dtype=torch.int64)}, "log_prob must have a floating dtype"),
        ({"advantages": torch.zeros(2, 3, dtype=torch.int32)}, "advantages must have a floating"),
        ({"rollout_is_weights": torch.ones(2, 3, dtype=torch.int64)}, "rollout_is_weights must"),
        ({"rollout_is_weights": torch.ones(2, 2)}, "rollout_is_weights must have the shape"),
        (
            {"response_mask": torch.ones(2, 3, dtype=torch.complex64)},
            "response_mask must have a bool, integer or floating dtype, got torch.complex64",
        ),
        (
            {"response_mask": torch.tensor([[1, 2, 0], [1, 0, 0]])},
            r"response_mask must hold only 0 and 1, got values in \[0, 2\]",
        ),
        (
            {"response_mask": torch.tensor([[1, -1, 0], [1, 0, 0]])},
            r"response_mask must hold only 0 and 1, got values in \[-1, 1\]",
        ),
        (
            {"response_mask": _f64([[1.0, 0.5, 0.0], [1.0, 0.0, 0.0]])},
            "response_mask must hold only 0 and 1, got fractions",
        ),
        (
            {"response_mask": _f64([[1.0, math.nan, 0.0], [1, 0, 0]])},
            "response_mask must hold only 0 and 1, got NaN",
        ),
        ({"advantages": _f64([[1.0, math.nan, 0.0], [1, 0, 0]])}, "advantages must be finite"),
        ({"log_prob": _f64([[0.0, -math.inf, 0.0], [0, 0, 0]])}, "log_prob must be finite"),
        (
            {"old_log_prob": _f64([[0.0, 0.0, 0.0], [math.inf, 0, 0]])},
            "old_log_prob must be finite",
        ),
        (
            {"rollout_is_weights": _f64([[1.0, 1.0, 1.0], [math.nan, 1, 1]])},
            "rollout_is_weights must be finite",
        ),
    ],
)
def test_bad_input_raises_naming_the_argument(overrides: dict[str, object], match: str) -> None:
    """Each malformed argument raises RolloutNormError whose message names that argument."""
    with pytest.raises(RolloutNormError, match=match):
        compute_policy_loss_per_rollout_mean(**_batch(**overrides))


def test_rollout_norm_error_is_a_value_error() -> None:
    """Callers that catch ValueError also catch the loss's input errors."""
    with pytest.raises(ValueError, match="config is required"):
        compute_policy_loss_per_rollout_mean(**_batch(config=None))


@st.composite
def _problems(draw: st.DrawFn) -> tuple[list[list[float]], ...]:
    rows = draw(st.integers(1, 4))
    cols = draw(st.integers(1, 6))

    def grid(elements: st.SearchStrategy) -> list[list[float]]:
        return draw(
            st.lists(st.lists(elements, min_size=cols, max_size=cols), min_size=rows, max_size=rows)
        )

    log_probs = st.floats(-30.0, 0.0)
    return (
        grid(log_probs),
        grid(log_probs),
        grid(st.floats(-10.0, 10.0)),
        grid(st.integers(0, 1)),
        grid(st.floats(0.0, 5.0)),
    )


@settings(deadline=None, max_examples=60)
@given(
    problem=_problems(),
    low=st.floats(0.0, 0.9),
    high=st.floats(0.0, 2.0),
    c=st.floats(1.01, 10.0),
    dp_size=st.integers(1, 8),
    use_weights=st.booleans(),
)
def test_loss_equals_sum_of_reference_token_losses(
    problem, low, high, c, dp_size, use_weights
) -> None:
    """For random shapes and values the loss is dp_size times the masked sum of token losses."""
    old, new, adv, mask, weights = problem
    cfg = PolicyLossConfig(low, high, c, dp_size=dp_size)
    weights = weights if use_weights else None
    want, scale = _reference(old, new, adv, mask, cfg, weights)
    loss, _ = compute_policy_loss_per_rollout_mean(
        _f64(old),
        _f64(new),
        _f64(adv),
        torch.tensor(mask),
        config=cfg,
        rollout_is_weights=None if weights is None else _f64(weights),
    )
    assert abs(loss.item() - want) <= 1e-9 * (1.0 + scale)


@pytest.mark.parametrize(
    "value",
    [np.float32(0.25), np.float64(0.25), Fraction(1, 4), 0, np.int32(0), np.float16(0.25)],
    ids=["np-float32", "np-float64", "fraction", "int", "np-int32", "np-float16"],
)
def test_policy_loss_config_takes_any_real_number(value: object) -> None:
    """Numpy floats and ints, Fractions and ints are clip ratios, kept as floats."""
    config = PolicyLossConfig(clip_ratio_low=value, clip_ratio_high=value, clip_ratio_c=Fraction(3))
    assert (config.clip_ratio_low, config.clip_ratio_high, config.clip_ratio_c) == (
        float(value),
        float(value),
        3.0,
    )
    assert {type(config.clip_ratio_low), type(config.clip_ratio_c)} == {float}
    floats = PolicyLossConfig(float(value), float(value), 3.0)
    assert config == floats
    loss, _ = compute_policy_loss_per_rollout_mean(**_batch(config=config))
    assert torch.equal(loss, compute_policy_loss_per_rollout_mean(**_batch(config=floats))[0])


@settings(deadline=None, max_examples=100)
@given(
    st.fractions(min_value=0, max_value=Fraction(99, 100)), st.fractions(min_value=0, max_value=5)
)
def test_fraction_clip_ratios_equal_their_floats(low: Fraction, high: Fraction) -> None:
    """A config of Fractions equals the config of their floats."""
    assert PolicyLossConfig(low, high, Fraction(7, 2)) == PolicyLossConfig(
        float(low), float(high), 3.5
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"clip_ratio_low": True}, "clip_ratio_low must be a finite number, got True"),
        (
            {"clip_ratio_high": np.bool_(True)},
            "clip_ratio_high must be a finite number, got np.True_",
        ),
        (
            {"clip_ratio_c": np.float32("inf")},
            "clip_ratio_c must be a finite number, got np.float32(inf)",
        ),
        (
            {"clip_ratio_low": np.float64("nan")},
            "clip_ratio_low must be a finite number, got np.float64(nan)",
        ),
        ({"clip_ratio_c": Decimal(3)}, "clip_ratio_c must be a finite number, got Decimal('3')"),
        (
            {"clip_ratio_c": torch.tensor(3.0)},
            "clip_ratio_c must be a finite number, got tensor(3.)",
        ),
        ({"clip_ratio_c": Fraction(1)}, "clip_ratio_c must be greater than 1, got Fraction(1, 1)"),
        (
            {"clip_ratio_low": np.float32(1)},
            "clip_ratio_low must be in [0, 1), got np.float32(1.0)",
        ),
        ({"clip_ratio_c": 1}, "clip_ratio_c must be greater than 1, got 1"),
    ],
)
def test_policy_loss_config_still_rejects_flags_non_finite_and_out_of_range(
    kwargs: dict[str, object], message: str
) -> None:
    """Bools, non-finite values, non-real types and values out of range raise, shown as given."""
    values = {"clip_ratio_low": 0.2, "clip_ratio_high": 0.2, "clip_ratio_c": 3.0, **kwargs}
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message)}$"):
        PolicyLossConfig(**values)
