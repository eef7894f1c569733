# SPDX-License-Identifier: MIT
"""A trainer's batch read from a file: JSON Lines or CSV rows, or the tensors of .pt or .npz.

The text formats have one reader each in the standard library, which checks every line and
names the first bad one. With the ``columnar`` extra, pyarrow reads them first, several
times faster; whatever it cannot read, or its checks refuse, is read again line by line,
so that an error names the exact line and the two readers accept the same files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from rolloutnorm._config import regular_file
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._explain.arrow import read_csv_columnar, read_jsonl_columnar
from rolloutnorm._explain.batch import MAX_MASK_SLOTS, Batch, Columns, fail
from rolloutnorm._explain.lines import read_csv, read_jsonl
from rolloutnorm._explain.tensors import load_npz, load_pt, read_tensors

__all__ = ["read_batch"]


def read_batch(path: str | Path) -> Batch:
    """Read a batch file: ``.jsonl``, ``.csv``, ``.pt`` or ``.npz``, by its suffix.

    Args:
        path: The file.

    Returns:
        The batch.

    Raises:
        RolloutNormError: If the file is missing, of another kind, or malformed; for a text
            file the message starts with ``path:LINE:``, for the others with ``path:``.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in {".jsonl", ".csv", ".pt", ".npz"}:
        msg = (
            f"{path}: unknown batch format {suffix or '(no suffix)'}: give a .jsonl, .csv, "
            ".pt or .npz file"
        )
        raise RolloutNormError(msg)
    if not path.exists() and not path.is_symlink():
        msg = f"{path}: cannot be read: the file does not exist"
        raise RolloutNormError(msg)
    regular_file(path)
    if suffix == ".pt":
        return read_tensors(path, load_pt(path), "torch")
    if suffix == ".npz":
        return read_tensors(path, load_npz(path), "numpy")
    columnar = read_jsonl_columnar if suffix == ".jsonl" else read_csv_columnar
    columns, reader = columnar(path), "pyarrow"
    if columns is None:
        columns = read_jsonl(path) if suffix == ".jsonl" else read_csv(path)
        reader = "the standard library"
    return _text_batch(path, columns, reader)


def _text_batch(path: Path, columns: Columns, reader: str) -> Batch:
    num_rows = len(columns.tokens)
    if num_rows == 0:
        raise fail(path, None, "the batch is empty: it holds no row")
    width = max(int(columns.tokens.max(initial=0)), int(columns.mask_lengths.max(initial=0)), 1)
    if num_rows * width > MAX_MASK_SLOTS:
        msg = (
            f"the batch needs a mask of {num_rows} rows x {width} tokens, more than the "
            f"{MAX_MASK_SLOTS} slots explain holds (MAX_MASK_SLOTS): explain a part of "
            "the batch at a time"
        )
        raise fail(path, None, msg)
    lengths = torch.from_numpy(np.maximum(columns.tokens, 0))
    mask = torch.arange(width) < lengths.unsqueeze(-1)
    row_tokens = np.maximum(columns.tokens, 0)
    if len(columns.mask_rows):
        # The rows that give a list: scatter each value to its row and position.
        lengths, values = columns.mask_lengths, columns.mask_values
        ends = np.cumsum(lengths)
        rows = np.repeat(columns.mask_rows, lengths)
        positions = np.arange(len(values)) - np.repeat(ends - lengths, lengths)
        mask.numpy()[rows, positions] = values.astype(bool)
        running = np.concatenate([[0], np.cumsum(values)])
        row_tokens[columns.mask_rows] = running[ends] - running[ends - lengths]
    return Batch(
        response_mask=mask,
        rollout_ids=columns.ids,
        rewards=columns.rewards,
        group_ids=columns.groups,
        drop=columns.drop,
        row_tokens=row_tokens.astype(np.int64),
        reader=reader,
    )
