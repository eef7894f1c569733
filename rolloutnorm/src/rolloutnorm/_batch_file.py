# SPDX-License-Identifier: MIT
"""A trainer's batch read from a file: JSON Lines or CSV rows, or the tensors of .pt or .npz.

The text formats have one reader each in the standard library, which checks every line and
names the first bad one. With the ``columnar`` extra, pyarrow reads them first, several
times faster; whatever it cannot read, or its checks refuse, is read again line by line,
so that an error names the exact line and the two readers accept the same files.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rolloutnorm._errors import RolloutNormError
from rolloutnorm._validate import MASK, check_layout

__all__ = ["FIELDS", "TENSORS", "Batch", "read_batch"]

FIELDS = ("rollout_id", "response_tokens", "response_mask", "reward", "group_id", "drop")
"""The fields of a JSON Lines row; a CSV row has them all but ``response_mask``."""
TENSORS = ("response_mask", "rollout_ids", "rewards", "group_ids", "drop")
"""The tensors of a .pt or .npz batch, the first two required."""

# A bigger mask than this is a batch no trainer step holds; refuse it before allocating.
MAX_MASK_SLOTS = 2**31
# CSV numbers as both readers parse them: pyarrow's own parsers accept more (hex, underscores).
_CSV_INT = r"\s*[0-9]+\s*"
_CSV_FLOAT = r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*"
_CSV_TRUE, _CSV_FALSE = ("1", "True", "TRUE", "true"), ("0", "False", "FALSE", "false", "")


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
class _Columns:
    """Text rows as columns: ``tokens`` is -1 where a row gives its mask as a list."""

    ids: Any
    tokens: np.ndarray
    mask_rows: np.ndarray
    mask_lengths: np.ndarray
    mask_values: np.ndarray
    rewards: np.ndarray | None = None
    groups: Any = None
    drop: np.ndarray | None = None


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
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        msg = f"{path}: cannot be read: the file {what}"
        raise RolloutNormError(msg)
    if suffix == ".pt":
        return _read_tensors(path, _load_pt(path), "torch")
    if suffix == ".npz":
        return _read_tensors(path, _load_npz(path), "numpy")
    columnar = _read_jsonl_columnar if suffix == ".jsonl" else _read_csv_columnar
    columns, reader = columnar(path), "pyarrow"
    if columns is None:
        columns = _read_jsonl(path) if suffix == ".jsonl" else _read_csv(path)
        reader = "the standard library"
    return _text_batch(path, columns, reader)


def _fail(path: Path, line: int | None, message: str) -> RolloutNormError:
    where = f"{path}:{line}" if line is not None else f"{path}"
    return RolloutNormError(f"{where}: {message}")


def _text_batch(path: Path, columns: _Columns, reader: str) -> Batch:
    num_rows = len(columns.tokens)
    if num_rows == 0:
        raise _fail(path, None, "the batch is empty: it holds no row")
    width = max(int(columns.tokens.max(initial=0)), int(columns.mask_lengths.max(initial=0)), 1)
    if num_rows * width > MAX_MASK_SLOTS:
        msg = (
            f"the batch needs a mask of {num_rows} rows x {width} tokens, more than the "
            f"{MAX_MASK_SLOTS} slots explain holds"
        )
        raise _fail(path, None, msg)
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


# --- JSON Lines, the standard library ------------------------------------------------------


def _kind(value: object) -> str | None:
    """``str`` or ``int`` for an id, None for anything else (bools and floats are no ids)."""
    if isinstance(value, str):
        return "str"
    if isinstance(value, int) and not isinstance(value, bool):
        return "int"
    return None


def _json_name(value: object) -> str:
    """The JSON name of a parsed value's type, for messages."""
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"the number {value!r}"
    return names.get(type(value), type(value).__name__)


class _Rows:
    """Accumulates checked rows, and the batch-wide rules (one id kind, optional columns)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.ids: list = []
        self.tokens: list[int] = []
        self.mask_rows: list[int] = []
        self.mask_lengths: list[int] = []
        self.mask_values: list[int] = []
        self.rewards: list[float] = []
        self.groups: list = []
        self.drop: list[bool] = []
        self.first: dict[str, tuple[str, int]] = {}
        self.grouped: tuple[bool, int] | None = None

    def fail(self, line: int, message: str) -> RolloutNormError:
        return _fail(self.path, line, message)

    def check_id(self, field: str, value: object, line: int) -> None:
        kind = _kind(value)
        if kind is None:
            msg = f"{field} must be a string or an int, got {_json_name(value)}"
            raise self.fail(line, msg)
        first_kind, first_line = self.first.setdefault(field, (kind, line))
        if kind != first_kind:
            msg = (
                f"{field} must be of one kind across the batch: got {_a(kind)} here, "
                f"but line {first_line} gives {_a(first_kind)}"
            )
            raise self.fail(line, msg)

    def check_group(self, has_reward: bool, has_group: bool, line: int) -> None:
        if has_reward != has_group:
            given, missing = ("reward", "group_id") if has_reward else ("group_id", "reward")
            raise self.fail(line, f"{given} needs {missing} on the same row")
        if self.grouped is None:
            self.grouped = (has_reward, line)
        elif has_reward != self.grouped[0]:
            first = self.grouped[1]
            here = "given here but not" if has_reward else "missing here but given"
            msg = (
                f"reward and group_id are {here} on line {first}: give them on every row or on none"
            )
            raise self.fail(line, msg)

    def add(self, row: dict[str, Any], line: int) -> None:
        """Check one row's fields, JSON values or CSV cells already converted, and keep it."""
        rollout_id = row.get("rollout_id")
        if rollout_id is None:
            raise self.fail(line, "rollout_id is missing")
        self.check_id("rollout_id", rollout_id, line)
        tokens, mask = row.get("response_tokens"), row.get("response_mask")
        if (tokens is None) == (mask is None):
            which = "both" if tokens is not None else "neither"
            raise self.fail(line, f"give response_tokens or response_mask, got {which}")
        if tokens is not None:
            if _kind(tokens) != "int" or not 0 <= tokens <= MAX_MASK_SLOTS:
                what = tokens if _kind(tokens) == "int" else _json_name(tokens)
                msg = f"response_tokens must be an int from 0 to {MAX_MASK_SLOTS}, got {what}"
                raise self.fail(line, msg)
            self.tokens.append(tokens)
        else:
            if not isinstance(mask, list):
                msg = f"response_mask must be an array of 0 and 1, got {_json_name(mask)}"
                raise self.fail(line, msg)
            for position, value in enumerate(mask):
                if type(value) is not int or value not in (0, 1):
                    msg = (
                        f"response_mask must hold only 0 and 1, got {_json_name(value)} "
                        f"at position {position}"
                    )
                    raise self.fail(line, msg)
            self.mask_rows.append(len(self.tokens))
            self.mask_lengths.append(len(mask))
            self.mask_values += mask
            self.tokens.append(-1)
        reward, group = row.get("reward"), row.get("group_id")
        self.check_group(reward is not None, group is not None, line)
        if reward is not None:
            if (
                not isinstance(reward, int | float)
                or isinstance(reward, bool)
                or not math.isfinite(reward)
            ):
                raise self.fail(line, f"reward must be a finite number, got {_json_name(reward)}")
            self.check_id("group_id", group, line)
            self.rewards.append(float(reward))
            self.groups.append(group)
        drop = row.get("drop")
        if drop is not None and not isinstance(drop, bool):
            raise self.fail(line, f"drop must be true or false, got {_json_name(drop)}")
        self.drop.append(bool(drop))
        self.ids.append(rollout_id)

    def columns(self) -> _Columns:
        grouped = bool(self.grouped and self.grouped[0])
        return _Columns(
            ids=self.ids,
            tokens=np.asarray(self.tokens, dtype=np.int64),
            mask_rows=np.asarray(self.mask_rows, dtype=np.int64),
            mask_lengths=np.asarray(self.mask_lengths, dtype=np.int64),
            mask_values=np.asarray(self.mask_values, dtype=np.int64),
            rewards=np.asarray(self.rewards, dtype=np.float64) if grouped else None,
            groups=self.groups if grouped else None,
            drop=np.asarray(self.drop, dtype=bool) if any(self.drop) else None,
        )


def _a(kind: str) -> str:
    """``a str``, ``an int``."""
    return f"an {kind}" if kind == "int" else f"a {kind}"


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a UTF-8 file with their numbers; a BOM on the first is dropped."""
    with path.open("rb") as file:
        for number, raw in enumerate(file, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as error:
                msg = f"not UTF-8 text: {error.reason} at byte {error.start}"
                raise _fail(path, number, msg) from None
            if line.strip():
                yield number, line.rstrip("\r\n")


def _read_jsonl(path: Path) -> _Columns:
    rows = _Rows(path)
    for number, line in _lines(path):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise rows.fail(number, f"not valid JSON: {error.msg} (column {error.colno})") from None
        if not isinstance(row, dict):
            raise rows.fail(number, f"a row must be a JSON object, got {_json_name(row)}")
        for name in row:
            if name not in FIELDS:
                msg = f"unknown field {name!r}; the fields are {', '.join(FIELDS)}"
                raise rows.fail(number, msg)
        rows.add(row, number)
    return rows.columns()


# --- CSV, the standard library --------------------------------------------------------------


def _read_csv(path: Path) -> _Columns:
    rows = _Rows(path)
    fields = tuple(field for field in FIELDS if field != "response_mask")
    for _ in _lines(path):
        pass  # the encoding, checked line by line: csv would fail without naming the line
    # csv reads the file itself, for the line breaks inside quoted cells.
    with path.open(encoding="utf-8-sig", newline="") as file:
        reader = csv.reader(file)
        header = next(reader, None)
        if header is None:
            return rows.columns()
        for name in header:
            if name not in fields:
                msg = f"unknown field {name!r}; the CSV fields are {', '.join(fields)}"
                raise rows.fail(reader.line_num, msg)
        if len(set(header)) < len(header):
            raise rows.fail(reader.line_num, "a field is named twice in the header")
        for needed in ("rollout_id", "response_tokens"):
            if needed not in header:
                raise rows.fail(reader.line_num, f"{needed} is missing from the header")
        for cells in reader:
            number = reader.line_num
            if not cells or cells == [""]:
                continue
            if len(cells) != len(header):
                msg = f"a row must have {len(header)} cells, as the header, got {len(cells)}"
                raise rows.fail(number, msg)
            rows.add(_csv_row(rows, dict(zip(header, cells, strict=True)), number), number)
    return rows.columns()


def _csv_row(rows: _Rows, cells: dict[str, str], line: int) -> dict[str, Any]:
    """A CSV row's cells converted as JSON would give them; an empty cell is a missing value."""
    row: dict[str, Any] = {}
    for name, cell in cells.items():
        if name == "drop":
            if cell not in _CSV_TRUE + _CSV_FALSE:
                msg = f"drop must be true or false (or 1 or 0), got {cell!r}"
                raise rows.fail(line, msg)
            row[name] = cell in _CSV_TRUE
        elif cell == "":
            continue
        elif name == "response_tokens":
            if not re.fullmatch(_CSV_INT, cell):
                msg = f"response_tokens must be an int from 0 to {MAX_MASK_SLOTS}, got {cell!r}"
                raise rows.fail(line, msg)
            row[name] = int(cell)
        elif name == "reward":
            if not re.fullmatch(_CSV_FLOAT, cell):
                raise rows.fail(line, f"reward must be a finite number, got {cell!r}")
            row[name] = float(cell)
        else:
            row[name] = cell
    return row


# --- the columnar readers ----------------------------------------------------------------


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


def _read_jsonl_columnar(path: Path) -> _Columns | None:
    """A JSON Lines file read by pyarrow, or None for the line-by-line reader to judge."""
    modules = _pyarrow()
    if modules is None:
        return None
    pa, pc, _, pa_json = modules
    try:
        table = pa_json.read_json(path)
    except (pa.ArrowException, OSError):
        return None
    if not set(table.column_names) <= set(FIELDS):
        return None
    return _arrow_columns(pa, pc, table)


def _read_csv_columnar(path: Path) -> _Columns | None:
    """A CSV file read by pyarrow, or None for the line-by-line reader to judge."""
    modules = _pyarrow()
    if modules is None:
        return None
    pa, pc, pa_csv, _ = modules
    try:
        table = pa_csv.read_csv(
            path,
            convert_options=pa_csv.ConvertOptions(
                column_types=dict.fromkeys(FIELDS, pa.string()),
                null_values=[],
                strings_can_be_null=False,
            ),
        )
    except (pa.ArrowException, OSError):
        return None
    names = table.column_names
    if len(set(names)) < len(names) or not set(names) <= set(FIELDS) - {"response_mask"}:
        return None
    if table.num_rows == 0:
        return None
    columns = {}
    for name in names:
        column = table.column(name)
        if name == "drop":
            if not pc.all(pc.is_in(column, pa.array(_CSV_TRUE + _CSV_FALSE))).as_py():
                return None
            columns[name] = pc.is_in(column, pa.array(_CSV_TRUE))
            continue
        empty = pc.equal(column, "")
        if pc.all(empty).as_py():
            continue  # a column of empty cells gives no value, as on the line reader
        if pc.any(empty).as_py():
            return None
        if name in {"response_tokens", "reward"}:
            pattern = _CSV_INT if name == "response_tokens" else _CSV_FLOAT
            if not pc.all(pc.match_substring_regex(column, f"^(?:{pattern})$")).as_py():
                return None
            kind = pa.int64() if name == "response_tokens" else pa.float64()
            column = pc.cast(pc.utf8_trim_whitespace(column), kind)
        columns[name] = column
    return _arrow_columns(pa, pc, pa.table(columns))


def _arrow_columns(pa: Any, pc: Any, table: Any) -> _Columns | None:
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
    return _Columns(
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


# --- tensors --------------------------------------------------------------------------------


def _load_pt(path: Path) -> object:
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch.load raises many kinds; each is the file's fault
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        msg = f"cannot be loaded safely (torch.load with weights_only=True): {first}"
        raise _fail(path, None, msg) from None


def _load_npz(path: Path) -> object:
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        msg = f"cannot be loaded safely (numpy.load with allow_pickle=False): {first}"
        raise _fail(path, None, msg) from None


def _read_tensors(path: Path, data: object, reader: str) -> Batch:
    if not isinstance(data, dict):
        msg = (
            f"must hold a mapping of named tensors ({', '.join(TENSORS)}), "
            f"got {type(data).__name__}"
        )
        raise _fail(path, None, msg)
    for name in data:
        if name not in TENSORS:
            msg = f"unknown tensor {name!r}; the tensors are {', '.join(TENSORS)}"
            raise _fail(path, None, msg)
    for name in ("response_mask", "rollout_ids"):
        if name not in data:
            raise _fail(path, None, f"{name} is missing")
    if ("rewards" in data) != ("group_ids" in data):
        given, missing = ("rewards", "group_ids") if "rewards" in data else ("group_ids", "rewards")
        raise _fail(path, None, f"{given} needs {missing}")
    mask = data["response_mask"]
    if isinstance(mask, np.ndarray):
        if mask.dtype.kind not in "biuf":
            msg = f"{MASK} must have a bool, integer or floating dtype, got {mask.dtype}"
            raise _fail(path, None, msg)
        mask = torch.from_numpy(mask)
    try:
        check_layout({MASK: mask}, like=MASK)
    except RolloutNormError as error:
        raise _fail(path, None, str(error)) from None
    return Batch(
        response_mask=mask,
        rollout_ids=data["rollout_ids"],
        rewards=data.get("rewards"),
        group_ids=data.get("group_ids"),
        drop=data.get("drop"),
        reader=reader,
    )
