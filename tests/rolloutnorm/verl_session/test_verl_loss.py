# SPDX-License-Identifier: MIT
"""The registered loss through verl's own policy-loss entry point, ``ppo_loss``.

The batch is built as verl's workers build it: left-padded prompts and right-padded
responses, turned into verl's no-padding layout by ``left_right_2_no_padding``, with the
global values (``dp_size``...) that the FSDP engine assigns before the loss runs. The model's
output is a leaf vector of log-probs over every unpadded token, so gradients can be compared.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from omegaconf import OmegaConf
from tensordict import TensorDict
from verl.trainer.ppo import core_algos
from verl.utils import tensordict_utils as tu
from verl.workers.config import ActorConfig
from verl.workers.config.actor import PolicyLossConfig as VerlPolicyLoss
from verl.workers.utils.losses import ppo_loss
from verl.workers.utils.padding import left_right_2_no_padding, no_padding_2_padding

import rolloutnorm.verl
from rolloutnorm import compute_policy_loss_per_rollout_mean, load_config, retain_and_normalize
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._loss import _LOSS_AGG_MODES, _METRIC_KEYS

# Rollout A in rows of 3 and 5 response tokens, B in three rows of 2, C in one row of 4.
ROLLOUT_IDS = ["A", "A", "B", "B", "B", "C"]
RESPONSE_TOKENS = [3, 5, 2, 2, 2, 4]
PROMPT_TOKENS = [2, 3, 1, 3, 2, 2]


@dataclasses.dataclass
class VerlBatch:
    """A batch in verl's layout, its normalized advantages, and the model's output leaf."""

    data: TensorDict
    advantages: torch.Tensor
    response_mask: torch.Tensor
    log_probs: torch.Tensor  # the model output: one log-prob per unpadded token, a leaf
    mass: float  # the batch's normalized token mass, sum of the normalized advantages


def actor_config(**changes: object) -> ActorConfig:
    """The actor config of verl with the per_rollout_mean loss mode, as a trainer sets it."""
    values = {
        "strategy": "fsdp",
        "ppo_mini_batch_size": 6,
        "use_dynamic_bsz": True,
        "rollout_n": 1,
        "policy_loss": VerlPolicyLoss(loss_mode="per_rollout_mean"),
        "entropy_coeff": 0.0,
        **changes,
    }
    return ActorConfig(**values)


def verl_batch(*, dp_size: int, drift: float = 0.0, seed: int = 0, unit: bool = False) -> VerlBatch:
    """Six rows in verl's no-padding layout, normalized per rollout with retain_and_normalize.

    ``drift`` moves the behaviour log-probs away from the current ones by up to that much (0:
    every ratio is 1; above log 3, some negative-advantage tokens reach the dual clip);
    ``unit`` makes every raw advantage 1 instead of a random value per row, of either sign,
    so that the upper clip, the lower clip and the dual clip all occur.
    """
    generator = torch.Generator().manual_seed(seed)
    rows, width_p, width_r = len(ROLLOUT_IDS), max(PROMPT_TOKENS), max(RESPONSE_TOKENS)
    prompt_mask = torch.arange(width_p).flip(0) < torch.tensor(PROMPT_TOKENS).unsqueeze(-1)
    response_mask = (torch.arange(width_r) < torch.tensor(RESPONSE_TOKENS).unsqueeze(-1)).long()
    attention_mask = torch.cat([prompt_mask.long(), response_mask], dim=1)
    input_ids = torch.randint(10, 100, (rows, width_p + width_r), generator=generator)
    input_ids = input_ids * attention_mask
    raw_advantages = torch.randn(rows, 1, generator=generator).expand(-1, width_r)
    if unit:
        raw_advantages = torch.ones(rows, width_r)

    config = load_config(overrides={"actor_rollout_ref.actor.ppo_mini_batch_size": rows})
    trained = retain_and_normalize(
        raw_advantages.contiguous(), response_mask, ROLLOUT_IDS, config=config
    )
    assert trained.plan.num_trained_rows == rows

    data = TensorDict(
        {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "position_ids": (attention_mask.cumsum(-1) - 1).clamp_min(0),
            "prompts": input_ids[:, :width_p],
            "responses": input_ids[:, width_p:],
            "response_mask": response_mask,
            "advantages": trained.advantages,
        },
        batch_size=[rows],
    )
    data = left_right_2_no_padding(data)
    total = int(attention_mask.sum())
    log_probs = (-torch.rand(total, generator=generator) - 0.1).requires_grad_()
    old = no_padding_2_padding(log_probs.detach(), data)
    noise = drift * (2 * torch.rand(old.shape, generator=generator) - 1)
    data["old_log_probs"] = old + noise * response_mask
    # What verl's FSDP engine assigns before its micro-batches run (forward_backward_batch).
    tu.assign_non_tensor(
        data,
        dp_size=dp_size,
        batch_num_tokens=int(response_mask.sum()) * dp_size,
        global_batch_size=rows * dp_size,
    )
    mass = float((trained.advantages * response_mask).sum())
    return VerlBatch(data, trained.advantages, response_mask, log_probs, mass)


def through_ppo_loss(batch: VerlBatch, config: ActorConfig) -> tuple[torch.Tensor, dict]:
    """The batch through verl's ppo_loss; the gradient lands on ``batch.log_probs``."""
    output = {"log_probs": batch.log_probs}
    loss, metrics = ppo_loss(config, output, batch.data)
    loss.backward()
    return loss.detach(), metrics


def direct_call(batch: VerlBatch, config: object) -> tuple[torch.Tensor, torch.Tensor, dict]:
    """The loss called directly on padded tensors; returns the loss, its gradient and metrics."""
    leaf = batch.log_probs.detach().clone().requires_grad_()
    loss, metrics = compute_policy_loss_per_rollout_mean(
        old_log_prob=batch.data["old_log_probs"],
        log_prob=no_padding_2_padding(leaf, batch.data),
        advantages=batch.advantages,
        response_mask=batch.response_mask,
        config=config,
    )
    loss.backward()
    return loss.detach(), leaf.grad, metrics


def verls_token_sum(batch: VerlBatch, config: ActorConfig) -> tuple[torch.Tensor, dict]:
    """Verl's own vanilla loss in token-sum mode, on the same normalized advantages."""
    return core_algos.compute_policy_loss_vanilla(
        old_log_prob=batch.data["old_log_probs"],
        log_prob=no_padding_2_padding(batch.log_probs.detach(), batch.data),
        advantages=batch.advantages,
        response_mask=batch.response_mask.bool(),
        loss_agg_mode="token-sum",
        config=config,
    )


@pytest.fixture(autouse=True)
def registered() -> object:
    """The loss registered, as a trainer does at start-up."""
    return rolloutnorm.verl.register()


def test_register_returns_the_function_verl_looks_up(registered) -> None:
    """register() returns the loss itself, and verl's registry hands out the same object."""
    assert registered is compute_policy_loss_per_rollout_mean
    assert core_algos.get_policy_loss_fn("per_rollout_mean") is registered


def test_register_twice_is_harmless() -> None:
    """A second register() leaves the registry as it was."""
    before = dict(core_algos.POLICY_LOSS_REGISTRY)
    assert rolloutnorm.verl.register() is compute_policy_loss_per_rollout_mean
    assert before == core_algos.POLICY_LOSS_REGISTRY


def test_another_function_under_the_name_is_an_error(monkeypatch) -> None:
    """A different loss already registered as per_rollout_mean is refused, never replaced."""

    def other_loss(**kwargs: object) -> None:
        """Someone else's per_rollout_mean."""

    monkeypatch.setitem(core_algos.POLICY_LOSS_REGISTRY, "per_rollout_mean", other_loss)
    with pytest.raises(RolloutNormError, match=r"already registered .* as test_verl_loss\."):
        rolloutnorm.verl.register()
    assert core_algos.POLICY_LOSS_REGISTRY["per_rollout_mean"] is other_loss


@pytest.mark.parametrize("version", ["0.7.1", "0.7.0", "0.10.0", "1.0.0"])
def test_verl_outside_the_supported_range_is_refused(monkeypatch, version) -> None:
    """A verl whose actor rescales micro-batch losses (before 0.8) or is untested is refused."""
    monkeypatch.setattr(rolloutnorm.verl.verl, "__version__", version)
    with pytest.raises(RolloutNormError, match=rf"verl {version} is not supported: .*<0\.10"):
        rolloutnorm.verl.register()


@pytest.mark.parametrize("version", ["0.8.0", "0.9.0", "0.9.1", "0.9.2rc1"])
def test_verl_inside_the_supported_range_is_accepted(monkeypatch, version) -> None:
    """Every release from 0.8.0 up to 0.10 is accepted."""
    monkeypatch.setattr(rolloutnorm.verl.verl, "__version__", version)
    assert rolloutnorm.verl.register() is compute_policy_loss_per_rollout_mean


@pytest.mark.parametrize("dp_size", [1, 2, 4])
@pytest.mark.parametrize("mode", _LOSS_AGG_MODES)
def test_ppo_loss_at_ratio_1_is_minus_the_mass_times_dp_size(dp_size, mode) -> None:
    """Through ppo_loss, at ratio 1, the loss and gradient are the direct call's and the hand's.

    By hand: the loss is minus the batch's normalized mass times dp_size, and the gradient of
    each response token's log-prob is minus its normalized advantage times dp_size.
    """
    batch = verl_batch(dp_size=dp_size)
    config = actor_config(loss_agg_mode=mode)
    loss, _ = through_ppo_loss(batch, config)
    direct, direct_grad, _ = direct_call(batch, config)

    torch.testing.assert_close(loss, direct, rtol=0, atol=0)
    torch.testing.assert_close(batch.log_probs.grad, direct_grad, rtol=0, atol=0)
    assert loss.item() == pytest.approx(-batch.mass * dp_size, rel=1e-6)
    by_hand = -batch.advantages * batch.response_mask * dp_size
    torch.testing.assert_close(no_padding_2_padding(batch.log_probs.grad, batch.data), by_hand)
    # Prompt tokens and padding get no gradient: only the response tokens' log-probs do.
    assert int(batch.log_probs.grad.count_nonzero()) == sum(RESPONSE_TOKENS)


@pytest.mark.parametrize("dp_size", [1, 2])
def test_unit_advantages_give_minus_rollouts_over_trained_rows(dp_size) -> None:
    """Three rollouts over six trained rows with unit advantages: ppo_loss is -3/6 * dp_size."""
    batch = verl_batch(dp_size=dp_size, unit=True)
    loss, _ = through_ppo_loss(batch, actor_config())
    assert loss.item() == pytest.approx(-3 / 6 * dp_size, rel=1e-6)


@pytest.mark.parametrize("dp_size", [1, 3])
def test_ppo_loss_with_clipping_equals_the_direct_call(dp_size) -> None:
    """With ratios away from 1, some clipped, ppo_loss gives the direct call's loss and gradient."""
    batch = verl_batch(dp_size=dp_size, drift=0.6, seed=3)
    config = actor_config(clip_ratio_low=0.1, clip_ratio_high=0.1)
    loss, metrics = through_ppo_loss(batch, config)
    direct, direct_grad, direct_metrics = direct_call(batch, config)
    torch.testing.assert_close(loss, direct, rtol=0, atol=0)
    torch.testing.assert_close(batch.log_probs.grad, direct_grad, rtol=0, atol=0)
    assert 0 < direct_metrics["actor/pg_clipfrac"] < 1
    clipfrac = direct_metrics["actor/pg_clipfrac"]
    assert metrics["actor/pg_clipfrac"].values == pytest.approx([clipfrac])


def test_loss_equals_verls_token_sum_mode_on_the_normalized_advantages() -> None:
    """The vanilla loss of verl in token-sum mode gives the same loss and metrics."""
    batch = verl_batch(dp_size=2, drift=1.5, seed=5)
    config = actor_config(loss_agg_mode="token-sum")
    config.global_batch_info["dp_size"] = 2
    ours, _, our_metrics = direct_call(batch, config)
    theirs, their_metrics = verls_token_sum(batch, config)
    torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=1e-7)
    assert 0 < our_metrics["actor/pg_clipfrac_lower"] < our_metrics["actor/pg_clipfrac"] < 1
    assert list(our_metrics) == list(their_metrics)
    for key in _METRIC_KEYS:
        assert type(our_metrics[key]) is type(their_metrics[key]) is float
        assert our_metrics[key] == pytest.approx(their_metrics[key], abs=1e-6)


def test_ppo_loss_wraps_the_metrics_under_verls_keys() -> None:
    """The metrics leave ppo_loss under the keys verl's built-in losses use, as verl Metrics."""
    batch = verl_batch(dp_size=2, drift=0.6, seed=1)
    _, metrics = through_ppo_loss(batch, actor_config())
    assert set(_METRIC_KEYS) <= set(metrics)
    _, _, direct_metrics = direct_call(batch, actor_config())
    for key in _METRIC_KEYS:
        assert type(metrics[key]).__name__ == "Metric"
        assert metrics[key].values == pytest.approx([direct_metrics[key]])


def test_actor_config_defaults_mean_one_rank() -> None:
    """Called outside ppo_loss, verl's default config (empty global_batch_info) is one rank."""
    batch = verl_batch(dp_size=1, drift=0.6, seed=5)
    default, _, _ = direct_call(batch, actor_config())
    two_ranks = actor_config()
    two_ranks.global_batch_info["dp_size"] = 2
    assert direct_call(batch, two_ranks)[0] == 2 * default


def test_a_config_without_clip_ratio_c_or_global_batch_info_works_as_in_verl() -> None:
    """An OmegaConf actor section with only the clip ratios gets verl's fallbacks: 3.0, 1 rank."""
    batch = verl_batch(dp_size=1, drift=1.5, seed=5)
    sparse = OmegaConf.create({"clip_ratio": 0.2, "clip_ratio_low": None, "clip_ratio_high": 0.2})
    loss, _, metrics = direct_call(batch, sparse)
    assert metrics["actor/pg_clipfrac_lower"] > 0  # the dual clip is in play
    assert loss == direct_call(batch, actor_config(clip_ratio_c=3.0))[0]
    assert loss != direct_call(batch, actor_config(clip_ratio_c=1.5))[0]
    theirs, _ = verls_token_sum(batch, actor_config())  # global_batch_info empty
    torch.testing.assert_close(loss, theirs, rtol=1e-6, atol=1e-7)


def test_a_clip_ratio_c_of_1_is_an_error_naming_the_key() -> None:
    """A value present but wrong in verl's config is still refused, naming the key."""
    batch = verl_batch(dp_size=1)
    config = OmegaConf.create({"clip_ratio": 0.2, "clip_ratio_c": 1})
    with pytest.raises(RolloutNormError, match=r"config\.clip_ratio_c must be greater than 1"):
        direct_call(batch, config)
