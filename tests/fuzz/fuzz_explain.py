# SPDX-License-Identifier: MIT
"""Cases of ``rolloutnorm explain``: batch files and configurations from the formats' grammars.

A case is a batch (rows drawn as the formats hold them, written as JSON Lines, CSV, .pt or
.npz, tensors of any dtype and layout), maybe a YAML config, ``--set`` values and a format,
then maybe mutated: bytes flipped or cut, a line replaced, a hostile token put in (``null``,
deep nesting, a lone surrogate, a long integer, a huge count, bytes that are not UTF-8, a
newline in an id). A case the grammar left valid is checked against a plain-Python oracle of
every rollout's mass; every case is classified by ``fuzz_runner``.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import math
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from fuzz_runner import Result, run
from hypothesis import strategies as st

__all__ = ["SHRINK_RUNS", "TIMEOUT", "Case", "cases", "check", "label", "shrink"]

SPEC, PROG = "rolloutnorm.__main__:main", "rolloutnorm explain"
TIMEOUT = 20.0
"""Seconds before a case is a hang."""
SHRINK_RUNS = 16
"""The most runs spent shrinking a defect."""
EVERY_ROW = [
    "--set=actor_rollout_ref.actor.ppo_mini_batch_size=1",
    "--set=actor_rollout_ref.rollout.n=1",
]

HOSTILE = [
    b"null",
    b"[" * 1000 + b"]" * 1000,
    b"[" * 20000 + b"]" * 20000,
    b"{" * 40,
    b"\xff\xfe",
    b"\xc3",
    b'"\\ud800"',
    b'"\\udc00x"',
    b"9" * 5000,
    b"2147483648",
    b"2147483647",
    b'"' + b"a" * 140_000 + b'"',
    b'"a\\nb"',
    b'"|"',
    b"NaN",
    b"1e999",
    b"-0",
    b"true",
    b"\x00",
    b"\r",
    b",",
    b'"',
]
_PAIRS = zip("abcdefgh", "bcdefghi", strict=True)
YAML_HOSTILE = [
    "a: " + "[" * 1000 + "]" * 1000 + "\n",
    "actor_rollout_ref: !!python/object/apply:os.system [echo]\n",
    "actor_rollout_ref: &r {rollout: *r}\n",
    "actor_rollout_ref: {rollout: {n: 1e999}}\n",
    "actor_rollout_ref:\n  actor:\n    clip_ratio_high: " + "9" * 400 + "\n",
    "actor_rollout_ref:\n  rollout:\n    n: " + "9" * 5000 + "\n",
    "trainer:\n  started: 2024-13-45\n",
    "actor_rollout_ref:\n  rollout:\n    n: !!binary aGk=\n",
    "\xff",
    "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in _PAIRS)
    + "actor_rollout_ref: {rollout: {n: *i}}\n",
]
SET_VALUES = [
    "1",
    "null",
    "[" * 30 + "]" * 30,
    "[" * 600 + "]" * 600,
    "[" * 30,
    "{a: " * 30 + "1" + "}" * 30,
    "1e999",
    "!!python/name:os.system",
    "&a 1",
    "*a",
    "- - - 1",
    "'x'",
    "9" * 5000,
    "9" * 400,
    "-" + "9" * 400,
    "2024-13-45",
    ".nan",
    "0x10",
]
KEYS = [
    "actor_rollout_ref.rollout.n",
    "actor_rollout_ref.actor.ppo_mini_batch_size",
    "rolloutnorm.retention_seed",
    "actor_rollout_ref.actor.clip_ratio_c",
    "actor_rollout_ref.actor.clip_ratio_high",
]


@dataclasses.dataclass
class Case:
    """One run of the command: the files it reads and its arguments."""

    suffix: str
    batch: bytes
    kind: str = "file"
    config: str | None = None
    sets: list[str] = dataclasses.field(default_factory=list)
    output: str = "json"
    rows: list[dict] | None = None  # the rows, where the grammar left the batch valid
    modes: bool = False  # --modes: every aggregation mode's masses too

    def to_json(self) -> str:
        """The case as a reproducer file's text."""
        data = dataclasses.asdict(self)
        data["batch"] = base64.b64encode(self.batch).decode("ascii")
        return json.dumps(data, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Case:
        """A case read back from a reproducer file."""
        data = json.loads(text)
        data["batch"] = base64.b64decode(data["batch"])
        return cls(**data)


IDS = st.one_of(
    st.integers(-3, 5),
    st.sampled_from(["a", "b", "c", "a\nb", "x|y", "é", "\t", "[", "{", '"', "\\"]),
    st.text(max_size=4),
)


@st.composite
def rows(draw: st.DrawFn) -> list[dict]:
    """Valid rows: ids of one kind, tokens or masks, rewards with groups on all or none."""
    kind = draw(st.sampled_from(["int", "str"]))
    ident = (
        st.integers(-3, 5)
        if kind == "int"
        else st.sampled_from(["a", "b", "a\nb", "x|y", "é", "[{"])
    )
    grouped, marked = draw(st.booleans()), draw(st.booleans())
    out = []
    for _ in range(draw(st.integers(1, 8))):
        row: dict = {"rollout_id": draw(ident)}
        if draw(st.integers(0, 3)) == 0:
            row["response_mask"] = draw(st.lists(st.integers(0, 1), max_size=6))
        else:
            row["response_tokens"] = draw(st.integers(0, 6))
        if grouped:
            row["reward"] = draw(st.sampled_from([0.0, 1.0, 0.5]))
            row["group_id"] = draw(st.integers(0, 2))
        if marked:
            row["drop"] = draw(st.booleans())
        out.append(row)
    return out


def _mask(batch: list[dict]) -> np.ndarray:
    lists = [r.get("response_mask", [1] * r.get("response_tokens", 0)) for r in batch]
    width = max(1, *map(len, lists))
    return np.array([values + [0] * (width - len(values)) for values in lists], dtype=np.int64)


def _jsonl(batch: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in batch).encode()


def _csv(batch: list[dict]) -> bytes:
    fields = ["rollout_id", "response_tokens", "reward", "group_id", "drop"]
    lines = [",".join(fields)]
    for r in batch:
        cells = [str(r.get(f, "")) for f in fields]
        lines.append(
            ",".join(
                '"' + c.replace('"', '""') + '"' if set(c) & set(',"\n\r') else c for c in cells
            )
        )
    return ("\n".join(lines) + "\n").encode()


MASK_DTYPES = [
    "bool",
    "uint8",
    "int64",
    "float32",
    "float64",
    "uint16",
    "float8",
    "float128",
    ">f4",
    "sparse",
    "grad",
    "complex",
]
# The mask dtypes that numpy takes by their names; each makes a valid mask.
PLAIN_DTYPES = {"bool", "uint8", "int64", "float32", "float64"}


def _tensors(draw: st.DrawFn, batch: list[dict], suffix: str) -> tuple[bytes, bool]:
    """The batch as a .pt or .npz file, its mask of a drawn dtype; whether it stays valid.

    A .pt file holds its ids as an integer tensor, or as a Python list of the rows' ids, maybe
    of mixed kinds ("a" and 1), which the normalization refuses.
    """
    mask = _mask(batch)
    ids = [r["rollout_id"] for r in batch]
    container = draw(st.sampled_from(["tensor", "list", "mixed list"])) if suffix == ".pt" else ""
    if container in {"", "tensor"} and not all(isinstance(i, int) for i in ids):
        ids = list(range(len(ids)))
        for r, i in zip(batch, ids, strict=True):
            r["rollout_id"] = i
    dtype = draw(st.sampled_from(MASK_DTYPES))
    valid = dtype in {*PLAIN_DTYPES, ">f4", "grad"}
    if container == "mixed list" and len(ids) > 1:
        other = 1 if isinstance(ids[0], str) else "a"
        ids, valid = [ids[0], *[other] * (len(ids) - 1)], False
    buffer = io.BytesIO()
    if suffix == ".pt":
        base = {
            "bool": torch.bool,
            "uint8": torch.uint8,
            "int64": torch.int64,
            "float32": torch.float32,
            "float64": torch.float64,
            "uint16": torch.uint16,
            "float8": torch.float8_e4m3fn,
            "complex": torch.complex64,
        }
        tensor = torch.from_numpy(mask).to(base.get(dtype, torch.float32))
        if dtype == "sparse":
            tensor = tensor.to_sparse()
        if dtype == "grad":
            tensor.requires_grad_()
        data = {
            "response_mask": tensor,
            "rollout_ids": torch.tensor(ids) if container == "tensor" else ids,
        }
        if "reward" in batch[0]:
            data["rewards"] = torch.tensor([r["reward"] for r in batch], dtype=torch.float64)
            data["group_ids"] = torch.tensor([r["group_id"] for r in batch])
        if "drop" in batch[0]:
            data["drop"] = torch.tensor([r["drop"] for r in batch])
        torch.save(data, buffer)
    else:
        npd = {
            "uint16": np.uint16,
            "float128": np.longdouble,
            ">f4": ">f4",
            "complex": np.complex64,
        }
        array = mask.astype(npd.get(dtype, dtype if dtype in PLAIN_DTYPES else np.float32))
        data = {
            "response_mask": array,
            "rollout_ids": np.array(ids, dtype=">i8" if dtype == ">f4" else np.int64),
        }
        if "reward" in batch[0]:
            data["rewards"] = np.array([r["reward"] for r in batch])
            data["group_ids"] = np.array([r["group_id"] for r in batch])
        if "drop" in batch[0]:
            data["drop"] = np.array([r["drop"] for r in batch])
        if draw(st.integers(0, 5)) == 0:
            np.save(buffer, array)  # an .npy under an .npz name
            valid = False
        elif draw(st.booleans()):
            np.savez_compressed(buffer, **data)
        else:
            np.savez(buffer, **data)
    return buffer.getvalue(), valid


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    """The bytes after one to three edits: a hostile token put in, a byte flipped, a cut."""
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["insert", "replace line", "flip", "cut", "append line"]))
        token = draw(st.sampled_from(HOSTILE))
        if edit == "insert":
            data = data[:where] + token + data[where:]
        elif edit == "replace line":
            lines = data.split(b"\n")
            lines[min(where, len(lines) - 1)] = token
            data = b"\n".join(lines)
        elif edit == "flip" and data:
            spot = min(where, len(data) - 1)
            data = data[:spot] + bytes([data[spot] ^ draw(st.integers(1, 255))]) + data[spot + 1 :]
        elif edit == "cut":
            data = data[:where]
        else:
            data = data + token + b"\n"
    return data


@st.composite
def cases(draw: st.DrawFn) -> Case:
    """A case: a batch of a drawn format, maybe mutated, a config, settings and a format."""
    batch = draw(rows())
    suffix = draw(st.sampled_from([".jsonl", ".jsonl", ".csv", ".pt", ".npz"]))
    if suffix == ".csv":
        for r in batch:
            if "response_mask" in r:
                r["response_tokens"] = sum(r.pop("response_mask"))
            if isinstance(r["rollout_id"], int):
                r["rollout_id"] = str(r["rollout_id"])
    if suffix in {".pt", ".npz"}:
        data, valid = _tensors(draw, batch, suffix)
    else:
        data, valid = (_jsonl(batch) if suffix == ".jsonl" else _csv(batch)), True
    if draw(st.integers(0, 2)) > 0:
        data, valid = draw(mutated(data)), False
    kind = draw(st.sampled_from(["file"] * 12 + ["fifo", "folder"]))
    config = None
    if draw(st.integers(0, 3)) == 3:  # hypothesis leans to small ints: a config is rarer
        config, valid = draw(st.sampled_from(YAML_HOSTILE)), False
    sets = []
    if draw(st.integers(0, 3)) == 3:
        sets, valid = (
            [f"--set={draw(st.sampled_from(KEYS))}={draw(st.sampled_from(SET_VALUES))}"],
            False,
        )
    output = draw(st.sampled_from(["json", "json", "markdown", "table"]))
    return Case(
        suffix,
        data,
        kind if not valid else "file",
        config,
        sets,
        output,
        batch if valid and kind == "file" else None,
        draw(st.booleans()),
    )


def _oracle(batch: list[dict]) -> dict:
    """Each rollout's mass by hand: its trained tokens over (its tokens x trained rows)."""
    trained = [r for r in batch if not r.get("drop")]
    tokens: dict = {}
    for r in trained:
        count = sum(r["response_mask"]) if "response_mask" in r else r["response_tokens"]
        tokens[r["rollout_id"]] = tokens.get(r["rollout_id"], 0) + count
    order = list(dict.fromkeys(r["rollout_id"] for r in batch))
    return {i: (tokens.get(i, 0) / max(1, tokens.get(i, 0) * len(trained))) for i in order}


def label(case: Case) -> str:
    """The command every case runs."""
    return "explain"


def check(case: Case, folder: Path, *, mode: str = "fork", timeout: float = TIMEOUT) -> Result:
    """Write the case's files in ``folder``, run the command and classify the end."""
    batch = folder / f"batch{case.suffix}"
    if case.kind == "fifo":
        os.mkfifo(batch)
    elif case.kind == "folder":
        batch.mkdir()
    else:
        batch.write_bytes(case.batch)
    args, paths = ["explain", batch.name, "--format", case.output], [batch.name]
    if case.config is not None:
        (folder / "c.yaml").write_bytes(case.config.encode("utf-8", "surrogateescape"))
        args += ["--config", "c.yaml"]
        paths.append("c.yaml")
    args += case.sets if case.rows is None else EVERY_ROW
    args += ["--modes"] if case.modes else []
    paths += ["--set"] if case.sets else []
    result = run(SPEC, args, cwd=folder, paths=paths, prog=PROG, timeout=timeout, mode=mode)
    if case.rows is not None and not _right(case, result):
        return dataclasses.replace(result, outcome="wrong answer")
    return result


def _right(case: Case, result: Result) -> bool:
    """Whether a valid batch's output is right: its masses, or one table line per rollout."""
    if result.outcome != "ok":
        return result.outcome not in {"usage error", "unlocated error"}
    expected = _oracle(case.rows or [])
    if case.output == "json":
        data = json.loads(result.stdout)
        got = {str(r["rollout_id"]): r["mass"] for r in data["rollouts"]}
        if "modes" in data:  # per_rollout_mean's column is the mass, computed apart
            modes = {str(r["rollout_id"]): r["per_rollout_mean"] for r in data["modes"]["rollouts"]}
            if modes != got:
                return False
        return list(got) == [str(i) for i in expected] and all(
            math.isclose(got[str(i)], mass, rel_tol=1e-9, abs_tol=1e-12)
            for i, mass in expected.items()
        )
    lines = result.stdout.splitlines()
    if case.output == "markdown":
        start = lines.index("| --- | ---: | ---: | ---: | ---: | ---: |") + 1
    else:
        start = next(n for n, line in enumerate(lines) if line.startswith("rollout")) + 1
    return lines.index("", start) - start == len(expected) + 1


def shrink(case: Case, outcome: str, same: Callable[[Case], bool], budget: int) -> Case:
    """A smaller case of the same outcome: no config or settings, then chunks of bytes cut.

    Args:
        case: The case found.
        outcome: Its outcome class.
        same: Whether a candidate ends in the same class.
        budget: The most runs spent.

    Returns:
        The smallest case found.
    """
    runs = 0
    for change in ({"config": None}, {"sets": []}):
        candidate = dataclasses.replace(case, **change)
        if candidate != case and runs < budget:
            runs += 1
            case = candidate if same(candidate) else case
    # A case checked against the oracle keeps its bytes: they are the rows the oracle reads.
    size = len(case.batch) // 2 if case.rows is None else 0
    while size and runs < budget:
        start = 0
        while start < len(case.batch) and runs < budget:
            candidate = dataclasses.replace(
                case, batch=case.batch[:start] + case.batch[start + size :]
            )
            runs += 1
            if same(candidate):
                case = candidate
            else:
                start += size
        size //= 2
    return case
