# SPDX-License-Identifier: MIT
"""Bad input to ``rolloutnorm explain``: each case of issue 22 gives its one located line.

Every case once found by the fuzzing harness (tests/fuzz) as a traceback, a hang, a signal or
a wrong answer: each now exits 2 with the exact ``path:LINE: message``, or gives the right
output. The JSON Lines and CSV cases run with pyarrow and with the line reader alone.
"""

from __future__ import annotations

import os
import struct
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from rolloutnorm.__main__ import main
from rolloutnorm._explain.batch import MAX_MASK_SLOTS

PYARROW = ("pyarrow", "pyarrow.compute", "pyarrow.csv", "pyarrow.json")
EVERY_ROW = (
    "--set=actor_rollout_ref.actor.ppo_mini_batch_size=1",
    "--set=actor_rollout_ref.rollout.n=1",
)
OK = b'{"rollout_id": "a", "response_tokens": 3}\n{"rollout_id": "b", "response_tokens": 2}\n'


@pytest.fixture(params=["pyarrow", "line reader"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each text case twice: with the columnar extra, and with pyarrow hidden."""
    if request.param == "line reader":
        for module in PYARROW:
            monkeypatch.setitem(sys.modules, module, None)
    return request.param


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The one line ``explain`` writes on stderr when it exits 2, nothing on stdout."""
    assert main(["explain", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1, err
    return err.rstrip("\n")


DEPTH = "nested more than 8 levels deep (MAX_JSON_DEPTH): a row is an object whose values are "
DEPTH += "numbers, strings, booleans or one array of 0 and 1"
TEXT_CASES = {
    "null": (
        b'{"rollout_id": "a", "response_tokens": 3}\nnull\n',
        ".jsonl",
        "2: a row must be a JSON object, got null",
    ),
    "null alone": (b"null\n", ".jsonl", "1: a row must be a JSON object, got null"),
    "1,000 deep": (
        b'{"rollout_id": "a", "response_mask": ' + b"[" * 1000 + b"]" * 1000 + b"}\n",
        ".jsonl",
        f"1: {DEPTH}",
    ),
    "20,000 deep": (b"[" * 20000 + b"]" * 20000 + b"\n", ".jsonl", f"1: {DEPTH}"),
    "not UTF-8": (
        b'{"rollout_id": "\xe9", "response_tokens": 3}\n',
        ".jsonl",
        "1: not UTF-8 text: invalid continuation byte at byte 16",
    ),
    "lone surrogate": (
        b'{"rollout_id": "x\\ud800", "response_tokens": 3}\n',
        ".jsonl",
        "1: rollout_id holds a lone surrogate (\\ud800), which is no Unicode text",
    ),
    "5,000 digits": (
        b'{"rollout_id": ' + b"9" * 5000 + b', "response_tokens": 3}\n',
        ".jsonl",
        "1: an integer of 5000 digits, more than the 100 explain reads "
        "(MAX_INT_DIGITS): give a long id as a string",
    ),
    "2^31 tokens": (
        b'{"rollout_id": "a", "response_tokens": 2147483647}\n',
        ".jsonl",
        f"1: response_tokens must be an int from 0 to {MAX_MASK_SLOTS}, got 2147483647",
    ),
    "CSV cell over the field limit": (
        b'rollout_id,response_tokens\n"' + b"a" * 200_000 + b'",3\n',
        ".csv",
        "2: a cell holds more than 131072 characters (MAX_CSV_CELL, the csv module's field "
        "limit): no id, count or reward is that long",
    ),
    "CSV not UTF-8": (
        b"rollout_id,response_tokens\n\xff,3\n",
        ".csv",
        "2: not UTF-8 text: invalid start byte at byte 0",
    ),
    "CSV header not UTF-8": (
        b"rollout_id,respon\xdfe_tokens\na,3\n",
        ".csv",
        "1: not UTF-8 text: invalid continuation byte at byte 17",
    ),
    "CSV 5,000 digits": (
        b"rollout_id,response_tokens\na," + b"7" * 5000 + b"\n",
        ".csv",
        f"2: response_tokens must be an int from 0 to {MAX_MASK_SLOTS}, got "
        "'7777777777777777777777777777777777777777777777777777777777777777777"
        "777777777777777777777777777777777... (5000 characters)'",
    ),
}


@pytest.mark.parametrize("case", TEXT_CASES)
def test_a_bad_text_batch_is_one_located_line(case, reader, tmp_path, capsys):
    """Each bad JSON Lines or CSV file gives its exact ``path:LINE: message``, either reader."""
    data, suffix, message = TEXT_CASES[case]
    path = tmp_path / f"batch{suffix}"
    path.write_bytes(data)
    assert refused(capsys, str(path)) == f"{path}:{message}"


def test_the_largest_real_batch_is_below_the_slot_limit():
    """256 prompts x 16 samples x 8 turns x 4096 tokens (~134M) is left alone by the limit."""
    real = 256 * 16 * 8 * 4096
    assert real <= MAX_MASK_SLOTS


def test_a_batch_of_rows_past_the_slot_limit_is_refused_before_allocating(tmp_path, capsys):
    """Two rows of 2**27 + 1 tokens need 2**28 + 2 slots: refused without a 16 GiB mask."""
    path = tmp_path / "batch.jsonl"
    row = '{"rollout_id": "%s", "response_tokens": 134217729}\n'
    path.write_text(row % "a" + row % "b", "utf-8")
    assert refused(capsys, str(path)) == (
        f"{path}: the batch needs a mask of 2 rows x 134217729 tokens, more than the "
        f"{MAX_MASK_SLOTS} slots explain holds (MAX_MASK_SLOTS): explain a part of the batch "
        "at a time"
    )


def save_pt(path: Path, mask: torch.Tensor) -> Path:
    torch.save({"response_mask": mask, "rollout_ids": torch.tensor([1, 2])}, path)
    return path


@pytest.mark.parametrize(
    ("dtype", "name"),
    [(torch.uint16, "torch.uint16"), (torch.float8_e4m3fn, "torch.float8_e4m3fn")],
)
def test_a_mask_of_a_dtype_torch_cannot_count_is_refused(dtype, name, tmp_path, capsys):
    """A .pt mask of uint16 or float8 names its dtype, not aminmax's NotImplementedError."""
    path = save_pt(tmp_path / "batch.pt", torch.ones(2, 3).to(dtype))
    assert refused(capsys, str(path)) == (
        f"{path}: response_mask must have a bool, integer or floating dtype, got {name}"
    )


def test_a_float128_npz_mask_is_refused(tmp_path, capsys):
    """An .npz mask of numpy's long double, which torch cannot read, names its dtype."""
    path = tmp_path / "batch.npz"
    np.savez(path, response_mask=np.ones((2, 3), np.longdouble), rollout_ids=np.array([1, 2]))
    assert refused(capsys, str(path)) == (
        f"{path}: response_mask must have a bool, integer or floating dtype, "
        f"got {np.dtype(np.longdouble)}"
    )


def test_a_sparse_tensor_is_refused(tmp_path, capsys):
    """A sparse mask is named with its layout and the way to a dense one."""
    path = save_pt(tmp_path / "batch.pt", torch.ones(2, 3).to_sparse())
    assert refused(capsys, str(path)) == (
        f"{path}: response_mask is a torch.sparse_coo tensor: give a dense one (tensor.to_dense())"
    )


def explained(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["explain", *args]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_a_tensor_that_requires_grad_reads_as_without(tmp_path, capsys):
    """A mask and rewards that require grad explain as the same batch without it."""
    tensors = {
        "response_mask": torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
        "rollout_ids": torch.tensor([1, 2]),
        "rewards": torch.tensor([1.0, 0.0]),
        "group_ids": torch.tensor([0, 0]),
    }
    torch.save(tensors, tmp_path / "plain.pt")
    graded = {name: value.clone() for name, value in tensors.items()}
    graded["response_mask"].requires_grad_()
    graded["rewards"].requires_grad_()
    torch.save(graded, tmp_path / "grad.pt")
    plain = explained(capsys, str(tmp_path / "plain.pt"), "--format", "json", *EVERY_ROW)
    graded = explained(capsys, str(tmp_path / "grad.pt"), "--format", "json", *EVERY_ROW)
    assert '"trained": true' in plain
    assert graded == plain.replace("plain.pt", "grad.pt")


def test_a_big_endian_npz_reads_as_the_native_one(tmp_path, capsys):
    """Big-endian arrays give the numbers of the same arrays in the machine's byte order."""
    mask = np.array([[1, 1, 0], [1, 0, 0]], np.float32)
    ids = np.array([7, 8], np.int64)
    np.savez(tmp_path / "native.npz", response_mask=mask, rollout_ids=ids)
    np.savez(tmp_path / "big.npz", response_mask=mask.astype(">f4"), rollout_ids=ids.astype(">i8"))
    native = explained(capsys, str(tmp_path / "native.npz"), "--format", "json", *EVERY_ROW)
    big = explained(capsys, str(tmp_path / "big.npz"), "--format", "json", *EVERY_ROW)
    assert '"trained": true' in native
    assert big == native.replace("native.npz", "big.npz")


def test_an_npy_named_npz_is_refused(tmp_path, capsys):
    """A single .npy array under an .npz name says what it is and how to save an archive."""
    path = tmp_path / "batch.npz"
    with path.open("wb") as file:
        np.save(file, np.ones(3))
    assert refused(capsys, str(path)) == (
        f"{path}: is a single .npy array, not an .npz archive: save the tensors with numpy.savez"
    )


def test_a_corrupt_deflate_stream_is_refused(tmp_path, capsys):
    """An archive whose compressed member cannot be inflated names zlib's error."""
    path = tmp_path / "batch.npz"
    np.savez_compressed(path, response_mask=np.ones((2, 300)), rollout_ids=np.array([1, 2]))
    data = bytearray(path.read_bytes())
    for info in zipfile.ZipFile(path).infolist():
        name, extra = struct.unpack("<HH", data[info.header_offset + 26 : info.header_offset + 30])
        start = info.header_offset + 30 + name + extra
        data[start : start + 2] = b"\xff\xff"  # an invalid deflate block type
    path.write_bytes(bytes(data))
    assert refused(capsys, str(path)) == (
        f"{path}: cannot be loaded safely (numpy.load with allow_pickle=False): "
        "Error -3 while decompressing data: invalid block type"
    )


@pytest.mark.parametrize("member", [False, True], ids=["npy-named-npz", "npz-member"])
def test_an_array_header_with_unbalanced_brackets_is_refused(member, tmp_path, capsys):
    """A version 1.0 header reaches numpy through tokenize; its TokenError is the file's fault."""
    header = b"{'descr': [[[[, 'fortran_order': False, 'shape': (2,), }"
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + bytes(16)
    path = tmp_path / "batch.npz"
    if member:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("response_mask.npy", npy)
    else:
        path.write_bytes(npy)
    assert refused(capsys, str(path)) == (
        f"{path}: cannot be loaded safely (numpy.load with allow_pickle=False): "
        "an array header does not parse: EOF in multi-line statement"
    )


@pytest.mark.parametrize("kind", ["folder", "FIFO"])
def test_a_batch_path_that_is_no_regular_file_is_refused(kind, tmp_path, capsys):
    """A folder or a FIFO named as the batch is refused at once, never opened (no hang)."""
    path = tmp_path / "batch.jsonl"
    if kind == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    assert (
        refused(capsys, str(path)) == f"{path}: cannot be read: it is a {kind}, not a regular file"
    )


def test_a_config_that_is_a_fifo_is_refused(tmp_path, capsys):
    """``--config`` naming a FIFO is refused, not read until a writer comes."""
    (tmp_path / "batch.jsonl").write_bytes(OK)
    os.mkfifo(tmp_path / "c.yaml")
    assert (
        refused(capsys, str(tmp_path / "batch.jsonl"), "--config", str(tmp_path / "c.yaml"))
        == f"{tmp_path / 'c.yaml'}: cannot be read: it is a FIFO, not a regular file"
    )


def test_a_set_value_nested_30_deep_is_a_usage_error(tmp_path, capsys):
    """``--set`` with a flow sequence nested 30 deep is refused as no YAML scalar, exit 2."""
    (tmp_path / "batch.jsonl").write_bytes(OK)
    value = "[" * 30 + "]" * 30
    with pytest.raises(SystemExit) as exit_:
        main(
            [
                "explain",
                str(tmp_path / "batch.jsonl"),
                "--set",
                f"actor_rollout_ref.rollout.n={value}",
            ]
        )
    assert exit_.value.code == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (
        "rolloutnorm explain: error: argument --set: actor_rollout_ref.rollout.n: "
        f"the value {value!r} is not a YAML scalar: it reads as a list"
    )


def test_a_set_value_nested_600_deep_is_a_usage_error(tmp_path, capsys):
    """``--set`` nested 600 deep, past Python's recursion in PyYAML, names the bound, exit 2."""
    (tmp_path / "batch.jsonl").write_bytes(OK)
    value = "[" * 600 + "]" * 600
    with pytest.raises(SystemExit) as exit_:
        main(
            [
                "explain",
                str(tmp_path / "batch.jsonl"),
                "--set",
                f"actor_rollout_ref.rollout.n={value}",
            ]
        )
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1] == (
        "rolloutnorm explain: error: argument --set: actor_rollout_ref.rollout.n: the value "
        "'[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['... (1200 characters) cannot be read: nested more "
        "than 64 levels deep (MAX_YAML_DEPTH)"
    )


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("9" * 5000, "an integer of 5000 digits, more than the 4300 Python converts"),
        ("2024-13-45", "'2024-13-45' is no timestamp: month must be in 1..12"),
        ("!!int x", "'x' is no int: invalid literal for int() with base 10: 'x'"),
        ("!!bool x", "'x' is no bool"),
        ("!!float", "'' is no float"),
        (
            "1" + ":59" * 200 + ".5",
            "'1:59:59:59:59:59:59:59:59:59:59:59:59:59'... is no float: "
            "int too large to convert to float",
        ),
    ],
    ids=[
        "5,000 digits",
        "13th month",
        "tagged int",
        "tagged bool",
        "empty tagged float",
        "sexagesimal float past a float",
    ],
)
def test_a_set_value_yaml_cannot_build_is_a_usage_error(value, reason, tmp_path, capsys):
    """A scalar PyYAML matches but cannot build (an error inside it) is named, exit 2."""
    (tmp_path / "batch.jsonl").write_bytes(OK)
    with pytest.raises(SystemExit) as exit_:
        main(
            [
                "explain",
                str(tmp_path / "batch.jsonl"),
                "--set",
                f"rolloutnorm.retention_seed={value}",
            ]
        )
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"cannot be read: {reason}")


BIG = "9" * 400
CLIP_HIGH = "actor_rollout_ref.actor.clip_ratio_high"


@pytest.mark.parametrize("sign", ["", "-"])
def test_a_config_clip_ratio_past_a_float_names_its_key(sign, tmp_path, capsys):
    """``clip_ratio_high:`` as a 400-digit integer is refused under its key, no OverflowError."""
    (tmp_path / "batch.jsonl").write_bytes(OK)
    config = tmp_path / "c.yaml"
    config.write_text(f"actor_rollout_ref:\n  actor:\n    clip_ratio_high: {sign}{BIG}\n", "utf-8")
    assert refused(capsys, str(tmp_path / "batch.jsonl"), "--config", str(config)) == (
        f"{config}: {CLIP_HIGH} must be a finite number, got a number too large for a float"
    )
    assert refused(capsys, str(tmp_path / "batch.jsonl"), f"--set={CLIP_HIGH}={sign}{BIG}") == (
        f"--set: {CLIP_HIGH} must be a finite number, got a number too large for a float"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (f"actor_rollout_ref:\n  rollout:\n    n: {'9' * 5000}\n",
         "3: an integer of 5000 digits, more than the 4300 Python converts"),
        ("trainer:\n  started: 2024-13-45\n",
         "2: '2024-13-45' is no timestamp: month must be in 1..12"),
        ("actor_rollout_ref:\n  actor:\n    clip_ratio_c: !!bool x\n", "3: 'x' is no bool"),
        ("actor_rollout_ref:\n  actor:\n    clip_ratio_c: !!float\n", "3: '' is no float"),
    ],
    ids=["5,000 digits", "13th month", "tagged bool", "empty tagged float"],
)  # fmt: skip
def test_a_config_value_yaml_cannot_build_is_located(content, message, tmp_path, capsys):
    """A value PyYAML matches but cannot build is one ``path:LINE:`` line, not a ValueError."""
    (tmp_path / "batch.jsonl").write_bytes(OK)
    config = tmp_path / "c.yaml"
    config.write_text(content, "utf-8")
    assert refused(capsys, str(tmp_path / "batch.jsonl"), "--config", str(config)) == (
        f"{config}:{message}"
    )


@pytest.mark.parametrize("every_row", [False, True], ids=["none trained", "every row trained"])
def test_a_pt_batch_of_mixed_id_kinds_is_refused(every_row, tmp_path, capsys):
    """A .pt list of ids mixing "a" and 1 is refused by the normalization's own id rule."""
    path = tmp_path / "batch.pt"
    torch.save({"response_mask": torch.ones(2, 3, dtype=torch.bool), "rollout_ids": ["a", 1]}, path)
    args = EVERY_ROW if every_row else ()
    assert refused(capsys, str(path), *args) == (
        f"{path}: rollout_ids must all be of one kind, got int, str"
    )


def test_modes_of_a_mini_batch_past_int64_are_zero(tmp_path, capsys):
    """--modes with rollout.n of 400 digits trains nothing: every mode gives 0, no overflow."""
    path = tmp_path / "batch.jsonl"
    path.write_bytes(OK)
    out = explained(capsys, str(path), "--modes", f"--set=actor_rollout_ref.rollout.n={BIG}")
    assert out.startswith("no row is trained: 2 candidate rows, fewer than one mini-batch of 2559")
    # The two --modes tables' batch lines, three modes each.
    batch_lines = [line.split() for line in out.splitlines() if line.startswith("batch")]
    assert batch_lines[-2:] == [["batch", "0", "0", "0"]] * 2


def laughs(levels: int) -> str:
    """A "billion laughs" document: each anchor nine aliases of the one before."""
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * 9)}]" for k in range(1, levels)]
    lines.append(f"actor_rollout_ref: {{rollout: {{n: *a{levels - 1}}}}}")
    return "\n".join(lines) + "\n"


def test_a_billion_laughs_config_is_refused(tmp_path, capsys):
    """Nine levels of nine aliases (9**9 values) are refused at the alias past the bound."""
    (tmp_path / "batch.jsonl").write_bytes(OK)
    config = tmp_path / "c.yaml"
    config.write_text(laughs(9), "utf-8")
    assert refused(capsys, str(tmp_path / "batch.jsonl"), "--config", str(config)) == (
        f"{config}:7: expands to more than 1000000 values through its aliases "
        "(MAX_YAML_NODES): a trainer config repeats an anchor a few times"
    )


def test_a_config_nested_past_the_bound_is_refused(tmp_path, capsys):
    """A config nested 1,000 deep is refused at its line, not a RecursionError."""
    (tmp_path / "batch.jsonl").write_bytes(OK)
    config = tmp_path / "c.yaml"
    config.write_text("a: " + "[" * 1000 + "]" * 1000 + "\n", "utf-8")
    assert refused(capsys, str(tmp_path / "batch.jsonl"), "--config", str(config)) == (
        f"{config}:1: nested more than 64 levels deep (MAX_YAML_DEPTH)"
    )


def test_a_rollout_id_with_a_newline_keeps_one_markdown_row(tmp_path, capsys):
    """An id holding a newline and a pipe is one table row, its newline shown escaped."""
    path = tmp_path / "batch.jsonl"
    path.write_text(
        '{"rollout_id": "a\\nb | c", "response_tokens": 3}\n'
        '{"rollout_id": "z", "response_tokens": 2}\n',
        "utf-8",
    )
    out = explained(capsys, str(path), "--format", "markdown")
    assert "| 0 | a\\\\nb \\| c | mini-batch floor |" in out.splitlines()
    assert "| a\\\\nb \\| c | 1 | 0 | 0 | 0 (0.0000) | 0 (0.0000) |" in out.splitlines()
    table = explained(capsys, str(path))
    assert "a\\nb | c     1        0       0  0 (0.0000)  0 (0.0000)" in table.splitlines()
    assert not any(line.startswith("b | c") for line in table.splitlines())


def test_a_plot_without_a_suffix_names_the_png_written(tmp_path, capsys):
    """``--plot chart`` writes ``chart.png`` and says so, not ``chart``."""
    pytest.importorskip("matplotlib")
    path = tmp_path / "batch.jsonl"
    path.write_bytes(OK)
    assert main(["explain", str(path), "--plot", str(tmp_path / "chart"), "-v"]) == 0
    err = capsys.readouterr().err
    assert f"{tmp_path / 'chart.png'}: plot written" in err.splitlines()
    assert (tmp_path / "chart.png").is_file()
    assert not (tmp_path / "chart").exists()


def test_the_limits_table_of_the_docs_gives_each_limit_its_value():
    """docs/explain.md states every limit with the value of its module constant."""
    from rolloutnorm import _config
    from rolloutnorm._explain import batch

    page = (Path(__file__).parents[2] / "docs" / "explain.md").read_text("utf-8")
    stated = {
        cells[1].strip("` "): int(cells[2])
        for line in page.splitlines()
        if line.startswith("| `MAX_") and (cells := line.split("|"))
    }
    assert stated == {
        "MAX_MASK_SLOTS": batch.MAX_MASK_SLOTS,
        "MAX_JSON_DEPTH": batch.MAX_JSON_DEPTH,
        "MAX_INT_DIGITS": batch.MAX_INT_DIGITS,
        "MAX_CSV_CELL": batch.MAX_CSV_CELL,
        "MAX_YAML_DEPTH": _config.MAX_YAML_DEPTH,
        "MAX_YAML_NODES": _config.MAX_YAML_NODES,
    }
