# SPDX-License-Identifier: MIT
"""Rollout ids to integer codes, once per batch and without a Python loop over rows."""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from typing import TypeAlias

import numpy as np
import torch

from rolloutnorm._errors import RolloutNormError

__all__ = ["RolloutIds", "encode_rollout_ids"]

RolloutIds: TypeAlias = Sequence[Hashable] | np.ndarray | torch.Tensor
"""Rollout ids, one per row: a list or tuple, a 1-D numpy array or a 1-D integer tensor."""

_INTEGER_KINDS = frozenset("iu")
_PYTHON_KINDS = frozenset("USO")
_MAX_CACHED_ROWS = 2**20


def encode_rollout_ids(
    rollout_ids: RolloutIds, *, num_rows: int, device: torch.device
) -> tuple[torch.Tensor, int]:
    """Map each row's rollout id to an integer code shared by all rows of that rollout.

    Integer tensors and integer numpy arrays stay in torch (`torch.unique`); Python
    sequences and str/object arrays go through one dict built at C speed, whose values
    (the first row of each id) serve as codes.

    Args:
        rollout_ids: One id per row.
        num_rows: The number of rows the ids must cover.
        device: Where the codes are needed.

    Returns:
        The int64 codes, one per row on `device`, and the size of the code space
        (every code is smaller than it).

    Raises:
        RolloutNormError: If the ids are not one per row, unhashable, of mixed kinds,
            floats or booleans.
    """
    if isinstance(rollout_ids, torch.Tensor):
        return _encode_tensor(rollout_ids, num_rows=num_rows, device=device)
    if isinstance(rollout_ids, np.ndarray):
        if rollout_ids.ndim != 1:
            msg = f"rollout_ids must be 1-D, got an array of shape {tuple(rollout_ids.shape)}"
            raise RolloutNormError(msg)
        if rollout_ids.dtype.kind in _INTEGER_KINDS:
            tensor = torch.from_numpy(rollout_ids.astype(np.int64, copy=False))
            return _encode_tensor(tensor, num_rows=num_rows, device=device)
        if rollout_ids.dtype.kind not in _PYTHON_KINDS:
            msg = f"rollout_ids must hold str or int ids, got an array of dtype {rollout_ids.dtype}"
            raise RolloutNormError(msg)
        rollout_ids = rollout_ids.tolist()
    if isinstance(rollout_ids, str | bytes) or not isinstance(rollout_ids, Sequence):
        msg = (
            "rollout_ids must be a list, tuple, numpy array or 1-D integer tensor, "
            f"got {type(rollout_ids).__name__}"
        )
        raise RolloutNormError(msg)
    _check_length(len(rollout_ids), num_rows)
    codes = _encode_sequence(rollout_ids)
    return torch.from_numpy(codes).to(device), num_rows


def _id_kind(id_type: type) -> str:
    """Name the kind of an id type: the ids of one batch must all be of one kind.

    Args:
        id_type: The type of one id.

    Returns:
        ``"str"``, ``"bytes"``, ``"int"``, ``"tuple"`` or the type's own name.

    Raises:
        RolloutNormError: If the type is bool or float, whose equality is not an identity.
    """
    if issubclass(id_type, torch.Tensor | np.ndarray):
        # Tensors hash by identity: equal ids in separate tensors would never group.
        msg = (
            f"rollout_ids must hold str or int ids, got {id_type.__name__} elements; "
            "pass one 1-D integer tensor, or its .tolist()"
        )
        raise RolloutNormError(msg)
    if issubclass(id_type, bool | np.bool_ | float | np.floating):
        msg = f"rollout_ids must hold str or int ids, got {id_type.__name__} ids"
        raise RolloutNormError(msg)
    if issubclass(id_type, int | np.integer):
        return "int"
    for kind in (str, bytes, tuple):
        if issubclass(id_type, kind):
            return kind.__name__
    return id_type.__name__


def _encode_sequence(rollout_ids: Sequence[Hashable]) -> np.ndarray:
    num_rows = len(rollout_ids)
    first_row: dict[Hashable, int] = {}
    try:
        # One pass at C speed: each row's code is the first row holding its id.
        codes = np.fromiter(
            map(first_row.setdefault, rollout_ids, _row_numbers(num_rows)), np.int64, num_rows
        )
    except TypeError:
        bad = next(i for i, rollout_id in enumerate(rollout_ids) if not _hashable(rollout_id))
        msg = f"rollout_ids[{bad}] is unhashable: {type(rollout_ids[bad]).__name__}"
        raise RolloutNormError(msg) from None
    id_types = set(map(type, first_row))
    if not all(issubclass(id_type, str | bytes) for id_type in id_types):
        # Equal ids of other types share one key (1 == True == 1.0): look at every row.
        id_types = set(map(type, rollout_ids))
    kinds = {_id_kind(id_type) for id_type in id_types}
    if len(kinds) > 1:
        msg = f"rollout_ids must all be of one kind, got {', '.join(sorted(kinds))}"
        raise RolloutNormError(msg)
    return codes


def _row_numbers(num_rows: int) -> Sequence[int]:
    """At least ``num_rows`` row numbers from 0, as int objects made once per size class."""
    if num_rows > _MAX_CACHED_ROWS:
        return range(num_rows)
    # Making 4,096 fresh ints costs a fifth of coding 4,096 str ids; powers of two share them.
    return _cached_row_numbers(1 << max(num_rows - 1, 0).bit_length())


@functools.lru_cache(maxsize=4)
def _cached_row_numbers(size: int) -> tuple[int, ...]:
    return tuple(range(size))


def _encode_tensor(
    rollout_ids: torch.Tensor, *, num_rows: int, device: torch.device
) -> tuple[torch.Tensor, int]:
    if rollout_ids.ndim != 1:
        msg = f"rollout_ids must be 1-D, got a tensor of shape {tuple(rollout_ids.shape)}"
        raise RolloutNormError(msg)
    if rollout_ids.dtype.is_floating_point or rollout_ids.dtype.is_complex:
        msg = f"rollout_ids must be an integer tensor, got dtype {rollout_ids.dtype}"
        raise RolloutNormError(msg)
    if rollout_ids.dtype == torch.bool:
        msg = "rollout_ids must be an integer tensor, got dtype torch.bool"
        raise RolloutNormError(msg)
    _check_length(rollout_ids.shape[0], num_rows)
    _, codes = torch.unique(rollout_ids.to(device), sorted=False, return_inverse=True)
    return codes, num_rows


def _check_length(num_ids: int, num_rows: int) -> None:
    if num_ids != num_rows:
        msg = f"rollout_ids must hold one id per row: got {num_ids} ids for {num_rows} rows"
        raise RolloutNormError(msg)


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
