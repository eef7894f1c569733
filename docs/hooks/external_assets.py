# SPDX-License-Identifier: MIT
"""MkDocs hook: abort the strict build when a page would fetch anything from the network.

The privacy plugin, fetching nothing, warns for the external scripts, style sheets, images and
fonts it knows. A browser also fetches what an `<iframe>`, `<video>`, `<audio>`, `<source>`,
`<object>`, `<embed>` or `srcset` names, a `url()` or `@import` in a `style` attribute or a
`<style>` block, and Mermaid from unpkg for a `<pre class="mermaid">` diagram. This hook parses
every HTML page and template the build writes and logs a WARNING for each such external URL,
naming the page's source, which aborts the strict build. Links (`<a href>`) are not fetched and
stay allowed. `external_assets` is the one scanner, which tests/test_site.py reuses.
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from mkdocs.plugins import get_plugin_logger

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.pages import Page

log = get_plugin_logger("external_assets")

# Where a tag fetches what its attribute names; `<link>` is judged by its `rel` instead.
FETCHING_ATTRIBUTES = {
    "audio": ("src",),
    "embed": ("src",),
    "iframe": ("src",),
    "image": ("href", "xlink:href"),
    "img": ("src", "srcset"),
    "input": ("src",),
    "object": ("data",),
    "script": ("src",),
    "source": ("src", "srcset"),
    "track": ("src",),
    "use": ("href", "xlink:href"),
    "video": ("src", "poster"),
}
FETCHING_RELS = {
    "apple-touch-icon",
    "dns-prefetch",
    "icon",
    "manifest",
    "modulepreload",
    "preconnect",
    "prefetch",
    "preload",
    "stylesheet",
}
EXTERNAL_URL = re.compile(r"\s*(?:https?:)?//", re.IGNORECASE)
CSS_EXTERNAL_URL = re.compile(
    r"""(?:url\(\s*["']?|@import\s+["'])\s*(?P<url>(?:https?:)?//[^"')\s;]+)""", re.IGNORECASE
)
# Material's bundle loads Mermaid from here for a page with a `<pre class="mermaid">`.
MERMAID_URL = "https://unpkg.com/mermaid@11/dist/mermaid.min.js"


class Fetch(NamedTuple):
    """An external URL a page would have the browser fetch, and what in the page names it."""

    url: str
    via: str


class _PageScanner(HTMLParser):
    """Collect the external URLs a page would fetch, in the order the page names them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.fetches: list[Fetch] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        names = FETCHING_ATTRIBUTES.get(tag, ())
        if tag == "link" and FETCHING_RELS & set(values.get("rel", "").lower().split()):
            names = ("href",)
        for name in names:
            value = values.get(name, "")
            # A srcset lists candidates as "URL WIDTH, URL WIDTH".
            urls = (
                [c.split()[0] for c in value.split(",") if c.strip()]
                if "srcset" in name
                else [value.strip()]
            )
            self.fetches += [
                Fetch(url, f"<{tag} {name}>") for url in urls if EXTERNAL_URL.match(url)
            ]
        self.fetches += [
            Fetch(match["url"], f"<{tag} style>")
            for match in CSS_EXTERNAL_URL.finditer(values.get("style", ""))
        ]
        if tag == "pre" and "mermaid" in values.get("class", "").split():
            self.fetches.append(Fetch(MERMAID_URL, '<pre class="mermaid">'))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.fetches += [
                Fetch(match["url"], "<style>") for match in CSS_EXTERNAL_URL.finditer(data)
            ]


def external_assets(html: str) -> list[Fetch]:
    """Find what a page would fetch from other sites when a browser shows it.

    Args:
        html: A whole HTML page.

    Returns:
        Each external URL the page's tags, `style` attributes and `<style>` blocks name, with
        the tag and attribute that names it, in page order; links to other sites are not in it.
    """
    scanner = _PageScanner()
    scanner.feed(html)
    scanner.close()
    return scanner.fetches


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> None:
    """Warn for each external asset of a page, naming the page's source.

    Args:
        output: The page's final HTML.
        page: The page.
        config: The site configuration, to name the source relative to `mkdocs.yml`.
    """
    if page.file.abs_src_path is None:
        where = page.file.src_uri
    else:
        root = Path(config.config_file_path).parent
        where = Path(os.path.relpath(page.file.abs_src_path, root)).as_posix()
    _warn(where, output)


def on_post_template(output_content: str, *, template_name: str, config: MkDocsConfig) -> None:
    """Warn for each external asset of a page made from a template alone, such as 404.html.

    Args:
        output_content: The rendered template.
        template_name: The template, named in warnings.
        config: The site configuration (unused).
    """
    if template_name.endswith(".html"):
        _warn(f"template {template_name}", output_content)


def _warn(where: str, html: str) -> None:
    """Log one WARNING per external asset of `html`, naming `where` it is."""
    for fetch in external_assets(html):
        log.warning("%s: %s loads %s from the network", where, fetch.via, fetch.url)
