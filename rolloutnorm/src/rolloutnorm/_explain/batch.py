# SPDX-License-Identifier: MIT
"""What a batch file is read into: a trainer's `Batch`, or first the columns of text rows.

The tensor formats give a ``Batch`` at once; the text readers, line by line or with pyarrow,
fill ``Columns``, which `read_batch` turns into a mask. Every reader reports a fault as
``path:LINE: message`` (or ``path: message``) through ``fail``, and every limit of a file is
stated here once: none takes a mask of more than ``MAX_MASK_SLOTS`` slots.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rolloutnorm._errors import RolloutNormError

__all__ = [
    "MAX_CSV_CELL",
    "MAX_INT_DIGITS",
    "MAX_JSON_DEPTH",
    "MAX_MASK_SLOTS",
    "Batch",
    "Columns",
    "fail",
]

# The limits of a batch file, each refused with its name before anything is allocated.
# A mask of rows x tokens slots: 256 prompts x 16 samples x 8 turns x 4096 tokens is 2**27;
# twice that still fits a laptop's memory (a few GiB for the step's float tensors).
MAX_MASK_SLOTS = 2**28
# A JSON Lines row is an object holding at most one array: 2 levels; deeper is no row.
MAX_JSON_DEPTH = 8
# An integer this long is no id or count; Python's conversion of a longer one costs quadratic
# time (and past 4300 digits fails), so it is refused before it is converted.
MAX_INT_DIGITS = 100
# The csv module's own field limit (csv.field_size_limit()), for both CSV readers.
MAX_CSV_CELL = 131_072


@dataclasses.dataclass(frozen=True, slots=True)
class Batch:
    """The columns of a batch, one entry per training row, as `retain_and_normalize` takes them.

    Attributes:
        response_mask: ``(rows, tokens)``; from a text file a bool mask whose rows hold their
            response tokens first, right-padded to the longest row.
        rollout_ids: One id per row.
        rewards: Per row, the sequence-level reward, or ``None``.
        group_ids: Per row, the prompt group id, or ``None`` (given with ``rewards``).
        drop: Per row, whether it is marked for dropping, or ``None``.
        row_tokens: Each row's response tokens where the reader counted them (text files),
            else ``None``.
        reader: What read the file: ``pyarrow``, ``the standard library``, ``torch`` or
            ``numpy``.
    """

    response_mask: torch.Tensor
    rollout_ids: Any
    rewards: Any = None
    group_ids: Any = None
    drop: Any = None
    row_tokens: np.ndarray | None = None
    reader: str = "the standard library"


@dataclasses.dataclass(slots=True)
class Columns:
    """Text rows as columns: ``tokens`` is -1 where a row gives its mask as a list."""

    ids: Any
    tokens: np.ndarray
    mask_rows: np.ndarray
    mask_lengths: np.ndarray
    mask_values: np.ndarray
    rewards: np.ndarray | None = None
    groups: Any = None
    drop: np.ndarray | None = None


def fail(path: Path, line: int | None, message: str) -> RolloutNormError:
    """The error of a fault at a line of a file, or in the file where ``line`` is None."""
    where = f"{path}:{line}" if line is not None else f"{path}"
    return RolloutNormError(f"{where}: {message}")
