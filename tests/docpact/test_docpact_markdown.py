# SPDX-License-Identifier: MIT
"""Markdown reading: inline code names, headings, anchors as MkDocs renders them, sections.

And the docs rules that read through it: each section exists (DP005) and names (DP004).
"""

from __future__ import annotations

from pathlib import Path

import markdown
import pytest
from hypothesis import given
from hypothesis import strategies as st

from docpact import check_project, load_config
from docpact._model.config import Headings
from docpact._readers.markdown.prose import inline_code_names
from docpact._readers.markdown.sections import sections
from samples.drift import copy_project, drift

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
BLOCKS = Headings(("toc",), blocks=True)


def anchors(page: str, style: Headings | None = None) -> list[tuple[str, int]]:
    return [(section.anchor, section.line) for section in sections(page, style)]


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


def rendered_anchors(page: str, *extensions: str) -> list[str]:
    renderer = markdown.Markdown(extensions=["toc", "attr_list", "fenced_code", *extensions])
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


# No list item: Python-Markdown reads a setext heading inside one ("- a\n===" is an item
# holding the heading "a"), which docpact does not model.
LINES = ["Guide", "# T", "## U #", "---", "- - -", "***", "___", "===", "--", "text", ""]


@given(lines=st.lists(st.sampled_from(LINES), min_size=1, max_size=12))
def test_headings_are_found_in_blocks_as_python_markdown_finds_them(lines: list[str]) -> None:
    """Setext underlines, rules and `#` lines in any order: the ids Python-Markdown renders.

    A setext heading is only a block's first line, and a block also starts after a rule or a
    `#` heading inside a paragraph.
    """
    page = "\n".join(lines) + "\n"
    assert [section.anchor for section in sections(page)] == rendered_anchors(page)


@pytest.mark.parametrize(
    "page",
    ["---\nGuide\n---\n", "# T\nGuide\n---\n", "a\nGuide\n---\n", "A\n---\nB\n---\n"],
    ids=["after a rule", "after a heading", "inside a paragraph", "one after another"],
)
def test_a_setext_heading_after_a_rule_or_a_heading_starts_a_block(page: str) -> None:
    assert [section.anchor for section in sections(page)] == rendered_anchors(page)


def test_a_line_opening_with_three_backticks_and_closing_them_is_inline_code() -> None:
    """A backtick fence's info never holds a backtick, so this line is a code span."""
    assert inline_code_names("```a``` and `b`\n") == {"a", "b"}


def test_a_fence_closes_only_on_a_bare_fence_of_its_own_kind_and_length() -> None:
    text = "````md\n`a`\n```\n~~~~\n```` `b`\n````\n`c`\n"
    assert inline_code_names(text) == {"c"}


@pytest.mark.parametrize(
    ("page", "found"),
    [
        ("Title\n===\n\nBody\n", [("title", 1)]),
        ("Intro\n\nTitle\n---\nBody\n", [("title", 3)]),
        ("A\nB\n---\n", []),
        ("===\n\nTitle\n", []),
        ("# Title\n---\n", [("title", 1)]),
        ("```python\nx = 1\n```\nTitle\n---\n", [("title", 4)]),
        ("```\n```\n---\n", []),
        ("<!--\nc\n-->\nTitle\n===\n", [("title", 4)]),
    ],
    ids=[
        "first line",
        "after a paragraph",
        "third line of a paragraph",
        "rule on the first line",
        "rule under a hash heading",
        "right under a code block",
        "rule under a code block",
        "right under a comment",
    ],
)
def test_setext_headings_are_the_first_two_lines_of_a_block(
    page: str, found: list[tuple[str, int]]
) -> None:
    """As in Python-Markdown: a line of = or - underlines the line above it alone."""
    assert anchors(page) == found
    assert [anchor for anchor, _ in found] == rendered_anchors(page)


def test_setext_levels_are_one_for_equals_and_two_for_hyphens() -> None:
    """A `===` heading is a level-1 section, holding the `---` heading after it."""
    page = "One\n===\n\nTwo\n---\n\nText.\n\nThree\n===\n"
    assert [(s.anchor, s.text) for s in sections(page)] == [
        ("one", "\nTwo\n---\n\nText.\n"),
        ("two", "\nText.\n"),
        ("three", ""),
    ]


@pytest.mark.parametrize(
    ("page", "found"),
    [
        ("---\ntitle: x\n---\nTitle\n===\n", [("title", 4)]),
        ("---  \ntitle: x\n---  \n# T\n", [("t", 4)]),
        ("---\ntitle: x\n...\n# T\n", [("t", 4)]),
        ("---\n---\n# T\n", [("-", 1), ("t", 3)]),  # a setext heading "---"
        ("---\n# Title\n", [("title", 2)]),
        ("", []),
        ("---\n# a YAML comment\n---\n# T\n", [("a-yaml-comment", 2), ("t", 4)]),
        ("---\nGuide\n---\n# T\n", [("guide", 2), ("t", 4)]),
        ("---\ntitle: [\n---\n# T\n", [("title", 2), ("t", 4)]),
        ("---\nnote: a: b\n---\n# T\n", [("note-a-b", 2), ("t", 4)]),
        ("# T\n---\ntitle: x\n---", [("t", 1), ("title-x", 3)]),
        ("Title: Guide\nNote: one\n    more\n\n# T\n", [("t", 5)]),
        ("Guide: the loss\n=====\n# T\n", [("t", 3)]),
        ("Title: Guide\n# T\n", [("t", 2)]),
    ],
    ids=[
        "setext after it",
        "trailing spaces",
        "closed by dots",
        "nothing between",
        "unclosed",
        "no page",
        "a comment is no mapping",
        "a string is no mapping",
        "not YAML",
        "a mapping value in a value",
        "no line break after the closer",
        "multimarkdown",
        "multimarkdown over a setext underline",
        "multimarkdown up to a heading",
    ],
)
def test_front_matter_is_what_mkdocs_takes_as_metadata(
    page: str, found: list[tuple[str, int]]
) -> None:
    """A page's metadata as MkDocs reads it (`mkdocs.utils.meta.get_data`) has no heading.

    YAML front matter, `---` to `---` or `...`, only when it loads as a mapping;
    MultiMarkdown's `key: value` lines otherwise. The ids are those of the page MkDocs renders.
    """
    from mkdocs.utils.meta import get_data

    assert anchors(page) == found
    rendered = markdown.Markdown(extensions=["toc"])
    rendered.convert(get_data(page)[0])
    ids = [t["id"] for t in rendered.toc_tokens] + [
        c["id"] for t in rendered.toc_tokens for c in t["children"]
    ]
    assert sorted(anchor for anchor, _ in found) == sorted(ids)


@pytest.mark.parametrize(
    ("page", "found"),
    [
        (
            "!!! note\n\n    !!! tip\n\n        ## Deep\n\n    ## Back\n\n## Out\n",
            [("deep", 5), ("back", 7), ("out", 9)],
        ),
        ("- item\n\n    !!! note\n\n        ## Inside\n", [("inside", 5)]),
        ('??? note "Title"\n    ## In\n\n???+ tip\n\n    ## Open\n', [("in", 2), ("open", 6)]),
        ("# Top\n\n\t!!! note\n\n    ## Code\n", [("top", 1)]),
        ("!!! note\n\n    Text\n\n        ## Code\n\n## After\n", [("after", 7)]),
    ],
    ids=["nested", "in a list item", "details", "tab-indented code", "code under a block"],
)
def test_headings_in_admonitions_and_details_are_the_pages(
    page: str, found: list[tuple[str, int]]
) -> None:
    """Where the site has the extensions, a block's body is dedented by four spaces, nested too."""
    assert anchors(page, BLOCKS) == found
    assert [anchor for anchor, _ in found] == rendered_anchors(
        page, "admonition", "pymdownx.details"
    )


# The docs rules read pages through these sections: DP005 that each exists, DP004 what it names.
LISTED = 'docs = ["docs/guide.md#per-rollout-mean-loss"]'
GUIDE = "docs/guide.md"
LABEL = "ratio._divide.scale_by_rollout"


def docs_findings(project: Path, docs: list[str]) -> list[tuple[str, str, str]]:
    drift(project / "pyproject.toml", LISTED, f"docs = {docs!r}".replace("'", '"'))
    config = load_config(project / "pyproject.toml")
    return [
        (f.code, f.path, f.message) for f in check_project(config) if f.code in {"DP004", "DP005"}
    ]


def test_every_listed_section_that_is_missing_is_a_finding(tmp_path: Path) -> None:
    """A missing heading or page after a found section is reported, each with its own message."""
    project = copy_project("contract_project", tmp_path)
    docs = [f"{GUIDE}#per-rollout-mean-loss", f"{GUIDE}#gone", "docs/gone.md#x"]
    assert docs_findings(project, docs) == [
        ("DP005", "pyproject.toml", f"docs page docs/gone.md of {LABEL} does not exist"),
        (
            "DP005",
            "pyproject.toml",
            f"{GUIDE} has no heading with anchor #gone, listed for {LABEL} (the page's "
            "anchors: #guide, #per-rollout-mean-loss, #other-settings)",
        ),
    ]


def test_a_mistyped_anchor_is_reported_with_the_closest_anchors_of_its_page(
    tmp_path: Path,
) -> None:
    project = copy_project("contract_project", tmp_path)
    assert docs_findings(project, [f"{GUIDE}#per-rollout-means-loss"]) == [
        (
            "DP005",
            "pyproject.toml",
            f"{GUIDE} has no heading with anchor #per-rollout-means-loss, listed for {LABEL} "
            "(closest: #per-rollout-mean-loss)",
        )
    ]
    drift(project / GUIDE, "# Guide", "Guide, with no heading")
    drift(project / GUIDE, "## Per-rollout mean loss", "Per-rollout mean loss")
    drift(project / GUIDE, "## Other settings", "Other settings")
    [finding] = check_project(load_config(project / "pyproject.toml"))
    assert finding.message.endswith("(the page has no headings)")


def test_a_docs_page_that_is_not_utf8_is_a_finding_naming_why(tmp_path: Path) -> None:
    project = copy_project("contract_project", tmp_path)
    drift(project / GUIDE, b"# Guide", b"# Guide \xff")
    assert docs_findings(project, [f"{GUIDE}#per-rollout-mean-loss"]) == [
        (
            "DP005",
            "pyproject.toml",
            f"docs page {GUIDE} of {LABEL} cannot be read: "
            "not UTF-8 at line 1 (invalid start byte)",
        )
    ]


def test_a_page_that_starts_with_a_byte_order_mark_keeps_its_first_anchor(
    tmp_path: Path,
) -> None:
    """MkDocs drops the mark before Markdown reads the page; docpact's reader does too."""
    project = copy_project("contract_project", tmp_path)
    page = project / GUIDE
    page.write_bytes(b"\xef\xbb\xbf" + page.read_bytes())
    clean = docs_findings(copy_project("contract_project", tmp_path / "clean"), [f"{GUIDE}#guide"])
    assert docs_findings(project, [f"{GUIDE}#guide"]) == clean
    assert not [finding for finding in clean if finding[0] == "DP005"]


def test_every_found_section_is_read_after_a_missing_one(tmp_path: Path) -> None:
    """A section listed after a missing page is still checked for each name, at its heading."""
    project = copy_project("contract_project", tmp_path)
    found = docs_findings(project, ["docs/gone.md#x", f"{GUIDE}#other-settings"])
    message = "section #other-settings does not name operand `{}` as inline code"
    assert found == [
        ("DP004", GUIDE, message.format("num_trained_rows")),
        ("DP004", GUIDE, message.format("rollout_token_count")),
        ("DP005", "pyproject.toml", f"docs page docs/gone.md of {LABEL} does not exist"),
    ]


@pytest.mark.parametrize("run", ["<!-- x\n", "<!--\n", "`` a\n", "a `` b\n"])
def test_pages_of_unclosed_comments_and_code_spans_read_as_python_markdown_reads_them(
    run: str,
) -> None:
    """Thousands of unclosed marks (read in linear time) hide no heading before them."""
    from docpact._readers.markdown.prose import inline_code_spans, visible_prose

    page = "# First\n\n<!-- shut -->\n\n## `code` title\n\n" + run * 20_000
    assert [s.anchor for s in sections(page)] == ["first", "code-title"]
    assert inline_code_spans(page) >= {"code"}
    assert visible_prose(page)[1] == "# First"


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("\ufeff# First\n\n```\n\n## `code` title\n", ["first", "code-title"]),
        ("\ufeff\ufeff# First\n\n```\n\n## `code` title\n", ["code-title"]),
    ],
    ids=["one", "two (fuzz seed 30)"],
)
def test_a_bom_and_an_unclosed_fence_keep_the_anchors_python_markdown_gives(
    tmp_path: Path, page: str, expected: list[str]
) -> None:
    """One byte-order mark hides no heading, a second makes the first line text.

    MkDocs drops one mark, as read_text does; an unclosed fence is no fence.
    """
    from docpact._readers.files import read_text

    (tmp_path / "p.md").write_text(page, encoding="utf-8")
    text = read_text(tmp_path / "p.md")
    assert [s.anchor for s in sections(text)] == expected == _toc_ids(page[1:], "fenced_code")


def _toc_ids(page: str, extension: str) -> list[str]:
    rendered = markdown.Markdown(extensions=["toc", extension])
    rendered.convert(page)

    def ids(tokens: list[dict]) -> list[str]:
        return [i for t in tokens for i in (t["id"], *ids(t["children"]))]

    return ids(rendered.toc_tokens)


@pytest.mark.parametrize(
    "page",
    [
        "~~~\n# Hidden\n~~~~\n\n# After\n",
        "~~~~\n# Hidden\n~~~\n\n# After\n",
        "```\n# Hidden\n````\n\n# After\n",
        "~~~\n# Hidden\n\n~~~~python\nx = 1\n~~~~\n\n# After\n",
        "~~~\n# Hidden\n~~~  \n\n# After\n",
        "~~~\n# Hidden\n~~~\t\n\n# After\n",
        "~~~~\n# Hidden\n~~~\n~~~~\n\n# After\n",
    ],
    ids=["longer", "shorter", "backticks", "then a fence", "spaces", "a tab", "same after"],
)
@pytest.mark.parametrize("extension", ["fenced_code", "pymdownx.superfences"])
def test_a_fence_closes_only_at_the_same_fence_as_python_markdown_reads_it(
    page: str, extension: str
) -> None:
    """Fuzz seed 29: `~~~` at a page's top, then `~~~~python`, hid the headings between."""
    assert [s.anchor for s in sections(page)] == _toc_ids(page, extension)


@pytest.mark.parametrize(
    "page",
    [
        "Intro.\n\n    Title\n---\n\n# After\n",
        "\tTitle\n---\n\n# After\n",
        "Text\n\n    code\n# Real\n",
        "- item\n\n    Title\n    ---\n\n# After\n",
        "1. item\n\n    # Inside\n\n    more\n\n        code\n    ---\n\n# After\n",
        "  Title\n---\n\n# After\n",
    ],
    ids=["code", "a tab", "code then a heading", "list item", "numbered item", "3 spaces"],
)
def test_an_indented_block_is_code_unless_it_continues_a_list_item(page: str) -> None:
    """Four columns make a code block, whose lines are no heading, but in a list item."""
    assert [s.anchor for s in sections(page)] == _toc_ids(page, "fenced_code")


@pytest.mark.parametrize(
    "page",
    [
        "# Top\n\n- item\n# Mid\n\n    # Code\n",
        "# Top\n\n- item\n\n***\n\n    # Code\n",
        "# Top\n\n- item\n\n<!-- a note -->\n\n    # Code\n",
        "# Top\n\n- item\n\n```text\nx\n```\n\n    # Code\n",
        "# Top\n\n- item\n\n    para\n\n    # In the item\n",
        "# Top\n- item\n\n    # In the item\n",
        "Top\n===\n- item\n\n    # In the item\n",
        "# Top\n\n- item\n\n    <!-- a note -->\n\n    # In the item\n",
    ],
    ids=[
        "heading after",
        "rule after",
        "comment after",
        "fence after",
        "second paragraph",
        "heading before",
        "setext before",
        "comment in the item",
    ],
)
def test_an_indented_block_continues_a_list_only_right_after_it(page: str) -> None:
    """A heading, rule, comment or fence after a list ends it: the indented block is code."""
    assert [s.anchor for s in sections(page)] == _toc_ids(page, "fenced_code")
