# SPDX-License-Identifier: MIT
"""The docpact cases' generator: valid projects as drawn, every mutation made, cases kept.

These run docpact in this process, on a few drawn projects; the fuzzing itself, which runs
every case in a child, is ``nox -s fuzz -- --target docpact`` (fuzz.py). The kept
reproducers and a bounded, seeded slice of cases run each command in a child, as the
fuzzing does, and each answer is checked as the fuzzing checks it: anchors against
Python-Markdown's ids, equal settings equal, a wrong key refused, every rewritten file parses.
"""

from __future__ import annotations

import contextlib
import copy
import io
import random
import re
import sys
import tempfile
import time
from pathlib import Path

import pytest
from docpact_grammar import projects
from docpact_mutations import DATA, DEEP, FILES, HUGE, LONG, MUTATIONS, PYTHON_DEEP
from fuzz_docpact import Case, _anchors, cases, check, label, write
from fuzz_runner import Result, classify, run
from hypothesis import HealthCheck, Phase, find, given, seed, settings
from hypothesis import strategies as st

from docpact._cli import main
from fuzz import _kind

# Seconds of generated projects: the drift runner's repeated runs leave them out.
pytestmark = pytest.mark.slow

FEW = settings(
    max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
# A search for one case of a kind: generated, not shrunk.
_FIND = settings(max_examples=2000, database=None, phases=[Phase.generate])


def _docpact(folder: Path, args: list[str]) -> tuple[int, str]:
    """Run the docpact command line in ``folder``, in this process: its status and output."""
    out = io.StringIO()
    with contextlib.chdir(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = main(args)
    return status, out.getvalue()


@seed(22)
@FEW
@given(case=cases(mutate=False))
def test_a_project_as_drawn_passes_docpact_check_and_claims(case):
    """Every contract of a drawn project holds, and every claim is bound and reviewed."""
    assert case.expect == ["clean"]
    with tempfile.TemporaryDirectory() as folder:
        write(case, Path(folder))
        assert _docpact(Path(folder), ["check"]) == (0, "")
        status, output = _docpact(Path(folder), ["claims"])
        assert status == 0, output
        lines = output.splitlines()
        assert lines, output
        # a claim "ID: reviewed: its property", a suppression 'not-a-claim "REASON": reviewed'
        assert all(
            re.fullmatch(r'\S+: (\S+: reviewed: .+|not-a-claim ".+": reviewed)', line)
            for line in lines
        ), output


@seed(22)
@FEW
@given(case=cases(mutate=False))
def test_a_project_as_drawn_lists_anchors_that_mkdocs_gives(case):
    """The anchors a drawn project's contracts list are ids of the pages MkDocs renders."""
    with tempfile.TemporaryDirectory() as folder:
        write(case, Path(folder))
        assert _anchors(Path(folder), "") == ""


# What each mutation leaves in a project's files, besides changing them.
MARKS = {
    "bom": lambda files, special: any(text.startswith("\ufeff") for text in files.values()),
    "long-name": lambda files, special: any(LONG in text for text in files.values()),
    "nan": lambda files, special: all(
        ".nan" in files[p] for p in files if p.endswith(("defaults.yaml", "guide.md"))
    ),
    "special-file": lambda files, special: (
        set(special.values()) <= {"fifo", "folder"} and len(special) == 1
    ),
    "paren-args": lambda files, special: '(("' in files["tests/test_props.py"],
    "huge-int": lambda files, special: any(HUGE in text for text in files.values()),
    "deep": lambda files, special: any(
        "[" * DEEP in text or any(deep in text for deep in PYTHON_DEEP) for text in files.values()
    ),
    "quadratic": lambda files, special: len(files["docs/guide.md"]) > 2_000,
}


@pytest.mark.parametrize("mutation", MUTATIONS)
@seed(22)
@FEW
@given(data=st.data())
def test_each_mutation_changes_a_drawn_project(mutation, data):
    """Each class of mutation changes every project it is given, and leaves its mark."""
    project = copy.deepcopy(data.draw(projects()))
    rnd = random.Random(data.draw(st.integers(0, 2**64 - 1)))
    before = project.files()
    files, special = before, {}
    if mutation in DATA and (mutation not in FILES or data.draw(st.booleans())):
        assert DATA[mutation](data.draw, rnd, project) is not None
        files = project.files()
    else:
        files = dict(before)
        assert FILES[mutation](data.draw, rnd, files, special, project)
    assert (files, special) != (before, {})
    assert MARKS.get(mutation, lambda files, special: True)(files, special)


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_the_cases_undergo_every_mutation(mutation):
    """The cases the fuzzer draws reach every class of mutation, never expected clean."""
    case = find(
        cases(),
        lambda case: mutation in case.mutations,
        settings=_FIND,
    )
    assert case.expect != ["clean"]


def test_a_wrong_key_is_expected_refused_and_a_nan_equal():
    """A case whose key is misspelt must end in a configuration error; a .nan, no DP007."""
    refused = find(cases(), lambda c: c.mutations == ["misspelt-key"], settings=_FIND)
    assert "refused" in refused.expect
    equal = find(cases(), lambda c: c.mutations == ["nan"], settings=_FIND)
    assert "equal" in equal.expect


@seed(31)
@FEW
@given(case=cases())
def test_an_expectation_stands_unless_a_file_mutation_came_after_it(case):
    """A refusal or equal defaults is expected of a data mutation, unless a file one undid it."""
    for mutation, expected in (("misspelt-key", "refused"), ("nan", "equal")):
        if mutation in case.mutations and expected not in case.expect:
            assert any(m in FILES and m not in DATA for m in case.mutations) or (
                set(case.mutations) & set(FILES) & set(DATA)
            ), case.mutations


@seed(22)
@FEW
@given(case=cases())
def test_a_case_reads_back_from_its_reproducer_file(case):
    """A case written as a reproducer reads back the same, bytes not UTF-8 included."""
    assert Case.from_json(case.to_json()) == case


def test_a_case_is_counted_under_its_command():
    """The counts name the command a case runs, without its package argument."""
    assert [label(Case(args, {})) for args in (["coverage", "pkg"], ["claims", "--update"])] == [
        "coverage",
        "claims --update",
    ]


@pytest.mark.parametrize(
    ("status", "stdout", "stderr", "outcome"),
    [
        (1, "docs/guide.md:4: DP005 docs/guide.md has no heading\n", "", "finding"),
        (
            1,
            "coverage: 1 of 2 public objects have an executed example (50.0%)\n",
            "",
            "unlocated error",
        ),
        (1, "docs/guide.md:4: DP005 x\n", "docpact: error\n", "unlocated error"),
        (1, "elsewhere.md:4: DP005 x\n", "", "unlocated error"),
        (2, "", "pyproject.toml:7: error: tool.docpact.paths must be a list\n", "usage error"),
        (2, "", "mkdocs.yml: error: is not valid YAML\n", "usage error"),
        (
            2,
            "",
            "/tmp/x/docs/guide.md:13: docpact: config-defaults must be followed\n",
            "unlocated error",
        ),
    ],
)
def test_a_finding_is_exit_1_with_a_located_line_on_stdout(status, stdout, stderr, outcome):
    """A finding of docpact is exit 1 and a path:LINE line naming a file of the project."""
    paths = ["pyproject.toml", "mkdocs.yml", "docs/guide.md"]
    assert classify(status, stderr, paths, "docpact", stdout) == outcome


TRACEBACK = """Traceback (most recent call last):
  File "/w/src/docpact/_cli.py", line 198, in main
    return run(options, load_config(pyproject, contracts=contracts))
  File "/w/src/docpact/_readers/mkdocs_yml.py", line 70, in headings
    name, config = (entry, {}) if isinstance(entry, str) else next(iter(entry.items()))
                                                              ^^^^^^^^^^
  File "/usr/lib/python3.11/re.py", line 5, in sub
AttributeError: 'int' object has no attribute 'items'
"""
STACK = """Current thread 0x00007f (most recent call first):
  File "/usr/lib/python3.11/pathlib.py", line 1058 in read_text
  File "/w/src/docpact/_kinds/docs.py", line 33 in _pages
  File "/w/src/docpact/_cli.py", line 198 in main
"""


@pytest.mark.parametrize(
    ("result", "kind"),
    [
        (Result("traceback", 1, "", TRACEBACK, 0.1), "AttributeError in mkdocs_yml.py headings"),
        (Result("hang", None, "", STACK, 8.0), "hang in docs.py _pages"),
        (
            Result("wrong answer", 0, "", "", 0.1, "anchors after bom: the site has #x"),
            "anchors after bom",
        ),
        (Result("signal", -11, "", "", 0.1), "signal 11"),
    ],
)
def test_a_defect_is_kept_once_per_kind_and_place(result, kind):
    """A defect's kind names its exception or hang and the innermost frame of the sources."""
    assert _kind(result) == kind


def recursion_limit(args: list[str]) -> int:
    """A command that prints the recursion limit it runs under."""
    print(sys.getrecursionlimit())
    return 0


def sleep_forever(args: list[str]) -> int:
    """A command that never ends."""
    while True:
        time.sleep(1)


@pytest.mark.slow
@settings(FEW, max_examples=1)
@given(name=st.just("child"))
def test_a_forked_child_has_pythons_own_recursion_limit(name, tmp_path_factory):
    """Not the one hypothesis raises while a test runs: deep nesting fails as for a user."""
    folder = tmp_path_factory.mktemp(name)
    assert sys.getrecursionlimit() > 1000
    result = run(f"{__name__}:recursion_limit", [], cwd=folder, paths=[], prog="x", timeout=20)
    assert (result.outcome, result.stdout) == ("ok", "1000\n")


@pytest.mark.slow
def test_a_hang_is_kept_with_the_place_it_waits(tmp_path):
    """At its timeout the child writes its stack, then is killed: the kind names the frame."""
    result = run(f"{__name__}:sleep_forever", [], cwd=tmp_path, paths=[], prog="x", timeout=2)
    assert (result.outcome, _kind(result)) == ("hang", "hang in test_fuzz_docpact.py sleep_forever")


REPRODUCERS = sorted((Path(__file__).parent / "reproducers" / "docpact").glob("*.json"))
PROMISED = {"ok", "finding", "usage error"}


@pytest.mark.parametrize("path", REPRODUCERS, ids=[path.stem for path in REPRODUCERS])
def test_a_kept_reproducer_ends_as_promised_with_the_right_answer(path, tmp_path):
    """Each defect once found, shrunk and kept, now ends as promised, with the right answer.

    Promised: clean, findings, or one located usage error; right: the fuzzer's checks of
    anchors, keys and values.
    """
    result = check(Case.from_json(path.read_text("utf-8")), tmp_path)
    assert result.outcome in PROMISED, result


@seed(22)
@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(case=cases())
def test_a_seeded_slice_of_cases_finds_no_defect(case, tmp_path_factory):
    """Generated and mutated projects end as promised, with right answers, in a child each."""
    result = check(case, tmp_path_factory.mktemp("case"))
    assert result.outcome in PROMISED, (result, case)


def test_there_are_reproducers_to_replay():
    """The reproducers folder holds the defects found on the commit before the fixes."""
    assert len(REPRODUCERS) >= 30
