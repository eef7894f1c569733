# SPDX-License-Identifier: MIT
"""MkDocs hook: doctest blocks shown as Python sessions, copied as code that runs.

The pages' examples are `python` fences, which Sybil runs; those that start with a `>>>`
prompt are doctests. Highlighted as plain Python, their expected output looks like code.
Before the page is rendered, this hook highlights them as `pycon` instead, so that prompts
and outputs are styled apart from the code; the Markdown source, which Sybil and docpact read,
is unchanged.

Material copies a code block's text, or the `data-copy` attribute of an element around it
when there is one. A doctest block shows `>>>` and `...` prompts and the expected output,
which pasted into Python do not run. For every highlighted block whose text starts with a
`>>>` prompt, this hook reads the examples with the standard library's doctest parser and
puts their source alone, in order, in `data-copy` on the block's `<div class="highlight">`.
The page still shows the prompts and the outputs.
"""

from __future__ import annotations

import doctest
import html
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

# A fence's opening or closing line: its indent, its marker and its info string.
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})(?P<info>.*)$")
BLOCK = re.compile(r'<div class="highlight">(?P<body><pre>.*?</code></pre>)', re.DOTALL)
TAG = re.compile(r"<[^>]+>")
PARSER = doctest.DocTestParser()


def as_sessions(markdown: str) -> str:
    """Return `markdown` with every doctest fence's `python` info string made `pycon`.

    A doctest fence is one that Sybil runs (its info string exactly `python`) and whose first
    line is a `>>>` prompt. Fences are followed to their closing line, so a fence shown inside
    another one is left as it is.
    """
    lines = markdown.split("\n")
    marker = ""
    for index, line in enumerate(lines):
        fence = FENCE.match(line)
        if marker:
            if fence and fence["marker"].startswith(marker) and not fence["info"].strip():
                marker = ""
            continue
        if not fence:
            continue
        marker = fence["marker"]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if fence["info"] == "python" and following.lstrip().startswith(">>>"):
            lines[index] = f"{fence['indent']}{marker}pycon"
    return "\n".join(lines)


def runnable_source(text: str) -> str | None:
    """The examples' source in `text`, a doctest transcript, or None if it is not one."""
    if not text.lstrip().startswith(">>>"):
        return None
    try:
        examples = PARSER.get_examples(text)
    except ValueError:  # not a transcript doctest reads (`>>>x`): copied as shown
        return None
    return "".join(example.source for example in examples)


def add_copy_text(page_html: str) -> str:
    """Return `page_html` with `data-copy` on every doctest block: its code, without prompts."""

    def block(match: re.Match[str]) -> str:
        source = runnable_source(html.unescape(TAG.sub("", match["body"])))
        if source is None:
            return match.group()
        return f'<div class="highlight" data-copy="{html.escape(source)}">{match["body"]}'

    return BLOCK.sub(block, page_html)


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Highlight every page's doctest fences as Python sessions."""
    return as_sessions(markdown)


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Add the copy text to every page's doctest blocks."""
    return add_copy_text(html)
