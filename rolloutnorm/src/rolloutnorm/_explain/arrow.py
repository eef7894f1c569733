# SPDX-License-Identifier: MIT
"""The pyarrow readers of JSON Lines and CSV, with the ``columnar`` extra: several times faster.

Each reads the whole file into a table and applies, column by column, the checks the line
reader applies row by row. Wherever a check would fail, or pyarrow cannot read the file, a
reader returns None rather than an error: the line reader then reads the file again and
names the exact line, so that the two readers accept the same files.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from rolloutnorm._explain.batch import MAX_CSV_CELL, MAX_INT_DIGITS, MAX_MASK_SLOTS, Columns
from rolloutnorm._explain.lines import CSV_FALSE, CSV_FLOAT, CSV_INT, CSV_TRUE
from rolloutnorm._explain.rows import FIELDS

__all__ = ["read_csv_columnar", "read_jsonl_columnar"]


def _pyarrow() -> Any:
    """The modules of pyarrow, or None without the ``columnar`` extra."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pa_csv
        import pyarrow.json as pa_json
    except ImportError:
        return None
    return pa, pc, pa_csv, pa_json


_NON_BLANK = re.compile(rb"^[ \t\r\f\v]*[^\s]", re.MULTILINE)
# What pyarrow is trusted with: lines that are each one object holding at most one array (the
# shape of a row, strings holding no bracket), no \u escape of a surrogate, no long integer.
# Anything else, null lines and deep nesting included (on which pyarrow crashes the process),
# goes to the line reader unseen by pyarrow.
_FLAT = rb"[^\[\]{}\n]*"
_ODD_LINE = re.compile(
    rb"^(?![ \t\r]*(?:\{" + _FLAT + rb"(?:\[" + _FLAT + rb"\]" + _FLAT + rb")?\}[ \t\r]*)?$)",
    re.MULTILINE,
)
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_LONG_INT = re.compile(rb"[0-9]{%d}" % (MAX_INT_DIGITS + 1))


def _trusted_jsonl(data: bytes) -> bool:
    """Whether pyarrow may read this JSON Lines text: UTF-8, and every line of a row's shape."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not (_ODD_LINE.search(data) or _SURROGATE.search(data) or _LONG_INT.search(data))


def read_jsonl_columnar(path: Path) -> Columns | None:
    """A JSON Lines file read by pyarrow, or None for the line-by-line reader to judge."""
    modules = _pyarrow()
    if modules is None:
        return None
    pa, pc, _, pa_json = modules
    try:
        data = path.read_bytes()
        if not _trusted_jsonl(data):
            return None
        table = pa_json.read_json(pa.BufferReader(data))
        # pyarrow reads two objects on one line, or one over two lines; the line reader
        # refuses both, so a table of another row count than the lines is its to judge.
        if table.num_rows != len(_NON_BLANK.findall(data)):
            return None
        if not set(table.column_names) <= set(FIELDS):
            return None
        return _arrow_columns(pa, pc, table)
    except (pa.ArrowException, OSError):
        return None  # e.g. a column of nulls only: the line reader says what is wrong


def read_csv_columnar(path: Path) -> Columns | None:
    """A CSV file read by pyarrow, or None for the line-by-line reader to judge."""
    modules = _pyarrow()
    if modules is None:
        return None
    pa, pc, pa_csv, _ = modules
    try:
        data = path.read_bytes()
        data.decode("utf-8")  # pyarrow keeps bytes that are not UTF-8 in a header's names
        table = pa_csv.read_csv(
            pa.BufferReader(data),
            convert_options=pa_csv.ConvertOptions(
                column_types=dict.fromkeys(FIELDS, pa.string()),
                null_values=[],
                strings_can_be_null=False,
            ),
        )
    except (pa.ArrowException, OSError, UnicodeDecodeError):
        return None
    try:
        return _csv_columns(pa, pc, table)
    except pa.ArrowException:
        return None  # e.g. an int beyond int64: the line reader names the cell


def _csv_columns(pa: Any, pc: Any, table: Any) -> Columns | None:
    """The columns of a CSV table read as strings, or None for the line reader to judge."""
    names = table.column_names
    if len(set(names)) < len(names) or not set(names) <= set(FIELDS) - {"response_mask"}:
        return None
    if table.num_rows == 0:
        return None
    columns = {}
    for name in names:
        column = table.column(name)
        if (pc.max(pc.utf8_length(column)).as_py() or 0) > MAX_CSV_CELL:
            return None  # the line reader names the cell past the csv module's limit
        if name == "drop":
            if not pc.all(pc.is_in(column, pa.array(CSV_TRUE + CSV_FALSE))).as_py():
                return None
            columns[name] = pc.is_in(column, pa.array(CSV_TRUE))
            continue
        empty = pc.equal(column, "")
        if pc.all(empty).as_py():
            continue  # a column of empty cells gives no value, as on the line reader
        if pc.any(empty).as_py():
            return None
        if name in {"response_tokens", "reward"}:
            pattern = CSV_INT if name == "response_tokens" else CSV_FLOAT
            if not pc.all(pc.match_substring_regex(column, f"^(?:{pattern})$")).as_py():
                return None
            kind = pa.int64() if name == "response_tokens" else pa.float64()
            column = pc.cast(pc.utf8_trim_whitespace(column), kind)
        columns[name] = column
    return _arrow_columns(pa, pc, pa.table(columns))


def _arrow_columns(pa: Any, pc: Any, table: Any) -> Columns | None:
    """The columns of a pyarrow table, or None where a check of the line reader would fail."""
    names = set(table.column_names)
    if table.num_rows == 0 or "rollout_id" not in names:
        return None
    ids = table.column("rollout_id")
    if ids.null_count or not (pa.types.is_string(ids.type) or pa.types.is_int64(ids.type)):
        return None
    num_rows = table.num_rows
    tokens = np.full(num_rows, -1, dtype=np.int64)
    given = np.zeros(num_rows, dtype=bool)
    if "response_tokens" in names:
        column = table.column("response_tokens")
        if not (pa.types.is_int64(column.type) or pa.types.is_null(column.type)):
            return None
        given = column.is_valid().to_numpy(zero_copy_only=False)
        values = column.fill_null(-1).to_numpy(zero_copy_only=False)
        if (values[given] < 0).any() or (values > MAX_MASK_SLOTS).any():
            return None
        tokens = values.astype(np.int64, copy=False)
    mask_rows = mask_lengths = mask_values = np.zeros(0, dtype=np.int64)
    if "response_mask" in names:
        column = table.column("response_mask").combine_chunks()
        if not pa.types.is_list(column.type) or not (
            pa.types.is_int64(column.type.value_type) or pa.types.is_null(column.type.value_type)
        ):
            return None
        has_mask = column.is_valid().to_numpy(zero_copy_only=False)
        if (has_mask == given).any():
            return None
        mask_rows = np.flatnonzero(has_mask)
        lists = column.filter(pa.array(has_mask))
        mask_lengths = pc.list_value_length(lists).to_numpy(zero_copy_only=False).astype(np.int64)
        flat = pc.list_flatten(lists)
        if flat.null_count:
            return None
        mask_values = flat.to_numpy(zero_copy_only=False).astype(np.int64)
        if mask_values.size and (mask_values.min() < 0 or mask_values.max() > 1):
            return None
    elif not given.all():
        return None
    rewards = groups = None
    if ("reward" in names) != ("group_id" in names):
        return None
    if "reward" in names:
        reward, group = table.column("reward"), table.column("group_id")
        if reward.null_count or group.null_count:
            return None
        if not (pa.types.is_int64(reward.type) or pa.types.is_float64(reward.type)):
            return None
        if not (pa.types.is_string(group.type) or pa.types.is_int64(group.type)):
            return None
        rewards = reward.to_numpy(zero_copy_only=False).astype(np.float64)
        if not np.isfinite(rewards).all():
            return None
        groups = _arrow_ids(pa, group)
    drop = None
    if "drop" in names:
        column = table.column("drop")
        if not (pa.types.is_boolean(column.type) or pa.types.is_null(column.type)):
            return None
        flags = column.fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
        drop = flags if flags.any() else None
    return Columns(
        ids=_arrow_ids(pa, ids),
        tokens=tokens,
        mask_rows=mask_rows,
        mask_lengths=mask_lengths,
        mask_values=mask_values,
        rewards=rewards,
        groups=groups,
        drop=drop,
    )


def _arrow_ids(pa: Any, column: Any) -> Any:
    """String ids as a list, as the line reader gives them; int ids as an int64 array."""
    if pa.types.is_string(column.type):
        return column.to_pylist()
    return column.to_numpy(zero_copy_only=False).astype(np.int64)
