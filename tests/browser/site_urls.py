# SPDX-License-Identifier: MIT
"""What the browser tests share: the repository, its pages, a page's URL, the claim boxes."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(
    path.relative_to(DOCS).with_suffix(".html").as_posix()
    for path in DOCS.rglob("*.md")
    if "hooks" not in path.parts
)
"""Every built page of the site, by its path."""
WHERE = pytest.mark.parametrize("served", [True, False], ids=["served", "from-disk"])
"""Run a test on the served site and on the site opened from disk."""

CLAIM_BOXES = """() => Array.from(document.querySelectorAll(".admonition.docpact-claim"), (box) => {
    const title = box.querySelector(".admonition-title");
    const check = box.querySelector(".docpact-claim-check");
    const rect = box.getBoundingClientRect();
    return {
        classes: box.className,
        title: title.textContent,
        check: check.textContent,
        state: check.dataset.state,
        fontSize: parseFloat(getComputedStyle(check).fontSize),
        textSize: parseFloat(
            getComputedStyle(box.querySelector("p:not(.admonition-title)")).fontSize),
        border: getComputedStyle(box).borderLeftColor,
        icon: getComputedStyle(title, "::before").maskImage
            || getComputedStyle(title, "::before").webkitMaskImage,
        width: rect.width,
        height: rect.height,
    };
})"""
"""Each claim box of a page: its classes, title, last line, state, text sizes and look."""


def site_url(path: str, *, served: bool, server: str, site_dir: Path) -> str:
    """The URL of the site's `path`: on the server, or the file's own URL."""
    return server + path if served else (site_dir / path).as_uri()


def is_inside(url: str, *, server: str, site_dir: Path) -> bool:
    """Whether a request stays on the site: the server, the site's files, or the page itself."""
    return url.startswith((server, site_dir.as_uri() + "/", "data:", "blob:", "about:"))
