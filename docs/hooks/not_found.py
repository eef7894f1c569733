# SPDX-License-Identifier: MIT
"""MkDocs hook: make `404.html` work from disk as well as from a server.

MkDocs renders the 404 page with root-absolute URLs (`/assets/...`), because a server shows it
for a missing page at any depth. Opened from disk, those URLs point at the file system's root,
and the page shows unstyled. This hook rewrites them relative to the site's root, where
`404.html` lies, and adds an inline script, first in `<head>`, that sets `<base href="/">` when
the page is served: a served 404 resolves its URLs from the root as before, and one read from
disk resolves them beside itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

# A root-absolute URL in an attribute or in Material's JSON config (not `//host`, which is
# another site).
ROOT_ABSOLUTE = re.compile(r'(?P<lead>(?:href|src)="|"(?:base|search)": ")/(?!/)')
SERVED_BASE = (
    '<script>if (location.protocol !== "file:") document.write(\'<base href="/">\')</script>'
)


def relative_to_root(html: str) -> str:
    """Return the 404 page's `html` with its root-absolute URLs relative, and the served base."""
    html = ROOT_ABSOLUTE.sub(lambda match: match["lead"], html)
    html = html.replace('"base": ""', '"base": "."', 1)
    head = html.index("<head>") + len("<head>")
    return html[:head] + SERVED_BASE + html[head:]


def on_post_build(*, config: MkDocsConfig) -> None:
    """Rewrite the built `404.html`, when the theme made one."""
    page = Path(config.site_dir) / "404.html"
    if page.is_file():
        page.write_text(relative_to_root(page.read_text(encoding="utf-8")), encoding="utf-8")
