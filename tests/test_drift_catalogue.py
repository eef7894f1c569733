# SPDX-License-Identifier: MIT
"""The drift catalogue stays applicable to the tree, and the docs quote its size."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import load_module

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
    """Each drift's find text occurs exactly once, so the runner can apply it to today's tree."""
    for edit in entry.edits:
        target = tmp_path / edit["file"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((ROOT / edit["file"]).read_text("utf-8"), "utf-8")
    drift.apply(entry, tmp_path)
    for edit in entry.edits:
        assert edit["replace"] in (tmp_path / edit["file"]).read_text("utf-8")


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
        "only ['docpact', 'mkdocs', 'mkdocs-quiet']\n"
    )


def test_a_fixture_drift_names_its_files_from_the_repository():
    [entry] = [d for d in DRIFTS if d.name == "adopter: a claim reworded"]
    assert entry.root == "tests/samples/adopter_project"
    assert [edit["file"] for edit in entry.edits] == [
        "tests/samples/adopter_project/docs/20-trainer-configuration.md"
    ]
