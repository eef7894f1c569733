# SPDX-License-Identifier: MIT
"""Markdown reading: inline code names, headings, anchors as MkDocs renders them, sections."""

from __future__ import annotations

import markdown
from hypothesis import given
from hypothesis import strategies as st

from docpact._markdown import inline_code_names, sections

PAGE = """\
---
title: front matter is not a heading
---
# Trainer configuration

```python
# a comment in a code block, not a heading
```

## Per-rollout `mean` loss

Divides by `rollout_token_count * num_trained_rows`.

### Details

More about ``num_trained_rows``.

## Per-rollout `mean` loss

Setext heading
--------------

Custom id {#custom}
===
"""


def test_names_in_any_inline_code_span_count() -> None:
    text = "Uses `a * b`, ``c`` and `d.e(f)` but not g.\n\n```python\nh = 1\n```\n"
    assert inline_code_names(text) == {"a", "b", "c", "d", "e", "f"}


def test_html_comments_are_not_read_but_code_spans_may_show_one() -> None:
    text = "`a` <!-- `b` -->\n<!--\n\n`c`\n-->\n`<!-- d -->` e"
    assert inline_code_names(text) == {"a", "d"}


def test_a_code_span_never_crosses_a_blank_line() -> None:
    assert inline_code_names("`a is cut\n\nb` is too\n\n`c\nd` runs over a line") == {"c", "d"}


def test_a_heading_inside_an_html_comment_is_no_section() -> None:
    page = "# Shown\n\n<!--\n## Hidden\n-->\n\n## Also shown\n"
    assert [(s.anchor, s.line) for s in sections(page)] == [("shown", 1), ("also-shown", 7)]


def test_headings_get_the_anchors_mkdocs_gives_them() -> None:
    found = [(section.anchor, section.line) for section in sections(PAGE)]
    assert found == [
        ("trainer-configuration", 4),
        ("per-rollout-mean-loss", 10),
        ("details", 14),
        ("per-rollout-mean-loss_1", 18),
        ("setext-heading", 20),
        ("custom", 23),
    ]


def test_a_section_runs_to_the_next_heading_of_its_level() -> None:
    section = sections(PAGE)[1]
    assert inline_code_names(section.text) == {"rollout_token_count", "num_trained_rows"}
    assert "More about" in section.text
    assert "Setext" not in section.text


def rendered_anchors(page: str) -> list[str]:
    renderer = markdown.Markdown(extensions=["toc", "attr_list", "fenced_code"])
    renderer.convert(page)
    anchors = []
    pending = list(reversed(renderer.toc_tokens))
    while pending:
        token = pending.pop()
        anchors.append(token["id"])
        pending.extend(reversed(token["children"]))
    return anchors


titles = st.text(st.sampled_from("abcXYZ019 -_.,:()'`*é"), min_size=1, max_size=20).filter(
    lambda title: title.strip(" #") and title.count("`") % 2 == 0
)


@given(headings=st.lists(st.tuples(st.integers(1, 4), titles), min_size=1, max_size=6))
def test_anchors_match_python_markdown_on_any_page(headings: list[tuple[int, str]]) -> None:
    """Whatever the headings, docpact's anchors are the ids Python-Markdown renders."""
    page = "\n\n".join(f"{'#' * level} {title}\n\nText." for level, title in headings)
    assert [section.anchor for section in sections(page)] == rendered_anchors(page)
