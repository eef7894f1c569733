# SPDX-License-Identifier: MIT
"""The tensor formats of a batch: a .pt file loaded by torch, an .npz archive by numpy.

Both are loaded safely, without unpickling code (``weights_only=True``, ``allow_pickle=False``),
and must hold a mapping of named tensors, the response mask and the rollout ids among them.
The mask's layout is checked by the validator every entry point shares.
"""

from __future__ import annotations

import tokenize
import zipfile
import zlib
from pathlib import Path

import numpy as np
import torch

from rolloutnorm._errors import RolloutNormError
from rolloutnorm._explain.batch import Batch, fail
from rolloutnorm._validate import MASK, check_layout

__all__ = ["TENSORS", "load_npz", "load_pt", "read_tensors"]

_NPZ_ERRORS = (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, tokenize.TokenError)
"""What numpy.load raises for a file that is not a sound archive: a version 1.0 .npy header
with unbalanced brackets reaches numpy through tokenize and ends in its TokenError."""

TENSORS = ("response_mask", "rollout_ids", "rewards", "group_ids", "drop")
"""The tensors of a .pt or .npz batch, the first two required."""


def load_pt(path: Path) -> object:
    """A .pt file's content, loaded without unpickling code."""
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch.load raises many kinds; each is the file's fault
        msg = f"cannot be loaded safely (torch.load with weights_only=True): {_first_line(error)}"
        raise fail(path, None, msg) from None


def load_npz(path: Path) -> object:
    """An .npz archive's arrays by name, loaded without unpickling."""
    try:
        loaded = np.load(path, allow_pickle=False)
    except _NPZ_ERRORS as error:
        loaded = error
    if isinstance(loaded, np.ndarray):
        msg = "is a single .npy array, not an .npz archive: save the tensors with numpy.savez"
        raise fail(path, None, msg)
    try:
        if isinstance(loaded, Exception):
            raise loaded
        with loaded as archive:
            return {name: _native(archive[name]) for name in archive.files}
    except _NPZ_ERRORS as error:
        msg = f"cannot be loaded safely (numpy.load with allow_pickle=False): {_first_line(error)}"
        raise fail(path, None, msg) from None


def _first_line(error: Exception) -> str:
    """The first line of a loader's error, or its type's name where it says nothing."""
    if isinstance(error, tokenize.TokenError):  # its str is the repr of (message, position)
        return f"an array header does not parse: {error.args[0]}"
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _native(array: np.ndarray) -> np.ndarray:
    """An array in the machine's byte order: torch reads no other."""
    if array.dtype.byteorder not in "=|" and not array.dtype.isnative:
        return array.astype(array.dtype.newbyteorder("="))
    return array


def read_tensors(path: Path, data: object, reader: str) -> Batch:
    """The batch of a loaded tensor file, its names and its mask's layout checked."""
    if not isinstance(data, dict):
        msg = (
            f"must hold a mapping of named tensors ({', '.join(TENSORS)}), "
            f"got {type(data).__name__}"
        )
        raise fail(path, None, msg)
    for name in data:
        if name not in TENSORS:
            msg = f"unknown tensor {name!r}; the tensors are {', '.join(TENSORS)}"
            raise fail(path, None, msg)
    for name in ("response_mask", "rollout_ids"):
        if name not in data:
            raise fail(path, None, f"{name} is missing")
    if ("rewards" in data) != ("group_ids" in data):
        given, missing = ("rewards", "group_ids") if "rewards" in data else ("group_ids", "rewards")
        raise fail(path, None, f"{given} needs {missing}")
    for name, value in data.items():
        if isinstance(value, torch.Tensor):
            if value.layout != torch.strided:
                msg = f"{name} is a {value.layout} tensor: give a dense one (tensor.to_dense())"
                raise fail(path, None, msg)
            data[name] = value.detach()  # a gradient is no part of a batch read from a file
    mask = data["response_mask"]
    if isinstance(mask, np.ndarray):
        try:
            if mask.dtype.kind not in "biuf":
                raise TypeError
            mask = torch.from_numpy(mask)
        except TypeError:
            msg = f"{MASK} must have a bool, integer or floating dtype, got {mask.dtype}"
            raise fail(path, None, msg) from None
    try:
        check_layout({MASK: mask}, like=MASK)
    except RolloutNormError as error:
        raise fail(path, None, str(error)) from None
    return Batch(
        response_mask=mask,
        rollout_ids=data["rollout_ids"],
        rewards=data.get("rewards"),
        group_ids=data.get("group_ids"),
        drop=data.get("drop"),
        reader=reader,
    )
