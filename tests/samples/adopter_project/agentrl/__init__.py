# SPDX-License-Identifier: MIT
"""agentrl: an adopter's package, at the repository root."""

from agentrl.loss import per_rollout_mean

__all__ = ["per_rollout_mean"]
