# SPDX-License-Identifier: MIT
"""The normalized mass in verl 0.9.1's own actor update, on 1 and 2 CPU ranks.

One world of 1 rank and one of 2 gloo ranks each build one worker (``ActorRolloutRefWorker``
with role "actor", from verl's ``ppo_trainer.yaml``: FSDP2, float32, learning rate 0) and run
every scenario through ``update_actor``. Each rollout's mass is read off the captured step
gradients (`mass_fit`): every fit has full column rank and a relative residual of at most
1e-5.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import actor_world
import cpu_verl
import loop_batches
import mass_fit
import pytest
import ranks
import torch
import v1_padding

from docpact import claim
from rolloutnorm import RetentionPlan

pytestmark = pytest.mark.slow  # spawns verl's workers

# Eleven rows of seven rollouts (A in three rows, B and D in two); mini-batches of 4 rows,
# so the floor trims 3 rows and 8 are trained, in 2 optimizer steps per epoch.
SPEC = loop_batches.Spec(
    rollout_ids=("A", "A", "A", "B", "B", "C", "D", "D", "E", "F", "G"),
    response_tokens=(3, 2, 4, 1, 5, 2, 3, 3, 4, 2, 1),
    ppo_mini_batch_size=4,
)
# rollout.n 2: mini-batches of 2 prompts times 2 samples. Every rollout spans 2 or 3 rows;
# the floor trims 2 rows, so the 8 trained hold rollouts of 3, 2, 2 and 1 rows.
SPEC_N = loop_batches.Spec(
    rollout_ids=("a", "a", "b", "b", "b", "c", "c", "d", "d", "d"),
    response_tokens=(2, 3, 1, 4, 2, 3, 3, 2, 1, 4),
    ppo_mini_batch_size=2,
    rollout_n=2,
    seed=1,
)
# Ten rows, which verl's V1 trainer pads with 2 synthetic rows to 12, a multiple of 4.
SPEC_V1 = v1_padding.SPEC
# The rows each scenario trains, counted by hand: the floor keeps 8 of 11, the cap 4, and
# V1's padding rows are no trained rows.
TRAINED_ROWS = {"floor": 8, "rollout-n": 8, "cap": 4, "v1-padding": 10}
KL_COEF = 0.01

Scenario = actor_world.Scenario
ONE_RANK = (
    Scenario("floor", SPEC),
    Scenario("micro-2", SPEC, micro_batch_size=2),
    Scenario("micro-4", SPEC, micro_batch_size=4),
    Scenario("dynamic", SPEC, use_dynamic_bsz=True),
    Scenario("epochs-2", dataclasses.replace(SPEC, ppo_epochs=2)),
    Scenario("cap", dataclasses.replace(SPEC, max_ppo_update_times=1)),
    Scenario("kl", SPEC, kl_loss_coef=KL_COEF),
    Scenario("v1-padding", SPEC_V1, v1_padding=True),
    Scenario("bf16", SPEC, bf16=True),
)
TWO_RANKS = (
    Scenario("floor", SPEC),
    Scenario("rollout-n", SPEC_N),
    Scenario("v1-padding", SPEC_V1, v1_padding=True),
)
WORLDS = {1: ONE_RANK, 2: TWO_RANKS}


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory):
    """The tiny random Llama on disk, and its plain float32 copy for the row gradients."""
    folder = cpu_verl.save_tiny_model(tmp_path_factory.mktemp("model"))
    return folder, loop_batches.model_copy(folder)


class _Worlds(dict):
    """Per world size, every scenario's captured steps: each world started once, when asked."""

    def __init__(self, folder, tmp_path_factory: pytest.TempPathFactory) -> None:
        super().__init__()
        self.folder, self.tmp_path_factory = folder, tmp_path_factory

    def __missing__(self, size: int) -> dict:
        self[size] = ranks.run_world(
            size,
            self.tmp_path_factory.mktemp(f"world{size}"),
            list(WORLDS[size]),
            self.folder,
            timeout_s=400,
        )
        return self[size]


@pytest.fixture(scope="module")
def runs(model, tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict]:
    """Per world size, every scenario's captured steps; a test run on 2 ranks starts 2 only."""
    return _Worlds(model[0], tmp_path_factory)


@pytest.fixture(scope="module")
def measured(model, runs):
    """A function of the world size, the scenario and "before" or "after" clipping: its fit."""
    _, plain = model
    bases: dict = {}

    def measure(size: int, name: str, when: str = "before"):
        scenario: Scenario = next(s for s in WORLDS[size] if s.name == name)
        batch = scenario.rows(size)
        key = (size, scenario.spec, scenario.v1_padding)  # V1 pads for the world's size
        if key not in bases:
            bases[key] = mass_fit.basis(batch, plain)
        steps = [step[when] for step in runs[size][name]["steps"]]
        return batch, mass_fit.fit(bases[key], batch, steps)

    return measure


def _rollouts(batch: loop_batches.Rows) -> list[str]:
    return list(batch.trained.rollout_ids)


def _kept_rollouts(batch: loop_batches.Rows) -> set[str]:
    padding = set(batch.trained.plan.padding_indices)
    return {
        rollout
        for row, rollout in zip(batch.trained.plan.kept_indices, _rollouts(batch), strict=True)
        if row not in padding
    }


@claim("real-loop-mass", session="verl")
@pytest.mark.parametrize(
    ("size", "name"),
    [(1, "floor"), (2, "floor"), (2, "rollout-n"), (1, "v1-padding"), (2, "v1-padding")],
)
def test_every_kept_rollout_carries_one_over_the_trained_rows(measured, size, name) -> None:
    """Over an epoch's steps, each kept rollout's mass is 1 / the rows trained, on 1 and 2 ranks."""
    batch, fit = measured(size, name)
    masses = fit.rollout_masses(_rollouts(batch))
    kept = _kept_rollouts(batch)
    assert len(kept) >= 4
    if name == "rollout-n":  # rollouts of several rows trained, one trimmed to a single row
        assert sorted(Counter(_rollouts(batch)).values()) == [1, 2, 2, 3]
    for rollout in kept:
        assert masses[rollout] == pytest.approx(1 / TRAINED_ROWS[name], rel=1e-5), rollout
    # A rollout of several rows, trained in more than one step, carries it in parts.
    assert any(
        (fit.row_masses[:, [r == rollout for r in _rollouts(batch)]].sum(1) > 1e-6).sum() > 1
        for rollout in kept
    )


@claim("real-loop-steps", session="verl")
@pytest.mark.parametrize("size", sorted(WORLDS))
def test_optimizer_steps_are_the_plans_update_units(runs, size) -> None:
    """Every update_actor call takes exactly plan.update_units optimizer steps."""
    scenario: Scenario
    for scenario in WORLDS[size]:
        plan: RetentionPlan = scenario.rows(size).trained.plan
        assert len(runs[size][scenario.name]["steps"]) == plan.update_units, scenario.name
    counts = {name: len(run["steps"]) for name, run in runs[size].items()}
    expected = {"floor": 2, "epochs-2": 4, "cap": 1, "v1-padding": 3, "rollout-n": 2}
    assert {name: counts[name] for name in expected if name in counts} == {
        name: count for name, count in expected.items() if name in counts
    }


@claim(
    "real-loop-epochs-and-cap",
    session="verl",
)
def test_epochs_repeat_the_mass_and_the_cap_raises_it(measured) -> None:
    """ppo_epochs 2: each epoch's steps carry 1/8 per rollout again; capped at 1 update: 1/4."""
    batch, fit = measured(1, "epochs-2")
    for epoch in (slice(0, 2), slice(2, 4)):
        for rollout in _kept_rollouts(batch):
            mass = fit.rollout_masses(_rollouts(batch), epoch)[rollout]
            assert mass == pytest.approx(1 / 8, rel=1e-5)
    batch, fit = measured(1, "cap")
    for rollout in _kept_rollouts(batch):
        assert fit.rollout_masses(_rollouts(batch))[rollout] == pytest.approx(1 / 4, rel=1e-5)


LAYOUTS = ("floor", "micro-2", "micro-4", "dynamic")


def _relative(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).norm() / b.norm())


@claim("real-loop-layout", session="verl")
def test_micro_batches_dynamic_bsz_and_ranks_give_the_same_gradient(runs, measured) -> None:
    """Micro-batches of 1, 2, 4 rows and dynamic bsz give equal steps; 2 ranks the same epoch."""
    # The loss function's calls per step: each scenario ran the micro-batches it asked for.
    micro = {name: [step["micro_batches"] for step in runs[1][name]["steps"]] for name in LAYOUTS}
    assert {name: micro[name] for name in ("floor", "micro-2", "micro-4")} == {
        "floor": [4, 4],
        "micro-2": [2, 2],
        "micro-4": [1, 1],
    }
    # Dynamic bsz packs by tokens, not by its micro-batch size of 1: fewer calls than micro 1,
    # and at least the steps' tokens over the budget.
    tokens = int(loop_batches.rows(SPEC).attention_mask.sum())
    budget = actor_world.MAX_TOKEN_LEN
    assert micro["dynamic"] != micro["floor"]
    assert sum(micro["dynamic"]) >= math.ceil(tokens / budget)
    reference = [step["before"] for step in runs[1]["floor"]["steps"]]
    for name in ("micro-2", "micro-4", "dynamic"):
        steps = [step["before"] for step in runs[1][name]["steps"]]
        assert len(steps) == len(reference)
        for step, expected in zip(steps, reference, strict=True):
            assert _relative(step, expected) <= 1e-5, name
        measured(1, name)  # and each fits
    two = sum(step["before"] for step in runs[2]["floor"]["steps"])
    assert _relative(two, sum(reference)) <= 1e-5


@claim("clip-grad-per-step", session="verl")
@pytest.mark.parametrize("size", sorted(WORLDS))
def test_clip_grad_rescales_each_step_on_its_own(runs, measured, size) -> None:
    """clip_grad 1.0 scales each step by min(1, 1 / its norm): rollouts in other steps differ."""
    assert runs[size]["floor"]["clip_grad"] == 1.0  # verl's default
    steps = runs[size]["floor"]["steps"]  # rank 0's, after the ranks' reduction
    for step in steps:
        scale = min(1.0, 1.0 / (step["norm"] + 1e-6))
        torch.testing.assert_close(step["after"], step["before"] * scale, rtol=1e-5, atol=1e-9)
    norms = [step["norm"] for step in steps]
    assert min(norms) < 1.0 < max(norms)  # one step clipped, the other not
    batch, clipped = measured(size, "floor", "after")
    masses = [clipped.rollout_masses(_rollouts(batch))[r] for r in sorted(_kept_rollouts(batch))]
    assert max(masses) / min(masses) > 1.01


@claim("kl-per-step", session="verl")
def test_the_kl_term_weighs_kl_loss_coef_in_every_step(measured) -> None:
    """token-mean KL: every step carries kl_loss_coef, against its own share of the mass."""
    _, plain = measured(1, "floor")
    _, with_kl = measured(1, "kl")
    kl_mass = (plain.row_masses - with_kl.row_masses).sum(1)
    policy_mass = plain.row_masses.sum(1)
    assert kl_mass.tolist() == pytest.approx([KL_COEF] * len(kl_mass), rel=1e-4)
    ratios = (kl_mass / policy_mass / KL_COEF).tolist()
    assert min(ratios) > 1.0
    assert max(ratios) / min(ratios) > 1.01


@claim("bf16-masses", session="verl")
def test_bf16_parameters_move_the_steps_off_the_float32_ones(runs, model) -> None:
    """Verl's default bf16 parameters: steps off float32's by more than 0.1%, masses off 1/8."""
    float32 = [step["before"] for step in runs[1]["floor"]["steps"]]
    bf16 = [step["before"] for step in runs[1]["bf16"]["steps"]]
    errors = [_relative(b, f) for b, f in zip(bf16, float32, strict=True)]
    assert 1e-3 < min(errors) <= max(errors) < 0.05
    batch = loop_batches.rows(SPEC)
    fit = mass_fit.fit(mass_fit.basis(batch, model[1]), batch, bf16, max_residual=None)
    assert min(fit.residuals) > 1e-5  # no fit: the step is no longer a sum of row gradients
    masses = fit.rollout_masses(_rollouts(batch)).values()
    assert 1e-3 < max(abs(mass * 8 - 1) for mass in masses) < 0.02
