# SPDX-License-Identifier: MIT
"""Tests for read_batch: JSON Lines and CSV, by pyarrow or line by line, and .pt and .npz."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolloutnorm import RolloutNormError
from rolloutnorm._explain.read import read_batch

PYARROW = ("pyarrow", "pyarrow.compute", "pyarrow.csv", "pyarrow.json")
LINE_READER = "the standard library"


def hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make importing these modules fail, as where the extra that brings them is missing."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


@pytest.fixture(params=["pyarrow", "line reader"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each text test twice: with the columnar extra, and without it (pyarrow hidden)."""
    if request.param == "line reader":
        hide(monkeypatch, *PYARROW)
    return request.param


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")
    return path


def test_jsonl_rows_give_tokens_or_a_mask(tmp_path, reader):
    """Token counts become right-padded rows; a mask list is kept as given, zero-padded."""
    path = write_jsonl(
        tmp_path / "batch.jsonl",
        [
            {"rollout_id": "a", "response_tokens": 2},
            {"rollout_id": "a", "response_mask": [0, 1, 1, 0]},
            {"rollout_id": "b", "response_tokens": 0, "drop": True},
            {"rollout_id": "c", "response_mask": []},
        ],
    )
    batch = read_batch(path)
    assert batch.reader == ("pyarrow" if reader == "pyarrow" else LINE_READER)
    assert batch.response_mask.dtype == torch.bool
    assert batch.response_mask.int().tolist() == [
        [1, 1, 0, 0],
        [0, 1, 1, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
    ]
    assert batch.rollout_ids == ["a", "a", "b", "c"]
    assert batch.row_tokens.tolist() == [2, 2, 0, 0]
    assert batch.drop.tolist() == [False, False, True, False]
    assert batch.rewards is None
    assert batch.group_ids is None


def test_jsonl_groups_and_int_ids(tmp_path, reader):
    """Int ids stay ints, rewards become floats, and no drop field gives no drop column."""
    path = write_jsonl(
        tmp_path / "batch.jsonl",
        [
            {"rollout_id": 7, "response_tokens": 1, "reward": 1, "group_id": "p"},
            {"rollout_id": 8, "response_tokens": 3, "reward": 0.5, "group_id": "p"},
        ],
    )
    batch = read_batch(path)
    assert list(batch.rollout_ids) == [7, 8]
    assert batch.rewards.tolist() == [1.0, 0.5]
    assert batch.group_ids == ["p", "p"]
    assert batch.drop is None
    assert batch.response_mask.shape == (2, 3)


def test_blank_lines_and_a_bom_are_skipped(tmp_path, reader):
    """A byte-order mark and blank lines are no rows; line numbers still count them."""
    path = tmp_path / "batch.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"rollout_id": "a", "response_tokens": 1}\n\n   \n'
        b'{"rollout_id": "b", "response_tokens": -1}\n'
    )
    with pytest.raises(RolloutNormError) as error:
        read_batch(path)
    assert str(error.value) == (
        f"{path}:4: response_tokens must be an int from 0 to 268435456, got -1"
    )


def test_csv_rows(tmp_path, reader):
    """CSV cells are read as the JSON values would be: ids as text, an empty drop as false."""
    path = tmp_path / "batch.csv"
    path.write_text(
        "rollout_id,response_tokens,reward,group_id,drop\n"
        "a,2,1.5,p,\n"
        '"b, quoted",3,-2e-1,p,true\n'
        "\n"
        "3, 1 ,0,q,0\n",
        "utf-8",
    )
    batch = read_batch(path)
    assert batch.reader == ("pyarrow" if reader == "pyarrow" else LINE_READER)
    assert batch.rollout_ids == ["a", "b, quoted", "3"]
    assert batch.row_tokens.tolist() == [2, 3, 1]
    assert batch.rewards.tolist() == [1.5, -0.2, 0.0]
    assert batch.group_ids == ["p", "p", "q"]
    assert batch.drop.tolist() == [False, True, False]


# (file name, content, the message after "path:")
BAD_TEXT = [
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1}\n{"rollout_id": "a",\n',
     "2: not valid JSON: Expecting property name enclosed in double quotes (column 20)"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1}\n[1, 2]\n',
     "2: a row must be a JSON object, got an array"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1}\nnull\n',
     "2: a row must be a JSON object, got null"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1, "rewards": 1}\n',
     "1: unknown field 'rewards'; the fields are rollout_id, response_tokens, "
     "response_mask, reward, group_id, drop"),
    ("batch.jsonl", '{"response_tokens": 1}\n', "1: rollout_id is missing"),
    ("batch.jsonl", '{"rollout_id": 1.5, "response_tokens": 1}\n',
     "1: rollout_id must be a string or an int, got the number 1.5"),
    ("batch.jsonl", '{"rollout_id": true, "response_tokens": 1}\n',
     "1: rollout_id must be a string or an int, got a boolean"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1}\n{"rollout_id": 2, '
     '"response_tokens": 1}\n',
     "2: rollout_id must be of one kind across the batch: got an int here, but line 1 "
     "gives a str"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": -3}\n',
     "1: response_tokens must be an int from 0 to 268435456, got -3"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 2.0}\n',
     "1: response_tokens must be an int from 0 to 268435456, got the number 2.0"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": true}\n',
     "1: response_tokens must be an int from 0 to 268435456, got a boolean"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 99999999999999999999}\n',
     "1: response_tokens must be an int from 0 to 268435456, got 99999999999999999999"),
    ("batch.jsonl", '{"rollout_id": "a", "response_mask": [1, 0, 2]}\n',
     "1: response_mask must hold only 0 and 1, got the number 2 at position 2"),
    ("batch.jsonl", '{"rollout_id": "a", "response_mask": [1, true]}\n',
     "1: response_mask must hold only 0 and 1, got a boolean at position 1"),
    ("batch.jsonl", '{"rollout_id": "a", "response_mask": [1, 1.0]}\n',
     "1: response_mask must hold only 0 and 1, got the number 1.0 at position 1"),
    ("batch.jsonl", '{"rollout_id": "a", "response_mask": 1}\n',
     "1: response_mask must be an array of 0 and 1, got the number 1"),
    ("batch.jsonl", '{"rollout_id": "a", "response_mask": [1], "response_tokens": 1}\n',
     "1: give response_tokens or response_mask, got both"),
    ("batch.jsonl", '{"rollout_id": "a"}\n',
     "1: give response_tokens or response_mask, got neither"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1, "reward": 1}\n',
     "1: reward needs group_id on the same row"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1, "group_id": 1}\n',
     "1: group_id needs reward on the same row"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1, "reward": 1, "group_id": 1}\n'
     '{"rollout_id": "b", "response_tokens": 1}\n',
     "2: reward and group_id are missing here but given on line 1: give them on every row "
     "or on none"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1}\n'
     '{"rollout_id": "b", "response_tokens": 1, "reward": 1, "group_id": 1}\n',
     "2: reward and group_id are given here but not on line 1: give them on every row or "
     "on none"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1, "reward": NaN, "group_id": 1}\n',
     "1: reward must be a finite number, got the number nan"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1, "reward": "1", "group_id": 1}\n',
     "1: reward must be a finite number, got a string"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1, "reward": 1, "group_id": 1}\n'
     '{"rollout_id": "b", "response_tokens": 1, "reward": 1, "group_id": "g"}\n',
     "2: group_id must be of one kind across the batch: got a str here, but line 1 gives "
     "an int"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 1, "drop": 1}\n',
     "1: drop must be true or false, got the number 1"),
    ("batch.jsonl", "\n\n", "the batch is empty: it holds no row"),
    ("batch.jsonl", "", "the batch is empty: it holds no row"),
    ("batch.csv", "rollout_id,response_tokens\na,1\nb,-2\n",
     "3: response_tokens must be an int from 0 to 268435456, got '-2'"),
    ("batch.csv", "rollout_id,response_tokens\na,0x1\n",
     "2: response_tokens must be an int from 0 to 268435456, got '0x1'"),
    ("batch.csv", "rollout_id,response_tokens,colour\na,1,red\n",
     "1: unknown field 'colour'; the CSV fields are rollout_id, response_tokens, reward, "
     "group_id, drop"),
    ("batch.csv", "rollout_id,response_mask\na,1\n",
     "1: unknown field 'response_mask'; the CSV fields are rollout_id, response_tokens, "
     "reward, group_id, drop"),
    ("batch.csv", "rollout_id\na\n", "1: response_tokens is missing from the header"),
    ("batch.csv", "rollout_id,rollout_id,response_tokens\na,a,1\n",
     "1: a field is named twice in the header"),
    ("batch.csv", "rollout_id,response_tokens\na,1,2\n",
     "2: a row must have 2 cells, as the header, got 3"),
    ("batch.csv", "rollout_id,response_tokens\n,1\n", "2: rollout_id is missing"),
    ("batch.csv", "rollout_id,response_tokens,reward,group_id\na,1,nan,p\n",
     "2: reward must be a finite number, got 'nan'"),
    ("batch.csv", "rollout_id,response_tokens,reward,group_id\na,1,1_0,p\n",
     "2: reward must be a finite number, got '1_0'"),
    ("batch.csv", "rollout_id,response_tokens,reward,group_id\na,1,,p\n",
     "2: group_id needs reward on the same row"),
    ("batch.csv", "rollout_id,response_tokens,drop\na,1,yes\n",
     "2: drop must be true or false (or 1 or 0), got 'yes'"),
    ("batch.csv", "rollout_id,response_tokens\n", "the batch is empty: it holds no row"),
    ("batch.csv", "", "the batch is empty: it holds no row"),
    ("batch.csv", "rollout_id,response_tokens\na,99999999999999999999999\n",
     "2: response_tokens must be an int from 0 to 268435456, got 99999999999999999999999"),
    ("batch.jsonl",
     '{"rollout_id": "a", "response_tokens": 1} {"rollout_id": "b", "response_tokens": 1}\n',
     "1: not valid JSON: Extra data (column 43)"),
    ("batch.jsonl", '{"rollout_id": "a",\n"response_tokens": 1}\n',
     "1: not valid JSON: Expecting property name enclosed in double quotes (column 20)"),
    ("batch.jsonl", '{"rollout_id": "a", "response_tokens": 3, "response_tokens": 5}\n',
     "1: the field 'response_tokens' is given twice"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "message"), BAD_TEXT)
def test_a_malformed_text_batch_names_its_line(tmp_path, reader, name, content, message):
    """Each fault is reported as path:LINE: message, the same with pyarrow as without it."""
    path = tmp_path / name
    path.write_text(content, "utf-8")
    with pytest.raises(RolloutNormError) as error:
        read_batch(path)
    expected = f"{path}:{message}" if message[0].isdigit() else f"{path}: {message}"
    assert str(error.value) == expected


def test_text_that_is_not_utf8_names_its_line(tmp_path, reader):
    """A byte that is not UTF-8 is reported at its line, in JSON Lines as in CSV."""
    for name, first in (("batch.jsonl", b'{"rollout_id": "a", "response_tokens": 1}\n'),
                        ("batch.csv", b"rollout_id,response_tokens\n")):  # fmt: skip
        path = tmp_path / name
        path.write_bytes(first + b'{"rollout_id": "\xff"}\n')
        with pytest.raises(RolloutNormError) as error:
            read_batch(path)
        assert str(error.value) == f"{path}:2: not UTF-8 text: invalid start byte at byte 16"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("missing.jsonl", "cannot be read: the file does not exist"),
        ("batch.txt", "unknown batch format .txt: give a .jsonl, .csv, .pt or .npz file"),
        ("batch", "unknown batch format (no suffix): give a .jsonl, .csv, .pt or .npz file"),
    ],
)
def test_a_missing_or_unknown_file_is_named(tmp_path, name, message):
    """A missing file and an unknown suffix are errors that name the file."""
    with pytest.raises(RolloutNormError) as error:
        read_batch(tmp_path / name)
    assert str(error.value) == f"{tmp_path / name}: {message}"


def test_a_folder_is_no_batch(tmp_path):
    """A folder named like a batch is reported as such."""
    (tmp_path / "batch.jsonl").mkdir()
    message = r"jsonl: cannot be read: it is a folder, not a regular file"
    with pytest.raises(RolloutNormError, match=message):
        read_batch(tmp_path / "batch.jsonl")


def test_tensors_from_pt_and_npz(tmp_path):
    """The tensors of .pt and arrays of .npz pass as they are; the mask keeps its dtype."""
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]])
    torch.save(
        {"response_mask": mask, "rollout_ids": torch.tensor([4, 4]), "drop": torch.tensor([0, 1])},
        tmp_path / "batch.pt",
    )
    batch = read_batch(tmp_path / "batch.pt")
    assert batch.reader == "torch"
    assert batch.response_mask.equal(mask)
    assert batch.rollout_ids.tolist() == [4, 4]
    assert batch.drop.tolist() == [0, 1]
    assert batch.row_tokens is None
    np.savez(
        tmp_path / "batch.npz",
        response_mask=mask.numpy().astype(bool),
        rollout_ids=np.array(["a", "b"]),
        rewards=np.array([1.0, 0.0]),
        group_ids=np.array([0, 0]),
    )
    batch = read_batch(tmp_path / "batch.npz")
    assert batch.reader == "numpy"
    assert batch.response_mask.dtype == torch.bool
    assert batch.rollout_ids.tolist() == ["a", "b"]
    assert batch.rewards.tolist() == [1.0, 0.0]
    assert batch.group_ids.tolist() == [0, 0]


class NotATensor:
    """An object torch.load may only rebuild by running pickled code."""


def test_pickled_objects_are_refused(tmp_path):
    """A .pt holding another object than tensors, and an .npz with an object array, fail."""
    torch.save({"response_mask": NotATensor()}, tmp_path / "evil.pt")
    with pytest.raises(RolloutNormError) as error:
        read_batch(tmp_path / "evil.pt")
    assert str(error.value).startswith(
        f"{tmp_path / 'evil.pt'}: cannot be loaded safely (torch.load with weights_only=True): "
    )
    np.savez(tmp_path / "evil.npz", response_mask=np.ones((1, 1)), rollout_ids=np.array([{}]))
    with pytest.raises(RolloutNormError) as error:
        read_batch(tmp_path / "evil.npz")
    assert str(error.value) == (
        f"{tmp_path / 'evil.npz'}: cannot be loaded safely (numpy.load with "
        "allow_pickle=False): Object arrays cannot be loaded when allow_pickle=False"
    )
    (tmp_path / "pickle.npz").write_bytes(pickle.dumps([1]))
    with pytest.raises(RolloutNormError, match=r"pickle\.npz: cannot be loaded safely"):
        read_batch(tmp_path / "pickle.npz")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (torch.ones(2), "must hold a mapping of named tensors (response_mask, rollout_ids, "
         "rewards, group_ids, drop), got Tensor"),
        ({"response_mask": torch.ones(1, 1), "rollout_ids": [0], "mask": 1},
         "unknown tensor 'mask'; the tensors are response_mask, rollout_ids, rewards, "
         "group_ids, drop"),
        ({"response_mask": torch.ones(1, 1)}, "rollout_ids is missing"),
        ({"rollout_ids": [0]}, "response_mask is missing"),
        ({"response_mask": torch.ones(1, 1), "rollout_ids": [0], "rewards": [1.0]},
         "rewards needs group_ids"),
        ({"response_mask": torch.ones(3), "rollout_ids": [0]},
         "response_mask must be 2-D (rows, tokens), got shape (3,)"),
        ({"response_mask": torch.ones(0, 2), "rollout_ids": []},
         "response_mask must hold at least one row, got an empty batch"),
        ({"response_mask": torch.ones(1, 1, dtype=torch.complex64), "rollout_ids": [0]},
         "response_mask must have a bool, integer or floating dtype, got torch.complex64"),
    ],
)  # fmt: skip
def test_malformed_tensors_are_named(tmp_path, content, message):
    """A .pt batch that is no mapping, lacks a tensor or has a bad mask names the fault."""
    torch.save(content, tmp_path / "batch.pt")
    with pytest.raises(RolloutNormError) as error:
        read_batch(tmp_path / "batch.pt")
    assert str(error.value) == f"{tmp_path / 'batch.pt'}: {message}"


def test_an_npz_mask_of_strings_is_refused(tmp_path):
    """An .npz mask must be numbers, checked before torch sees it."""
    np.savez(tmp_path / "batch.npz", response_mask=np.array([["1"]]), rollout_ids=np.array([0]))
    with pytest.raises(RolloutNormError) as error:
        read_batch(tmp_path / "batch.npz")
    assert str(error.value) == (
        f"{tmp_path / 'batch.npz'}: response_mask must have a bool, integer or floating dtype, "
        "got <U1"
    )


def test_a_mask_too_big_to_hold_is_refused(tmp_path, monkeypatch):
    """A batch whose mask would exceed the slot limit fails before anything is allocated."""
    monkeypatch.setattr("rolloutnorm._explain.read.MAX_MASK_SLOTS", 10)
    path = write_jsonl(tmp_path / "batch.jsonl", [{"rollout_id": "a", "response_tokens": 6}] * 2)
    with pytest.raises(RolloutNormError) as error:
        read_batch(path)
    assert str(error.value) == (
        f"{path}: the batch needs a mask of 2 rows x 6 tokens, more than the 10 slots explain "
        "holds (MAX_MASK_SLOTS): explain a part of the batch at a time"
    )


ROW = st.fixed_dictionaries(
    {"rollout_id": st.sampled_from(["a", "b", "c", "d"])},
    optional={"drop": st.booleans()},
).flatmap(
    lambda row: st.one_of(
        st.integers(0, 9).map(lambda tokens: {**row, "response_tokens": tokens}),
        st.lists(st.integers(0, 1), max_size=9).map(lambda mask: {**row, "response_mask": mask}),
    )
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=st.lists(ROW, min_size=1, max_size=12), grouped=st.booleans(), data=st.data())
def test_pyarrow_and_the_line_reader_agree(tmp_path, monkeypatch, rows, grouped, data):
    """On any valid batch both readers give the same columns, in JSON Lines and in CSV."""
    if grouped:
        rewards = st.sampled_from([0, 1, 0.5])
        rows = [
            {**row, "reward": data.draw(rewards), "group_id": row["rollout_id"]} for row in rows
        ]
    jsonl = write_jsonl(tmp_path / "batch.jsonl", rows)
    paths = [jsonl]
    if all("response_tokens" in row for row in rows):
        fields = ["rollout_id", "response_tokens", "reward", "group_id", "drop"]
        lines = [",".join(fields)]
        lines += [",".join(str(row.get(field, "")) for field in fields) for row in rows]
        (tmp_path / "batch.csv").write_text("\n".join(lines) + "\n", "utf-8")
        paths.append(tmp_path / "batch.csv")
    for path in paths:
        with_pyarrow = read_batch(path)
        with monkeypatch.context() as hidden:
            hide(hidden, *PYARROW)
            by_lines = read_batch(path)
        assert (with_pyarrow.reader, by_lines.reader) == ("pyarrow", LINE_READER)
        assert with_pyarrow.response_mask.equal(by_lines.response_mask)
        assert list(with_pyarrow.rollout_ids) == list(by_lines.rollout_ids)
        assert with_pyarrow.row_tokens.tolist() == by_lines.row_tokens.tolist()
        for name in ("rewards", "group_ids", "drop"):
            ours, theirs = getattr(with_pyarrow, name), getattr(by_lines, name)
            assert (ours is None) == (theirs is None)
            if ours is not None:
                assert list(ours) == list(theirs)


def test_a_column_of_nulls_reads_as_absent_with_either_reader(tmp_path, reader):
    """`"drop": null` on every row is no drop, with pyarrow as with the line reader."""
    path = tmp_path / "batch.jsonl"
    path.write_text('{"rollout_id": "a", "response_tokens": 1, "drop": null}\n', "utf-8")
    batch = read_batch(path)
    assert batch.drop is None


def test_an_unreadable_file_is_named_without_a_traceback(tmp_path, reader, monkeypatch):
    """A read error (permission, I/O) is `path: cannot be read: REASON`."""
    path = write_jsonl(tmp_path / "batch.jsonl", [{"rollout_id": "a", "response_tokens": 1}])

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", refuse)
    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(RolloutNormError) as error:
        read_batch(path)
    assert str(error.value) == f"{path}: cannot be read: Permission denied"
