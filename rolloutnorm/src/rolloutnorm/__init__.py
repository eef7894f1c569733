# SPDX-License-Identifier: MIT
"""Per-rollout advantage normalization for agentic RL trainers.

The ``per_rollout_mean`` policy loss divides every row's advantages by
``max(1, rollout_token_count * num_trained_rows)``: the rollout's response tokens over
all its rows, times the number of rows trained in the step. Everything public lives here.
"""

from __future__ import annotations

from rolloutnorm._aggregation import AggregationMasses, aggregation_masses
from rolloutnorm._config import RolloutNormConfig, load_config
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._loss import PolicyLossConfig, compute_policy_loss_per_rollout_mean
from rolloutnorm._normalize import check_batch, normalize_advantages_by_rollout
from rolloutnorm._report import MassReport, RolloutMass, rollout_mass_report
from rolloutnorm._retention import DropReason, RetentionPlan, plan_retention
from rolloutnorm._step import TrainedBatch, retain_and_normalize

__version__ = "0.1.0"

__all__ = [
    "AggregationMasses",
    "DropReason",
    "MassReport",
    "PolicyLossConfig",
    "RetentionPlan",
    "RolloutMass",
    "RolloutNormConfig",
    "RolloutNormError",
    "TrainedBatch",
    "aggregation_masses",
    "check_batch",
    "compute_policy_loss_per_rollout_mean",
    "load_config",
    "normalize_advantages_by_rollout",
    "plan_retention",
    "retain_and_normalize",
    "rollout_mass_report",
]
