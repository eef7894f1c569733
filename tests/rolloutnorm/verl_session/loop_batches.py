# SPDX-License-Identifier: MIT
"""The batches of the real-loop tests, as verl's trainer hands them to ``update_actor``.

A batch is rows of left-padded prompts and right-padded responses, unit advantages normalized
once on the driver's whole batch by `retain_and_normalize`, and behaviour log-probs equal to
the model's own (computed by a plain copy of it), so that at learning rate 0 every ratio is 1
and a step's gradient is linear in the per-token loss weights.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import torch
from transformers import LlamaForCausalLM

from rolloutnorm import TrainedBatch, load_config, retain_and_normalize


@dataclasses.dataclass(frozen=True)
class Spec:
    """A batch's rows and the rolloutnorm settings that verl's must match."""

    rollout_ids: tuple[str, ...]
    response_tokens: tuple[int, ...]
    ppo_mini_batch_size: int
    rollout_n: int = 1
    ppo_epochs: int = 1
    max_ppo_update_times: int | None = None
    seed: int = 0

    @property
    def mini_batch_rows(self) -> int:
        """Rows per optimizer step: ``ppo_mini_batch_size * rollout.n``."""
        return self.ppo_mini_batch_size * self.rollout_n


@dataclasses.dataclass
class Rows:
    """The trained rows in the padded layout, with the plan that kept them."""

    trained: TrainedBatch
    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    position_ids: torch.Tensor
    prompt_width: int


def model_copy(folder: Path) -> LlamaForCausalLM:
    """The plain float32 model that verl loads from ``folder``, in eval mode."""
    model = LlamaForCausalLM.from_pretrained(
        folder, attn_implementation="eager", torch_dtype=torch.float32
    )
    return model.eval()


def samples(spec: Spec) -> list[dict[str, torch.Tensor]]:
    """The rollout rows one by one, unpadded, as verl's V1 trainer stores them."""
    generator = torch.Generator().manual_seed(spec.seed)
    out = []
    for tokens in spec.response_tokens:
        prompt_tokens = int(torch.randint(1, 4, (), generator=generator))
        sequence = torch.randint(10, 100, (prompt_tokens + tokens,), generator=generator)
        out.append(
            {
                "prompts": sequence[:prompt_tokens],
                "responses": sequence[prompt_tokens:],
                "response_mask": torch.ones(tokens, dtype=torch.int64),
            }
        )
    return out


def rows(
    spec: Spec,
    padding: Sequence[bool] | None = None,
    extra: Sequence[dict] = (),
    ids: Sequence[str] | None = None,
) -> Rows:
    """Lay the samples out padded, then retain and normalize them as the driver does.

    ``extra`` rows (V1's padding samples) follow the spec's rows; ``padding`` marks them.
    ``ids`` are the rollout ids of every row, by default the spec's and one per extra row.
    """
    every = samples(spec) + list(extra)
    width_p = max(len(sample["prompts"]) for sample in every)
    width_r = max(len(sample["responses"]) for sample in every)
    input_ids = torch.zeros(len(every), width_p + width_r, dtype=torch.int64)
    attention_mask = torch.zeros_like(input_ids)
    response_mask = torch.zeros(len(every), width_r, dtype=torch.int64)
    for row, sample in enumerate(every):
        prompt, response = sample["prompts"], sample["responses"]
        span = slice(width_p - len(prompt), width_p + len(response))
        input_ids[row, span] = torch.cat([prompt, response])
        attention_mask[row, span] = 1
        response_mask[row, : len(response)] = sample["response_mask"]
    config = load_config(
        overrides={
            "actor_rollout_ref.actor.ppo_mini_batch_size": spec.ppo_mini_batch_size,
            "actor_rollout_ref.rollout.n": spec.rollout_n,
            "actor_rollout_ref.actor.ppo_epochs": spec.ppo_epochs,
            "rolloutnorm.max_ppo_update_times": spec.max_ppo_update_times,
        }
    )
    if ids is None:
        ids = list(spec.rollout_ids) + [f"pad{i}" for i in range(len(extra))]
    trained = retain_and_normalize(
        torch.ones(len(every), width_r), response_mask, ids, config=config, padding=padding
    )
    kept = torch.tensor(trained.plan.kept_indices)
    mask = attention_mask[kept]
    return Rows(trained, input_ids[kept], mask, (mask.cumsum(-1) - 1).clamp_min(0), width_p)


def response_log_probs(model: LlamaForCausalLM, batch: Rows, row: int) -> torch.Tensor:
    """The log-probs of one row's response tokens, the row run alone and unpadded."""
    sequence = batch.input_ids[row][batch.attention_mask[row].bool()]
    logits = model(input_ids=sequence[None]).logits[0, :-1].float()
    log_probs = torch.log_softmax(logits, dim=-1).gather(-1, sequence[1:, None])[:, 0]
    width = int(batch.attention_mask[row, batch.prompt_width :].sum())
    trained = batch.trained.response_mask[row, :width].bool()
    return log_probs[len(log_probs) - width :][trained]


def old_log_probs(model: LlamaForCausalLM, batch: Rows) -> torch.Tensor:
    """The behaviour log-probs in the padded response layout: the model's own."""
    out = torch.zeros(batch.trained.response_mask.shape)
    with torch.no_grad():
        for row in range(out.shape[0]):
            values = response_log_probs(model, batch, row)
            out[row, : len(values)] = values
    return out


def row_gradients(model: LlamaForCausalLM, batch: Rows) -> dict[str, torch.Tensor]:
    """Per parameter, every row's gradient of its summed response log-probs, ``(rows, numel)``."""
    per_row: dict[str, list[torch.Tensor]] = {name: [] for name, _ in model.named_parameters()}
    for row in range(batch.input_ids.shape[0]):
        model.zero_grad()
        response_log_probs(model, batch, row).sum().backward()
        for name, parameter in model.named_parameters():
            grad = parameter.grad
            per_row[name].append(torch.zeros(parameter.numel()) if grad is None else grad.flatten())
    return {name: torch.stack(grads).double() for name, grads in per_row.items()}
