# SPDX-License-Identifier: MIT
"""scripts/bench_explain.py prints each stage, both totals, their ratio and the peak memory."""

from __future__ import annotations

import itertools
import json
import types
from pathlib import Path

import pytest

from helpers import load_module

ROOT = Path(__file__).resolve().parents[1]
bench = load_module("bench_explain", ROOT / "scripts" / "bench_explain.py")


@pytest.fixture(autouse=True)
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every clock reading is 1 ms after the last, so no assertion depends on this machine."""
    clock = itertools.count(step=1e-3)
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=clock.__next__))


def test_the_batch_has_its_rows_rollouts_and_token_range(tmp_path) -> None:
    """The generated JSON Lines batch holds the rows asked for, in exactly that many rollouts."""
    path = tmp_path / "batch.jsonl"
    bench.write_batch(path, 500, 120)
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert len(rows) == 500
    assert len({row["rollout_id"] for row in rows}) == 120
    assert {key for row in rows for key in row} == {"rollout_id", "response_tokens"}
    assert all(1 <= row["response_tokens"] <= bench.MAX_TOKENS for row in rows)


def test_each_stage_and_both_totals_are_printed(capsys) -> None:
    """Three stages of 1 ms against a 1 ms parse: 3.00x, missed, and --check fails on it."""
    assert (
        bench.main(["--rows", "64", "--rollouts", "20", "--rounds", "2", "--default-malloc"]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("64 rows, 20 rollouts, 0.0 MiB of JSON Lines, read by pyarrow")
    assert lines[1] == "glibc defaults: fresh pages every round, as one CLI run"
    assert [line.split()[-2:] for line in lines[2:7]] == [["1.0", "ms"]] * 3 + [
        ["3.0", "ms"],
        ["1.0", "ms"],
    ]
    assert lines[7] == (
        "  explain/naive 3.00x, medians of 2 interleaved rounds; target <= 1.0x (within 10%): "
        "MISSED"
    )
    assert lines[8].startswith("peak memory: ")
    assert len(lines) == 9
    assert (
        bench.main(
            ["--rows", "64", "--rollouts", "20", "--rounds", "1", "--default-malloc", "--check"]
        )
        == 1
    )


def test_a_met_target_passes_the_check(monkeypatch, capsys) -> None:
    """Within 10% of the target is met, and --check then exits 0."""
    monkeypatch.setattr(bench, "TARGET", 2.8)
    args = ["--rows", "32", "--rollouts", "8", "--rounds", "1", "--default-malloc", "--check"]
    assert bench.main(args) == 0
    assert capsys.readouterr().out.splitlines()[7].endswith("target <= 2.8x (within 10%): met")
