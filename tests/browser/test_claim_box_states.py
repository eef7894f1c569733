# SPDX-License-Identifier: MIT
"""A claim box's state in Chromium: results present and passing, failing, and absent.

The adopter's fixture project (tests/samples/adopter_project: mkdocs' own theme, no
Material) is made a git checkout and built three times: with a results file that says its
property passed on this commit, one that says it failed (a build without `--strict`, which
still succeeds), and none. Each built page is opened from disk.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from site_urls import CLAIM_BOXES, ROOT

from docpact import load_config
from docpact.claims._analysis import analyse
from docpact.claims._results import encode
from helpers import mkdocs_build

PAGE = "20-trainer-configuration/index.html"


def _git(project: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = ROOT / "tests" / "samples" / "adopter_project"
    project = Path(shutil.copytree(source, tmp_path_factory.mktemp("adopter") / "project"))
    (project / ".gitignore").write_text(".docpact/\n", encoding="utf-8")
    _git(project, "init", "-q")
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "start")
    return project


def _built(project: Path, outcome: str | None, site: Path) -> Path:
    """The site built with a results file saying `outcome` on this commit, or with none."""
    results = project / ".docpact" / "results"
    shutil.rmtree(results, ignore_errors=True)
    if outcome is not None:
        config = load_config(project / "pyproject.toml")
        (contract,) = [c for c in config.contracts if c.kind == "claims"]
        (binding,) = analyse(contract, config).bindings
        entry = {"path": binding.path, "node": binding.node, "claim": binding.claim or ""}
        entry |= {"code": binding.code, "outcome": outcome, "units": {}}
        results.mkdir(parents=True)
        commit = _git(project, "rev-parse", "HEAD")
        (results / "ci.json").write_text(encode("", commit, False, [entry]), encoding="utf-8")
    build = mkdocs_build(project, "--site-dir", str(site), strict=False)
    assert build.returncode == 0, build.stdout
    assert ("DP018" in build.stdout) == (outcome == "failed"), build.stdout
    return site / PAGE


@pytest.mark.parametrize(
    ("outcome", "state", "says", "border"),
    [
        ("passed", "passed", "Passed: ", "rgb(0, 121, 107)"),
        ("failed", "failed", "Failed: ", "rgb(198, 40, 40)"),
        (None, "not-run", "Not run in this build: ", "rgb(96, 125, 139)"),
    ],
    ids=["passing", "failing", "absent"],
)
def test_the_box_shows_the_state_of_its_results(
    browser, project: Path, tmp_path: Path, outcome: str | None, state: str, says: str, border: str
) -> None:
    page_file = _built(project, outcome, tmp_path / "site")
    page = browser.new_page()
    try:
        page.goto(page_file.as_uri())
        (box,) = page.evaluate(CLAIM_BOXES)
    finally:
        page.close()
    assert box["classes"].split() == [
        "admonition",
        "docpact-claim",
        f"docpact-{'unknown' if state == 'not-run' else state}",
    ]
    assert box["state"] == state
    assert box["title"] == "Claim mass-per-rollout"
    assert box["check"].startswith(says)
    assert "test_each_rollout_carries_one_over_the_trained_rows" in box["check"]
    assert box["fontSize"] >= 12.8  # the box's own text size, not smaller
    assert box["fontSize"] == box["textSize"]
    assert box["border"] == border
