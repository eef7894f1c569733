# SPDX-License-Identifier: MIT
"""scripts/mutation_report.py judges mutmut's results: the kill rate and the reviewed survivors."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers import load_module

ROOT = Path(__file__).resolve().parents[1]
report = load_module("mutation_report", ROOT / "scripts" / "mutation_report.py")

RESULTS = """\
    docpact._flow.x_bound__mutmut_1: killed
    docpact._flow.x_bound__mutmut_2: timeout
    docpact._flow.x_bound__mutmut_3: survived
    docpact._trace.x_live__mutmut_1: no tests
    docpact._trace.x_live__mutmut_2: killed
"""


def test_results_lines_give_each_mutant_its_status() -> None:
    """Every `NAME: STATUS` line of a mutant is read; other lines are not."""
    statuses = report.parse_results("Generating mutants\n" + RESULTS)
    assert statuses == {
        "docpact._flow.x_bound__mutmut_1": "killed",
        "docpact._flow.x_bound__mutmut_2": "timeout",
        "docpact._flow.x_bound__mutmut_3": "survived",
        "docpact._trace.x_live__mutmut_1": "no tests",
        "docpact._trace.x_live__mutmut_2": "killed",
    }


def test_timeouts_kill_and_uncovered_mutants_survive() -> None:
    """3 of 5 killed is 60%: a timeout is a kill, a mutant no test covers is a survivor."""
    reviewed = {
        "docpact._flow.x_bound__mutmut_3": "equivalent",
        "docpact._trace.x_live__mutmut_1": "unreachable",
    }
    lines, ok = report.judge(report.parse_results(RESULTS), reviewed, target=60.0)
    assert lines[1].startswith("kill rate: 3 of 5 = 60.0% (target 60%")
    assert (lines[-1], ok) == ("PASS", True)
    lines, ok = report.judge(report.parse_results(RESULTS), reviewed, target=95.0)
    assert (lines[-1], ok) == ("FAIL", False)


def test_an_unreviewed_survivor_and_a_stale_review_each_fail() -> None:
    """A survivor with no reason fails the run, and so does a reason for a mutant now killed."""
    reviewed = {
        "docpact._flow.x_bound__mutmut_3": "equivalent",
        "docpact._trace.x_live__mutmut_2": "was equivalent",
    }
    lines, ok = report.judge(report.parse_results(RESULTS), reviewed, target=0.0)
    assert not ok
    assert (
        "unreviewed survivor (no tests): docpact._trace.x_live__mutmut_1"
        "  (see: mutmut show docpact._trace.x_live__mutmut_1)"
    ) in lines
    assert "stale review: docpact._trace.x_live__mutmut_2 is killed; delete its entry" in lines


def test_a_run_left_unfinished_fails() -> None:
    """Mutants not yet checked fail the judgement rather than count as anything."""
    statuses = {
        "docpact._flow.x_bound__mutmut_1": "killed",
        "docpact._x.x_f__mutmut_1": "not checked",
    }
    lines, ok = report.judge(statuses, {}, target=0.0)
    assert "not run: docpact._x.x_f__mutmut_1" in lines
    assert not ok


def test_a_review_without_a_reason_is_refused(tmp_path: Path) -> None:
    """Every reviewed survivor carries its reason; a blank one is an error naming it."""
    path = tmp_path / "surviving_mutants.toml"
    path.write_text('[survivors]\n"docpact._flow.x_bound__mutmut_3" = " "\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"without a reason: docpact\._flow\.x_bound__mutmut_3"):
        report.load_reviewed(path)


def _fake_mutmut(monkeypatch: pytest.MonkeyPatch, stdout: str, returncode: int = 0) -> None:
    """`mutmut results` answers with this output and status."""

    def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        assert args[1:] == ["-m", "mutmut", "results", "--all", "true"]
        return subprocess.CompletedProcess(args, returncode, stdout, "mutmut broke")

    monkeypatch.setattr(report.subprocess, "run", run)


def test_main_passes_on_reviewed_survivors_and_fails_below_the_target(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 0 when the rate and the reviews hold, 1 when the rate is below the target."""
    reviewed = tmp_path / "surviving_mutants.toml"
    reviewed.write_text(
        '[survivors]\n"docpact._flow.x_bound__mutmut_3" = "equivalent"\n'
        '"docpact._trace.x_live__mutmut_1" = "unreachable"\n',
        encoding="utf-8",
    )
    _fake_mutmut(monkeypatch, RESULTS)
    assert report.main(["--reviewed", str(reviewed), "--target", "60"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "PASS"
    assert report.main(["--reviewed", str(reviewed)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "FAIL"


@pytest.mark.parametrize(
    ("stdout", "returncode", "table", "error"),
    [
        (RESULTS, 1, "[survivors]\n", "mutmut results failed"),
        ("nothing\n", 0, "[survivors]\n", "no mutants found"),
        (RESULTS, 0, "survivors = [1]\n", "[survivors] must be a table"),
        (RESULTS, 0, '[survivors]\n"docpact._x.x_f__mutmut_1" = 0\n', "without a reason"),
        (RESULTS, 0, "[survivors\n", "surviving_mutants.toml"),
    ],
    ids=["mutmut fails", "no mutants", "not a table", "reason not text", "not TOML"],
)
def test_main_exits_2_on_what_it_cannot_judge(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    stdout: str,
    returncode: int,
    table: str,
    error: str,
) -> None:
    """A failed mutmut, no results or a malformed review file is a usage error, with why."""
    reviewed = tmp_path / "surviving_mutants.toml"
    reviewed.write_text(table, encoding="utf-8")
    _fake_mutmut(monkeypatch, stdout, returncode)
    assert report.main(["--reviewed", str(reviewed)]) == 2
    assert error in capsys.readouterr().err


@pytest.mark.parametrize("target", ["-1", "100.5", "nan", "x"])
def test_a_target_outside_0_to_100_is_refused(target: str) -> None:
    """--target takes a percentage."""
    with pytest.raises(SystemExit) as exit_info:
        report.get_parser().parse_args(["--target", target])
    assert exit_info.value.code == 2


def test_a_mutant_that_breaks_collection_counts_as_killed() -> None:
    """Pytest's exit status 2 under a mutant, which mutmut names an interruption, is a kill."""
    statuses = {"docpact._flow.x_bound__mutmut_1": "check was interrupted by user"}
    lines, ok = report.judge(statuses, {}, target=100.0)
    assert lines[1].startswith("kill rate: 1 of 1 = 100.0%")
    assert ok


def test_the_committed_review_file_reads() -> None:
    """tests/docpact/surviving_mutants.toml parses, and gives every survivor a reason."""
    assert all(reason.strip() for reason in report.load_reviewed(report.REVIEWED).values())
