# SPDX-License-Identifier: MIT
"""A `not-a-claim` suppression is reviewed like a claim (DP020): stamped, listed, re-checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from docpact.__main__ import main

PYPROJECT = """\
[[tool.docpact.contract]]
kind = "claims"
pages = ["docs/loss.md"]
properties = ["tests"]
"""
PAGE = """\
# Loss

<!-- docpact: not-a-claim quotes the promise an old page made -->
An old page said the extra updates always cancel the extra rows.
It was wrong.

The end.
"""
PROPS = '"""No properties: the page has no claim."""\n'


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


def test_a_suppression_without_a_stamp_is_a_finding_at_its_marker(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "check") == (
        1,
        [
            'docs/loss.md:3: DP020 not-a-claim "quotes the promise an old page made" was never '
            "reviewed: read its block, then run docpact claims --update to stamp it"
        ],
    )


def test_the_update_stamps_the_marker_line_and_nothing_else(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page keeps its byte-order mark and CRLF line breaks; only the marker line changes."""
    page = project / "docs/loss.md"
    page.write_bytes(b"\xef\xbb\xbf" + PAGE.replace("\n", "\r\n").encode("utf-8"))
    status, lines = _run(capsys, "claims", "--update")
    assert status == 0
    stamp = lines[0].rpartition(" -> ")[2]
    assert lines[0] == (
        f'docs/loss.md:3: re-approved not-a-claim "quotes the promise an old page made": '
        f"never reviewed -> {stamp}"
    )
    marker = f"<!-- docpact: not-a-claim quotes the promise an old page made reviewed={stamp} -->"
    expected = PAGE.replace(
        "<!-- docpact: not-a-claim quotes the promise an old page made -->", marker
    )
    assert page.read_bytes() == b"\xef\xbb\xbf" + expected.replace("\n", "\r\n").encode("utf-8")
    assert 'docs/loss.md:3: not-a-claim "quotes the promise an old page made": reviewed' in lines
    assert _run(capsys, "check") == (0, [])


def test_a_false_sentence_written_into_a_suppressed_block_is_a_finding(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["claims", "--update"]) == 0
    page = project / "docs/loss.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("It was wrong.", "It is exactly right."), encoding="utf-8")
    status, lines = _run(capsys, "check")
    assert status == 1
    assert lines == [
        'docs/loss.md:3: DP020 the block that not-a-claim "quotes the promise an old page '
        'made" suppresses changed since its review: read it again (a claim there needs a '
        "claim block of its own), then run docpact claims --update"
    ]
    status, lines = _run(capsys, "claims")
    assert (
        'docs/loss.md:3: not-a-claim "quotes the promise an old page made": block changed' in lines
    )


def test_a_changed_reason_is_a_changed_suppression(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["claims", "--update"]) == 0
    page = project / "docs/loss.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("quotes the promise", "states the promise"), encoding="utf-8")
    status, lines = _run(capsys, "check")
    assert status == 1
    assert "DP020" in lines[0]


def test_a_malformed_stamp_is_a_malformed_marker(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = project / "docs/loss.md"
    page.write_text(PAGE.replace("made -->", "made reviewed=xyz -->"), encoding="utf-8")
    status, lines = _run(capsys, "check")
    assert status == 1
    # Not a suppression, so the claim word of its block is reported too.
    assert {line.split(" ")[1] for line in lines} == {"DP012", "DP016"}
    assert lines[:1] == [
        "docs/loss.md:3: DP012 <!-- docpact: not-a-claim --> has reviewed='xyz', not 12 hex "
        "digits: run docpact claims --update to stamp it"
    ]
