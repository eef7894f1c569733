# SPDX-License-Identifier: MIT
"""scripts/bench_checks.py, the check budget: times only runs that pass, against griffe's load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from docpact import load_config
from helpers import load_module
from samples.drift import DIVIDE, copy_project, drift

ROOT = Path(__file__).resolve().parents[1]
bench = load_module("bench_checks", ROOT / "scripts" / "bench_checks.py")
# The helper the script imports from beside it, as it imported it.
CORE_PYPROJECT = sys.modules["core_contracts"].CORE_PYPROJECT
write_core_pyproject = sys.modules["core_contracts"].write_core_pyproject


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The fixture project, the one project the benchmark times."""
    return copy_project("contract_project", tmp_path)


def test_the_reference_loads_the_packages_the_contracts_name_from_their_paths(
    project: Path,
) -> None:
    reference = bench.commands(project, project / "pyproject.toml")[bench.LOAD]
    assert reference[:2] == [sys.executable, "-c"]
    assert json.loads(reference[3]) == [str((project / "src").absolute()), str(project.absolute())]
    assert json.loads(reference[4]) == ["ratio"]


def test_the_reference_fails_on_a_package_it_cannot_find(project: Path) -> None:
    """The reference runs griffe for real: a package missing from the paths makes it fail."""
    reference = bench.commands(project, project / "pyproject.toml")[bench.LOAD]
    reference[4] = json.dumps(["no_such_package"])
    assert subprocess.run(reference, cwd=project, check=False, capture_output=True).returncode


def test_one_check_timed_leaves_the_claims_contracts_out_and_one_keeps_them(tmp_path: Path) -> None:
    """On the adopter, one check reads the copy without its claims contract, one the whole."""
    adopter = copy_project("adopter_project", tmp_path)
    core = write_core_pyproject(adopter / "pyproject.toml")
    assert core.parent == adopter
    timed = bench.commands(adopter, core)
    assert timed[bench.CHECK][-2:] == ["--pyproject", core.name]
    assert timed[bench.CHECK_ALL][-2:] == ["--pyproject", "pyproject.toml"]
    kinds = [c.kind for c in load_config(adopter / "pyproject.toml").contracts]
    assert "claims" in kinds
    assert [c.kind for c in load_config(core).contracts] == [k for k in kinds if k != "claims"]
    assert json.loads(timed[bench.LOAD][4]) == ["agentrl"]


@pytest.mark.parametrize(
    ("load", "most"),
    [(0.05, 0.15), (0.1999, 0.2999), (0.2, 0.26), (1.0, 1.3)],
)
def test_the_limit_is_a_ratio_or_a_margin_under_200_ms(load: float, most: float) -> None:
    """At most 1.3x griffe's load; where the load takes under 200 ms, at most 100 ms more."""
    assert bench.limit(load) == pytest.approx(most)


def test_limits_are_judged_per_project_and_check_fails_the_one_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each project is judged on its own limit; `--check` exits 1 if one is over, else 0."""
    fast, slow = tmp_path / "fast", tmp_path / "slow"
    timings = {
        fast: {bench.CHECK: 0.25, bench.LOAD: 0.2},
        slow: {bench.CHECK: 0.21, bench.LOAD: 0.1},
    }
    monkeypatch.setattr(bench, "measure", lambda roots, rounds: timings)
    arguments = ["--root", str(fast), "--root", str(slow)]
    assert bench.main(arguments) == 0
    assert bench.main([*arguments, "--check"]) == 1
    out = capsys.readouterr().out
    assert "limit:    260.0 ms (1.3x the load: met)" in out
    assert "limit:    200.0 ms (the load + 100 ms: MISSED)" in out
    timings[slow][bench.CHECK] = 0.2
    assert bench.main([*arguments, "--check"]) == 0
    # The check with the claims contracts is held to the same limit.
    timings[slow][bench.CHECK_ALL] = 0.21
    assert bench.main([*arguments, "--check"]) == 1
    assert "ratio: 2.000, 2.100" in capsys.readouterr().out


@pytest.mark.slow
def test_both_projects_are_timed_in_one_run_beside_their_limits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """By default the run times this repository and the fixture adopter, and leaves no copy."""
    assert bench.main(["--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert f"{bench.ROOT}:\n" in out
    assert f"{bench.ROOT / bench.ADOPTER}:\n" in out
    assert out.count("docpact check:") == 2
    assert out.count("with claims:") == 2
    assert out.count("griffe load:") == 2
    assert not (bench.ROOT / CORE_PYPROJECT).exists()
    assert not (bench.ROOT / bench.ADOPTER / CORE_PYPROJECT).exists()


@pytest.mark.slow
def test_a_check_with_findings_fails_the_benchmark(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drift(project / DIVIDE, "clamp(rollout_token_count *", "clamp(codes.numel() *")
    assert bench.main(["--rounds", "1", "--root", str(project)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"bench_checks: error: `docpact check` exited with status 1 in {project}; "
        "a failing run is not timed\n"
    )
    assert not (project / CORE_PYPROJECT).exists()


def test_a_project_whose_contracts_name_no_package_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        '[project]\nname = "ratio"\nversion = "0"\n'
        '[[tool.docpact.contract]]\nkind = "config-defaults"\nfile = "c.yaml"\n'
        'docs = ["docs/guide.md#per-rollout-mean-loss"]\n'
    )
    assert bench.main(["--rounds", "1", "--root", str(project)]) == 1
    assert capsys.readouterr().err == (
        f"bench_checks: error: no contract in {pyproject} names a package, so nothing is "
        "loaded; a failing run is not timed\n"
    )


def test_a_project_with_a_bad_configuration_is_refused_with_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text('[project]\nname = "ratio"\nversion = "0"\n[tool.docpact]\n')
    assert bench.main(["--rounds", "1", "--root", str(project)]) == 1
    err = capsys.readouterr().err
    core = project / CORE_PYPROJECT
    assert err.startswith(f"bench_checks: error: {core}:4: error: tool.docpact.contract ")
    assert err.endswith("; a failing run is not timed\n")
    assert not core.exists()


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
