# SPDX-License-Identifier: MIT
"""Small batches for the tests: response masks built from token counts."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from hypothesis import strategies as st


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
