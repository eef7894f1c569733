# SPDX-License-Identifier: MIT
"""Markdown prose as a reader sees it: what fenced code, comments and front matter leave.

Every function keeps the page's line numbers: what is not prose is blanked, not removed.
`FENCE` is the one pattern of a fence line that docpact reads fences with, on pages and in
docstrings alike.
"""

from __future__ import annotations

import re

__all__ = [
    "BLOCK_START",
    "FENCE",
    "INLINE",
    "SETEXT",
    "inline_code_names",
    "inline_code_spans",
    "page_lines",
    "prose_lines",
    "visible_prose",
    "without_front_matter",
]

# A code span or an HTML comment, whichever starts first; a code span stays in its paragraph.
INLINE = re.compile(
    r"(?P<comment><!--.*?-->)"
    r"|(?<!`)(?P<ticks>`+)(?!`)(?P<code>(?:(?!\n[ \t]*\n).)+?)(?<!`)(?P=ticks)(?!`)",
    re.DOTALL,
)
_NAME = re.compile(r"[A-Za-z_]\w*")
# A fence line, in a block quote too; docpact coverage reads docstrings with it as well.
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<quote>(?:>[ \t]*)*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
SETEXT = re.compile(r"^(?:=+|-+)[ ]*$")
# The first line of an admonition (`!!! note "Title"`) or a details block (`??? note`, `???+`).
BLOCK_START = re.compile(r"^(?P<indent> *)(?:!!!|\?\?\?\+?)[ \t]+\S")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# What a reader does not see as prose, besides comments and code spans (`INLINE`): link
# targets, HTML tags, inline math.
_NOT_PROSE = re.compile(r"\]\([^)]*\)|<[^>]*>|\$[^$]+\$")


def inline_code_names(text: str) -> set[str]:
    """Collect the Python names that appear inside inline code spans.

    Only what a reader sees counts: fenced code blocks are not inline code, HTML comments
    (`<!-- ... -->`) are not shown, and a code span never runs across a blank line, from
    one paragraph into the next. A span counts every name in it, so
    `` `rollout_token_count * num_trained_rows` `` names both operands.

    Args:
        text: Markdown, or a docstring written in Markdown or reStructuredText.

    Returns:
        The names found.
    """
    return {name for span in inline_code_spans(text) for name in _NAME.findall(span)}


def inline_code_spans(text: str) -> set[str]:
    """Collect the text of each inline code span, as a reader sees it.

    The spans `inline_code_names` reads, each whole: `` `config-defaults` `` is one span,
    where it names two Python names.

    Args:
        text: Markdown, or a docstring written in Markdown or reStructuredText.

    Returns:
        Each span's text, stripped.
    """
    prose = "\n".join(prose_lines(text.splitlines()))
    return {match["code"].strip() for match in INLINE.finditer(prose) if match["code"]}


def page_lines(text: str) -> list[str]:
    """A page's lines as MkDocs numbers them: split at line breaks only.

    `str.splitlines` also splits at a form feed, a vertical tab or U+2028, which Markdown
    reads as text.

    Args:
        text: The page.

    Returns:
        The lines, without their line breaks; the last is empty after a final newline.
    """
    return _LINE_BREAK.split(text)


def visible_prose(text: str) -> dict[int, str]:
    """The prose a reader sees on each line of a page.

    Fenced code, front matter, HTML comments, code spans, link targets, HTML tags and inline
    math are blanked.

    Args:
        text: The Markdown page.

    Returns:
        The prose of each 1-based line that has some left.
    """
    prose = "\n".join(_display_math_blanked(prose_lines(without_front_matter(page_lines(text)))))
    # Comments and code spans may run over several lines of a paragraph.
    shown = INLINE.sub(lambda match: re.sub(r"[^\n]+", " ", match[0]), prose)
    visible = {i: _NOT_PROSE.sub(" ", line) for i, line in enumerate(shown.split("\n"), 1)}
    return {i: line for i, line in visible.items() if line.strip()}


def prose_lines(lines: list[str]) -> list[str]:
    """Blank the lines of fenced code blocks, fences included, keeping line numbers."""
    prose = []
    fence = ""
    for line in lines:
        match = FENCE.match(line)
        if fence:
            closes = match and match["fence"].startswith(fence)
            if closes and not match["info"].strip():
                fence = ""
            prose.append("")
        elif match and not (match["fence"].startswith("`") and "`" in match["info"]):
            fence = match["fence"]
            prose.append("")
        else:
            prose.append(line)
    return prose


def without_front_matter(lines: list[str]) -> list[str]:
    """Blank a page's YAML front matter, keeping line numbers."""
    if not lines or lines[0].rstrip() != "---":
        return lines
    end = next((i for i, line in enumerate(lines[1:], 1) if line.rstrip() in {"---", "..."}), 0)
    return [""] * (end + 1) + lines[end + 1 :]


def _display_math_blanked(lines: list[str]) -> list[str]:
    """Blank the lines of `$$` display math blocks, keeping line numbers."""
    out, inside = [], False
    for line in lines:
        opens = not inside and line.strip().startswith("$$")
        single = opens and len(line.strip()) > 2 and line.rstrip().endswith("$$")
        closes = inside and line.rstrip().endswith("$$")
        out.append("" if inside or opens else line)
        if closes:
            inside = False
        elif opens and not single:
            inside = True
    return out
