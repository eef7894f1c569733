# SPDX-License-Identifier: MIT
"""Two YAML documents compared as data, key by key: what the docs show against a file."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["differences"]


def differences(documented: Any, expected: Any, *, file: str, key: str = "") -> list[str]:
    """Every dotted key where the documented data and the file's data differ.

    Args:
        documented: The data the docs show.
        expected: The file's data.
        file: The file's path, for the messages.
        key: The dotted key of this level, empty at the top.

    Returns:
        One indented line per difference: a key missing from the docs, a key the file does
        not have, or another value (both shown). `1`, `1.0` and `true` differ, as in YAML;
        `.nan` equals `.nan`, as the same text of the same value.
    """
    if isinstance(documented, dict) and isinstance(expected, dict):
        found = []
        for name in sorted(documented.keys() | expected.keys(), key=str):
            dotted = f"{key}.{name}" if key else str(name)
            if name not in documented:
                found.append(f"  {dotted}: missing from the docs ({file} has {expected[name]!r})")
            elif name not in expected:
                found.append(f"  {dotted}: not in {file} (the docs have {documented[name]!r})")
            else:
                found += differences(documented[name], expected[name], file=file, key=dotted)
        return found
    if type(documented) is not type(expected) or not _same(documented, expected):
        return [f"  {key or '<document>'}: the docs have {documented!r}, {file} has {expected!r}"]
    return []


def _same(documented: Any, expected: Any) -> bool:
    """Equal values of one type, a NaN equal to a NaN, at any depth of a list or mapping."""
    if isinstance(documented, float):
        return documented == expected or (math.isnan(documented) and math.isnan(expected))
    if isinstance(documented, list):
        return len(documented) == len(expected) and all(
            type(a) is type(b) and _same(a, b) for a, b in zip(documented, expected, strict=True)
        )
    if isinstance(documented, dict):
        return documented.keys() == expected.keys() and all(
            type(value) is type(expected[key]) and _same(value, expected[key])
            for key, value in documented.items()
        )
    return bool(documented == expected)
