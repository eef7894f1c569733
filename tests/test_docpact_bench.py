# SPDX-License-Identifier: MIT
"""scripts/bench_checks.py, the check budget: times only runs that pass, against griffe's load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import load_module
from samples.drift import DIVIDE, copy_project, drift

ROOT = Path(__file__).resolve().parents[1]
bench = load_module("bench_checks", ROOT / "scripts" / "bench_checks.py")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture project as the benchmark's root."""
    path = copy_project("contract_project", tmp_path)
    monkeypatch.setattr(bench, "ROOT", path)
    return path


def test_the_reference_loads_the_packages_the_contracts_name_from_their_paths(
    project: Path,
) -> None:
    reference = bench.commands(project)["griffe load"]
    assert reference[:2] == [sys.executable, "-c"]
    assert json.loads(reference[3]) == [str((project / "src").absolute()), str(project.absolute())]
    assert json.loads(reference[4]) == ["ratio"]


def test_the_reference_fails_on_a_package_it_cannot_find(project: Path) -> None:
    """The reference runs griffe for real: a package missing from the paths makes it fail."""
    reference = bench.commands(project)["griffe load"]
    reference[4] = json.dumps(["no_such_package"])
    assert subprocess.run(reference, cwd=project, check=False, capture_output=True).returncode


@pytest.mark.slow
def test_a_passing_check_is_timed_beside_the_budget(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.main(["--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "docpact check:" in out
    assert "griffe load:" in out
    assert f"budget <= {bench.BASELINE * (1 + bench.TOLERANCE):.3f}" in out


@pytest.mark.slow
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


@pytest.mark.slow
def test_root_times_another_project_than_this_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--root` names the project timed: its contracts, and the folder both commands run in."""
    other = copy_project("contract_project", tmp_path)
    drift(other / DIVIDE, "clamp(rollout_token_count *", "clamp(codes.numel() *")
    assert bench.ROOT == ROOT
    assert bench.main(["--rounds", "1", "--root", str(other)]) == 1
    assert capsys.readouterr().err == (
        f"bench_checks: error: `docpact check` exited with status 1 in {other}; "
        "a failing run is not timed\n"
    )


def test_a_project_whose_contracts_name_no_package_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        '[project]\nname = "ratio"\nversion = "0"\n'
        '[[tool.docpact.contract]]\nkind = "config-defaults"\nfile = "c.yaml"\n'
        'docs = ["docs/guide.md#per-rollout-mean-loss"]\n'
    )
    assert bench.main(["--rounds", "1"]) == 1
    assert capsys.readouterr().err == (
        f"bench_checks: error: no contract in {pyproject} names a package, so nothing is "
        "loaded; a failing run is not timed\n"
    )


def test_a_project_with_a_bad_configuration_is_refused_with_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text('[project]\nname = "ratio"\nversion = "0"\n[tool.docpact]\n')
    assert bench.main(["--rounds", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"bench_checks: error: {pyproject}:4: error: tool.docpact.contract ")
    assert err.endswith("; a failing run is not timed\n")


def test_every_scripts_help_prints(capsys) -> None:
    """`--help` of every script prints its options and exits 0 (a bare % in a help broke one)."""
    for script in sorted((ROOT / "scripts").glob("*.py")):
        if "def get_parser" not in script.read_text(encoding="utf-8"):
            continue
        module = load_module(f"help_of_{script.stem}", script)
        with pytest.raises(SystemExit) as exited:
            module.get_parser().parse_args(["--help"])
        assert exited.value.code == 0, script.name
        assert "usage:" in capsys.readouterr().out, script.name
