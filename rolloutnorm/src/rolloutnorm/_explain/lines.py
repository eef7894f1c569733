# SPDX-License-Identifier: MIT
"""The standard library's readers of JSON Lines and CSV: line by line, naming a bad line.

They read what pyarrow cannot or will not, so an error names the exact line. Both decode
the file as UTF-8 line by line first; a JSON Lines row is parsed by ``json`` and a CSV row
by ``csv``, its cells converted to the values JSON would give, and every row is checked by
``Rows``. The CSV number patterns here are the grammar pyarrow's reader is held to as well.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rolloutnorm._explain.batch import (
    MAX_CSV_CELL,
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    MAX_MASK_SLOTS,
    Columns,
    fail,
)
from rolloutnorm._explain.rows import FIELDS, Rows, json_name

__all__ = [
    "CSV_FALSE",
    "CSV_FLOAT",
    "CSV_INT",
    "CSV_TRUE",
    "read_csv",
    "read_jsonl",
]

# CSV numbers as both readers parse them: pyarrow's own parsers accept more (hex, underscores).
CSV_INT = r"\s*[0-9]+\s*"
CSV_FLOAT = r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*"
CSV_TRUE, CSV_FALSE = ("1", "True", "TRUE", "true"), ("0", "False", "FALSE", "false", "")


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a UTF-8 file with their numbers; a BOM on the first is dropped."""
    try:
        with path.open("rb") as file:
            for number, raw in enumerate(file, start=1):
                try:
                    line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as error:
                    msg = f"not UTF-8 text: {error.reason} at byte {error.start}"
                    raise fail(path, number, msg) from None
                if line.strip():
                    yield number, line.rstrip("\r\n")
    except OSError as error:
        raise fail(path, None, f"cannot be read: {error.strerror}") from None


_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _json_depth(line: str) -> int:
    """How deep a line's arrays and objects nest, strings left out: 2 for a row with a mask.

    A line with no more brackets than ``MAX_JSON_DEPTH`` is not scanned: it cannot nest deeper.
    """
    if line.count("[") + line.count("{") <= MAX_JSON_DEPTH:
        return 0
    depth = deepest = 0
    for char in _NOT_BRACKET.sub("", _STRING.sub("", line)):
        depth += 1 if char in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


class _Twice(Exception):
    """A name given twice in one JSON object."""


class _Long(Exception):
    """An integer of more digits than ``MAX_INT_DIGITS``."""


def _int(text: str) -> int:
    """A JSON integer, refused past ``MAX_INT_DIGITS`` digits before Python converts it."""
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Long(len(text.lstrip("-")))
    return int(text)


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object's members, refusing a name given twice (json keeps the last)."""
    row: dict[str, object] = {}
    for name, value in pairs:
        if name in row:
            raise _Twice(name)
        row[name] = value
    return row


def read_jsonl(path: Path) -> Columns:
    """A JSON Lines file read line by line, every row checked; a fault names its line."""
    rows = Rows(path)
    for number, line in _lines(path):
        if _json_depth(line) > MAX_JSON_DEPTH:
            msg = (
                f"nested more than {MAX_JSON_DEPTH} levels deep (MAX_JSON_DEPTH): a row is an "
                "object whose values are numbers, strings, booleans or one array of 0 and 1"
            )
            raise rows.fail(number, msg)
        try:
            row = json.loads(line, object_pairs_hook=_unique, parse_int=_int)
        except _Twice as error:
            raise rows.fail(number, f"the field {error.args[0]!r} is given twice") from None
        except _Long as error:
            msg = (
                f"an integer of {error.args[0]} digits, more than the {MAX_INT_DIGITS} "
                "explain reads (MAX_INT_DIGITS): give a long id as a string"
            )
            raise rows.fail(number, msg) from None
        except json.JSONDecodeError as error:
            raise rows.fail(number, f"not valid JSON: {error.msg} (column {error.colno})") from None
        if not isinstance(row, dict):
            raise rows.fail(number, f"a row must be a JSON object, got {json_name(row)}")
        for name in row:
            if name not in FIELDS:
                msg = f"unknown field {name!r}; the fields are {', '.join(FIELDS)}"
                raise rows.fail(number, msg)
        rows.add(row, number)
    return rows.columns()


def read_csv(path: Path) -> Columns:
    """A CSV file read by ``csv``, every row checked; a fault names its line."""
    rows = Rows(path)
    fields = tuple(field for field in FIELDS if field != "response_mask")
    for _ in _lines(path):
        pass  # the encoding, checked line by line: csv would fail without naming the line
    # csv reads the file itself, for the line breaks inside quoted cells.
    with path.open(encoding="utf-8-sig", newline="") as file:
        reader = csv.reader(file)
        header = next(_csv_rows(rows, reader), None)
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
        for cells in _csv_rows(rows, reader):
            number = reader.line_num
            if not cells or cells == [""]:
                continue
            if len(cells) != len(header):
                msg = f"a row must have {len(header)} cells, as the header, got {len(cells)}"
                raise rows.fail(number, msg)
            rows.add(_csv_row(rows, dict(zip(header, cells, strict=True)), number), number)
    return rows.columns()


def _csv_rows(rows: Rows, reader: Any) -> Iterator[list[str]]:
    """The rows of a csv reader; a cell past ``MAX_CSV_CELL`` characters names its line."""
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            line = reader.line_num
            if "field limit" in str(error):
                msg = (
                    f"a cell holds more than {MAX_CSV_CELL} characters (MAX_CSV_CELL, the "
                    "csv module's field limit): no id, count or reward is that long"
                )
                raise rows.fail(line, msg) from None
            raise rows.fail(line, f"not valid CSV: {error}") from None
        for cell in cells:
            if len(cell) > MAX_CSV_CELL:
                msg = f"a cell holds more than {MAX_CSV_CELL} characters (MAX_CSV_CELL)"
                raise rows.fail(reader.line_num, msg)
        yield cells


def _csv_row(rows: Rows, cells: dict[str, str], line: int) -> dict[str, Any]:
    """A CSV row's cells converted as JSON would give them; an empty cell is a missing value."""
    row: dict[str, Any] = {}
    for name, cell in cells.items():
        if name == "drop":
            if cell not in CSV_TRUE + CSV_FALSE:
                msg = f"drop must be true or false (or 1 or 0), got {cell!r}"
                raise rows.fail(line, msg)
            row[name] = cell in CSV_TRUE
        elif cell == "":
            continue
        elif name == "response_tokens":
            if len(cell) > MAX_INT_DIGITS + 2 or not re.fullmatch(CSV_INT, cell):
                if len(cell) > MAX_INT_DIGITS + 2:
                    cell = f"{cell[:MAX_INT_DIGITS]}... ({len(cell)} characters)"
                msg = f"response_tokens must be an int from 0 to {MAX_MASK_SLOTS}, got {cell!r}"
                raise rows.fail(line, msg)
            row[name] = int(cell)
        elif name == "reward":
            if not re.fullmatch(CSV_FLOAT, cell):
                raise rows.fail(line, f"reward must be a finite number, got {cell!r}")
            row[name] = float(cell)
        else:
            row[name] = cell
    return row
