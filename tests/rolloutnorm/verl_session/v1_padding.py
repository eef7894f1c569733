# SPDX-License-Identifier: MIT
"""verl 0.9.1's V1 trainer padding, run on a batch: its own functions, a stand-in store.

The V1 trainer keeps the rows in TransferQueue and holds only their keys and tags. Before the
advantages, ``_balance_batch`` asks ``_get_required_batch_multiple`` for the least common
multiple of the data-parallel size and the mini-batch rows (read from verl's source: its
module does not import without TransferQueue), and ``upsample_batch_to_divisible_size``
appends synthetic rows up to it. That function runs here as verl wrote it; TransferQueue,
which the ``verl`` extra does not install, is replaced by a dictionary with its two calls,
and its ``KVBatchMeta`` by a dataclass with the same fields.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

import loop_batches
import torch
from verl.trainer.ppo import padding_utils

EOS = 2


@dataclasses.dataclass
class KVBatchMeta:
    """The fields of TransferQueue's KVBatchMeta that the padding reads and writes."""

    keys: list[str]
    tags: list[dict]
    partition_id: str
    fields: list[str] | None = None
    extra_info: dict = dataclasses.field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.keys)


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


def required_multiple(dp_size: int, ppo_mini_batch_size: int, rollout_n: int) -> int:
    """What V1's ``_get_required_batch_multiple`` returns for an actor without a critic."""
    return math.lcm(dp_size, ppo_mini_batch_size * rollout_n)


def row_key(rollout_id: str, turn: int) -> str:
    """A V1 row key, ``{uid}_{session_id}_{index}``: prompt, sample of the prompt, turn."""
    return f"p{rollout_id}_0_{turn}"


def rollout_id(key: str) -> str:
    """The rollout of a V1 row key: its ``{uid}_{session_id}``, every turn of one episode."""
    return key.rsplit("_", 1)[0]


@contextlib.contextmanager
def _stand_in(store: Store):
    saved = padding_utils.tq, padding_utils.KVBatchMeta
    padding_utils.tq, padding_utils.KVBatchMeta = store, KVBatchMeta
    try:
        yield
    finally:
        padding_utils.tq, padding_utils.KVBatchMeta = saved


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
    multiple = required_multiple(dp_size, spec.ppo_mini_batch_size, spec.rollout_n)
    with _stand_in(store):
        padded = padding_utils.upsample_batch_to_divisible_size(batch, multiple, EOS)
    return padded, [store.samples[key] for key in padded.keys[len(keys) :]]


def padded_rows(spec: loop_batches.Spec, dp_size: int) -> loop_batches.Rows:
    """The batch V1 would train: the spec's rows and V1's padding, normalized around it."""
    padded, extra = pad(spec, dp_size)
    flags = [bool(tag.get("is_padding", False)) for tag in padded.tags]
    return loop_batches.rows(spec, padding=flags, extra=extra)
