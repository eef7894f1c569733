# SPDX-License-Identifier: MIT
"""Small batches for the tests: response masks built from token counts."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import torch
from hypothesis import strategies as st

from rolloutnorm import RolloutNormConfig, load_config


def response_mask(
    tokens_per_row: Sequence[int], width: int | None = None, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """A right-padded response mask whose rows hold the given numbers of response tokens."""
    width = max(tokens_per_row, default=0) if width is None else width
    lengths = torch.tensor(list(tokens_per_row), dtype=torch.int64).reshape(-1, 1)
    return (torch.arange(width) < lengths).to(dtype)


@st.composite
def split_rollouts(draw: st.DrawFn) -> tuple[list[str], list[int], int]:
    """Rollouts split into 1..4 rows of 1..12 tokens each, rows shuffled, and extra trained rows.

    Returns the rows' rollout ids, their token counts, and how many more rows than these the
    step trains.
    """
    rows = [
        (f"r{rollout}", draw(st.integers(1, 12)))
        for rollout in range(draw(st.integers(1, 6)))
        for _ in range(draw(st.integers(1, 4)))
    ]
    rows = draw(st.permutations(rows))
    extra = draw(st.integers(0, 5))
    return [rollout_id for rollout_id, _ in rows], [tokens for _, tokens in rows], extra


@dataclasses.dataclass(frozen=True)
class Row:
    """One training row: its rollout's index, its response tokens, the padding before them."""

    rollout: int
    tokens: int
    offset: int
    drop: bool = False


@dataclasses.dataclass(frozen=True)
class RolloutBatch:
    """Rows of several rollouts in one order, and how to lay them out as a trainer's tensors.

    Rewards and groups are per rollout (every row of a rollout shares them); the advantages
    are 1 on response tokens and ``padding_value`` elsewhere.
    """

    rows: tuple[Row, ...]
    width: int
    dtype: torch.dtype
    mask_dtype: torch.dtype
    id_kind: str
    container: str
    padding_value: float
    groups: tuple[int, ...] | None
    rewards: tuple[float, ...] | None

    def mask(self) -> torch.Tensor:
        """The response mask: each row's tokens after its offset."""
        columns = torch.arange(self.width)
        offsets = torch.tensor([[row.offset] for row in self.rows])
        ends = offsets + torch.tensor([[row.tokens] for row in self.rows])
        return ((columns >= offsets) & (columns < ends)).to(self.mask_dtype)

    def advantages(self) -> torch.Tensor:
        """Unit advantages on the response tokens, ``padding_value`` on the padding."""
        ones = torch.ones(len(self.rows), self.width, dtype=self.dtype)
        padding = torch.full_like(ones, self.padding_value)
        return torch.where(self.mask().bool(), ones, padding)

    def rollout_id(self, rollout: int) -> str | int:
        """The id the rows of rollout number ``rollout`` carry."""
        return f"r{rollout}" if self.id_kind == "str" else 37 * rollout - 50

    def rollout_ids(self) -> list | tuple | np.ndarray | torch.Tensor:
        """One id per row, in the container this batch names."""
        ids = [self.rollout_id(row.rollout) for row in self.rows]
        if self.container == "tuple":
            return tuple(ids)
        if self.container == "numpy":
            return np.array(ids)
        if self.container == "tensor":
            return torch.tensor(ids, dtype=torch.int64)
        return ids

    def retention_inputs(self) -> dict[str, list]:
        """The drop marks, and the group ids and rewards where this batch has them."""
        inputs: dict[str, list] = {"drop": [row.drop for row in self.rows]}
        if self.groups is not None and self.rewards is not None:
            inputs["group_ids"] = [self.groups[row.rollout] for row in self.rows]
            inputs["rewards"] = [self.rewards[row.rollout] for row in self.rows]
        return inputs

    @property
    def num_candidates(self) -> int:
        """Rows not marked for dropping."""
        return sum(not row.drop for row in self.rows)

    def split(self, index: int, cut: int, position: int, offset: int) -> RolloutBatch:
        """Cut row ``index`` after ``cut`` of its tokens; the rest becomes a row at ``position``.

        The new row keeps the rollout and the drop mark, and starts at ``offset``; the
        rollout's total tokens are unchanged.
        """
        row = self.rows[index]
        rows = list(self.rows)
        rows[index] = dataclasses.replace(row, tokens=cut)
        rows.insert(position, dataclasses.replace(row, tokens=row.tokens - cut, offset=offset))
        return dataclasses.replace(self, rows=tuple(rows))


@st.composite
def rollout_batches(draw: st.DrawFn) -> RolloutBatch:
    """1..6 rollouts of 1..4 rows of 0..12 tokens, rows shuffled, padded, some marked.

    A rollout may have no response token at all; at least one row is left unmarked. Ids are
    str or int, in a list, tuple, numpy array or (int ids) tensor; advantages are float32 or
    float64, the mask bool, int64, float32 or float64.
    """
    num_rollouts = draw(st.integers(1, 6))
    tokens = st.just(0) | st.integers(1, 12)
    counts = [
        (rollout, draw(tokens))
        for rollout in range(num_rollouts)
        for _ in range(draw(st.integers(1, 4)))
    ]
    counts = draw(st.permutations(counts))
    width = max(1, *(count for _, count in counts)) + draw(st.integers(0, 3))
    rows = [
        Row(rollout, count, draw(st.integers(0, width - count)), draw(st.booleans()))
        for rollout, count in counts
    ]
    if all(row.drop for row in rows):
        rows[0] = dataclasses.replace(rows[0], drop=False)
    id_kind = draw(st.sampled_from(["str", "int"]))
    containers = ["list", "tuple", "numpy"] + (["tensor"] if id_kind == "int" else [])
    groups = rewards = None
    if draw(st.booleans()):
        num_groups = draw(st.integers(1, num_rollouts))
        groups = tuple(rollout % num_groups for rollout in range(num_rollouts))
        reward = st.sampled_from([0.0, 1.0])
        rewards = tuple(draw(reward) for _ in range(num_rollouts))
    return RolloutBatch(
        rows=tuple(rows),
        width=width,
        dtype=draw(st.sampled_from([torch.float32, torch.float64])),
        mask_dtype=draw(st.sampled_from([torch.bool, torch.int64, torch.float32, torch.float64])),
        id_kind=id_kind,
        container=draw(st.sampled_from(containers)),
        padding_value=draw(st.floats(-1e3, 1e3)),
        groups=groups,
        rewards=rewards,
    )


@st.composite
def retention_configs(draw: st.DrawFn, num_candidates: int) -> RolloutNormConfig:
    """Any configuration that leaves ``num_candidates`` unmarked rows at least one mini-batch.

    ``rollout.n`` 1..3, any ``ppo_mini_batch_size`` that fits, a ``max_ppo_update_times``
    cap of None or 1 to one more update than the floor allows, any seed.
    """
    rollout_n = draw(st.integers(1, min(3, num_candidates)))
    prompts = draw(st.integers(1, num_candidates // rollout_n))
    cap = draw(st.none() | st.integers(1, num_candidates // (prompts * rollout_n) + 1))
    return load_config(
        overrides={
            "actor_rollout_ref.actor.ppo_mini_batch_size": prompts,
            "actor_rollout_ref.rollout.n": rollout_n,
            "rolloutnorm.max_ppo_update_times": cap,
            "rolloutnorm.retention_seed": draw(st.integers(0, 2**32 - 1)),
        }
    )
