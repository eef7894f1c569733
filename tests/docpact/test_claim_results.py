# SPDX-License-Identifier: MIT
"""Claim boxes that show real results: pytest writes them, the check and the build read them.

End to end on tests/samples/adopter_project (the package at the root, no noxfile, plain
pytest with its own marker), made a git checkout: `pytest --docpact-results` on xdist
workers writes the bound property's outcome with the commit; the strict build shows it
passed with that commit, fails naming the claim when the property failed, and without
results shows no check mark.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from docpact.claims._ledger import blob_id
from docpact.claims._units import Units
from helpers import mkdocs_build, run_module
from samples.drift import copy_project, drift

pytestmark = pytest.mark.slow

RESULTS = ".docpact/results/ci.json"
PAGE = "docs/20-trainer-configuration.md"
# What the property executes: the loss it checks, and itself.
UNITS = (
    "agentrl/loss.py::per_rollout_mean",
    "tests/test_loss.py::test_each_rollout_carries_one_over_the_trained_rows",
)
BOX = re.compile(r'<div class="admonition (docpact-claim[^"]*)">.*?</div>', re.DOTALL)


def _git(project: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Plain pytest, as the adopter runs it: not the nox session these tests may run in.
    monkeypatch.delenv("NOX_CURRENT_SESSION", raising=False)
    project = copy_project("adopter_project", tmp_path)
    (project / ".gitignore").write_text(".docpact/\n", encoding="utf-8")
    _git(project, "init", "-q")
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "start")
    return project


def _pytest(project: Path) -> subprocess.CompletedProcess[str]:
    """The properties on two xdist workers (the pages' examples share a namespace: not here)."""
    options = ("-q", "-p", "no:cacheprovider", "-n", "2", f"--docpact-results={RESULTS}")
    return run_module(project, "pytest", *options, "tests")


def _box(project: Path) -> tuple[str, str]:
    """The built page's one claim box: its classes and its HTML."""
    html = (project / "site" / "20-trainer-configuration" / "index.html").read_text("utf-8")
    boxes = BOX.findall(html)
    assert len(boxes) == 1, boxes
    return boxes[0], BOX.search(html)[0]


def test_xdist_workers_results_and_units_reach_the_file_with_the_commit(project: Path) -> None:
    result = _pytest(project)
    assert result.returncode == 0, result.stdout
    written = json.loads((project / RESULTS).read_text(encoding="utf-8"))
    assert written == {
        "docpact_results": 2,
        "session": "",
        "commit": _git(project, "rev-parse", "HEAD"),
        "dirty": False,
        "properties": [
            {
                "path": "tests/test_loss.py",
                "node": "test_each_rollout_carries_one_over_the_trained_rows",
                "claim": "mass-per-rollout",
                "code": "f0a5a7b1ea4a",
                "outcome": "passed",
                "blob": blob_id((project / "tests/test_loss.py").read_bytes()),
                "units": {name: Units(project).get(name).fingerprint for name in UNITS},
            }
        ],
        "files": {
            path: blob_id((project / path).read_bytes())
            for path in ("agentrl/loss.py", "tests/test_loss.py")
        },
    }


def test_passed_results_show_passed_with_the_commit_and_a_tick(project: Path) -> None:
    assert _pytest(project).returncode == 0
    build = mkdocs_build(project)
    assert build.returncode == 0, build.stdout
    classes, box = _box(project)
    assert classes == "docpact-claim docpact-passed"
    commit = _git(project, "rev-parse", "HEAD")[:12]
    assert "Passed: <code>test_each_rollout_carries_one_over_the_trained_rows</code>" in box
    assert f"run by pytest on commit <code>{commit}</code>." in box
    assert 'data-state="passed"' in box


def test_a_failed_property_fails_the_check_and_the_strict_build_naming_the_claim(
    project: Path,
) -> None:
    drift(project / "agentrl/loss.py", "[advantage / divisor", "[2 * advantage / divisor")
    _git(project, "commit", "-q", "-am", "a wrong loss")
    assert _pytest(project).returncode == 1
    line = (project / PAGE).read_text(encoding="utf-8").splitlines().index(
        "<!-- docpact: claim mass-per-rollout -->"
    ) + 1
    expected = (
        f"{PAGE}:{line}: DP018 claim mass-per-rollout: its property "
        "test_each_rollout_carries_one_over_the_trained_rows (tests/test_loss.py:9) failed "
        f"on this commit in {RESULTS}"
    )
    check = run_module(project, "docpact", "check")
    assert (check.returncode, check.stdout.splitlines()[0][: len(expected)]) == (1, expected)
    build = mkdocs_build(project)
    assert build.returncode == 1
    assert expected in build.stdout
    # Without --strict the site builds, and the box says what failed, with no tick.
    assert mkdocs_build(project, strict=False).returncode == 0
    classes, box = _box(project)
    assert classes == "docpact-claim docpact-failed"
    assert "Failed: <code>test_each_rollout" in box


def test_without_results_no_box_shows_a_tick(project: Path) -> None:
    build = mkdocs_build(project)
    assert build.returncode == 0, build.stdout
    classes, box = _box(project)
    assert classes == "docpact-claim docpact-unknown"
    assert "Not run in this build:" in box
    assert "pytest tests/test_loss.py::test_each_rollout" in box
    assert "passed" not in box.lower()


def test_results_of_another_commit_say_not_run_on_this_commit(project: Path) -> None:
    assert _pytest(project).returncode == 0
    ran_on = _git(project, "rev-parse", "HEAD")[:12]
    drift(project / "docs/00-index.md", "documented next to", "documented beside")
    _git(project, "commit", "-q", "-am", "another commit")
    assert mkdocs_build(project).returncode == 0
    classes, box = _box(project)
    assert classes == "docpact-claim docpact-unknown"
    assert "Not run on this commit:" in box
    assert f"it last ran in pytest on commit <code>{ran_on}</code>." in box


def test_a_results_file_that_is_not_one_is_a_finding_at_its_path(project: Path) -> None:
    (project / RESULTS).parent.mkdir(parents=True)
    (project / RESULTS).write_text('{"docpact_results": 2, "session": 5}', encoding="utf-8")
    check = run_module(project, "docpact", "check")
    assert check.returncode == 1
    assert check.stdout.startswith(
        f"{RESULTS}:1: DP018 {RESULTS} is not a docpact results file: session must be a string"
    )


HYPOTHESIS_PROPERTY = '''\
# SPDX-License-Identifier: MIT
"""The adopter's property, over random row counts."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentrl.loss import per_rollout_mean


@pytest.mark.docpact_claim("mass-per-rollout")
@given(rows=st.integers(1, 5))
def test_each_rollout_carries_one_over_the_trained_rows(rows):
    scaled = per_rollout_mean([1.0] * rows, ["a"] * rows, [1] * rows, num_trained_rows=rows)
    assert sum(scaled) == pytest.approx(1 / rows)
'''


def test_a_failed_propertys_falsifying_example_is_in_the_finding_and_the_box(
    project: Path,
) -> None:
    """Hypothesis's shrunk input, as it prints it, ready to paste into a doctest."""
    (project / "tests/test_loss.py").write_text(HYPOTHESIS_PROPERTY, encoding="utf-8")
    (project / "pyproject.toml").write_text(
        (project / "pyproject.toml")
        .read_text(encoding="utf-8")
        .replace("[tool.docpact]", "[tool.ruff]\nline-length = 100\n\n[tool.docpact]"),
        encoding="utf-8",
    )
    drift(project / "agentrl/loss.py", "[advantage / divisor", "[2 * advantage / divisor")
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "a wrong loss, a random property")
    assert _pytest(project).returncode == 1
    written = json.loads((project / RESULTS).read_text(encoding="utf-8"))
    example = written["properties"][0]["counterexample"]
    # Every input fails against this loss: Hypothesis says so beside the shrunk one.
    assert example == (
        "Failing test case: test_each_rollout_carries_one_over_the_trained_rows(\n"
        "    rows=1,  # or any other generated value\n"
        ")"
    )
    check = run_module(project, "docpact", "check")
    assert check.returncode == 1
    (dp018,) = [line for line in check.stdout.splitlines() if " DP018 " in line]
    assert dp018.endswith(
        "; Failing test case: test_each_rollout_carries_one_over_the_trained_rows( rows=1, "
        "# or any other generated value )"
    )
    assert mkdocs_build(project, strict=False).returncode == 0
    _, box = _box(project)
    assert "Failing test case: test_each_rollout_carries_one_over_the_trained_rows(\n" in box
    assert "    rows=1,  # or any other generated value\n)" in box
