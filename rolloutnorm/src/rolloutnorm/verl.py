# SPDX-License-Identifier: MIT
"""The per-rollout-mean loss in verl's policy-loss registry; needs the ``verl`` extra.

verl looks a policy loss up by ``actor.policy_loss.loss_mode`` and calls it with the actor's
config, whose ``global_batch_info["dp_size"]`` its ``ppo_loss`` fills. The loss is a masked
sum times ``dp_size``: that is right only where verl backpropagates each micro-batch's loss
as the loss function returns it, which is why `register` accepts only the verl releases that
the ``verl`` extra names.
"""

from __future__ import annotations

import importlib.metadata
from typing import TYPE_CHECKING

try:
    import verl
    from verl.trainer.ppo.core_algos import get_policy_loss_fn, register_policy_loss
except ImportError as error:
    msg = "rolloutnorm.verl needs verl, which is optional: pip install 'verl>=0.8.0,<0.10'"
    raise ImportError(msg, name=error.name) from error

from packaging.requirements import Requirement

from rolloutnorm._config import LOSS_MODE
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._loss import compute_policy_loss_per_rollout_mean

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["register"]


def register() -> Callable[..., object]:
    """Register `compute_policy_loss_per_rollout_mean` in verl as ``per_rollout_mean``.

    Call it once in every process that builds verl's actor, before the first update (verl's
    workers look the loss up by ``actor.policy_loss.loss_mode`` when they compute it).
    Calling it again is harmless. The advantages must already be normalized per rollout,
    with `retain_and_normalize` on the driver's whole batch.

    Returns:
        The registered function, `compute_policy_loss_per_rollout_mean` itself.

    Raises:
        RolloutNormError: If the installed verl is outside the range the ``verl`` extra
            supports, or verl's registry already holds another function under
            ``per_rollout_mean`` (verl itself would replace it without a word).

    Examples:
        >>> from verl.trainer.ppo.core_algos import get_policy_loss_fn
        >>> loss_fn = register()
        >>> loss_fn is get_policy_loss_fn("per_rollout_mean")
        True
        >>> loss_fn is compute_policy_loss_per_rollout_mean
        True
        >>> register() is loss_fn
        True
    """
    supported = _supported_verl()
    if not supported.specifier.contains(verl.__version__, prereleases=True):
        msg = (
            f"verl {verl.__version__} is not supported: rolloutnorm[verl] needs "
            f"{supported.name}{supported.specifier}, "
            "the releases whose actor backpropagates each micro-batch's policy loss as "
            "returned and passes dp_size to it"
        )
        raise RolloutNormError(msg)
    try:
        registered = get_policy_loss_fn(LOSS_MODE)
    except ValueError:  # verl's answer for a name it does not hold
        return register_policy_loss(LOSS_MODE)(compute_policy_loss_per_rollout_mean)
    if registered is not compute_policy_loss_per_rollout_mean:
        where = f"{registered.__module__}.{registered.__qualname__}"
        msg = (
            f"{LOSS_MODE} is already registered in verl's policy-loss registry as {where}; "
            "rolloutnorm will not replace it: register one of them under another name"
        )
        raise RolloutNormError(msg)
    return registered


def _supported_verl() -> Requirement:
    """The verl requirement of the ``verl`` extra, read from the installed metadata."""
    try:
        requirements = importlib.metadata.requires("rolloutnorm") or []
    except importlib.metadata.PackageNotFoundError:
        msg = "rolloutnorm is not installed, so its verl range is unknown: install it with [verl]"
        raise RolloutNormError(msg) from None
    for line in requirements:
        requirement = Requirement(line)
        if requirement.name == "verl":
            return requirement
    msg = (
        "rolloutnorm's metadata names no verl requirement: reinstall rolloutnorm with its "
        "verl extra"
    )
    raise RolloutNormError(msg)
