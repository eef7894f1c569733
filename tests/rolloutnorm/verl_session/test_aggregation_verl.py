# SPDX-License-Identifier: MIT
"""aggregation_masses against verl 0.9.1's own aggregation, mode by mode, on 1 and 2 ranks.

verl's side runs in gloo worlds (`agg_world`): the batch goes through verl's dispatch chunks,
mini-batch iterator, micro-batch split and ``ppo_loss`` with unit ratios, in float64. The
cheap facts (the modes verl accepts, what ``agg_loss`` gives on its own) run in-process.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

verl = pytest.importorskip("verl", reason="the verl-equality tests need verl: nox -s verl")

import agg_world  # noqa: E402 (after the skip: it imports verl in the ranks)
import ranks  # noqa: E402
from verl.trainer.ppo.core_algos import agg_loss  # noqa: E402
from verl.workers.config import ActorConfig  # noqa: E402

from rolloutnorm import aggregation_masses, load_config, retain_and_normalize  # noqa: E402
from rolloutnorm._aggregation import MODES  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Case:
    """A drawn batch before retention, its settings, and the job verl's ranks run on it."""

    mask: torch.Tensor
    ids: list[str]
    plan: object
    loss_scale_factor: int | None
    job: agg_world.Job


@st.composite
def cases(draw: st.DrawFn) -> Case:
    """1..5 rollouts of 1..3 rows of 0..8 tokens, some marked, up to 2 padding rows.

    Mini-batches of 2, 4 or 6 rows (2 ranks split them), at least one of them filled with
    candidates and padding, an update cap or none, micro-batches of a size dividing a rank's
    share, or use_dynamic_bsz with a drawn token budget.
    """
    mini_batch_size = 2 * draw(st.integers(1, 3))
    tokens_per_row = st.just(0) | st.integers(1, 8)
    counts = [
        (f"r{rollout}", draw(tokens_per_row))
        for rollout in range(draw(st.integers(1, 5)))
        for _ in range(draw(st.integers(1, 3)))
    ]
    counts += [("extra", draw(tokens_per_row)) for _ in range(mini_batch_size - len(counts))]
    counts = draw(st.permutations(counts))
    num_padding = draw(st.integers(0, 2))
    ids = [rollout for rollout, _ in counts] + ["pad"] * num_padding
    tokens = [count for _, count in counts] + [0] * num_padding
    width = max(1, *tokens) + draw(st.integers(0, 2))
    starts = torch.tensor([[draw(st.integers(0, width - count))] for count in tokens])
    columns = torch.arange(width)
    mask = ((columns >= starts) & (columns < starts + torch.tensor(tokens).unsqueeze(-1))).long()
    config = load_config(
        overrides={
            "actor_rollout_ref.actor.ppo_mini_batch_size": mini_batch_size,
            "rolloutnorm.max_ppo_update_times": draw(st.none() | st.integers(1, 2)),
            "rolloutnorm.retention_seed": draw(st.integers(0, 1000)),
        }
    )
    # Marks that leave a candidate and, with the padding, a whole mini-batch.
    most = min(len(counts) - 1, len(counts) + num_padding - mini_batch_size)
    marked = draw(st.sets(st.integers(0, len(counts) - 1), max_size=most))
    drop = [row in marked for row in range(len(counts))] + [False] * num_padding
    padding = [False] * len(counts) + [True] * num_padding
    ones = torch.ones(mask.shape, dtype=torch.float64)
    trained = retain_and_normalize(ones, mask, ids, config=config, drop=drop, padding=padding)
    kept = list(trained.plan.kept_indices)
    prompt_lengths = tuple(draw(st.integers(1, 3)) for _ in kept)
    per_rank = mini_batch_size // 2
    loss_scale_factor = draw(st.none() | st.integers(1, 40))
    job = agg_world.Job(
        mask=trained.response_mask.long(),
        prompt_lengths=prompt_lengths,
        normalized=trained.advantages,
        mini_batch_size=mini_batch_size,
        micro_batch_size=draw(st.sampled_from([d for d in (1, 2, 3) if per_rank % d == 0])),
        use_dynamic_bsz=draw(st.booleans()),
        max_token_len=(3 + width) * draw(st.integers(1, 3)),
        loss_scale_factor=loss_scale_factor,
    )
    return Case(mask, ids, trained.plan, loss_scale_factor, job)


@pytest.mark.slow
@settings(
    max_examples=3,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # each example starts two worlds: no shrinking
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(cases(), min_size=4, max_size=6))
def test_every_mode_equals_verls_own_aggregation(tmp_path_factory, drawn: list[Case]) -> None:
    """Each rollout's mass under each mode is verl's to a relative 1e-6, on 1 and 2 ranks.

    The micro-batch size and use_dynamic_bsz are drawn and passed to verl alone: verl's
    masses do not depend on them. A token-mean step without tokens is NaN in verl, 0 here.
    """
    jobs = [case.job for case in drawn]
    for size in (1, 2):
        folder = tmp_path_factory.mktemp(f"aggregation{size}")
        theirs = ranks.run_world(size, folder, jobs, Path(), timeout_s=300, work=agg_world.run_jobs)
        for case, verl_rows in zip(drawn, theirs, strict=True):
            ours = aggregation_masses(
                case.mask,
                case.ids,
                plan=case.plan,
                dp_size=size,
                loss_scale_factor=case.loss_scale_factor,
            )
            kept_ids = [case.ids[row] for row in case.plan.kept_indices]
            kept_tokens = case.job.mask.sum(-1)
            for mode in MODES:
                rows = verl_rows[mode]
                # verl's token-mean divides a step without tokens by 0: NaN where ours is 0.
                assert not kept_tokens[rows.isnan()].any(), mode
                assert mode == "token-mean" or not rows.isnan().any(), mode
                expected = dict.fromkeys(ours.rollout_ids, 0.0)
                for rollout, mass in zip(kept_ids, rows.nan_to_num(0.0).tolist(), strict=True):
                    if rollout in expected:
                        expected[rollout] += mass
                assert ours[mode].tolist() == pytest.approx(
                    list(expected.values()), rel=1e-6, abs=1e-12
                ), (size, mode)


def test_the_modes_are_those_verl_accepts() -> None:
    """The actor config and agg_loss of verl accept every mode but per_rollout_mean, no other."""
    loss_mat, loss_mask = torch.ones(2, 3), torch.ones(2, 3)
    for mode in MODES[:-1]:
        assert ActorConfig(strategy="fsdp", rollout_n=1, use_dynamic_bsz=True, loss_agg_mode=mode)
        assert torch.isfinite(agg_loss(loss_mat, loss_mask, mode))
    for mode in ("per_rollout_mean", "token_mean", "seq-mean"):
        with pytest.raises(ValueError, match="Invalid loss_agg_mode"):
            agg_loss(loss_mat, loss_mask, mode)
        with pytest.raises(ValueError, match="Invalid loss_agg_mode"):
            ActorConfig(strategy="fsdp", rollout_n=1, use_dynamic_bsz=True, loss_agg_mode=mode)


def test_a_mini_batch_without_tokens_is_nan_in_verls_token_mean() -> None:
    """Where aggregation_masses gives 0, verl's token-mean divides 0 by 0 tokens: NaN."""
    loss_mat = torch.ones(2, 3, requires_grad=True)
    loss = agg_loss(loss_mat, torch.zeros(2, 3), "token-mean", dp_size=1, batch_num_tokens=0)
    assert loss.isnan()
    ours = aggregation_masses(torch.zeros(2, 3), ["a", "b"])
    assert ours["token-mean"].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("mode", ["seq-mean-token-sum", "seq-mean-token-mean"])
def test_verls_seq_mean_divides_by_every_row_not_the_rows_with_tokens(mode: str) -> None:
    """agg_loss leaves rows without tokens out of its own count, but the trainer's count has them.

    Two rows with 2 tokens and one without: on its own, agg_loss divides by the 2 rows with
    tokens; with the trainer's global_batch_size of 3 rows it divides by 3, as
    aggregation_masses does.
    """
    mask = torch.tensor([[1, 1], [1, 1], [0, 0]], dtype=torch.float64)
    alone = agg_loss(torch.ones(3, 2, dtype=torch.float64), mask, mode)
    trainer = agg_loss(torch.ones(3, 2, dtype=torch.float64), mask, mode, global_batch_size=3)
    per_row = 2.0 if mode == "seq-mean-token-sum" else 1.0
    assert alone.item() == pytest.approx(2 * per_row / 2)
    assert trainer.item() == pytest.approx(2 * per_row / 3)
    ours = aggregation_masses(mask, ["a", "b", "c"], modes=[mode])
    assert ours[mode].sum().item() == pytest.approx(trainer.item())


def test_sapo_aggregates_as_seq_mean_token_mean_whatever_loss_agg_mode() -> None:
    """The sapo loss of verl weighs rows as seq-mean-token-mean under token-sum: selected_mode's.

    With unit advantages and ratios, its rows of 4 and 1 tokens carry the same weight, where
    token-sum would give them 4 and 1.
    """
    from verl.trainer.ppo.core_algos import get_policy_loss_fn
    from verl.workers.config.actor import PolicyLossConfig

    config = ActorConfig(
        strategy="fsdp",
        rollout_n=1,
        use_dynamic_bsz=True,
        ppo_mini_batch_size=2,
        loss_agg_mode="token-sum",
        policy_loss=PolicyLossConfig(loss_mode="sapo"),
    )
    mask = torch.tensor([[1, 1, 1, 1], [1, 0, 0, 0]], dtype=torch.float64)
    log_prob = torch.zeros(2, 4, dtype=torch.float64, requires_grad=True)
    loss, _ = get_policy_loss_fn("sapo")(
        old_log_prob=torch.zeros(2, 4, dtype=torch.float64),
        log_prob=log_prob,
        advantages=torch.ones(2, 4, dtype=torch.float64),
        response_mask=mask,
        loss_agg_mode="token-sum",
        config=config,
    )
    loss.backward()
    weights = -(log_prob.grad * mask).sum(-1)
    assert weights[0].item() == pytest.approx(weights[1].item())
    ours = load_config(
        overrides={
            "actor_rollout_ref.actor.policy_loss.loss_mode": "sapo",
            "actor_rollout_ref.actor.loss_agg_mode": "token-sum",
        }
    )
    assert ours.selected_mode == "seq-mean-token-mean"
