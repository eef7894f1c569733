# SPDX-License-Identifier: MIT
"""scripts/bench_normalize.py prints every case with its parts and ratios, and judges targets."""

from __future__ import annotations

import itertools
import platform
import subprocess
import sys
import types
from pathlib import Path

import pytest

from helpers import load_module

ROOT = Path(__file__).resolve().parents[1]
bench = load_module("bench_normalize", ROOT / "scripts" / "bench_normalize.py")


@pytest.fixture(autouse=True)
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every timed call takes 1 ms, so no assertion depends on this machine's speed."""
    clock = itertools.count(step=1e-3)
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=clock.__next__))


def _rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines()[3:]]


def test_each_case_prints_its_timings_and_ratios(monkeypatch, capsys) -> None:
    """One row per case: six timings, page faults, three ratios and the verdict of each target."""
    monkeypatch.setattr(
        bench, "CASES", ((64, 32, "str", 1e9, None, 1e9), (48, 16, "tensor", None, None, None))
    )
    assert bench.main(["--rounds", "2", "--check", "--default-malloc"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1] == "malloc: left as is"
    assert out.splitlines()[2].split()[1:] == [
        "floor", "ms", "vector", "ms", "mask", "ms", "ids", "ms", "loop", "ms", "modes", "ms",
        "faults", "f/v", "vec/floor", "loop/vec", "modes/vec", "targets",
    ]  # fmt: skip
    first, second = _rows(out)
    assert first[:5] == ["64", "x", "32", "str", "ids"]
    assert first[-8:] == ["vec/floor", "<=", "1e+09:", "met;", "modes/vec", "<=", "1e+09:", "met"]
    assert second[:5] == ["48", "x", "16", "tensor", "ids"]
    assert second[-1] == "-"
    assert all(float(cell) > 0 for cell in first[5:11] + second[5:11])
    assert all(int(count) >= 0 for count in first[11].split("/") + second[11].split("/"))
    assert first[14] == second[14] == "1.00x"  # every call takes 1 ms: modes/vec is 1


@pytest.mark.parametrize("check", [True, False])
def test_a_missed_target_fails_only_with_check(monkeypatch, capsys, check) -> None:
    """A loop/vec target no machine meets is reported MISSED and fails the run under --check."""
    monkeypatch.setattr(bench, "CASES", ((32, 8, "str", None, 1e9, None),))
    args = ["--rounds", "1", "--default-malloc", *(["--check"] if check else [])]
    assert bench.main(args) == (1 if check else 0)
    assert _rows(capsys.readouterr().out)[0][-3:] == [">=", "1e+09:", "MISSED"]


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_thresholds_are_pinned_in_a_fresh_process() -> None:
    """pin_malloc pins glibc's thresholds (checked in a child, not to touch the test process)."""
    code = "import runpy; print(runpy.run_path('scripts/bench_normalize.py')['pin_malloc']())"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout == (
        "malloc: glibc trim and mmap thresholds pinned at 1 GiB (--default-malloc: not)\n"
    )
