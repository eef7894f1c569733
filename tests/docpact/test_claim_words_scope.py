# SPDX-License-Identifier: MIT
"""Where claim words are checked (DP016): the sections that matter by default, or every line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from docpact import DocpactError, check_project, load_config

PAGE = """\
# Guide

Our builds always pass, says the introduction.

## Loss

The loss divides by `num_trained_rows`.

It never divides by the rollouts.

## Claims

<!-- docpact: claim mass -->
Every rollout carries 1 / num_trained_rows.

Extra updates never make up for it.

## History

We always wrote docs by hand.
"""

PYPROJECT = """\
[tool.docpact]
paths = ["."]

[[tool.docpact.contract]]
kind = "names"
object = "pkg.loss"
names = ["num_trained_rows"]
docs = ["docs/guide.md#loss"]

[[tool.docpact.contract]]
kind = "claims"
pages = ["docs/guide.md"]
properties = ["tests"]
{extra}
"""


def _project(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(PAGE, encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "loss.py").write_text(
        '"""The loss, over `num_trained_rows`."""\n\n\ndef loss(num_trained_rows):\n'
        '    """Divide by `num_trained_rows`."""\n    return 1 / num_trained_rows\n',
        encoding="utf-8",
    )
    (tmp_path / "tests").mkdir()
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(PYPROJECT.format(extra=extra), encoding="utf-8")
    return pyproject


def _word_lines(pyproject: Path) -> list[int]:
    return [f.line for f in check_project(load_config(pyproject)) if f.code == "DP016"]


def test_by_default_only_the_named_sections_and_those_holding_a_claim_are_read(
    tmp_path: Path,
) -> None:
    """`never` in the contract's section and beside the claim; not the intro or history."""
    assert _word_lines(_project(tmp_path)) == [9, 16]


def test_scope_pages_reads_every_line_of_the_page(tmp_path: Path) -> None:
    """The net as wide as the page: the introduction's and the history's words too."""
    assert _word_lines(_project(tmp_path, 'scope = "pages"')) == [3, 9, 16, 20]


def test_a_suppression_outside_the_scope_still_needs_a_claim_word(tmp_path: Path) -> None:
    """Narrowing the scope does not make a suppression of nothing pass."""
    pyproject = _project(tmp_path)
    page = tmp_path / "docs" / "guide.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace(
            "We always wrote", "<!-- docpact: not-a-claim history -->\nWe wrote"
        ),
        encoding="utf-8",
    )
    found = [f for f in check_project(load_config(pyproject)) if f.code == "DP016"]
    assert [(f.line, f.message) for f in found if f.line > 16] == [
        (20, "<!-- docpact: not-a-claim --> marks a block without a claim word")
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "words = []",
            "words is empty, which would turn the claim-word net off: keep the words, "
            'and narrow where they are checked with scope = "sections"',
        ),
        ('scope = "lines"', "scope must be one of sections, pages, got 'lines'"),
    ],
)
def test_an_empty_word_list_or_an_unknown_scope_is_refused(
    tmp_path: Path, extra: str, message: str
) -> None:
    """`words = []` would silently turn the net off: a located error says how to narrow."""
    pyproject = _project(tmp_path, extra)
    with pytest.raises(DocpactError) as raised:
        load_config(pyproject)
    assert message in str(raised.value)
    assert str(raised.value).startswith(f"{pyproject}:14: error: tool.docpact.contract[1].")


def test_the_page_fixture_numbers_its_lines_as_the_tests_read_them() -> None:
    """Lines 3, 9, 16 and 20 hold the claim words the tests above expect."""
    lines = textwrap.dedent(PAGE).splitlines()
    assert [n for n, line in enumerate(lines, 1) if "always" in line or "never" in line] == [
        3,
        9,
        16,
        20,
    ]
