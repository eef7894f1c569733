# SPDX-License-Identifier: MIT
"""docpact's pytest plugin as a user runs it: what `--docpact-results` writes, and when.

Each test runs pytest in its own process on a small project: two properties in two files
with an unbound test between them, a git checkout where the test needs a commit.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from helpers import run_module

pytestmark = pytest.mark.slow

PROJECT = {
    "pyproject.toml": (
        "[tool.pytest.ini_options]\naddopts = ['-p', 'no:cacheprovider']\n\n"
        "[[tool.docpact.contract]]\nkind = 'claims'\npages = ['p.md']\nproperties = ['tests']\n"
    ),
    "p.md": "<!-- docpact: claim p -->\nP.\n\n<!-- docpact: claim q -->\nQ.\n",
    ".gitignore": "out/\n__pycache__/\n",
    "tests/test_a.py": (
        "import os\n\nimport pytest\n\n\n"
        "@pytest.mark.docpact_claim('p')\n"
        "@pytest.mark.parametrize('x', [1, 2, 3])\n"
        "def test_p(x):\n"
        "    if x == 2 and os.environ.get('INTERRUPT'):\n"
        "        raise KeyboardInterrupt\n"
    ),
    "tests/test_b.py": (
        "import os\n\n\ndef test_unbound():\n    assert not os.environ.get('FAIL')\n"
        "    if os.environ.get('CRASH'):\n        os._exit(1)\n"
    ),
    "tests/test_c.py": (
        "import pytest\n\n\n@pytest.mark.docpact_claim('q')\ndef test_q():\n    pass\n"
    ),
}
RESULTS = "out/r.json"


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _git(project: Path, *args: str) -> None:
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args]
    subprocess.run(command, cwd=project, capture_output=True, check=True)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project, committed; plain pytest, not the nox session these tests may run in."""
    for name in ("NOX_CURRENT_SESSION", "INTERRUPT", "FAIL", "CRASH"):
        monkeypatch.delenv(name, raising=False)
    project = _write(tmp_path / "project", PROJECT)
    _git(project, "init", "-q")
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "start")
    return project


def _pytest(project: Path, *args: str, results: str = RESULTS) -> subprocess.CompletedProcess:
    return run_module(project, "pytest", "-q", "--docpact-results", results, *args)


def _outcomes(project: Path) -> dict[str, str]:
    written = json.loads((project / RESULTS).read_text(encoding="utf-8"))
    return {entry["claim"]: entry["outcome"] for entry in written["properties"]}


def _units(project: Path) -> dict[str, dict[str, str]]:
    written = json.loads((project / RESULTS).read_text(encoding="utf-8"))
    return {entry["claim"]: entry["units"] for entry in written["properties"]}


def test_an_unwritable_results_path_is_a_usage_error_before_any_test_runs(project: Path) -> None:
    (project / "blocker").write_text("", encoding="utf-8")
    result = _pytest(project, "tests", results="blocker/r.json")
    assert result.returncode == 4, result.stdout
    assert "ERROR: --docpact-results: cannot write " in result.stdout
    assert "passed" not in result.stdout
    assert "Traceback" not in result.stdout
    result = _pytest(project, "tests", results="tests")
    assert result.returncode == 4, result.stdout
    assert "is a folder; name the JSON file to write" in result.stdout


def test_a_write_that_fails_at_the_end_is_an_error_not_a_traceback(project: Path) -> None:
    """The results folder turned into a file while the tests ran: said, and the run fails."""
    (project / "tests" / "test_d.py").write_text(
        "import shutil\nfrom pathlib import Path\n\n\n"
        "def test_block():\n    shutil.rmtree('out')\n    Path('out').write_text('')\n",
        encoding="utf-8",
    )
    result = _pytest(project, "tests")
    assert result.returncode == 3, result.stdout
    assert f"ERROR: --docpact-results: cannot write {project / RESULTS}: " in result.stdout
    assert "INTERNALERROR" not in result.stdout
    assert "6 passed" in result.stdout


def test_the_results_file_has_the_mode_the_umask_gives(project: Path) -> None:
    umask = os.umask(0o022)
    try:
        assert _pytest(project, "tests").returncode == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE((project / RESULTS).stat().st_mode) == 0o644
    assert [p.name for p in (project / "out").iterdir()] == ["r.json"]  # no temporary left


def test_collect_only_writes_nothing_and_keeps_the_file_there(project: Path) -> None:
    assert _pytest(project, "tests", "--collect-only").returncode == 0
    assert not (project / "out").exists()
    assert _pytest(project, "tests").returncode == 0
    before = (project / RESULTS).read_bytes()
    assert _pytest(project, "tests", "--collect-only").returncode == 0
    assert (project / RESULTS).read_bytes() == before


def test_a_run_stopped_early_records_only_the_properties_it_ran_in_full(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in p's second item: p passed once, q never ran; neither is recorded."""
    monkeypatch.setenv("INTERRUPT", "1")
    result = _pytest(project, "tests")
    assert result.returncode == 2, result.stdout  # pytest's exit status when interrupted
    assert _outcomes(project) == {}
    monkeypatch.delenv("INTERRUPT")
    monkeypatch.setenv("FAIL", "1")
    assert _pytest(project, "tests", "-x").returncode == 1  # stopped before q
    assert _outcomes(project) == {"p": "passed"}


def test_a_partial_run_keeps_what_the_file_said_of_the_same_commit(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _pytest(project, "tests").returncode == 0
    assert _outcomes(project) == {"p": "passed", "q": "passed"}
    units = _units(project)
    assert {claim: list(names) for claim, names in units.items()} == {
        "p": ["tests/test_a.py::test_p"],
        "q": ["tests/test_c.py::test_q"],
    }
    monkeypatch.setenv("INTERRUPT", "1")
    assert _pytest(project, "tests").returncode == 2
    assert _outcomes(project) == {"p": "passed", "q": "passed"}
    monkeypatch.delenv("INTERRUPT")
    assert _pytest(project, "tests/test_c.py").returncode == 0  # a selection
    assert _outcomes(project) == {"p": "passed", "q": "passed"}
    assert _units(project) == units  # what was kept keeps its units
    # On another commit, what the file said is no result of it.
    (project / "p.md").write_text(PROJECT["p.md"] + "\nMore.\n", encoding="utf-8")
    _git(project, "commit", "-q", "-am", "more")
    assert _pytest(project, "tests/test_c.py").returncode == 0
    assert _outcomes(project) == {"q": "passed"}


def test_a_file_of_the_older_format_is_replaced_not_kept(project: Path) -> None:
    """A version 1 file of the same commit records no units: a partial run drops it."""
    assert _pytest(project, "tests").returncode == 0
    written = json.loads((project / RESULTS).read_text(encoding="utf-8"))
    written["docpact_results"] = 1
    for entry in written["properties"]:
        del entry["units"]
    (project / RESULTS).write_text(json.dumps(written), encoding="utf-8")
    assert _pytest(project, "tests/test_c.py").returncode == 0
    assert _outcomes(project) == {"q": "passed"}


def test_an_xdist_worker_that_dies_records_no_passed_property(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the dead worker's properties executed is lost with it: no pass is recorded."""
    monkeypatch.setenv("CRASH", "1")
    result = _pytest(project, "tests", "-n", "2")
    assert result.returncode == 1, result.stdout
    assert "crashed while running 'tests/test_b.py::test_unbound'" in result.stdout
    assert _outcomes(project) == {}


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["in-process", "xdist"])
def test_a_bound_module_that_fails_to_collect_fails_its_property(
    project: Path, workers: tuple[str, ...]
) -> None:
    (project / "tests" / "test_c.py").write_text(
        "import no_such_module\n" + PROJECT["tests/test_c.py"], encoding="utf-8"
    )
    result = _pytest(project, "tests", *workers)
    assert result.returncode in {1, 2}, result.stdout  # xdist runs the others: 1, else 2
    assert _outcomes(project)["q"] == "failed"


def test_a_linked_test_file_is_matched_to_its_binding(project: Path, tmp_path: Path) -> None:
    """The test module is imported through its link, which is the binding's path too."""
    elsewhere = _write(tmp_path / "elsewhere", {"test_real.py": PROJECT["tests/test_c.py"]})
    (project / "tests" / "test_c.py").unlink()
    (project / "tests" / "test_c.py").symlink_to(elsewhere / "test_real.py")
    assert _pytest(project, "tests").returncode == 0
    assert _outcomes(project) == {"p": "passed", "q": "passed"}


def test_a_root_folder_outside_the_project_finds_the_bindings(project: Path) -> None:
    """From the folder above, with `--rootdir` there: node ids start with the project's name."""
    result = run_module(
        project.parent,
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        ".",
        "--docpact-pyproject",
        "project/pyproject.toml",
        "--docpact-results",
        f"project/{RESULTS}",
        "project/tests",
    )
    assert result.returncode == 0, result.stdout
    assert _outcomes(project) == {"p": "passed", "q": "passed"}
