# SPDX-License-Identifier: MIT
"""The per-rollout-mean clipped PPO policy loss, a masked sum over already-normalized advantages."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from rolloutnorm._counts import as_count
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._validate import MASK, check_layout, check_values, count_row_tokens

__all__ = ["PolicyLossConfig", "compute_policy_loss_per_rollout_mean"]

# verl's own list (``ActorConfig`` and ``agg_loss`` in verl 0.9): the loss accepts exactly these.
_LOSS_AGG_MODES = (
    "token-mean",
    "token-sum",
    "seq-mean-token-sum",
    "seq-mean-token-mean",
    "seq-mean-token-sum-norm",
)
# What verl's own policy losses fall back to when the actor config leaves a key out.
_VERL_CLIP_RATIO_C = 3.0
_VERL_DP_SIZE = 1
_METRIC_KEYS = ("actor/pg_clipfrac", "actor/ppo_kl", "actor/pg_clipfrac_lower")


@dataclass(frozen=True)
class PolicyLossConfig:
    """The clip ratios and data-parallel size of the per-rollout-mean policy loss.

    The clip ratios have no defaults here: the packaged ``config.yaml`` owns them. Each may be
    given as any real number (``int``, ``float``, a numpy float, ``Fraction``...) but a bool,
    as `RolloutNormConfig` takes them, and is kept as a float.

    Attributes:
        clip_ratio_low: The ratio is clipped below at ``1 - clip_ratio_low``; in ``[0, 1)``.
        clip_ratio_high: The ratio is clipped above at ``1 + clip_ratio_high``; at least 0.
        clip_ratio_c: The dual-clip bound on the loss of negative-advantage tokens, as a
            multiple of ``-advantage``; greater than 1.
        dp_size: The number of data-parallel ranks whose gradients are averaged; a positive int.

    Raises:
        RolloutNormError: If a clip ratio is not a finite number in its range, or ``dp_size`` is
            not a positive int.

    Examples:
        >>> PolicyLossConfig(  # doctest: +NORMALIZE_WHITESPACE
        ...     clip_ratio_low=0.2, clip_ratio_high=0.28, clip_ratio_c=3.0, dp_size=4
        ... )
        PolicyLossConfig(clip_ratio_low=0.2, clip_ratio_high=0.28, clip_ratio_c=3.0,
                         dp_size=4)
        >>> PolicyLossConfig(0.2, 0.2, clip_ratio_c=1.0)  # doctest: +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        rolloutnorm.RolloutNormError: clip_ratio_c must be greater than 1,
        got 1.0
    """

    clip_ratio_low: float
    clip_ratio_high: float
    clip_ratio_c: float
    dp_size: int = 1

    def __post_init__(self) -> None:
        names = ("clip_ratio_low", "clip_ratio_high", "clip_ratio_c")
        for name in names:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                msg = f"{name} must be a finite number, got {value!r}"
                raise RolloutNormError(msg)
            try:
                finite = math.isfinite(value)
            except OverflowError:
                # An int (or Fraction) past a float's range, whose repr may run to pages.
                msg = f"{name} must be a finite number, got a number too large for a float"
                raise RolloutNormError(msg) from None
            if not finite:
                msg = f"{name} must be a finite number, got {value!r}"
                raise RolloutNormError(msg)
        if not 0 <= self.clip_ratio_low < 1:
            msg = f"clip_ratio_low must be in [0, 1), got {self.clip_ratio_low!r}"
            raise RolloutNormError(msg)
        if self.clip_ratio_high < 0:
            msg = f"clip_ratio_high must be at least 0, got {self.clip_ratio_high!r}"
            raise RolloutNormError(msg)
        if self.clip_ratio_c <= 1:
            msg = f"clip_ratio_c must be greater than 1, got {self.clip_ratio_c!r}"
            raise RolloutNormError(msg)
        for name in names:
            object.__setattr__(self, name, float(getattr(self, name)))
        object.__setattr__(self, "dp_size", as_count(self.dp_size, "dp_size"))


def _as_config(config: PolicyLossConfig | Any | None) -> PolicyLossConfig:
    """Return ``config`` as a validated `PolicyLossConfig`, reading a verl config as verl does.

    ``clip_ratio_low`` and ``clip_ratio_high`` fall back to ``clip_ratio`` where they are None,
    ``clip_ratio_c`` is 3.0 where the key is absent, and ``dp_size`` is
    ``global_batch_info["dp_size"]``, 1 where either is absent, as in verl's losses. A key
    that is present but None or out of range is an error that names it.
    """
    if isinstance(config, PolicyLossConfig):
        return config
    if config is None:
        msg = "config is required: pass a PolicyLossConfig or a verl-style actor config, got None"
        raise RolloutNormError(msg)
    values, keys = {}, {}
    for name in ("clip_ratio_low", "clip_ratio_high"):
        values[name], keys[name] = getattr(config, name, None), f"config.{name}"
        if values[name] is None:
            values[name] = getattr(config, "clip_ratio", None)
            keys[name] = f"config.{name} (from config.clip_ratio)"
        if values[name] is None:
            msg = f"config.{name} is missing: set config.{name} or config.clip_ratio"
            raise RolloutNormError(msg)
    values["clip_ratio_c"] = getattr(config, "clip_ratio_c", _VERL_CLIP_RATIO_C)
    keys["clip_ratio_c"] = "config.clip_ratio_c"
    info = getattr(config, "global_batch_info", {})
    if not isinstance(info, Mapping):
        msg = f"config.global_batch_info must be a mapping, got {type(info).__name__}"
        raise RolloutNormError(msg)
    values["dp_size"] = as_count(
        info.get("dp_size", _VERL_DP_SIZE), "config.global_batch_info['dp_size']"
    )
    try:
        return PolicyLossConfig(**values)
    except RolloutNormError as error:  # a clip ratio: name it by the config's key
        name = next(name for name in keys if str(error).startswith(f"{name} "))
        msg = f"{keys[name]}{str(error).removeprefix(name)}"
        raise RolloutNormError(msg) from None


def check_loss_agg_mode(loss_agg_mode: object, name: str = "loss_agg_mode") -> str:
    """Return ``loss_agg_mode`` if it is one of verl's aggregation modes.

    Args:
        loss_agg_mode: The mode.
        name: The argument or configuration key to name in the error.

    Returns:
        The mode.

    Raises:
        RolloutNormError: If it is not a str, or not one of the modes; the message lists them.
    """
    if not isinstance(loss_agg_mode, str):
        msg = f"{name} must be a str, got {type(loss_agg_mode).__name__}"
        raise RolloutNormError(msg)
    if loss_agg_mode not in _LOSS_AGG_MODES:
        msg = f"{name} must be one of {_LOSS_AGG_MODES}, got {loss_agg_mode!r}"
        raise RolloutNormError(msg)
    return loss_agg_mode


def _masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The mean of ``values`` weighted by the 0/1 ``mask``, 0 when the mask is all zero."""
    return (values.to(mask.dtype) * mask).sum() / mask.sum().clamp_min(1.0)


def compute_policy_loss_per_rollout_mean(
    old_log_prob: torch.Tensor,
    log_prob: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    loss_agg_mode: str = "token-mean",
    config: PolicyLossConfig | Any | None = None,
    rollout_is_weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The dual-clip PPO policy loss over advantages already normalized per rollout.

    Each row's advantages must already be divided by
    ``max(1, rollout_token_count * num_trained_rows)``, so the token losses are summed over
    the response mask, not averaged, and the sum is multiplied by ``dp_size``: data-parallel
    ranks average their gradients, and the product turns that average back into the sum over
    the global trained batch. ``old_log_prob`` is treated as a constant (no gradient).

    ``loss_agg_mode`` is checked, not used: the normalization has already set each token's
    weight, so the loss is always the masked sum times ``dp_size``, which is what the
    ``token-sum`` mode of verl 0.9 computes. Any other mode would divide the normalized mass
    a second time. In verl's ``ppo_loss`` the mode still sets how the entropy and KL terms
    added to this loss are aggregated.

    Args:
        old_log_prob: Log probabilities under the behaviour policy, float, ``(rows, tokens)``.
        log_prob: Log probabilities under the current policy, float, shape of ``advantages``.
        advantages: Per-token advantages, already normalized per rollout, float, 2-D.
        response_mask: 1 for trained tokens and 0 elsewhere (bool, integer or floating).
        loss_agg_mode: One of verl's aggregation modes (``token-mean``, ``token-sum``,
            ``seq-mean-token-sum``, ``seq-mean-token-mean``, ``seq-mean-token-sum-norm``),
            accepted so that the loss fits verl's policy-loss registry; the loss does not
            depend on it.
        config: A `PolicyLossConfig`, or a verl actor config read as verl's own policy losses
            read it: ``clip_ratio_low`` and ``clip_ratio_high`` fall back to ``clip_ratio``,
            ``clip_ratio_c`` is 3.0 where absent, and ``dp_size`` is
            ``global_batch_info["dp_size"]``, which verl's ``ppo_loss`` fills, or 1 when absent.
        rollout_is_weights: Optional per-token importance weights multiplying the token losses,
            float, shape of ``advantages``.

    Returns:
        The 0-d loss, and the metrics verl's built-in policy losses report, as Python floats:
        ``actor/pg_clipfrac``, ``actor/ppo_kl`` and ``actor/pg_clipfrac_lower``, each a mean
        over the response mask (0 when it is empty).

    Raises:
        RolloutNormError: If ``loss_agg_mode`` is not one of verl's modes, ``config`` is
            missing or holds a value out of range (the message names its key), or a tensor
            is not 2-D, has another shape, device or dtype than ``advantages`` allows, holds
            NaN or inf, or ``response_mask`` holds values other than 0 and 1.
    """
    check_loss_agg_mode(loss_agg_mode)
    cfg = _as_config(config)
    named = {
        "old_log_prob": old_log_prob,
        "log_prob": log_prob,
        "advantages": advantages,
        MASK: response_mask,
    }
    if rollout_is_weights is not None:
        named["rollout_is_weights"] = rollout_is_weights
    check_layout(named, allow_empty=True)
    finite = {name: tensor for name, tensor in named.items() if name != MASK}
    # An empty batch has nothing to prove 0/1, and aminmax refuses one.
    probes = count_row_tokens(response_mask).probes if response_mask.numel() else None
    check_values(response_mask, probes, finite)

    negative_approx_kl = torch.clamp(log_prob - old_log_prob.detach(), min=-20.0, max=20.0)
    ratio = torch.exp(negative_approx_kl)
    pg_losses1 = -advantages * ratio
    pg_losses2 = -advantages * torch.clamp(ratio, 1 - cfg.clip_ratio_low, 1 + cfg.clip_ratio_high)
    clip1 = torch.maximum(pg_losses1, pg_losses2)
    pg_losses3 = -advantages * cfg.clip_ratio_c
    clip2 = torch.minimum(pg_losses3, clip1)
    negative = advantages < 0
    pg_losses = torch.where(negative, clip2, clip1)
    if rollout_is_weights is not None:
        pg_losses = pg_losses * rollout_is_weights
    pg_loss = (pg_losses * response_mask.to(pg_losses.dtype)).sum() * cfg.dp_size

    with torch.no_grad():
        # bf16 cannot count tokens exactly; the metrics accumulate in at least float32.
        mask = response_mask.to(torch.promote_types(pg_losses.dtype, torch.float32))
        means = torch.stack(
            [
                _masked_mean(pg_losses2 > pg_losses1, mask),
                _masked_mean(-negative_approx_kl, mask),
                _masked_mean((clip1 > pg_losses3) & negative, mask),
            ]
        )
    # One host read for the three, where verl's losses call .item() on each.
    return pg_loss, dict(zip(_METRIC_KEYS, means.tolist(), strict=True))
