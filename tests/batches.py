# SPDX-License-Identifier: MIT
"""Small batches for the tests: response masks built from token counts."""

from __future__ import annotations

from collections.abc import Sequence

import torch


def response_mask(
    tokens_per_row: Sequence[int], width: int | None = None, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """A right-padded response mask whose rows hold the given numbers of response tokens."""
    width = max(tokens_per_row, default=0) if width is None else width
    lengths = torch.tensor(list(tokens_per_row), dtype=torch.int64).reshape(-1, 1)
    return (torch.arange(width) < lengths).to(dtype)
