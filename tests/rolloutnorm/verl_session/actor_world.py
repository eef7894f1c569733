# SPDX-License-Identifier: MIT
"""verl's actor update on CPU ranks (gloo on 127.0.0.1), one worker per rank for every scenario.

Every rank builds the same batches from fixed seeds, takes the chunk verl's dispatch gives it,
and calls the worker's ``update_actor`` as verl's trainer does. A wrapper around the engine's
``optimizer_step`` records each step's full gradient after the ranks' reduction, before and
after clipping, and how many times the loss function ran in it (its micro-batches), so the
parent can read each rollout's mass off the steps. `ranks.run_world` starts the ranks.
"""

from __future__ import annotations

import dataclasses
import pickle
from functools import partial
from pathlib import Path

import cpu_verl
import loop_batches
import torch

MAX_TOKEN_LEN = 16  # tokens per micro-batch with use_dynamic_bsz


@dataclasses.dataclass(frozen=True)
class Scenario:
    """One call of ``update_actor``: a batch and the settings verl's trainer would pass."""

    name: str
    spec: loop_batches.Spec
    micro_batch_size: int = 1
    use_dynamic_bsz: bool = False
    kl_loss_coef: float | None = None  # None: no KL loss term
    bf16: bool = False
    v1_padding: bool = False  # the batch padded by verl's V1 trainer for this world

    def rows(self, world_size: int) -> loop_batches.Rows:
        """The driver's trained batch: the spec's rows, with V1's padding if asked."""
        if self.v1_padding:
            import v1_padding  # imports verl: not before a rank has installed the platform

            return v1_padding.padded_rows(self.spec, world_size)
        return loop_batches.rows(self.spec)


def _tensordict(scenario: Scenario, batch: loop_batches.Rows, old: torch.Tensor):
    """The batch as ``RayPPOTrainer._update_actor`` hands it to the worker group."""
    from verl import DataProto
    from verl.utils import tensordict_utils as tu
    from verl.workers.utils.padding import left_right_2_no_padding

    width_p = batch.prompt_width
    tensors = {
        "input_ids": batch.input_ids,
        "attention_mask": batch.attention_mask,
        "position_ids": batch.position_ids,
        "prompts": batch.input_ids[:, :width_p],
        "responses": batch.input_ids[:, width_p:],
        "response_mask": batch.trained.response_mask,
        "old_log_probs": old,
        "advantages": batch.trained.advantages,
    }
    if scenario.kl_loss_coef is not None:
        tensors["ref_log_prob"] = old
    meta_info = {"temperature": 1.0, "multi_turn": False}
    proto = DataProto.from_dict(tensors=tensors, meta_info=meta_info)
    data = left_right_2_no_padding(proto.to_tensordict())
    rows = scenario.spec.mini_batch_rows
    tu.assign_non_tensor(
        data,
        calculate_entropy=False,
        distillation_use_topk=False,
        distillation_only=False,
        global_batch_size=rows,
        mini_batch_size=rows,
        epochs=scenario.spec.ppo_epochs,
        seed=42,
        dataloader_kwargs={"shuffle": True},
        compute_loss=True,
        # What verl's worker otherwise fills from the actor config, per call here.
        micro_batch_size_per_gpu=scenario.micro_batch_size,
        use_dynamic_bsz=scenario.use_dynamic_bsz,
        max_token_len_per_gpu=MAX_TOKEN_LEN,
    )
    return data


def _capture(engine, steps: list[dict], calls: list[int]) -> None:
    """Record every optimizer step's full gradient, before and after clipping, and its norm.

    ``calls`` counts the loss function's calls; each step records those since the last one.
    """
    original = engine.optimizer_step

    def gathered() -> torch.Tensor:
        parts = []
        for _, parameter in sorted(engine.module.named_parameters()):
            grad = parameter.grad
            grad = grad.full_tensor() if hasattr(grad, "full_tensor") else grad
            parts.append(grad.detach().double().flatten())
        return torch.cat(parts)

    def step():
        before = gathered()
        norm = original()
        micro_batches = calls[0] - sum(step["micro_batches"] for step in steps)
        after = gathered()
        steps.append(
            {"before": before, "after": after, "norm": float(norm), "micro_batches": micro_batches}
        )
        return norm

    engine.optimizer_step = step


def _counted(loss_fn, calls: list[int], *args, **kwargs):
    calls[0] += 1
    return loss_fn(*args, **kwargs)


def _worker(model: Path, bf16: bool):
    from verl.workers.engine_workers import ActorRolloutRefWorker

    config = cpu_verl.actor_config(model, bf16=bf16)
    worker = ActorRolloutRefWorker(config.actor_rollout_ref, role="actor")
    worker.init_model()
    return worker, config


def _kl_loss_fn(config, coefficient: float):
    """The ppo_loss of verl over the actor config, with a KL loss term of this coefficient."""
    from omegaconf import open_dict
    from verl.utils.config import omega_conf_to_dataclass
    from verl.workers.utils.losses import ppo_loss

    actor = config.actor_rollout_ref.actor.copy()
    with open_dict(actor):
        actor.use_kl_loss = True
        actor.kl_loss_coef = coefficient
        actor.kl_loss_type = "kl"  # k1: its gradient is the log-prob's, whatever the reference
    return partial(ppo_loss, config=omega_conf_to_dataclass(actor))


def run_scenarios(rank: int, world_size: int, scenarios: list[Scenario], model: Path) -> dict:
    """Run every scenario through one worker per precision; return rank 0's records."""
    from verl.protocol import BatchData

    plain = loop_batches.model_copy(model)
    workers, results = {}, {}
    for scenario in scenarios:
        if scenario.bf16 not in workers:
            workers[scenario.bf16] = _worker(model, scenario.bf16)
        worker, config = workers[scenario.bf16]
        engine = worker.actor.engine
        kl = scenario.kl_loss_coef
        # The worker's own loss function, or the same ppo_loss over a config with the KL term,
        # counted: verl calls it once per micro-batch.
        loss_fn = worker.loss_fn if kl is None else _kl_loss_fn(config, kl)
        steps: list[dict] = []
        calls = [0]
        worker.actor.set_loss_fn(partial(_counted, loss_fn, calls))
        _capture(engine, steps, calls)
        batch = scenario.rows(world_size)
        data = _tensordict(scenario, batch, loop_batches.old_log_probs(plain, batch))
        chunk = BatchData(data).chunk(chunks=world_size)[rank] if world_size > 1 else data
        worker.update_actor(pickle.loads(pickle.dumps(chunk)))  # as Ray delivers it
        del engine.optimizer_step  # the engine's own method again
        if rank == 0:
            clip_grad = engine.optimizer_config.clip_grad
            results[scenario.name] = {"steps": steps, "clip_grad": clip_grad}
    return results
