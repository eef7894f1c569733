# SPDX-License-Identifier: MIT
"""The checks of input tensors, one wording per fault, for the normalization and the loss."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Generic, NamedTuple, TypeVar, cast

import numpy as np
import torch

from rolloutnorm._errors import RolloutNormError

__all__ = [
    "MASK",
    "MASK_DTYPES",
    "MaskProbes",
    "RowTokens",
    "check_layout",
    "check_values",
    "count_row_tokens",
    "probe_mask",
]

MASK = "response_mask"
"""The one tensor of a batch that may be bool or integer: it holds only 0 and 1."""

# The dtypes a mask may have: those torch counts and compares on every device (no uint16/32/64,
# no float8, no complex).
MASK_DTYPES = frozenset(
    {
        torch.bool,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
    }
)

# Where the high int32 half of an int64 sits in memory.
_HIGH_HALF = 1 if sys.byteorder == "little" else 0

T = TypeVar("T")


class MaskProbes(NamedTuple, Generic[T]):
    """The scalars that prove a response mask holds only 0 and 1: tensors, then their values.

    The mask holds only 0 and 1 exactly when ``low >= 0``, ``high <= 1`` and ``stray == 0``.
    As tensors the three share one dtype, so that `torch.stack` reads them back with no
    promotion.
    """

    low: T
    high: T
    stray: T


class RowTokens(NamedTuple):
    """Each row's response tokens, counted exactly, and the probes that the mask is 0/1."""

    counts: torch.Tensor
    """The int64 token count of every row."""
    probes: MaskProbes[torch.Tensor] | None
    """None for a bool mask, which holds only 0 and 1 by its dtype."""


def check_layout(
    tensors: Mapping[str, object], *, like: str = "advantages", allow_empty: bool = False
) -> None:
    """Raise unless the named tensors form one batch: one 2-D shape on one device.

    Args:
        tensors: The tensors by argument name. The one named `MASK` may be bool, integer or
            floating; every other one must be floating.
        like: The name of the tensor whose shape and device the others must have.
        allow_empty: Whether a batch without rows or token columns passes.

    Raises:
        RolloutNormError: Naming the first argument that is not a tensor, not 2-D, of
            another shape or device than ``like``, or of a dtype it cannot have.
    """
    for name, tensor in tensors.items():
        if not isinstance(tensor, torch.Tensor):
            msg = f"{name} must be a torch.Tensor, got {type(tensor).__name__}"
            raise RolloutNormError(msg)
    checked = cast("Mapping[str, torch.Tensor]", tensors)
    reference = checked[like]
    shape, device = reference.shape, reference.device
    if len(shape) != 2:
        msg = f"{like} must be 2-D (rows, tokens), got shape {tuple(shape)}"
        raise RolloutNormError(msg)
    for name, tensor in checked.items():
        if tensor is not reference:
            if tensor.shape != shape:
                msg = (
                    f"{name} must have the shape of {like} {tuple(shape)}, "
                    f"got {tuple(tensor.shape)}"
                )
                raise RolloutNormError(msg)
            if tensor.device != device:
                msg = f"{name} must be on the device of {like} ({device}), got {tensor.device}"
                raise RolloutNormError(msg)
        if name == MASK:
            if tensor.dtype not in MASK_DTYPES:
                msg = f"{name} must have a bool, integer or floating dtype, got {tensor.dtype}"
                raise RolloutNormError(msg)
        elif not tensor.dtype.is_floating_point:
            msg = f"{name} must have a floating dtype, got {tensor.dtype}"
            raise RolloutNormError(msg)
    if allow_empty:
        return
    rows, columns = shape
    if rows == 0:
        msg = f"{like} must hold at least one row, got an empty batch"
        raise RolloutNormError(msg)
    if columns == 0:
        msg = f"{like} must hold at least one token column, got shape {tuple(shape)}"
        raise RolloutNormError(msg)


def count_row_tokens(response_mask: torch.Tensor) -> RowTokens:
    """Sum each row's tokens exactly, with the probes that prove the mask is 0/1.

    Args:
        response_mask: A 2-D mask that `check_layout` passed, with at least one value:
            ``aminmax`` refuses an empty tensor.

    Returns:
        The row counts and, unless the mask is bool, its probes.
    """
    if (
        response_mask.dtype == torch.int64
        and response_mask.stride(-1) == 1
        and response_mask.shape[-1] <= 2**30
    ):
        return _count_int64_row_tokens(response_mask)
    if response_mask.dtype == torch.bool:
        return RowTokens(_count_bool_row_tokens(response_mask), None)
    low, high = torch.aminmax(response_mask)
    if response_mask.dtype.is_floating_point:
        # Exact, unlike arithmetic on sums: 1 - 2**-53 is neither 0 nor 1.
        fractional = torch.logical_and(response_mask != 0, response_mask != 1).any()
        row_tokens = response_mask.sum(-1, dtype=torch.float64)
        return RowTokens(
            row_tokens.to(torch.int64), MaskProbes(low, high, fractional.to(low.dtype))
        )
    return RowTokens(response_mask.sum(-1), MaskProbes(low, high, torch.zeros_like(low)))


def probe_mask(response_mask: torch.Tensor) -> MaskProbes[torch.Tensor] | None:
    """The probes of `count_row_tokens` alone, for a caller that needs no row counts.

    Args:
        response_mask: As for `count_row_tokens`.

    Returns:
        The probes, or None for a bool mask, which then is not even summed.
    """
    if response_mask.dtype == torch.bool:
        return None
    return count_row_tokens(response_mask).probes


def _count_bool_row_tokens(response_mask: torch.Tensor) -> torch.Tensor:
    """The int64 row sums of a bool mask; on the CPU numpy's, the same integers.

    torch converts a bool mask to int64 before it sums (eight bytes read and written per
    slot, 85 ms at 65,536 x 256 on two cores); numpy adds the bytes into int64 at once
    (7 ms). The trade-off: a second library on the hot path, for CPU masks only.
    """
    if response_mask.device.type != "cpu":
        return response_mask.sum(-1)
    return torch.from_numpy(response_mask.numpy().sum(-1, dtype=np.int64))


def _count_int64_row_tokens(response_mask: torch.Tensor) -> RowTokens:
    """`count_row_tokens` for a contiguous int64 mask: its int32 halves are checked instead.

    x86's AVX2 has no 64-bit integer min or max, so ``aminmax`` over the int32 halves
    costs less. Halves in {0, 1} leave values in {0, 1, 2**32, 2**32 + 1}, and the
    high halves of the row sums rule out the last two: each such value adds 1 to its
    row's high half, while rows of at most 2**30 tokens keep the low halves from
    carrying into it. The high halves are a strided int32 view, so the stray probe
    needs no conversion before `torch.stack`.
    """
    row_tokens = response_mask.sum(-1)
    low, high = torch.aminmax(response_mask.view(torch.int32))
    row_high_halves = row_tokens.view(torch.int32)[_HIGH_HALF::2]
    return RowTokens(row_tokens, MaskProbes(low, high, row_high_halves.amax()))


def check_values(
    response_mask: torch.Tensor,
    probes: MaskProbes[torch.Tensor] | None,
    finite: Mapping[str, torch.Tensor] | None = None,
) -> None:
    """Read the mask's probes and the finite probes back at once, then raise on the first fault.

    The mask is judged first, then each tensor of ``finite`` in order. Nothing is read back
    when there is nothing to probe (a bool mask and no ``finite``).

    Args:
        response_mask: The mask the probes come from.
        probes: Its probes, from `count_row_tokens`.
        finite: The tensors, by argument name, that must be finite everywhere.

    Raises:
        RolloutNormError: If the mask holds other values than 0 and 1, or a tensor of
            ``finite`` holds a NaN or inf; the message names it.
    """
    if not finite:
        if probes is not None:
            _raise_on_bad_mask(response_mask, MaskProbes._make(torch.stack(probes).tolist()))
        return
    scalars = [*(probes or ()), *map(_finite_probe, finite.values())]
    values = torch.stack(scalars).tolist()
    if probes is not None:
        _raise_on_bad_mask(response_mask, MaskProbes._make(values[: len(probes)]))
        del values[: len(probes)]
    for (name, tensor), total in zip(finite.items(), values, strict=True):
        _raise_on_non_finite(name, tensor, total)


def _finite_probe(tensor: torch.Tensor) -> torch.Tensor:
    """The sum of the values: finite only if every value is, at the cost of one reduction."""
    # Accumulated in float32 at least: a half-precision sum would overflow at 65504.
    accumulator = torch.promote_types(tensor.dtype, torch.float32)
    return tensor.detach().sum(dtype=accumulator).double()


def _raise_on_bad_mask(response_mask: torch.Tensor, values: MaskProbes[float]) -> None:
    if values.low >= 0 and values.high <= 1 and not values.stray:
        return
    low, high = (value.item() for value in torch.aminmax(response_mask.double()))
    if math.isnan(low):
        detail = "NaN"
    elif low < 0 or high > 1:
        detail = f"values in [{low:g}, {high:g}]"
    else:
        detail = "fractions"
    msg = f"{MASK} must hold only 0 and 1, got {detail}"
    raise RolloutNormError(msg)


def _raise_on_non_finite(name: str, tensor: torch.Tensor, total: float) -> None:
    if math.isfinite(total):
        return
    bad = (~torch.isfinite(tensor)).nonzero()
    if bad.shape[0] == 0:
        return  # the sum overflowed, every value is finite
    row, token = bad[0].tolist()
    msg = (
        f"{name} must be finite everywhere, padding included: {bad.shape[0]} "
        f"non-finite values, the first at row {row}, token {token}"
    )
    raise RolloutNormError(msg)
