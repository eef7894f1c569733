# SPDX-License-Identifier: MIT
"""The plot on docs/explain.md is the command's own output for the page's batch."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from helpers import load_module

ROOT = Path(__file__).resolve().parents[2]
explain_plot = load_module("explain_plot", ROOT / "scripts" / "explain_plot.py")

pytestmark = [
    pytest.mark.slow,  # a process of the command
    pytest.mark.skipif(
        importlib.util.find_spec("matplotlib") is None, reason="needs the plot extra"
    ),
]


def test_the_page_shows_the_command_and_the_image_it_draws() -> None:
    text = explain_plot.PAGE.read_text(encoding="utf-8")
    assert explain_plot.COMMAND in explain_plot.shown_commands(text)
    assert "](assets/explain-masses.svg)" in text
    assert explain_plot.page_batch(text).count("\n") == 6


def test_the_committed_image_is_what_the_command_draws(tmp_path: Path) -> None:
    drawn = explain_plot.draw(tmp_path)
    assert drawn == explain_plot.IMAGE.read_bytes(), (
        "docs/assets/explain-masses.svg differs from what rolloutnorm explain --plot draws for "
        "the page's batch: run python scripts/explain_plot.py, and look at the image"
    )


def test_an_image_of_another_batch_differs(tmp_path: Path, monkeypatch) -> None:
    """The comparison sees a change of the batch: the test compares no file with itself."""
    text = explain_plot.PAGE.read_text(encoding="utf-8")
    page = tmp_path / "explain.md"
    page.write_text(text.replace('> {"rollout_id": "C", "response_tokens": 40}\n', ""), "utf-8")
    monkeypatch.setattr(explain_plot, "PAGE", page)
    (tmp_path / "run").mkdir()
    assert explain_plot.draw(tmp_path / "run") != explain_plot.IMAGE.read_bytes()
