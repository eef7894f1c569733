# SPDX-License-Identifier: MIT
"""A `not-a-claim` suppression is reviewed like a claim (DP020): in the ledger, and re-checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docpact.__main__ import main
from docpact.claims._page import fingerprint

PYPROJECT = """\
[[tool.docpact.contract]]
kind = "claims"
pages = ["docs/loss.md"]
properties = ["tests"]
"""
REASON = "quotes the promise an old page made"
PAGE = f"""\
# Loss

<!-- docpact: not-a-claim {REASON} -->
An old page said the extra updates always cancel the extra rows.
It was wrong.

The end.
"""
BLOCK = "An old page said the extra updates always cancel the extra rows. It was wrong."
PROPS = '"""No properties: the page has no claim."""\n'
REVIEW = "docpact-reviews/pages/docs/loss.md.json"
NO_CLAIMS = "no claims on the claims pages (docs/loss.md): mark one with <!-- docpact: claim ID -->"
REVIEWED = f'docs/loss.md:3: not-a-claim "{REASON}": reviewed'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    for path, text in {
        "pyproject.toml": PYPROJECT,
        "docs/loss.md": PAGE,
        "tests/test_nothing.py": PROPS,
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text.encode("utf-8"))
    monkeypatch.chdir(root)
    return root


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = main(list(args))
    return status, capsys.readouterr().out.splitlines()


def _edit(project: Path, old: str, new: str) -> None:
    page = project / "docs/loss.md"
    text = page.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    page.write_text(text.replace(old, new), encoding="utf-8")


def test_a_suppression_never_reviewed_is_a_finding_at_its_marker(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "check") == (
        1,
        [
            f'docs/loss.md:3: DP020 not-a-claim "{REASON}" was never reviewed: read its block, '
            "then run docpact claims --update to record it"
        ],
    )


def test_the_update_records_the_reason_and_block_in_the_ledger_and_leaves_the_page(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page, with its byte-order mark and CRLF line breaks, is not rewritten."""
    page = project / "docs/loss.md"
    data = b"\xef\xbb\xbf" + PAGE.replace("\n", "\r\n").encode("utf-8")
    page.write_bytes(data)
    assert _run(capsys, "claims", "--update") == (
        0,
        [
            "docs/loss.md: reviewed its not-a-claim suppressions",
            "0 claim reviews and 1 page review written, 0 claims unchanged, 1 file written",
            NO_CLAIMS,
            REVIEWED,
        ],
    )
    assert page.read_bytes() == data
    assert json.loads((project / REVIEW).read_text(encoding="utf-8")) == {
        "page": "docs/loss.md",
        "suppressions": [{"block": BLOCK, "reason": REASON}],
    }
    assert sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()) == [
        REVIEW,
        "docs/loss.md",
        "pyproject.toml",
        "tests/test_nothing.py",
    ]
    assert _run(capsys, "check") == (0, [])


def test_a_second_update_with_nothing_changed_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["claims", "--update"]) == 0
    before = (project / REVIEW).stat().st_mtime_ns
    assert _run(capsys, "claims", "--update") == (
        0,
        [
            "0 claim reviews and 0 page reviews written, 0 claims unchanged, 0 files written",
            NO_CLAIMS,
            REVIEWED,
        ],
    )
    assert (project / REVIEW).stat().st_mtime_ns == before


def test_a_false_sentence_written_into_a_suppressed_block_is_a_finding(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["claims", "--update"]) == 0
    _edit(project, "It was wrong.", "It is exactly right.")
    assert _run(capsys, "check") == (
        1,
        [
            f'docs/loss.md:3: DP020 the block that not-a-claim "{REASON}" suppresses changed '
            "since its review: read it again (a claim there needs a claim block of its own), "
            "then run docpact claims --update"
        ],
    )
    status, lines = _run(capsys, "claims")
    assert (status, lines[1]) == (1, f'docs/loss.md:3: not-a-claim "{REASON}": block changed')
    assert main(["claims", "--update"]) == 0
    review = json.loads((project / REVIEW).read_text(encoding="utf-8"))
    assert review["suppressions"] == [
        {"block": BLOCK.replace("It was wrong.", "It is exactly right."), "reason": REASON}
    ]
    assert _run(capsys, "check") == (0, [])


def test_a_changed_reason_is_a_suppression_never_reviewed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["claims", "--update"]) == 0
    _edit(project, "quotes the promise", "states the promise")
    assert _run(capsys, "check") == (
        1,
        [
            'docs/loss.md:3: DP020 not-a-claim "states the promise an old page made" was never '
            "reviewed: read its block, then run docpact claims --update to record it"
        ],
    )


def test_the_update_removes_the_review_of_a_page_without_suppressions(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["claims", "--update"]) == 0
    _edit(project, f"<!-- docpact: not-a-claim {REASON} -->\nAn old page said", "An old page said")
    _edit(project, "always cancel", "cancel")
    status, lines = _run(capsys, "claims", "--update")
    assert (status, lines[:2]) == (
        0,
        [
            "docs/loss.md: reviewed its not-a-claim suppressions",
            "0 claim reviews and 1 page review written, 0 claims unchanged, 1 file written",
        ],
    )
    assert not (project / REVIEW).exists()


def test_a_stamp_of_an_earlier_release_is_a_finding_and_migrate_moves_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stamp that still matches its reason and block is recorded, and leaves the marker."""
    stamp = fingerprint(f"{REASON} {BLOCK}")
    _edit(project, f"{REASON} -->", f"{REASON} reviewed={stamp} -->")
    assert _run(capsys, "check") == (
        1,
        [
            f'docs/loss.md:3: DP020 not-a-claim "{REASON}" carries reviewed=, but reviews live '
            "in the review ledger now: run docpact claims --migrate to move it there"
        ],
    )
    assert _run(capsys, "claims", "--migrate") == (
        0,
        [
            "docs/loss.md: migrated its not-a-claim suppressions",
            "0 claim reviews and 1 page review written, 0 claims unchanged, 2 files written",
            NO_CLAIMS,
            REVIEWED,
        ],
    )
    assert (project / "docs/loss.md").read_text(encoding="utf-8") == PAGE
    assert _run(capsys, "check") == (0, [])


def test_migrate_leaves_a_stamp_whose_block_changed_for_the_update(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stamp = fingerprint(f"{REASON} {BLOCK}")
    _edit(project, f"{REASON} -->", f"{REASON} reviewed={stamp} -->")
    _edit(project, "It was wrong.", "It is exactly right.")
    status, lines = _run(capsys, "claims", "--migrate")
    assert (status, lines[:2]) == (
        1,
        [
            f'docs/loss.md:3: left: not-a-claim "{REASON}": its block changed; run --update',
            "0 claim reviews and 0 page reviews written, 0 claims unchanged, 1 file written",
        ],
    )
    assert "reviewed=" not in (project / "docs/loss.md").read_text(encoding="utf-8")
    assert not (project / REVIEW).exists()
    status, lines = _run(capsys, "check")
    assert (status, [line.split(" ")[1] for line in lines]) == (1, ["DP020"])


def test_a_malformed_stamp_is_a_malformed_marker(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(project, "made -->", "made reviewed=xyz -->")
    assert _run(capsys, "check") == (
        1,
        [
            "docs/loss.md:3: DP012 <!-- docpact: not-a-claim --> has reviewed='xyz', not 12 hex "
            "digits: remove it (the review ledger holds reviews now), then run docpact claims "
            "--update"
        ],
    )
