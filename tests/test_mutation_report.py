# SPDX-License-Identifier: MIT
"""scripts/mutation_report.py judges mutmut's results: the kill rate and the reviewed survivors."""

from __future__ import annotations

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
