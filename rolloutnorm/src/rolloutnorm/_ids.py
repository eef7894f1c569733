# SPDX-License-Identifier: MIT
"""Ids to integer codes, once per batch and without a Python loop over rows."""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from typing import NamedTuple, TypeAlias

import numpy as np
import torch

from rolloutnorm._errors import RolloutNormError

__all__ = ["IdCodes", "RolloutIds", "encode_ids"]

RolloutIds: TypeAlias = Sequence[Hashable] | np.ndarray | torch.Tensor
"""Rollout ids, one per row: a list or tuple, a 1-D numpy array or a 1-D integer tensor."""

_INTEGER_KINDS = frozenset("iu")
_PYTHON_KINDS = frozenset("USO")
_MAX_CACHED_ROWS = 2**20


class IdCodes(NamedTuple):
    """Ids encoded once: an int64 code per row, equal for rows of equal ids.

    `encode_ids` passes these through, so that a batch whose ids were encoded once is
    not encoded again.
    """

    codes: torch.Tensor
    """One code per row, each smaller than ``size``."""
    size: int
    """The size of the code space."""

    def take(self, rows: torch.Tensor) -> IdCodes:
        """The codes of some rows, in the same code space.

        Args:
            rows: The int64 indices of the rows, on the device of the codes.

        Returns:
            Their codes.
        """
        return IdCodes(self.codes.index_select(0, rows), self.size)


def encode_ids(
    ids: RolloutIds | IdCodes,
    *,
    name: str = "rollout_ids",
    num_rows: int,
    device: torch.device,
) -> IdCodes:
    """Map each row's id to an integer code shared by all rows of that id.

    Integer tensors and integer numpy arrays stay in torch (`torch.unique`); Python
    sequences and str/object arrays go through one dict built at C speed, whose values
    (the first row of each id) serve as codes. Ids must be hashable and all of one kind:
    str, bytes, int (Python or numpy) or tuples of those, alike element by element.
    ``1``, ``True`` and ``1.0`` are equal to Python but of different kinds here: bools and
    floats are no ids, since their equality is not an identity.

    Args:
        ids: One id per row, or codes already encoded (passed through).
        name: The argument to name in errors: ``rollout_ids`` or ``group_ids``.
        num_rows: The number of rows the ids must cover.
        device: Where the codes are needed.

    Returns:
        The int64 codes, one per row on `device`, with the size of their code space.

    Raises:
        RolloutNormError: If the ids are not one per row, unhashable, of mixed kinds,
            floats or booleans.
    """
    if isinstance(ids, IdCodes):
        _check_length(ids.codes.shape[0], num_rows, name)
        return IdCodes(ids.codes.to(device), ids.size)
    if isinstance(ids, torch.Tensor):
        return _encode_tensor(ids, name=name, num_rows=num_rows, device=device)
    if isinstance(ids, np.ndarray):
        if ids.ndim != 1:
            msg = f"{name} must be 1-D, got an array of shape {tuple(ids.shape)}"
            raise RolloutNormError(msg)
        if ids.dtype.kind in _INTEGER_KINDS:
            tensor = torch.from_numpy(ids.astype(np.int64, copy=False))
            return _encode_tensor(tensor, name=name, num_rows=num_rows, device=device)
        if ids.dtype.kind not in _PYTHON_KINDS:
            msg = f"{name} must hold str or int ids, got an array of dtype {ids.dtype}"
            raise RolloutNormError(msg)
        ids = ids.tolist()
    if isinstance(ids, str | bytes) or not isinstance(ids, Sequence):
        msg = (
            f"{name} must be a list, tuple, numpy array or 1-D integer tensor, "
            f"got {type(ids).__name__}"
        )
        raise RolloutNormError(msg)
    _check_length(len(ids), num_rows, name)
    codes = _encode_sequence(ids, name)
    return IdCodes(torch.from_numpy(codes).to(device), num_rows)


def _type_kind(id_type: type, name: str, *, within: str = "") -> str:
    """Name the kind of an id type: the ids of one batch must all be of one kind.

    Args:
        id_type: The type of one id, or of one element of a tuple id.
        name: The argument to name in errors.
        within: ``"tuple "`` for an element of a tuple id, for the message.

    Returns:
        ``"str"``, ``"bytes"``, ``"int"``, ``"tuple"`` or the type's own name.

    Raises:
        RolloutNormError: If the type is bool or float, whose equality is not an identity,
            or a tensor or array, which hash by identity.
    """
    if issubclass(id_type, torch.Tensor | np.ndarray):
        # Tensors hash by identity: equal ids in separate tensors would never group.
        msg = (
            f"{name} must hold str or int ids, got {_what(id_type, within)}; "
            "pass one 1-D integer tensor, or its .tolist()"
        )
        raise RolloutNormError(msg)
    if issubclass(id_type, bool | np.bool_ | float | np.floating):
        msg = f"{name} must hold str or int ids, got {_what(id_type, within)}"
        raise RolloutNormError(msg)
    if issubclass(id_type, int | np.integer):
        return "int"
    for kind in (str, bytes, tuple):
        if issubclass(id_type, kind):
            return kind.__name__
    return id_type.__name__


def _what(id_type: type, within: str) -> str:
    return f"{within}ids holding {id_type.__name__}" if within else f"{id_type.__name__} ids"


def _tuple_kind(value: tuple, name: str) -> str:
    """The kind of a tuple id, spelled out by its elements' kinds: ``tuple(str, int)``."""
    elements = (
        _tuple_kind(element, name)
        if isinstance(element, tuple)
        else _type_kind(type(element), name, within="tuple ")
        for element in value
    )
    return f"tuple({', '.join(elements)})"


def _encode_sequence(ids: Sequence[Hashable], name: str) -> np.ndarray:
    num_rows = len(ids)
    first_row: dict[Hashable, int] = {}
    try:
        # One pass at C speed: each row's code is the first row holding its id.
        codes = np.fromiter(
            map(first_row.setdefault, ids, _row_numbers(num_rows)), np.int64, num_rows
        )
    except TypeError:
        bad = next(i for i, row_id in enumerate(ids) if not _hashable(row_id))
        msg = f"{name}[{bad}] is unhashable: {type(ids[bad]).__name__}"
        raise RolloutNormError(msg) from None
    id_types = set(map(type, first_row))
    if not all(issubclass(id_type, str | bytes) for id_type in id_types):
        # Equal ids of other types share one key (1 == True == 1.0): look at every row.
        id_types = set(map(type, ids))
    kinds = {_type_kind(id_type, name) for id_type in id_types}
    if "tuple" in kinds:
        # (1,) == (True,): a tuple's kind is its elements', so every tuple is looked at.
        kinds.remove("tuple")
        kinds |= {_tuple_kind(row_id, name) for row_id in ids if isinstance(row_id, tuple)}
    if len(kinds) > 1:
        msg = f"{name} must all be of one kind, got {', '.join(sorted(kinds))}"
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


def _encode_tensor(ids: torch.Tensor, *, name: str, num_rows: int, device: torch.device) -> IdCodes:
    if ids.ndim != 1:
        msg = f"{name} must be 1-D, got a tensor of shape {tuple(ids.shape)}"
        raise RolloutNormError(msg)
    if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool:
        msg = f"{name} must be an integer tensor, got dtype {ids.dtype}"
        raise RolloutNormError(msg)
    _check_length(ids.shape[0], num_rows, name)
    _, codes = torch.unique(ids.to(device), sorted=False, return_inverse=True)
    return IdCodes(codes, num_rows)


def _check_length(num_ids: int, num_rows: int, name: str) -> None:
    if num_ids != num_rows:
        msg = f"{name} must hold one id per row: got {num_ids} ids for {num_rows} rows"
        raise RolloutNormError(msg)


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
