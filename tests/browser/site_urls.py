# SPDX-License-Identifier: MIT
"""Where the browser tests find the site: the repository, a page's URL, what stays on the site."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def site_url(path: str, *, served: bool, server: str, site_dir: Path) -> str:
    """The URL of the site's `path`: on the server, or the file's own URL."""
    return server + path if served else (site_dir / path).as_uri()


def is_inside(url: str, *, server: str, site_dir: Path) -> bool:
    """Whether a request stays on the site: the server, the site's files, or the page itself."""
    return url.startswith((server, site_dir.as_uri() + "/", "data:", "blob:", "about:"))
