# SPDX-License-Identifier: MIT
"""The checks of one text row, the same for JSON Lines and CSV, and the batch-wide rules.

A JSON Lines row, or a CSV row with its cells converted as JSON would give them, goes
through ``Rows.add``: each field is checked, the first bad one named with its line, and
the rules that span rows (one id kind, reward and group_id on every row or on none) are
kept as the rows come. ``Rows.columns`` gives what was kept as ``Columns``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from rolloutnorm._errors import RolloutNormError
from rolloutnorm._explain.batch import MAX_MASK_SLOTS, Columns, fail

__all__ = ["FIELDS", "Rows", "json_name"]

FIELDS = ("rollout_id", "response_tokens", "response_mask", "reward", "group_id", "drop")
"""The fields of a JSON Lines row; a CSV row has them all but ``response_mask``."""


def _kind(value: object) -> str | None:
    """``str`` or ``int`` for an id, None for anything else (bools and floats are no ids)."""
    if isinstance(value, str):
        return "str"
    if isinstance(value, int) and not isinstance(value, bool):
        return "int"
    return None


def json_name(value: object) -> str:
    """The JSON name of a parsed value's type, for messages."""
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"the number {value!r}"
    return names.get(type(value), type(value).__name__)


class Rows:
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
        """The error of a fault at a line of this file."""
        return fail(self.path, line, message)

    def check_id(self, field: str, value: object, line: int) -> None:
        """Check an id, and that it is of the kind the batch's first one is."""
        kind = _kind(value)
        if kind is None:
            msg = f"{field} must be a string or an int, got {json_name(value)}"
            raise self.fail(line, msg)
        if isinstance(value, str) and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as error:
                code = ord(value[error.start])
                msg = f"{field} holds a lone surrogate (\\u{code:04x}), which is no Unicode text"
                raise self.fail(line, msg) from None
        first_kind, first_line = self.first.setdefault(field, (kind, line))
        if kind != first_kind:
            msg = (
                f"{field} must be of one kind across the batch: got {_a(kind)} here, "
                f"but line {first_line} gives {_a(first_kind)}"
            )
            raise self.fail(line, msg)

    def check_group(self, has_reward: bool, has_group: bool, line: int) -> None:
        """Check that reward and group_id come together, on every row or on none."""
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
                what = tokens if _kind(tokens) == "int" else json_name(tokens)
                msg = f"response_tokens must be an int from 0 to {MAX_MASK_SLOTS}, got {what}"
                raise self.fail(line, msg)
            self.tokens.append(tokens)
        else:
            if not isinstance(mask, list):
                msg = f"response_mask must be an array of 0 and 1, got {json_name(mask)}"
                raise self.fail(line, msg)
            for position, value in enumerate(mask):
                if type(value) is not int or value not in (0, 1):
                    msg = (
                        f"response_mask must hold only 0 and 1, got {json_name(value)} "
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
                raise self.fail(line, f"reward must be a finite number, got {json_name(reward)}")
            self.check_id("group_id", group, line)
            self.rewards.append(float(reward))
            self.groups.append(group)
        drop = row.get("drop")
        if drop is not None and not isinstance(drop, bool):
            raise self.fail(line, f"drop must be true or false, got {json_name(drop)}")
        self.drop.append(bool(drop))
        self.ids.append(rollout_id)

    def columns(self) -> Columns:
        """The rows kept, as columns."""
        grouped = bool(self.grouped and self.grouped[0])
        return Columns(
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
