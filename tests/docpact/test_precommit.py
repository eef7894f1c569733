# SPDX-License-Identifier: MIT
"""docpact as a pre-commit hook: `pre-commit try-repo` with this repository on a sample project.

pre-commit installs the repository root, docpact's distribution, for the hook; that this
install brings no torch is tests/test_distributions.py's check of the same wheel.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from samples.drift import DISTINCT_ROLLOUTS, DIVIDE, copy_project, drift

pytestmark = pytest.mark.slow  # pre-commit builds the hook's environment with pip

REPO = Path(__file__).resolve().parents[2]


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the module: the hook's environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _try_repo(project: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "docpact", "--all-files"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The fixture project as a git repository of its own, all files added."""
    path = copy_project("contract_project", tmp_path)
    _git(path, "init", "-q")
    _git(path, "add", ".")
    return path


def test_the_hook_passes_a_project_that_keeps_its_contract(project: Path, home: Path) -> None:
    """pre-commit installs this repository's root and runs `docpact check`: it passes."""
    result = _try_repo(project, home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "docpact" in result.stdout
    assert "Passed" in result.stdout


def test_the_hook_fails_on_a_drift_and_prints_the_finding(project: Path, home: Path) -> None:
    """A division that counts distinct rollouts fails the hook with docpact's path:line."""
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    _git(project, "add", ".")
    result = _try_repo(project, home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Failed" in result.stdout
    assert f"{DIVIDE}:" in result.stdout
    assert "DP003 no division in ratio._divide.scale_by_rollout" in result.stdout


def test_the_quickstarts_rev_is_a_commit_of_this_repository_that_defines_the_hook() -> None:
    """The README's pre-commit `rev` names a commit of this history, not a tag none carries."""
    readme = (REPO / "src" / "docpact" / "README.md").read_text(encoding="utf-8")
    [rev] = re.findall(r"^    rev: ([0-9a-f]{40})$", readme, re.MULTILINE)
    hooks = subprocess.run(
        ["git", "show", f"{rev}:.pre-commit-hooks.yaml"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "- id: docpact\n" in hooks
    assert "  entry: docpact check\n" in hooks
