# SPDX-License-Identifier: MIT
"""Markdown headings as the site renders them, each with its section.

Headings are found with Python-Markdown's own block rules (hash and setext headings, outside
fenced code blocks, HTML comments and YAML front matter, and inside admonition and details
blocks where the site has those extensions), and each heading's anchor is computed by
rendering it through Python-Markdown's `toc` extension with the site's settings (a custom
`slugify`) and `attr_list` where the site uses it (`docpact._readers.mkdocs_yml.headings`); repeated
anchors get `_1`, `_2`... suffixes as on the built page. A section runs to the next heading
of the same or a higher level, so it includes its subsections.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docpact._readers.markdown.prose import (
    BLOCK_START,
    INLINE,
    SETEXT,
    page_lines,
    prose_lines,
    without_front_matter,
)

if TYPE_CHECKING:
    from docpact._model.config import Headings

__all__ = ["Section", "sections"]


@dataclass(frozen=True)
class Section:
    """A heading and the text under it, up to the next heading of the same or a higher level.

    A section includes its subsections.

    Attributes:
        anchor: The heading's id on the built page, without the `#`.
        line: The 1-based line of the heading.
        text: The Markdown under the heading, subsections included.
        end: Its last line, 1-based; 0 where it is not known.
        body: The line of `text`'s first line, 1-based: the heading's next line, or the
            one after a setext heading's underline; 0 where it is not known.
    """

    anchor: str
    line: int
    text: str
    end: int = 0
    body: int = 0


def sections(text: str, style: Headings | None = None) -> list[Section]:
    """Split a Markdown page into the sections that start at each of its headings.

    Args:
        text: The Markdown page.
        style: How the site renders headings, from `mkdocs.yml`; MkDocs' defaults if `None`.

    Returns:
        One section per heading, in page order.
    """
    return list(_sections(text, style))


@functools.lru_cache(maxsize=32)  # contracts often list sections of the same pages
def _sections(text: str, style: Headings | None) -> tuple[Section, ...]:
    import markdown
    from markdown.extensions.toc import TocExtension

    from docpact._model.config import DEFAULT_HEADINGS

    style = style or DEFAULT_HEADINGS
    # The text as read_text gives it: one byte-order mark dropped, as MkDocs drops it; a
    # second one is a character of the first line, which Python-Markdown then reads as text.
    lines = page_lines(text)
    shown = without_front_matter(lines)
    prose = _without_comments(prose_lines(shown))
    # A fence or comment at the margin is a block of its own on the page: it ends a list.
    hidden = {
        n for n, (a, b) in enumerate(zip(shown, prose, strict=True)) if a[:1].strip() and not b
    }
    if style.blocks:
        prose = _unblocked(prose)
    headings = _headings(prose, hidden)

    # All headings rendered at once, so that toc gives repeated and custom ids as on the page.
    # Built here rather than named: Markdown would scan every installed package's entry points
    # to resolve a name, which costs more than the rest of a check.
    built: dict[str, type[markdown.Extension]] = {"toc": TocExtension}
    if "attr_list" in style.extensions:  # imported only for a site that uses it
        from markdown.extensions.attr_list import AttrListExtension

        built["attr_list"] = AttrListExtension
    configs = style.configs
    renderer = markdown.Markdown(
        extensions=[built[name](**configs.get(name, {})) for name in style.extensions]
    )
    renderer.convert("\n\n".join(f"{'#' * level} {title}" for _, _, level, title in headings))
    found = []
    for n, ((start, body, level, _), anchor) in enumerate(
        zip(headings, _flatten_toc(renderer.toc_tokens), strict=True)
    ):
        end = next((h[0] for h in headings[n + 1 :] if h[2] <= level), len(lines))
        found.append(Section(anchor, start + 1, "\n".join(lines[body:end]), end, body + 1))
    return tuple(found)


def _unblocked(lines: list[str]) -> list[str]:
    """Dedent the bodies of admonition and details blocks, nested ones too, keeping lines.

    A block's body is the lines after its first line that are blank or indented by four
    more spaces; a heading there is a heading of the page, with an anchor in its toc.
    """
    out, bodies = [], []  # the indents of the open blocks' bodies
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        if line.strip():
            while bodies and indent < bodies[-1]:
                bodies.pop()
        body = bodies[-1] if bodies else 0
        dedented = line[body:]
        if match := BLOCK_START.match(dedented):
            bodies.append(body + len(match["indent"]) + 4)
        out.append(dedented)
    return out


def _flatten_toc(tokens: list[dict]) -> list[str]:
    """The ids of a toc token tree, in page order."""
    return [id_ for token in tokens for id_ in (token["id"], *_flatten_toc(token["children"]))]


def _headings(
    lines: list[str], hidden: set[int] | frozenset[int] = frozenset()
) -> list[tuple[int, int, int, str]]:
    """The headings of prose lines, each as (start, first body line, level, title).

    Found as Python-Markdown's block parser finds them: a block runs to a blank line; a
    `#` line anywhere in a block is a heading, the lines before and after it blocks of their
    own; a setext underline (`===`, `---`) makes a heading only of a block's first line; a
    rule (`---`, `***`, `___`) ends the block before it and starts one after it. An indented
    block continues a list only when the page's last block is that list: the last part of
    the block before, after its last heading or rule, starts with a list item, and no
    `hidden` line (a blanked fence or comment at the margin, a block of its own) came since.
    """
    from markdown.blockprocessors import HashHeaderProcessor, HRProcessor

    rule = re.compile(HRProcessor.RE)
    n = len(lines)
    hashed = [HashHeaderProcessor.RE.match(line) for line in lines]
    next_hash, next_rule = [n] * (n + 1), [n] * (n + 1)  # the first at or after each line
    for i in range(n - 1, -1, -1):
        next_hash[i] = i if hashed[i] else next_hash[i + 1]
        next_rule[i] = i if rule.match(lines[i]) else next_rule[i + 1]
    found: list[tuple[int, int, int, str]] = []

    def block(start: int, end: int) -> None:
        while start < end:
            if (h := next_hash[start]) < end:
                block(start, h)  # holds no `#` line: no deeper
                match = hashed[h]
                found.append((h, h + 1, len(match["level"]), match["header"].strip()))
                start = h + 1
            elif start + 1 < end and SETEXT.match(lines[start + 1]):
                level = 1 if lines[start + 1][0] == "=" else 2
                found.append((start, start + 2, level, lines[start].strip()))
                start += 2
            elif (r := next_rule[start]) < end:
                start = r + 1  # the lines before it are a paragraph
            else:
                return

    start, in_list = 0, False
    for i, line in enumerate([*lines, ""]):
        if line.strip():
            continue
        if start < i and lines[start].expandtabs(4).startswith(_CODE_INDENT):
            if in_list:  # the next paragraph of the list's last item: its own blocks
                inner = [_dedent(line) for line in lines[start:i]]
                found += [(a + start, b + start, *rest) for a, b, *rest in _headings(inner)]
            else:  # an indented code block, then the rest of the block, read again
                code = start
                while code < i and lines[code].expandtabs(4).startswith(_CODE_INDENT):
                    code += 1
                block(code, i)
        elif start < i:
            tail = start + 2 if start + 1 < i and SETEXT.match(lines[start + 1]) else start
            for j in range(i - 1, tail - 1, -1):
                if hashed[j] or rule.match(lines[j]):
                    tail = j + 1
                    break
            in_list = tail < i and bool(_LIST_ITEM.match(lines[tail]))
            block(start, i)
        if i in hidden:
            in_list = False
        start = i + 1
    return found


# Python-Markdown's: 4 columns make code, unless the block continues a list item.
_CODE_INDENT = " " * 4
_LIST_ITEM = re.compile(r"[ ]{0,3}(?:[*+-]|\d+\.)[ \t]+")


def _dedent(line: str) -> str:
    """A line of a list item's indented paragraph, the item's 4 columns dropped."""
    expanded = line.expandtabs(4)
    return expanded[4:] if expanded.startswith(_CODE_INDENT) else expanded.lstrip(" ")


def _without_comments(lines: list[str]) -> list[str]:
    """Blank the HTML comments, which the page never shows, keeping line numbers."""
    text = "\n".join(lines)
    blanked = INLINE.sub(
        lambda match: "\n" * match["comment"].count("\n") if match["comment"] else match[0], text
    )
    return blanked.split("\n")
