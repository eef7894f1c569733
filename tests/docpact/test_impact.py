# SPDX-License-Identifier: MIT
"""`docpact impact`: what a change puts at risk, on the adopter's layout and on this repository."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from docpact.__main__ import main
from docpact._readers.files import copy_files
from docpact.claims._ledger import read_ledger, write
from docpact.claims._units import Units
from samples.drift import copy_project, drift, line_of

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="docpact impact reads git")

ROOT = Path(__file__).resolve().parents[2]
# The adopter's page, its claim and the contract on its loss, found at their lines.
PAGE = "docs/20-trainer-configuration.md"
CLAIM = "<!-- docpact: claim mass-per-rollout -->"
LOSS_OBJECT = 'object = "agentrl.loss.per_rollout_mean"'


def _table(pyproject: Path, object_line: str) -> int:
    """The line of the `[[tool.docpact.contract]]` table that holds `object_line`."""
    lines = pyproject.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line == object_line)
    return next(i for i in range(at, -1, -1) if lines[i] == "[[tool.docpact.contract]]") + 1


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def _committed(root: Path) -> Path:
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    return root


def _impact(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    capsys.readouterr()
    status = main(["impact", *args])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


@pytest.fixture
def adopter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = _committed(copy_project("adopter_project", tmp_path))
    monkeypatch.chdir(root)
    return root


def test_a_change_to_the_loss_puts_its_contract_and_claim_at_risk(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The loss is a unit the claim's review in the adopter's ledger recorded as executed."""
    drift(
        adopter / "agentrl/loss.py",
        "rollout_token_counts.get(rid, 0) + count",
        "count + rollout_token_counts.get(rid, 0)",
    )
    status, lines, _ = _impact(capsys)
    claim, table = line_of(adopter / PAGE, CLAIM), _table(adopter / "pyproject.toml", LOSS_OBJECT)
    changed = line_of(adopter / "agentrl/loss.py", "count + rollout_token_counts.get(rid, 0)")
    assert status == 1
    assert lines == [
        f"{PAGE}:{claim}: DP101 claim mass-per-rollout depends on changed "
        f"lines: agentrl/loss.py::per_rollout_mean (agentrl/loss.py:{changed})",
        f"pyproject.toml:{table}: DP102 contract agentrl.loss.per_rollout_mean depends on changed "
        f"lines: its object agentrl.loss.per_rollout_mean (agentrl/loss.py:{changed})",
    ]


def test_a_claims_code_under_test_is_its_reviews_units_where_they_are_now(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A unit the ledger review recorded is at risk at its lines now; code it left out is not.

    The review is written as `docpact claims --update` writes it, recording a method of
    another module as the one unit its property executed; the method then moves down its
    file, in a commit, before the change.
    """
    metrics, recorded = adopter / "agentrl/metrics.py", "agentrl/metrics.py::StepCounts.kept_share"
    review = read_ledger(adopter).claims["mass-per-rollout"]
    unit = Units(adopter).get(recorded)
    assert unit is not None
    write(adopter, [replace(review, units={recorded: unit.fingerprint})])
    drift(metrics, '"kept_fraction"]\n', '"kept_fraction"]\n\nSHARE_FLOOR = 1\n')
    _git(adopter, "commit", "-qam", "the review records kept_share, which moves down")
    drift(adopter / "agentrl/loss.py", "get(rid, 0) + count", "get(rid, 0) + count + 0")
    drift(metrics, "max(1, self.total_rows)", "max(self.total_rows, 1)")
    status, lines, _ = _impact(capsys)
    claim, changed = line_of(adopter / PAGE, CLAIM), line_of(metrics, "max(self.total_rows, 1)")
    assert changed > unit.last
    assert (status, [line for line in lines if " DP101 " in line]) == (
        1,
        [
            f"{PAGE}:{claim}: DP101 claim mass-per-rollout depends on changed lines: "
            f"{recorded} (agentrl/metrics.py:{changed})"
        ],
    )


def test_a_unit_of_the_code_under_test_gone_puts_its_claim_at_risk(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A unit the review recorded that the change removes puts the claim at risk at its file."""
    metrics, recorded = adopter / "agentrl/metrics.py", "agentrl/metrics.py::kept_fraction"
    review = read_ledger(adopter).claims["mass-per-rollout"]
    unit = Units(adopter).get(recorded)
    assert unit is not None
    write(adopter, [replace(review, units={recorded: unit.fingerprint})])
    _git(adopter, "commit", "-qam", "the review records kept_fraction")
    drift(metrics, "def kept_fraction(", "def kept_share_of(")
    drift(metrics, '__all__ = ["StepCounts", "kept_fraction"]', '__all__ = ["StepCounts"]')
    status, lines, _ = _impact(capsys)
    claim, changed = line_of(adopter / PAGE, CLAIM), line_of(metrics, "__all__ = ")
    assert (status, [line for line in lines if " DP101 " in line]) == (
        1,
        [
            f"{PAGE}:{claim}: DP101 claim mass-per-rollout depends on changed lines: "
            f"{recorded}, no longer found (agentrl/metrics.py:{changed})"
        ],
    )


def test_a_reworded_claim_and_its_section_are_listed_at_their_lines(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = adopter / "docs/20-trainer-configuration.md"
    drift(page, "whatever its rows.", "whatever its rows or tokens.")
    status, lines, _ = _impact(capsys, "--format", "github")
    claim, table = line_of(page, CLAIM), _table(adopter / "pyproject.toml", LOSS_OBJECT)
    text = line_of(page, "whatever its rows or tokens.")
    assert status == 1
    assert lines == [
        f"::error file={PAGE},line={claim},title=DP101::claim "
        f"mass-per-rollout depends on changed lines: its text ({PAGE}:{text})",
        f"::error file=pyproject.toml,line={table},title=DP102::contract "
        "agentrl.loss.per_rollout_mean depends on changed lines: its docs section "
        f"{PAGE}#per-rollout_mean_loss ({PAGE}:{text})",
    ]


def test_a_change_that_touches_nothing_bound_says_so(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new CHANGELOG.md, untracked, and an edit of the page's first line: nothing at risk."""
    (adopter / "CHANGELOG.md").write_text("# Changes\n\n- A fix.\n", encoding="utf-8")
    drift(adopter / "docs/20-trainer-configuration.md", "of the trainer.", "of the trainer, fixed.")
    assert _impact(capsys) == (
        0,
        ["nothing that docpact checks depends on the changes since HEAD"],
        "",
    )


def test_bad_input_is_one_line_and_exit_2(
    adopter: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _impact(capsys, "--base", "no-such-branch") == (
        2,
        [],
        "error: --base 'no-such-branch' is not a revision of this repository\n",
    )
    assert _impact(capsys, "--base=--all")[0] == 2
    shutil.rmtree(adopter / ".git")
    status, _, err = _impact(capsys)
    assert status == 2
    assert err.count("\n") == 1
    assert "is not inside a git checkout" in err or "not a revision" in err
    monkeypatch.setenv("PATH", "")
    assert _impact(capsys) == (
        2,
        [],
        "error: docpact impact reads the change with git, and git is not installed\n",
    )


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This repository's tracked files, committed in a checkout of their own."""
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    root = tmp_path / "repository"
    copy_files(ROOT, [name for name in names if name], root)
    monkeypatch.chdir(_committed(root))
    return root


@pytest.mark.slow
def test_a_change_to_the_normalization_lists_the_trainer_pages_claims_and_contracts(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drift(
        repository / "rolloutnorm/src/rolloutnorm/_normalize.py",
        "    rollout_token_count = tokens_per_rollout.index_select(0, codes)",
        "    rollout_token_count = tokens_per_rollout[codes]",
    )
    status, lines, _ = _impact(capsys)
    assert status == 1
    at = [line.split(" depends on")[0] for line in lines]
    table = _table(
        repository / "pyproject.toml",
        'object = "rolloutnorm._normalize.normalize_advantages_by_rollout"',
    )

    # The real-loop claims whose properties read the batches the retention step made.
    assert at == [
        "docs/trainer-configuration.md:52: DP101 claim mass-per-rollout",
        "docs/trainer-configuration.md:60: DP101 claim batch-mass",
        "docs/trainer-configuration.md:69: DP101 claim no-update-compensation",
        "docs/verl-actor-update.md:47: DP101 claim real-loop-mass",
        "docs/verl-actor-update.md:55: DP101 claim real-loop-steps",
        "docs/verl-actor-update.md:60: DP101 claim real-loop-epochs-and-cap",
        "docs/verl-actor-update.md:64: DP101 claim real-loop-layout",
        "docs/verl-actor-update.md:75: DP101 claim clip-grad-per-step",
        "docs/verl-actor-update.md:87: DP101 claim kl-per-step",
        "docs/verl-actor-update.md:110: DP101 claim bf16-masses",
        "docs/verl.md:311: DP101 claim dp-size-sum",
        f"pyproject.toml:{table}: DP102 contract "
        "rolloutnorm._normalize.normalize_advantages_by_rollout",
    ]
    changed = "normalize_advantages_by_rollout (rolloutnorm/src/rolloutnorm/_normalize.py:"
    assert all(changed in line for line in lines)


@pytest.mark.slow
def test_a_changelog_alone_puts_nothing_at_risk(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repository / "CHANGELOG.md").write_text("# Changes\n\n- A fix.\n", encoding="utf-8")
    assert _impact(capsys)[:2] == (
        0,
        ["nothing that docpact checks depends on the changes since HEAD"],
    )


@pytest.mark.parametrize(
    ("edit", "listed"),
    [
        (
            ("agentrl/loss.py", "def per_rollout_mean(", "def per_rollout_mean_v2("),
            "its object agentrl.loss.per_rollout_mean, not found (agentrl/loss.py:",
        ),
        (
            ("pyproject.toml", '"num_trained_rows"]', "]"),
            "its table (pyproject.toml:",
        ),
    ],
    ids=["object renamed", "operand dropped from the table"],
)
def test_a_contract_whose_object_or_table_changed_is_listed(
    adopter: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str, str], listed: str
) -> None:
    """An object no longer found is at risk through its module; so is an edited table."""
    path, find, replace = edit
    table = _table(adopter / "pyproject.toml", LOSS_OBJECT)
    drift(adopter / path, find, replace)
    status, lines, _ = _impact(capsys)
    assert status == 1
    assert any(
        line.startswith(f"pyproject.toml:{table}: DP102 ") and listed in line for line in lines
    )


def test_a_deleted_module_and_page_put_their_contract_at_risk(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A module gone and a page gone: the contract is listed through the files it could be."""
    (adopter / "agentrl/loss.py").unlink()
    (adopter / "docs/20-trainer-configuration.md").unlink()
    status, lines, _ = _impact(capsys)
    assert status == 1
    [contract] = [line for line in lines if " DP102 " in line]
    assert "its object agentrl.loss.per_rollout_mean, not found (agentrl/loss.py:1)" in contract
    assert "its docs section docs/20-trainer-configuration.md#per-rollout_mean_loss (" in contract


def test_a_decorator_above_the_binding_is_part_of_the_property(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`@pytest.mark.parametrize` above the claim's marker belongs to the property's span."""
    tests = adopter / "tests/test_loss.py"
    drift(
        tests,
        "\n@pytest.mark.docpact_claim(",
        '\n@pytest.mark.parametrize("k", [1, 2])\n@pytest.mark.docpact_claim(',
    )
    drift(
        tests,
        "def test_each_rollout_carries_one_over_the_trained_rows():",
        "def test_each_rollout_carries_one_over_the_trained_rows(k):",
    )
    _git(adopter, "commit", "-qam", "parametrized")
    drift(tests, "[1, 2]", "[1]")
    status, lines, _ = _impact(capsys)
    claim = line_of(adopter / PAGE, CLAIM)
    assert (status, [line.split(" depends")[0] for line in lines]) == (
        1,
        [f"{PAGE}:{claim}: DP101 claim mass-per-rollout"],
    )


def test_a_branch_is_compared_where_it_left_its_base(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--base main` on a branch lists what the branch changed, not what main did since."""
    _git(adopter, "checkout", "-q", "-b", "feature")
    (adopter / "NOTES.md").write_text("Notes.\n", encoding="utf-8")
    _git(adopter, "add", "NOTES.md")
    _git(adopter, "commit", "-q", "-m", "notes")
    _git(adopter, "checkout", "-q", "main")
    drift(
        adopter / "docs/20-trainer-configuration.md",
        "whatever its rows.",
        "whatever its rows or tokens.",
    )
    _git(adopter, "commit", "-qam", "reworded on main")
    _git(adopter, "checkout", "-q", "feature")
    assert _impact(capsys, "--base", "main")[:2] == (
        0,
        ["nothing that docpact checks depends on the changes since main"],
    )


def test_the_users_git_configuration_does_not_change_what_is_read(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mnemonic prefixes, wide hunks and a page git treats as binary are read as plain diffs."""
    _git(adopter, "config", "diff.mnemonicPrefix", "true")
    _git(adopter, "config", "diff.interHunkContext", "50")
    (adopter / ".gitattributes").write_text("*.md -diff\n", encoding="utf-8")
    _git(adopter, "add", ".gitattributes")
    _git(adopter, "commit", "-q", "-m", "attributes")
    drift(adopter / "docs/20-trainer-configuration.md", "of the trainer.", "of the trainer, fixed.")
    assert _impact(capsys)[:2] == (
        0,
        ["nothing that docpact checks depends on the changes since HEAD"],
    )
    drift(
        adopter / "docs/20-trainer-configuration.md",
        "whatever its rows.",
        "whatever its rows or tokens.",
    )
    assert _impact(capsys)[0] == 1


def test_a_page_with_a_space_in_its_name_is_read(
    adopter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A name holding a space, which git ends with a tab in its diff headers, is read whole."""
    old, new = "docs/20-trainer-configuration.md", "docs/20 trainer.md"
    _git(adopter, "mv", old, new)
    drift(adopter / "pyproject.toml", f'"{old}#', f'"{new}#')
    drift(adopter / "pyproject.toml", f'pages = ["{old}"]', f'pages = ["{new}"]')
    _git(adopter, "commit", "-qam", "renamed")
    drift(adopter / new, "whatever its rows.", "whatever its rows or tokens.")
    status, lines, _ = _impact(capsys)
    assert status == 1
    assert [line.split(":")[0] for line in lines] == [new, "pyproject.toml"]
