# SPDX-License-Identifier: MIT
"""The plots on docs/explain.md are the command's own output for the page's batch."""

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


@pytest.mark.parametrize("image", explain_plot.IMAGES, ids=lambda image: image.name)
def test_the_page_shows_the_command_and_the_image_it_draws(image: Path) -> None:
    text = explain_plot.PAGE.read_text(encoding="utf-8")
    assert explain_plot.IMAGES[image] in explain_plot.shown_commands(text)
    assert f"](assets/{image.name})" in text
    assert explain_plot.page_batch(text).count("\n") == 6


@pytest.mark.parametrize("image", explain_plot.IMAGES, ids=lambda image: image.name)
def test_the_committed_image_is_what_the_command_draws(image: Path, tmp_path: Path) -> None:
    drawn = explain_plot.draw(tmp_path, explain_plot.IMAGES[image])
    assert drawn == image.read_bytes(), (
        f"docs/assets/{image.name} differs from what rolloutnorm explain --plot draws for "
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
