# SPDX-License-Identifier: MIT
"""The fuzzing harness: its classes of outcome, a seeded slice of cases, the kept reproducers.

The slice and the reproducers run the command in child processes (``slow``); ``nox -s fuzz``
runs the same harness for as long as it is given (fuzz.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_explain import Case, cases, check
from fuzz_runner import classify, run
from hypothesis import HealthCheck, given, seed, settings

REPRODUCERS = sorted((Path(__file__).parent / "reproducers" / "explain").glob("*.json"))
PROG = "rolloutnorm explain"


@pytest.mark.parametrize(
    ("status", "stderr", "outcome"),
    [
        (0, "", "ok"),
        (2, "batch.jsonl:3: a row must be a JSON object, got null\n", "usage error"),
        (2, "batch.pt: rollout_ids is missing\n", "usage error"),
        (
            2,
            "usage: rolloutnorm explain ...\nrolloutnorm explain: error: argument --set: x\n",
            "usage error",
        ),
        (2, "other.jsonl:3: a line naming a file not given\n", "unlocated error"),
        (2, "batch.jsonl:1: two lines\nbatch.jsonl:2: of errors\n", "unlocated error"),
        (1, "Traceback (most recent call last):\n  ...\nRecursionError\n", "traceback"),
        (-11, "", "signal"),
        (None, "", "hang"),
    ],
)
def test_each_end_of_a_command_has_its_class(status, stderr, outcome):
    """A located line with exit 2 is a usage error; a traceback, signal or timeout a defect."""
    assert classify(status, stderr, ["batch.jsonl", "batch.pt"], PROG) == outcome


def run_code(args: list[str]) -> int:
    """A command whose one argument is Python code to run: a child to crash or hang."""
    exec(args[0])
    return 0


@pytest.mark.slow
def test_a_child_that_crashes_or_hangs_is_classified_not_fatal(tmp_path):
    """A segfault, an endless loop and an exception in the child end only the child."""
    cases_ = {
        "signal": "import ctypes; ctypes.string_at(0)",
        "hang": "while True: pass",
        "traceback": "raise RecursionError",
    }
    for outcome, code in cases_.items():
        result = run("test_fuzz:run_code", [code], cwd=tmp_path, paths=[], prog=PROG, timeout=3)
        assert result.outcome == outcome, result


@pytest.mark.slow
@seed(22)
@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(case=cases())
def test_a_seeded_slice_of_cases_finds_no_defect(case, tmp_path_factory):
    """Generated and mutated batches, configs and settings end ok or in one located line."""
    result = check(case, tmp_path_factory.mktemp("case"))
    assert result.outcome in {"ok", "usage error"}, (result, case)


@pytest.mark.slow
@pytest.mark.parametrize("path", REPRODUCERS, ids=[path.stem for path in REPRODUCERS])
def test_a_kept_reproducer_ends_in_a_located_line_or_ok(path, tmp_path):
    """Each defect the harness once found, shrunk and kept, now ends ok or in a located line."""
    result = check(Case.from_json(path.read_text("utf-8")), tmp_path)
    assert result.outcome in {"ok", "usage error"}, result
    if result.outcome == "usage error":
        assert result.stderr.count("\n") == 1 or "error: argument" in result.stderr


def test_there_are_reproducers_to_replay():
    """The reproducers folder holds the defects found on the commit before the fixes."""
    assert len(REPRODUCERS) >= 3
