# SPDX-License-Identifier: MIT
"""A macros-style hook: `{{ version }}` in a page becomes the project's version."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

_VERSION = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"][
    "version"
]


def on_page_markdown(markdown: str, **kwargs: object) -> str:
    """Expand the macros of a page before MkDocs renders it."""
    return re.sub(r"\{\{\s*version\s*\}\}", _VERSION, markdown)
