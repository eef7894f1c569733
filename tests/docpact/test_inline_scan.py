# SPDX-License-Identifier: MIT
"""The linear scans of a page: the same answers as the regular expressions they replace."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from docpact._readers.markdown.prose import INLINE, _not_prose_blanked, prose_lines, visible_prose

# What the scans replace: quadratic on a page of unclosed openers, right on every other.
_INLINE_RE = re.compile(
    r"(?P<comment><!--.*?-->)"
    r"|(?<!`)(?P<ticks>`+)(?!`)(?P<code>(?:(?!\n[ \t]*\n).)+?)(?<!`)(?P=ticks)(?!`)",
    re.DOTALL,
)
_NOT_PROSE_RE = re.compile(r"\]\([^)]*\)|<[^>]*>|\$[^$]+\$")
# Pages made of the pieces the scans care about, so that openers and closers meet often.
PIECES = st.sampled_from(
    ["`", "``", "<!--", "-->", "<", ">", "](", ")", "$", "a", " ", "\n", "\n\n"]
)
PAGES = st.lists(PIECES, max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(PAGES)
def test_comments_and_code_spans_are_found_as_the_regular_expression_finds_them(text):
    expected = [
        (m.start(), m.end(), m["comment"], m["ticks"], m["code"]) for m in _INLINE_RE.finditer(text)
    ]
    found = [(s.start, s.end, s["comment"], s["ticks"], s["code"]) for s in INLINE.finditer(text)]
    assert found == expected


@settings(max_examples=400, deadline=None)
@given(PAGES.map(lambda text: text.replace("\n", " ")))
def test_link_targets_tags_and_math_are_blanked_as_the_regular_expression_blanks_them(line):
    assert _not_prose_blanked(line) == _NOT_PROSE_RE.sub(" ", line)


def test_a_fence_that_nothing_closes_is_no_fence_as_python_markdown_reads_it():
    lines = ["~~~", "## Heading", "```yaml", "a: 1", "```", "text"]
    assert prose_lines(lines) == ["~~~", "## Heading", "", "", "", "text"]


def test_a_page_of_unclosed_openers_keeps_its_prose():
    """Thousands of unclosed comments and backtick runs: each line's prose is still there."""
    page = "# Title\n\nText `code` here.\n\n" + "<!-- x ``y `z <a ](b\n" * 5000
    visible = visible_prose(page)
    assert visible[3].split() == ["Text", "here."]
    assert len(visible) == 5002
