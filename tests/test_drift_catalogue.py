# SPDX-License-Identifier: MIT
"""The drift catalogue stays applicable to the tree, and the docs quote its size."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from helpers import load_module
from samples.drift import copy_project, line_of
from samples.drift import drift as change

ROOT = Path(__file__).resolve().parents[1]
drift = load_module("drift", ROOT / "scripts" / "drift.py")

DRIFTS = drift.load_catalogue(drift.CATALOGUE)


REQUIRED = {
    "operand dropped from the docstring",
    "operand dropped from the docs section",
    "parameter num_trained_rows renamed in code only",
    "divisor counts distinct rollouts instead of trained rows",
    "divisor uses the row's own tokens, not the rollout's",
    "max(1, ...) guard removed",
    "mini-batch floor removed from retention",
    "max_ppo_update_times cap ignored",
    "printed number changed in a docs example",
    "default changed in config.yaml only",
    "default changed in the docs YAML block only",
}


def test_catalogue_covers_the_required_drifts():
    """The catalogue holds, under unique names, every drift the project promises to catch."""
    names = [entry.name for entry in DRIFTS]
    assert len(set(names)) == len(names)
    assert set(names) >= REQUIRED


@pytest.mark.parametrize("entry", DRIFTS, ids=[entry.name for entry in DRIFTS])
def test_every_edit_still_applies_once(entry, tmp_path):
    """Each find text occurs once and each file to create is new: the drift applies today."""
    for edit in entry.edits:
        if "create" in edit:
            assert not (ROOT / edit["file"]).exists(), edit["file"]
            continue
        target = tmp_path / edit["file"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((ROOT / edit["file"]).read_text("utf-8"), "utf-8")
    drift.apply(entry, tmp_path)
    for edit in entry.edits:
        wanted = edit["create"] if "create" in edit else edit["replace"]
        assert wanted in (tmp_path / edit["file"]).read_text("utf-8")


def test_docs_quote_the_catalogue_size():
    """docs/verification.md states the number of catalogued drifts that the runner wrote."""
    text = drift.VERIFICATION_PAGE.read_text("utf-8")
    sentence = drift.KILL_SENTENCE.search(text)
    assert sentence is not None
    total, killed = re.search(r"holds (\d+) drifts.* caught (\d+) of them", sentence[0]).groups()
    assert int(total) == len(DRIFTS)
    assert int(killed) == len(DRIFTS)


def test_malformed_catalogue_is_a_usage_error(tmp_path, capsys):
    """A catalogue entry naming an unknown check exits 2 with one error line."""
    bad = tmp_path / "catalogue.toml"
    bad.write_text(
        '[[drift]]\nname = "x"\nexpect = ["nope"]\n'
        'edits = [{file = "a", find = "b", replace = "c"}]\n'
    )
    assert drift.main(["--catalogue", str(bad)]) == 2
    assert capsys.readouterr().err.startswith("drift: error: ")


def test_no_jobs_is_a_usage_error(capsys):
    """`--jobs 0` exits 2 naming the option, before any copy is made."""
    assert drift.main(["--jobs", "0"]) == 2
    assert capsys.readouterr().err == "drift: error: --jobs must be 1 or more, got 0\n"


def test_a_drift_in_a_fixture_expects_only_the_checks_run_there(tmp_path, capsys):
    """A `root` drift is checked by docpact and both strict builds only: others exit 2."""
    bad = tmp_path / "catalogue.toml"
    bad.write_text(
        '[[drift]]\nname = "x"\nroot = "tests/samples/adopter_project"\n'
        'expect = ["unit-tests"]\nedits = [{file = "a", find = "b", replace = "c"}]\n'
    )
    assert drift.main(["--catalogue", str(bad)]) == 2
    assert capsys.readouterr().err == (
        f"drift: error: {bad}: drift 1 in root 'tests/samples/adopter_project' can expect "
        "only ['docpact', 'docpact-core', 'mkdocs', 'mkdocs-quiet']\n"
    )


def test_a_fixture_drift_names_its_files_from_the_repository():
    [entry] = [d for d in DRIFTS if d.name == "adopter: a claim reworded"]
    assert entry.root == "tests/samples/adopter_project"
    assert [edit["file"] for edit in entry.edits] == [
        "tests/samples/adopter_project/docs/20-trainer-configuration.md"
    ]


def _catalogue(tmp_path: Path, entry: str) -> Path:
    path = tmp_path / "catalogue.toml"
    path.write_text(
        f'[[drift]]\nname = "x"\n{entry}\nedits = [{{file = "a", find = "b", replace = "c"}}]\n'
    )
    return path


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        (
            'expect = ["mkdocs", "docpact-core"]',
            'drift 1 expects docpact-core and needs at = "path:line", the finding it makes, '
            "got ''",
        ),
        (
            'expect = ["docpact"]\nat = "docs/index.md"',
            'drift 1 expects docpact and needs at = "path:line", the finding it makes, '
            "got 'docs/index.md'",
        ),
        (
            'expect = ["unit-tests"]\nat = "docs/index.md:3"',
            "drift 1 has an `at` but expects none of ['docpact', 'docpact-core']",
        ),
    ],
    ids=["missing", "no line", "nothing to locate"],
)
def test_a_drift_caught_by_docpact_names_where(tmp_path, capsys, entry, error):
    """A drift expecting docpact needs `at = "path:line"`; one expecting no docpact has none."""
    bad = _catalogue(tmp_path, entry)
    assert drift.main(["--catalogue", str(bad)]) == 2
    assert capsys.readouterr().err == f"drift: error: {bad}: {error}\n"


@pytest.mark.parametrize(
    "entry",
    [entry for entry in DRIFTS if entry.at],
    ids=[entry.name for entry in DRIFTS if entry.at],
)
def test_every_at_names_a_line_of_the_drifted_tree(entry, tmp_path):
    """Each `at` names a line of a file of the drifted tree, relative to the drift's root."""
    for edit in entry.edits:
        if "create" in edit:
            continue
        target = tmp_path / edit["file"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((ROOT / edit["file"]).read_text("utf-8"), "utf-8")
    drift.apply(entry, tmp_path)
    path, line = entry.at.rsplit(":", 1)
    edited = tmp_path / entry.root / path
    text = (edited if edited.exists() else ROOT / entry.root / path).read_text("utf-8")
    assert 1 <= int(line) <= len(text.splitlines())


def test_a_drift_copy_runs_its_expected_checks_and_the_quick_ones():
    """Long checks a drift does not expect run only with --all-checks.

    The clean copy runs every check but the test suites.
    """
    [entry] = [d for d in DRIFTS if d.name == "default changed in the docs YAML block only"]
    assert drift.plan(entry, ("properties",)) == [
        "docpact",
        "docpact-core",
        "docs-examples",
        "mkdocs",
    ]
    assert drift.plan(entry, ("properties",), all_checks=True) == [
        "docpact",
        "docpact-core",
        "docs-examples",
        "unit-tests",
        "mkdocs",
    ]
    # The test suites run on the clean copy only as baselines: what failed on a drift.
    assert drift.plan(None, ("properties",)) == [
        "docpact",
        "docpact-core",
        "mkdocs",
        "properties",
    ]
    fixture = next(d for d in DRIFTS if d.root)
    assert drift.plan(fixture, ()) == ["docpact", "docpact-core", "mkdocs", "mkdocs-quiet"]


@pytest.fixture
def adopter(tmp_path: Path) -> Path:
    """A copy of the fixture adopter with a claim reworded, as its catalogue drift does."""
    project = copy_project("adopter_project", tmp_path)
    page = project / "docs" / "20-trainer-configuration.md"
    change(page, "a share of 1 / num_trained_rows", "a share of 1 / all")
    return project


def test_docpact_catches_only_with_a_finding_at_the_line_named(adopter):
    """A finding at `at` is the evidence; findings elsewhere only are no catch, and say so."""
    page = "docs/20-trainer-configuration.md"
    line = line_of(adopter / page, "<!-- docpact: claim mass-per-rollout -->")
    caught = drift.run_check(adopter, "docpact", at=f"{page}:{line}")
    assert caught.caught
    assert caught.evidence.startswith(f"{page}:{line}: DP015 claim mass-per-rollout changed since")
    elsewhere = drift.run_check(adopter, "docpact", at=f"{page}:{line - 1}")
    assert not elsewhere.caught
    assert elsewhere.evidence.startswith(
        f"NO FINDING AT {page}:{line - 1}; it reported: {page}:{line}: DP015 "
    )


def test_docpact_core_leaves_the_claims_contracts_out(adopter):
    """A reworded claim fails `docpact check` but not the core contract judged alone."""
    assert drift.run_check(adopter, "docpact").caught
    core = drift.run_check(adopter, "docpact-core")
    assert (core.caught, core.evidence) == (False, "")
    assert (adopter / drift.CORE_PYPROJECT).is_file()
    loss = adopter / "agentrl" / "loss.py"
    change(loss, "rollout_token_counts[rid] * num_trained_rows", "num_trained_rows")
    at = f"agentrl/loss.py:{line_of(loss, 'return [advantage / divisor')}"
    assert drift.run_check(adopter, "docpact-core", at=at).evidence.startswith(f"{at}: DP003 ")


def test_only_an_unknown_drift_is_a_usage_error(capsys):
    """`--only` naming no drift of the catalogue exits 2 naming it, before any copy is made."""
    assert drift.main(["--only", "no such drift"]) == 2
    assert capsys.readouterr().err == (
        "drift: error: --only names no drift of the catalogue: 'no such drift'\n"
    )


def test_only_cannot_rewrite_the_docs_count(capsys):
    """`--only` with `--update-docs` exits 2: the count on the page is the whole catalogue's."""
    assert drift.main(["--only", "adopter: a claim reworded", "--update-docs"]) == 2
    assert "cannot go with --only" in capsys.readouterr().err


@pytest.mark.slow
def test_only_runs_one_drift_and_not_the_clean_copy(capsys):
    """`--only NAME` runs that drift's checks alone, and says the clean copy was not run."""
    [entry] = [d for d in DRIFTS if d.name == "adopter: a claim reworded"]
    assert drift.main(["--only", entry.name]) == 0
    out = capsys.readouterr().out
    assert "(no drift)" not in out
    assert f"{entry.name} / docpact: {entry.at}: DP015 claim mass-per-rollout changed" in out
    assert "1 of 1 drifts caught; the clean copy not run (--only)" in out


def test_a_failed_tests_id_is_its_evidence_not_a_finding_it_logged():
    """The FAILED line of pytest is the evidence, even after a finding the test logged."""
    output = (
        "WARNING  docpact:command.py:176 docs/a.md:3: DP019 claim x is suspect\n"
        "FAILED tests/test_a.py::test_b - AssertionError\n1 failed in 2s\n"
    )
    assert drift.evidence(output) == "FAILED tests/test_a.py::test_b - AssertionError"
    assert drift.evidence("docs/a.md:3: DP004 section\n") == "docs/a.md:3: DP004 section"


def test_the_clean_copy_runs_again_each_test_and_page_that_caught_a_drift():
    """A test id is its own baseline, an example its page; a suite naming none runs whole."""
    outcomes = [
        drift.Outcome(
            "unit-tests", True, "FAILED tests/a.py::test_x - Assert", 1, failed="tests/a.py::test_x"
        ),
        drift.Outcome("unit-tests", True, "", 1, failed="tests/a.py::test_x"),
        drift.Outcome("docs-examples", True, "", 1, failed="docs/explain.md::line:75,column:1"),
        drift.Outcome("docs-examples", True, "", 1, failed="docs/verl.md::line:3,column:1"),
        drift.Outcome("verl", True, "ERROR collecting tests/x.py", 1),
        drift.Outcome("unit-tests", False, "", 1),
        drift.Outcome("docpact", True, "x.py:1: DP001 gone", 1),
    ]
    assert drift.baselines(outcomes) == [
        ("verl", ()),
        ("docs-examples", ("docs/explain.md", "docs/verl.md")),
        ("unit-tests", ("tests/a.py::test_x",)),
    ]


@pytest.mark.parametrize(
    ("summary", "node"),
    [
        ("FAILED tests/test_a.py::test_" + "x" * 200 + " - AssertionError", "x" * 200),
        ("FAILED tests/test_a.py::test_x[check's findings] - assert 1", "x"),
        ("FAILED tests/test_a.py::test_x[a - b]", "x"),
        ("FAILED tests/test_a.py::test_x[2-floor] - AssertionError", "x[2-floor]"),
        ("FAILED tests/test_a.py::test_x", "x"),
    ],
)
def test_a_failed_tests_id_is_read_whole_from_the_summary(tmp_path, monkeypatch, summary, node):
    """The id a baseline runs: the summary's, not the evidence cut to 160 characters.

    Its parameters are kept when they read unbroken, else left out; a FAILED line printed
    before the summary (a test's own pytest run) is not read.
    """
    printed = "FAILED tests/inner.py::test_printed - by a test\n"
    output = f"{printed}=== short test summary info ===\n{summary}\n=== 1 failed ===\n"
    done = subprocess.CompletedProcess([], 1, output.encode(), b"")
    monkeypatch.setattr(drift.subprocess, "run", lambda *args, **kwargs: done)
    outcome = drift.run_check(tmp_path, "unit-tests")
    assert (outcome.caught, outcome.failed) == (True, f"tests/test_a.py::test_{node}")
