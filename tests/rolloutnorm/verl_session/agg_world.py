# SPDX-License-Identifier: MIT
"""verl's own loss aggregation on CPU ranks: each kept row's mass under every mode.

Every rank builds the trainer's batch of kept rows, takes the chunk verl's dispatch gives it,
cuts it into mini-batches with verl's iterator (``actor.shuffle`` false) and each mini-batch
into micro-batches with verl's ``prepare_micro_batches``, after assigning what verl's FSDP
engine assigns (``batch_num_tokens`` summed over the ranks, ``dp_size``) and what its trainer
assigns (``global_batch_size``). Each micro-batch goes through verl's ``ppo_loss`` with unit
ratios (log-probs and old log-probs 0), and ``backward`` puts the loss's weights on a leaf of
log-probs. A row's mass is minus its response tokens' gradient summed, over the world size:
the ranks' gradients are averaged. `ranks.run_world` starts the ranks with `run_jobs`.
"""

from __future__ import annotations

import dataclasses
import pickle

import torch

MODES = (
    "token-mean",
    "token-sum",
    "seq-mean-token-sum",
    "seq-mean-token-mean",
    "seq-mean-token-sum-norm",
    "per_rollout_mean",
)


@dataclasses.dataclass(frozen=True)
class Job:
    """The trainer's batch of kept rows, in order, with the actor's settings."""

    mask: torch.Tensor  # (rows, width) int64 response mask of the kept rows
    prompt_lengths: tuple[int, ...]  # 1 or more prompt tokens per row
    normalized: torch.Tensor  # float64 advantages normalized per rollout (per_rollout_mean)
    mini_batch_size: int
    micro_batch_size: int
    use_dynamic_bsz: bool
    max_token_len: int  # per micro-batch, with use_dynamic_bsz
    loss_scale_factor: int | None


def _tensordict(job: Job, advantages: torch.Tensor):
    """The kept rows as ``RayPPOTrainer._update_actor`` hands them on, with a row index."""
    from tensordict import TensorDict
    from verl.workers.utils.padding import left_right_2_no_padding

    rows, width = job.mask.shape
    prompts = torch.tensor(job.prompt_lengths).unsqueeze(-1)
    width_p = int(prompts.max())
    prompt_mask = (torch.arange(width_p).flip(0) < prompts).long()
    attention_mask = torch.cat([prompt_mask, torch.ones(rows, width, dtype=torch.long)], dim=1)
    generator = torch.Generator().manual_seed(0)
    input_ids = torch.randint(10, 100, (rows, width_p + width), generator=generator)
    input_ids = input_ids * attention_mask
    data = TensorDict(
        {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "position_ids": (attention_mask.cumsum(-1) - 1).clamp_min(0),
            "prompts": input_ids[:, :width_p],
            "responses": input_ids[:, width_p:],
            "response_mask": job.mask,
            "old_log_probs": torch.zeros(rows, width, dtype=torch.float64),
            "advantages": advantages,
            "row": torch.arange(rows),
        },
        batch_size=[rows],
    )
    return left_right_2_no_padding(data)


def _config(job: Job, mode: str):
    from verl.workers.config import ActorConfig
    from verl.workers.config.actor import PolicyLossConfig

    ours = mode == "per_rollout_mean"
    return ActorConfig(
        strategy="fsdp",
        ppo_mini_batch_size=job.mini_batch_size,
        use_dynamic_bsz=True,
        rollout_n=1,
        policy_loss=PolicyLossConfig(loss_mode=mode if ours else "vanilla"),
        loss_agg_mode="token-mean" if ours else mode,
        loss_scale_factor=job.loss_scale_factor,
        entropy_coeff=0.0,
    )


def row_masses(rank: int, world_size: int, job: Job, mode: str) -> torch.Tensor:
    """Every kept row's mass in one epoch under ``mode``, summed over the ranks."""
    from verl.protocol import BatchData
    from verl.utils import tensordict_utils as tu
    from verl.workers.engine.utils import prepare_micro_batches
    from verl.workers.utils.losses import ppo_loss
    from verl.workers.utils.padding import no_padding_2_padding

    ones = torch.ones(job.mask.shape, dtype=torch.float64)
    data = _tensordict(job, job.normalized if mode == "per_rollout_mean" else ones)
    tu.assign_non_tensor(
        data,
        micro_batch_size_per_gpu=job.micro_batch_size,
        use_dynamic_bsz=job.use_dynamic_bsz,
        max_token_len_per_gpu=job.max_token_len,
    )
    if world_size > 1:  # the chunk verl's dispatch gives this rank, as Ray delivers it
        data = pickle.loads(pickle.dumps(BatchData(data).chunk(chunks=world_size)[rank]))
    config = _config(job, mode)
    masses = torch.zeros(job.mask.shape[0], dtype=torch.float64)
    mini_batches = tu.make_iterator(
        data,
        mini_batch_size=job.mini_batch_size // world_size,
        epochs=1,
        seed=42 + rank,
        dataloader_kwargs={"shuffle": False},
    )
    group = torch.distributed.group.WORLD
    for mini_batch in mini_batches:
        # What FSDPEngine.forward_backward_batch assigns, and the trainer's global_batch_size.
        tokens = mini_batch["loss_mask"].sum()
        torch.distributed.all_reduce(tokens, group=group)
        tu.assign_non_tensor(
            mini_batch,
            batch_num_tokens=tokens.item(),
            dp_size=world_size,
            global_batch_size=job.mini_batch_size,
        )
        micro_batches, _ = prepare_micro_batches(
            data=mini_batch, dp_group=group, same_micro_num_in_dp=True
        )
        for micro_batch in micro_batches:
            if len(micro_batch) == 0:
                continue
            total = int(micro_batch["input_ids"].offsets()[-1])
            log_probs = torch.zeros(total, dtype=torch.float64, requires_grad=True)
            loss, _ = ppo_loss(config, {"log_probs": log_probs}, micro_batch)
            loss.backward()
            grad = no_padding_2_padding(log_probs.grad, micro_batch)
            weights = -(grad * micro_batch["response_mask"]).sum(-1) / world_size
            masses.index_add_(0, micro_batch["row"], weights)
    torch.distributed.all_reduce(masses, group=group)
    return masses


def run_jobs(rank: int, world_size: int, jobs: list[Job], _model: object) -> list[dict]:
    """Every job's row masses under every mode; ``_model`` is `ranks.run_world`'s, unused."""
    return [{mode: row_masses(rank, world_size, job, mode) for mode in MODES} for job in jobs]
