# SPDX-License-Identifier: MIT
"""verl 0.9.1's V1 trainer padding, run on a batch: its own functions, a stand-in store.

The V1 trainer keeps the rows in TransferQueue and holds only their keys and tags (a
``KVBatchMeta``). Before the advantages, ``_balance_batch`` asks the trainer's own
``_get_required_batch_multiple`` for the least common multiple of the data-parallel size and
the mini-batch rows, and ``upsample_batch_to_divisible_size`` appends synthetic rows up to
it. Both run here as verl wrote them, on TransferQueue's real ``KVBatchMeta``; the running
TransferQueue store is replaced by a dictionary with the two calls the padding makes.
"""

from __future__ import annotations

import contextlib
import types
import warnings

import cpu_verl
import loop_batches
import torch
from transfer_queue import KVBatchMeta
from verl.trainer.ppo import padding_utils
from verl.trainer.ppo.utils import need_critic

EOS = 2
# Ten rows of six rollouts; mini-batches of 4 rows: V1 pads to 12 on 1 rank and on 2.
SPEC = loop_batches.Spec(
    rollout_ids=("A", "A", "A", "B", "B", "C", "D", "D", "E", "F"),
    response_tokens=(3, 2, 4, 1, 5, 2, 3, 3, 4, 2),
    ppo_mini_batch_size=4,
    seed=2,
)


class Store:
    """TransferQueue's kv_batch_put and kv_batch_get over a dictionary, one sample per key."""

    def __init__(self) -> None:
        self.samples: dict[str, dict] = {}

    def kv_batch_put(self, keys, partition_id, fields=None, tags=None):
        del partition_id, tags  # one partition; the tags travel in the KVBatchMeta
        for row, key in enumerate(keys):
            self.samples[key] = {name: _item(fields, name, row) for name in fields.keys()}  # noqa: SIM118

    def kv_batch_get(self, keys, partition_id, select_fields=None):
        del partition_id, select_fields
        return [self.samples[key] for key in keys]


def _item(fields, name: str, row: int):
    """One sample's value of a column of a TensorDict: tensors, jagged tensors or not tensors."""
    column = fields.get(name)
    if isinstance(column, torch.Tensor):
        return column.unbind(0)[row] if column.is_nested else column[row]
    return fields[row][name]


def required_multiple(spec: loop_batches.Spec, dp_size: int) -> int:
    """V1's own ``_get_required_batch_multiple`` at the first step, for GRPO without a critic.

    The method reads only the trainer's ``use_critic`` (verl's ``need_critic`` of the config,
    as the trainer sets it), its config and ``global_steps`` (1 in the first step); it is
    called on an object holding those three.
    """
    config = cpu_verl.trainer_config(
        (
            "algorithm.adv_estimator=grpo",
            f"actor_rollout_ref.actor.ppo_mini_batch_size={spec.ppo_mini_batch_size}",
            f"actor_rollout_ref.rollout.n={spec.rollout_n}",
        )
    )
    with warnings.catch_warnings():
        # Ray warns of its state API, which V1's modules import; need_critic warns that GRPO
        # disables the critic.
        warnings.simplefilter("ignore")
        from verl.trainer.ppo.v1.trainer_base import PPOTrainer

        use_critic = need_critic(config)
    trainer = types.SimpleNamespace(use_critic=use_critic, config=config, global_steps=1)
    return PPOTrainer._get_required_batch_multiple(trainer, dp_size)


def row_key(rollout_id: str, turn: int) -> str:
    """A V1 row key, ``{uid}_{session_id}_{index}``: prompt, sample of the prompt, turn."""
    return f"p{rollout_id}_0_{turn}"


def rollout_id(key: str) -> str:
    """The rollout of a V1 row key: its ``{uid}_{session_id}``, every turn of one episode."""
    return key.rsplit("_", 1)[0]


@contextlib.contextmanager
def _stand_in(store: Store):
    saved = padding_utils.tq
    padding_utils.tq = store
    try:
        yield
    finally:
        padding_utils.tq = saved


def pad(spec: loop_batches.Spec, dp_size: int) -> tuple[KVBatchMeta, list[dict]]:
    """The spec's rows through V1's padding; the padded keys and tags, and the new samples."""
    store, turns = Store(), {}
    keys = []
    for rollout in spec.rollout_ids:
        keys.append(row_key(rollout, turns.setdefault(rollout, 0)))
        turns[rollout] += 1
    rows = loop_batches.samples(spec)
    for key, sample in zip(keys, rows, strict=True):
        sequence = torch.cat([sample["prompts"], sample["responses"]])
        store.samples[key] = {**sample, "input_ids": sequence}
    tags = [{"seq_len": len(store.samples[key]["input_ids"])} for key in keys]
    batch = KVBatchMeta(keys=keys, tags=tags, partition_id="train")
    multiple = required_multiple(spec, dp_size)
    with _stand_in(store):
        padded = padding_utils.upsample_batch_to_divisible_size(batch, multiple, EOS)
    return padded, [store.samples[key] for key in padded.keys[len(keys) :]]


def padded_rows(
    spec: loop_batches.Spec, dp_size: int, *, mark_padding: bool = True
) -> loop_batches.Rows:
    """The batch V1 would train: the spec's rows and V1's padding, normalized around it.

    The rollout ids are the rows' keys without the turn; ``mark_padding`` False passes no
    padding mask, so that V1's synthetic rows count as trained rows.
    """
    padded, extra = pad(spec, dp_size)
    flags = [bool(tag.get("is_padding", False)) for tag in padded.tags]
    ids = [rollout_id(key) for key in padded.keys]
    return loop_batches.rows(spec, padding=flags if mark_padding else None, extra=extra, ids=ids)
