# SPDX-License-Identifier: MIT
"""The hint of a DP005 finding for a missing anchor: the closest anchors, else the page's."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from docpact import check_project, load_config

if TYPE_CHECKING:
    from pathlib import Path

PAGE = "docs/page.md"
MISSING = f"pyproject.toml:1: DP005 {PAGE} has no heading with anchor #{{}}, listed for pkg.f"


def missing_anchor(root: Path, anchor: str, headings: list[str]) -> list[str]:
    """The findings of a names contract listing `page.md#anchor` on a page of `headings`."""
    (root / "src/pkg").mkdir(parents=True)
    (root / "src/pkg/__init__.py").write_text('def f():\n    """Names `f`."""\n', "utf-8")
    (root / "docs").mkdir()
    (root / PAGE).write_text("".join(f"## {title}\n\nText.\n\n" for title in headings), "utf-8")
    (root / "pyproject.toml").write_text(
        '[[tool.docpact.contract]]\nkind = "names"\nobject = "pkg.f"\nnames = ["f"]\n'
        f'docs = ["{PAGE}#{anchor}"]\n',
        "utf-8",
    )
    return [str(finding) for finding in check_project(load_config(root / "pyproject.toml"))]


GREEK = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta"]


@pytest.mark.parametrize(
    ("count", "hint"),
    [
        (5, "(the page's anchors: #alpha, #beta, #gamma, #delta, #epsilon)"),
        (6, "(the page's anchors: #alpha, #beta, #gamma, #delta, #epsilon and 1 more)"),
        (7, "(the page's anchors: #alpha, #beta, #gamma, #delta, #epsilon and 2 more)"),
    ],
    ids=["five", "six", "seven"],
)
def test_without_a_close_anchor_the_hint_lists_the_pages_first_five(
    tmp_path: Path, count: int, hint: str
) -> None:
    assert missing_anchor(tmp_path, "setup", GREEK[:count]) == [f"{MISSING.format('setup')} {hint}"]


def test_the_hint_names_the_three_closest_anchors(tmp_path: Path) -> None:
    """Four anchors are close; the three closest, ties by the larger name, are named."""
    headings = ["Step 1", "Step 2", "Step 3", "Step 4"]
    assert missing_anchor(tmp_path, "step", headings) == [
        f"{MISSING.format('step')} (closest: #step-4, #step-3, #step-2)"
    ]
