# SPDX-License-Identifier: MIT
"""Counts passed by callers or read from YAML: whole numbers, never flags, floats or tensors."""

from __future__ import annotations

import numbers

from rolloutnorm._errors import RolloutNormError

__all__ = ["as_count"]


def as_count(value: object, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as a Python int of at least ``minimum``.

    Python and numpy integers pass. Bools are ints to Python, but a flag passed as a count is
    a caller's mistake; a float may hide a fraction, and a tensor would cost a host read.

    Args:
        value: The count to check.
        name: The argument or configuration key to name in the error.
        minimum: 1 for a positive count, 0 for a non-negative one.

    Returns:
        The count.

    Raises:
        RolloutNormError: If ``value`` is not an integer or is below ``minimum``.
    """
    kind = "positive" if minimum == 1 else "non-negative"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        msg = f"{name} must be a {kind} int, got {type(value).__name__} {value!r}"
        raise RolloutNormError(msg)
    if value < minimum:
        msg = f"{name} must be a {kind} int, got {value}"
        raise RolloutNormError(msg)
    return int(value)
