# SPDX-License-Identifier: MIT
"""MkDocs hook: make `404.html` work from disk as well as from a server.

MkDocs renders the 404 page with root-absolute URLs (`/assets/...`), because a server shows it
for a missing page at any depth. Opened from disk, those URLs point at the file system's root,
and the page shows unstyled. This hook rewrites them relative to the site's root, where
`404.html` lies, and puts back the root where the page is served:

- an inline script, first in `<head>`, writes `<base href="/">` when the page is not read
  from disk, so its links and assets resolve from the site's root;
- a second one, right after Material's `__config`, sets the theme's `base` back to `/`
  there (Material resolves it against the page's own address, not against `<base>`), so
  that search loads its index from the root;
- the palette's storage scope is the site's folder from disk and `/` when served, as on
  every other page.

Served at the root (`/404.html`, `/missing.html`) the page is as before. A server that
answers a missing page deeper down (`/reference/missing.html`) with this file shows it styled
and with working search too, but the browser's preload scanner first requests its assets
beside the missing page, before the script has written `<base>`: those requests fail and the
console shows them. The strict build fails if the theme's page no longer has what this hook
rewrites.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.plugins import get_plugin_logger

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

log = get_plugin_logger("not_found")

# A root-absolute URL in an attribute or the search worker's in Material's JSON config (not
# `//host`, which is another site); the config's `base` itself becomes the site's folder.
ROOT_ABSOLUTE = re.compile(r'(?P<lead>(?:href|src)="|"search": ")/(?!/)')
BASE = '"base": "/"'
LOCAL_BASE = '"base": "."'
SERVED_BASE = (
    '<script>if (location.protocol !== "file:") document.write(\'<base href="/">\')</script>'
)
CONFIG_END = re.compile(r'(<script id="__config"[^>]*>.*?</script>)', re.DOTALL)
SERVED_CONFIG = (
    '<script>if (location.protocol !== "file:") {const c = document.getElementById("__config");'
    ' const d = JSON.parse(c.textContent); d.base = "/"; c.textContent = JSON.stringify(d)}'
    "</script>"
)
SCOPE = '__md_scope=new URL("/",location)'
LOCAL_SCOPE = '__md_scope=new URL(location.protocol==="file:"?".":"/",location)'


class ThemeChanged(Exception):
    """The theme's 404 page lacks something this hook rewrites."""


def relative_to_root(html: str) -> str:
    """Return the 404 page's `html` with its root-absolute URLs relative, and the served root.

    Raises:
        ThemeChanged: If the page has no `<head>`, no `__config` or no palette scope.
    """
    if "<head>" not in html or not CONFIG_END.search(html) or SCOPE not in html:
        msg = "404.html lacks <head>, Material's __config or its palette scope"
        raise ThemeChanged(msg)
    html = ROOT_ABSOLUTE.sub(lambda match: match["lead"], html)
    html = html.replace(BASE, LOCAL_BASE, 1).replace(SCOPE, LOCAL_SCOPE, 1)
    html = CONFIG_END.sub(lambda match: match.group() + SERVED_CONFIG, html, count=1)
    head = html.index("<head>") + len("<head>")
    return html[:head] + SERVED_BASE + html[head:]


def on_post_build(*, config: MkDocsConfig) -> None:
    """Rewrite the built `404.html`, when the theme made one."""
    page = Path(config.site_dir) / "404.html"
    if not page.is_file():
        return
    try:
        page.write_text(relative_to_root(page.read_text(encoding="utf-8")), encoding="utf-8")
    except ThemeChanged as error:
        log.warning(f"{error}: docs/hooks/not_found.py needs updating")
