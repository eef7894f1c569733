# SPDX-License-Identifier: MIT
"""scripts/bench_checks.py times only `docpact check` runs that pass."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import load_module
from samples.drift import DIVIDE, copy_project, drift

ROOT = Path(__file__).resolve().parents[1]
bench = load_module("bench_checks", ROOT / "scripts" / "bench_checks.py")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture project as the benchmark's root, timed against a cheap stand-in for torch."""
    path = copy_project("contract_project", tmp_path)
    monkeypatch.setattr(bench, "ROOT", path)
    monkeypatch.setitem(bench.COMMANDS, "import torch", [sys.executable, "-c", "pass"])
    return path


def test_a_passing_check_is_timed(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--rounds", "1"]) == 0
    assert "docpact check:" in capsys.readouterr().out


def test_a_check_with_findings_fails_the_benchmark(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drift(project / DIVIDE, "clamp(rollout_token_count *", "clamp(codes.numel() *")
    assert bench.main(["--rounds", "1"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"bench_checks: error: `docpact check` exited with status 1 in {project}; "
        "a failing run is not timed\n"
    )
