# SPDX-License-Identifier: MIT
"""MkDocs hook: let a dotted or underscored name in a table cell wrap only after `.` or `_`.

Tables list configuration keys such as `actor_rollout_ref.actor.clip_ratio_high`. Left to the
browser, a narrow column breaks such a key anywhere (`clip_ratio_h` / `igh`). This hook adds a
`<wbr>` break point after every dot and underscore of the inline code in a table, in the
rendered HTML only: the Markdown source keeps the plain names that docpact and search match
(search strips the tag, so the indexed text is unchanged). docs/stylesheets/tables.css stops
the browser from breaking that code anywhere else.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

TABLE = re.compile(r"<table\b.*?</table>", re.DOTALL)
# Inline code holding text only: highlighted code has tags inside and is left alone, and so
# is a code block's `<pre><code>`.
CODE = re.compile(r"(?<!<pre>)(?<!</span>)(<code\b[^>]*>)([^<]+)(</code>)")
# After a dot or an underscore that a letter follows: never inside `0.2` or `__`.
BREAK_AFTER = re.compile(r"(?<=[._])(?=[A-Za-z])")


def add_break_points(html: str) -> str:
    """Return `html` with `<wbr>` after each `.` and `_` before a letter, in tables' inline code."""

    def code(match: re.Match[str]) -> str:
        opening, text, closing = match.groups()
        return opening + BREAK_AFTER.sub("<wbr>", text) + closing

    return TABLE.sub(lambda table: CODE.sub(code, table.group()), html)


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Add the break points to every page's rendered content."""
    return add_break_points(html)
