# SPDX-License-Identifier: MIT
"""Claims on Markdown pages: markers, the blocks they mark, fingerprints, prose and words."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docpact._readers.markdown.prose import visible_prose
from docpact.claims._page import (
    CLAIM_ID,
    Block,
    fingerprint,
    normalized,
    read_page,
    words_pattern,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"
FOLLOWED_BY_NOTHING = (
    "<!-- docpact: claim {} --> is followed by no paragraph or admonition: a heading, a code "
    "block, a comment or the end of the page comes first"
)
NOT_ALONE = (
    "a docpact claim marker must stand alone on its line, as <!-- docpact: claim ID -->, got {!r}"
)


def spans(text: str) -> list[tuple[str, str, int, int, int, str]]:
    """Each block of a page as (directive, argument, marker line, first, last, text)."""
    page = read_page(text)
    assert page.problems == ()
    return [(b.directive, b.argument, b.line, b.first, b.last, b.text) for b in page.blocks]


def problems(text: str) -> list[tuple[int, str]]:
    page = read_page(text)
    assert page.blocks == ()
    return list(page.problems)


def test_a_marker_marks_the_paragraph_after_it_up_to_the_blank_line() -> None:
    page = (
        "# Title\n\n<!-- docpact: claim sum-one -->\nThe weights  always\nsum to one.\n\nAfter.\n"
    )
    assert spans(page) == [("claim", "sum-one", 3, 4, 5, "The weights always sum to one.")]


def test_blank_lines_may_stand_between_the_marker_and_its_block() -> None:
    page = "<!-- docpact: claim a -->\n\n\n   \nThe claim.\nStill it.\n"
    assert spans(page) == [("claim", "a", 1, 5, 6, "The claim. Still it.")]


def test_a_paragraph_ends_at_a_fence_that_follows_without_a_blank_line() -> None:
    page = "<!-- docpact: claim a -->\nThe claim:\n```python\nnever = 1\n```\n"
    assert spans(page) == [("claim", "a", 1, 2, 2, "The claim:")]


def test_a_paragraph_ends_at_a_hash_heading_that_follows_without_a_blank_line() -> None:
    page = "<!-- docpact: claim a -->\nThe claim.\n## Next\nText.\n"
    assert spans(page) == [("claim", "a", 1, 2, 2, "The claim.")]


def test_a_paragraph_ends_at_the_next_marker() -> None:
    page = (
        "<!-- docpact: claim a -->\nFirst claim.\n<!-- docpact: not-a-claim a quote -->\nA quote.\n"
    )
    assert spans(page) == [
        ("claim", "a", 1, 2, 2, "First claim."),
        ("not-a-claim", "a quote", 3, 4, 4, "A quote."),
    ]


def test_an_admonition_runs_to_the_end_of_its_indented_body_nested_blocks_included() -> None:
    page = """\
<!-- docpact: claim in-note -->
!!! note "The claim"
    The body.

    ??? tip
        Nested, deeper.

    Back in the note.
After the note.
"""
    assert spans(page) == [
        (
            "claim",
            "in-note",
            1,
            2,
            8,
            '!!! note "The claim" The body. ??? tip Nested, deeper. Back in the note.',
        )
    ]


def test_a_details_block_ends_before_the_next_unindented_paragraph() -> None:
    page = "<!-- docpact: claim folded -->\n???+ note\n    Folded body.\n\nOutside.\n"
    assert spans(page) == [("claim", "folded", 1, 2, 3, "???+ note Folded body.")]


def test_an_admonitions_body_is_four_spaces_past_its_own_first_line() -> None:
    page = "<!-- docpact: claim a -->\n  !!! note\n      In the body.\n    Not in it.\n"
    assert spans(page) == [("claim", "a", 1, 2, 3, "!!! note In the body.")]


def test_a_marker_inside_an_admonition_marks_the_paragraph_inside_it() -> None:
    page = """\
!!! note
    Intro.

    <!-- docpact: claim inner -->
    The inner claim
    wraps here.

    Not the claim.
"""
    assert spans(page) == [("claim", "inner", 4, 5, 6, "The inner claim wraps here.")]


def test_a_marker_before_a_list_marks_its_items_up_to_the_blank_line() -> None:
    page = "<!-- docpact: claim items -->\n- one never\n- two always\n\n- three\n"
    assert spans(page) == [("claim", "items", 1, 2, 3, "- one never - two always")]


def test_a_marker_inside_a_list_item_marks_the_items_paragraph() -> None:
    page = "- Item.\n\n    <!-- docpact: claim in-item -->\n    Item claim.\n- Next item.\n"
    assert spans(page) == [("claim", "in-item", 3, 4, 5, "Item claim. - Next item.")]


def test_the_normalized_text_makes_every_run_of_white_space_one_space() -> None:
    assert normalized("  The  weights\n\tsum\r\n to one.  \n") == "The weights sum to one."


def test_a_fingerprint_is_twelve_hex_digits_of_the_sha256() -> None:
    text = "The weights sum to one."
    assert fingerprint(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    assert fingerprint("") == "e3b0c44298fc"
    block = Block("claim", "a", 1, 2, 2, text)
    assert block.fingerprint == fingerprint(text)


@given(
    # A word opening with ``` at the start of a wrapped line is a fence, which ends the claim.
    words=st.lists(
        st.text("abcXYZ.,`$", min_size=1, max_size=8).filter(lambda w: not w.startswith("```")),
        min_size=1,
        max_size=20,
    ),
    breaks=st.lists(st.sampled_from([" ", "  ", "\n", " \n  ", "\t"]), min_size=20, max_size=20),
)
def test_rewrapping_a_claim_never_changes_its_fingerprint(
    words: list[str], breaks: list[str]
) -> None:
    """Any white space between the words of a claim, line breaks too, gives one fingerprint."""
    one_line = " ".join(words)
    wrapped = "".join(word + gap for word, gap in zip(words, breaks, strict=False)).strip()
    [before] = read_page(f"<!-- docpact: claim a -->\n{one_line}\n").claims
    [after] = read_page(f"<!-- docpact: claim a -->\n\n  {wrapped}\n").claims
    assert before.fingerprint == after.fingerprint


def test_a_changed_word_changes_the_fingerprint_and_crlf_does_not() -> None:
    [lf] = read_page("<!-- docpact: claim a -->\nSum to\none.\n").claims
    [crlf] = read_page("<!-- docpact: claim a -->\r\nSum to\r\none.\r\n").claims
    [other] = read_page("<!-- docpact: claim a -->\nSum to\ntwo.\n").claims
    assert lf.fingerprint == crlf.fingerprint != other.fingerprint


@pytest.mark.parametrize(
    "claim_id", ["mass", "mass-per-rollout", "a1", "v2-mass-3", "x-1"], ids=str
)
def test_lowercase_words_joined_by_single_hyphens_are_valid_ids(claim_id: str) -> None:
    assert CLAIM_ID.fullmatch(claim_id)
    assert spans(f"<!-- docpact: claim {claim_id} -->\nText.\n")[0][1] == claim_id


@pytest.mark.parametrize(
    "claim_id", ["Mass", "mass--x", "1mass", "mass_x", "-mass", "mass-"], ids=str
)
def test_an_invalid_claim_id_is_a_problem_at_the_marker(claim_id: str) -> None:
    assert problems(f"Intro.\n\n<!-- docpact: claim {claim_id} -->\nText.\n") == [
        (
            3,
            f"claim ID {claim_id!r} is not a valid name: lowercase letters and digits in words "
            "joined by single hyphens, starting with a letter (mass-per-rollout)",
        )
    ]


def test_a_claim_marker_without_an_id_is_a_problem() -> None:
    assert problems("<!-- docpact: claim -->\nText.\n") == [
        (
            1,
            "<!-- docpact: claim --> needs an ID, for example <!-- docpact: claim mass-per-row -->",
        )
    ]


def test_a_not_a_claim_marker_without_a_reason_is_a_problem() -> None:
    assert problems("<!--docpact:not-a-claim   -->\nNever.\n") == [
        (1, "<!-- docpact: not-a-claim --> needs a written reason after it")
    ]


def test_a_not_a_claim_marker_keeps_its_reason_as_written() -> None:
    page = read_page("<!-- docpact: not-a-claim   quotes a  false claim -->\nNever.\n")
    assert page.claims == ()
    [suppression] = page.suppressions
    assert (suppression.argument, suppression.text) == ("quotes a  false claim", "Never.")


def test_markers_are_found_with_any_spacing_and_indentation() -> None:
    page = "  <!--docpact:claim a-->  \nText.\n"
    assert spans(page) == [("claim", "a", 1, 2, 2, "Text.")]


@pytest.mark.parametrize(
    "line",
    [
        "Text <!-- docpact: claim a -->",
        "<!-- docpact: claim a --> and text",
        "<!-- docpact: claim a --> <!-- docpact: claim b -->",
        "<!-- docpact: claim a",
    ],
    ids=str,
)
def test_a_marker_not_alone_on_its_line_is_a_problem(line: str) -> None:
    assert problems(f"{line}\nText.\n") == [(1, NOT_ALONE.format(line))]


@pytest.mark.parametrize(
    "after",
    [
        "\n## A heading\n",
        "\nA setext heading\n----------------\n",
        "\n```python\nx = 1\n```\n",
        "\n~~~\nx = 1\n~~~\n",
        "<!-- a comment -->\nText.\n",
        "<!-- docpact: claim b -->\nText.\n",
        "\n\n",
    ],
    ids=["heading", "setext heading", "backtick fence", "tilde fence", "comment", "marker", "end"],
)
def test_a_claim_marker_followed_by_no_block_is_a_problem(after: str) -> None:
    page = read_page(f"<!-- docpact: claim a -->\n{after}")
    assert page.problems[0] == (1, FOLLOWED_BY_NOTHING.format("a"))
    assert "a" not in [b.argument for b in page.claims]


def test_a_not_a_claim_marker_at_the_end_of_the_page_is_a_problem() -> None:
    assert problems("Text.\n\n<!-- docpact: not-a-claim a quote -->\n") == [
        (3, FOLLOWED_BY_NOTHING.replace("claim {}", "not-a-claim"))
    ]


def test_a_marker_inside_an_admonition_followed_by_its_heading_is_a_problem() -> None:
    page = "!!! note\n    <!-- docpact: claim a -->\n    ## Heading in the note\n\n    Body.\n"
    assert problems(page) == [(2, FOLLOWED_BY_NOTHING.format("a"))]


def test_markers_in_fences_front_matter_and_code_spans_are_not_markers() -> None:
    page = """\
---
note: "<!-- docpact: claim Bad -->"
---
```markdown
<!-- docpact: claim Bad -->
```

!!! example
    ~~~
    <!-- docpact: claim -->
    ~~~

Mark a claim with `<!-- docpact: claim ID -->` on a line of its own.
"""
    assert read_page(page).blocks == read_page(page).problems == ()


def test_the_page_lists_blocks_and_problems_in_page_order() -> None:
    page = (
        "<!-- docpact: claim a -->\nA.\n\n<!-- docpact: claim B -->\nB.\n\n"
        "<!-- docpact: not-a-claim quotes -->\nC.\n"
    )
    read = read_page(page)
    assert [(b.directive, b.line) for b in read.blocks] == [("claim", 1), ("not-a-claim", 7)]
    assert [b.argument for b in read.claims] == ["a"]
    assert [b.argument for b in read.suppressions] == ["quotes"]
    assert [line for line, _ in read.problems] == [4]


def test_visible_prose_blanks_what_a_reader_does_not_see_as_prose() -> None:
    page = """\
---
title: never
---
Plain never.
Code `never` and ``a `never` b`` here.
A [never link](https://never.example) and <span class="never">tag</span>.
Math $x_{never}$ stays out.
Hidden <!-- never --> and <!-- never
never --> shown.
```text
never
```
A span `that never
wraps` over lines.
"""
    assert visible_prose(page) == {
        4: "Plain never.",
        5: "Code   and   here.",
        6: "A [never link  and  tag .",
        7: "Math   stays out.",
        8: "Hidden   and  ",
        9: "  shown.",
        13: "A span  ",
        14: "  over lines.",
    }


def test_a_code_span_does_not_run_across_a_blank_line() -> None:
    assert visible_prose("An ` open\n\nnever ` tick.\n") == {1: "An ` open", 3: "never ` tick."}


def test_words_pattern_matches_whole_words_in_any_case_and_starred_prefixes() -> None:
    pattern = words_pattern(("never", "cancel*", "can't"))
    text = "Never, NEVER (never). cancels cancellation cancel. can't nevertheless _never never_"
    assert pattern.findall(text) == [
        "Never",
        "NEVER",
        "never",
        "cancels",
        "cancellation",
        "cancel",
        "can't",
    ]


def test_words_pattern_does_not_match_inside_hyphenated_words() -> None:
    pattern = words_pattern(("never", "exact*"))
    assert pattern.findall("never-ending non-exact x-never exact-ish exactly. -never-") == [
        "exactly"
    ]


def test_the_repository_pages_have_their_claims() -> None:
    """The trainer page has the mass and aggregation claims, the verl pages the rest."""
    pages = {
        name: read_page((DOCS / name).read_text(encoding="utf-8"))
        for name in ("trainer-configuration.md", "verl.md", "verl-actor-update.md")
    }
    assert {name: page.problems for name, page in pages.items()} == {
        "trainer-configuration.md": (),
        "verl.md": (),
        "verl-actor-update.md": (),
    }
    assert {name: [b.argument for b in page.claims] for name, page in pages.items()} == {
        "trainer-configuration.md": [
            "mass-per-rollout",
            "batch-mass",
            "no-update-compensation",
            "agg-token-mean",
            "agg-token-sum",
            "agg-seq-mean-token-sum",
            "agg-seq-mean-token-mean",
            "agg-seq-mean-token-sum-norm",
            "agg-per-rollout-mean",
        ],
        "verl.md": ["dp-size-sum"],
        "verl-actor-update.md": [
            "real-loop-mass",
            "real-loop-steps",
            "real-loop-epochs-and-cap",
            "real-loop-layout",
            "clip-grad-per-step",
            "kl-per-step",
            "bf16-masses",
        ],
    }


def test_display_math_is_not_prose() -> None:
    """The lines of a `$$` block, one line or several, are blanked; the prose around stays."""
    text = "Before.\n\n$$\n\\text{never}\n$$\n\n$$ x = \\text{always} $$\n\nAfter never.\n"
    assert visible_prose(text) == {1: "Before.", 9: "After never."}


def test_a_misspelt_directive_on_a_claims_page_is_a_problem() -> None:
    """`<!-- docpact: claims x -->` is no claim: it is reported, with the known directives."""
    page = read_page("# Page\n\n<!-- docpact: claims x -->\nText.\n")
    assert page.problems == (
        (
            3,
            "unknown docpact directive 'claims'; known directives: claim, config-defaults, "
            "console, not-a-claim",
        ),
    )


def test_lines_are_numbered_at_line_breaks_only() -> None:
    """A form feed or U+2028 on an earlier line does not shift the marker's line."""
    for odd in ("\f", "\u2028", "\x85"):
        page = read_page(f"x{odd}y\n\n<!-- docpact: claim foo -->\nIt holds.\n")
        assert [(b.line, b.first, b.last) for b in page.claims] == [(3, 4, 4)], repr(odd)


def test_a_problem_marker_does_not_stop_the_reading_of_the_markers_after_it() -> None:
    """A claim after an unknown directive, a marker not alone, no reason or no block is read."""
    page = (
        "<!-- docpact: claims x -->\nText.\n\n"
        "Text <!-- docpact: claim a -->\n\n"
        "<!-- docpact: not-a-claim -->\nText.\n\n"
        "<!-- docpact: claim b -->\n## Heading\n\n"
        "<!-- docpact: claim c -->\nClaim.\n"
    )
    read = read_page(page)
    assert [line for line, _ in read.problems] == [1, 4, 6, 9]
    assert [(b.argument, b.line, b.first, b.last) for b in read.blocks] == [("c", 12, 13, 13)]


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("<!-- docpact: claim a -->\nOne", [("claim", "a", 1, 2, 2, "One")]),
        ("<!-- docpact: claim a -->\nOne\ntwo", [("claim", "a", 1, 2, 3, "One two")]),
    ],
    ids=["one line", "two lines"],
)
def test_a_paragraph_at_the_end_of_a_page_without_a_final_newline_is_read_to_its_end(
    page: str, expected: list[tuple[str, str, int, int, int, str]]
) -> None:
    assert spans(page) == expected


def test_a_setext_underline_on_the_last_line_without_a_final_newline_is_a_heading() -> None:
    assert problems("<!-- docpact: claim a -->\nTitle\n---") == [
        (1, FOLLOWED_BY_NOTHING.format("a"))
    ]


def test_an_admonition_without_a_body_is_its_first_line() -> None:
    page = '<!-- docpact: claim a -->\n!!! note "Title"\n\nAfter.\n'
    assert spans(page) == [("claim", "a", 1, 2, 2, '!!! note "Title"')]


def test_tabs_indent_an_admonitions_body_to_the_next_multiple_of_four_columns() -> None:
    """A tab-indented admonition's body holds lines indented eight columns, not seven."""
    page = "- item\n\n\t<!-- docpact: claim a -->\n\t!!! note\n\t\tBody.\n\t   Lazy.\n"
    assert spans(page) == [("claim", "a", 3, 4, 5, "!!! note Body.")]


def test_tabs_count_to_four_columns_where_a_heading_is_looked_for() -> None:
    """Past a list item's four columns, a tab and three spaces before `#` leave a heading."""
    marker = "- item\n\n    <!-- docpact: claim a -->\n"
    assert spans(marker + "    Text\n\t   # Head\n") == [("claim", "a", 3, 4, 4, "Text")]
    assert problems(marker + "\t   # Head\n") == [(3, FOLLOWED_BY_NOTHING.format("a"))]
    assert problems(marker + "    Title\n\t---\n") == [(3, FOLLOWED_BY_NOTHING.format("a"))]


def test_an_indented_comment_after_a_marker_is_no_block() -> None:
    assert problems("<!-- docpact: claim a -->\n  <!-- a note -->\n") == [
        (1, FOLLOWED_BY_NOTHING.format("a"))
    ]


@pytest.mark.parametrize("first", ["X <!-- a note -->", "\u00a0<!-- a note --> X"])
def test_a_paragraph_with_text_before_its_comment_is_a_claim_block(first: str) -> None:
    """Only spaces and tabs before `<!--` make a comment line; a letter or a no-break space not."""
    assert spans(f"<!-- docpact: claim a -->\n{first}\n") == [
        ("claim", "a", 1, 2, 2, normalized(first))
    ]


def test_display_math_delimiters_followed_by_spaces_still_open_and_close() -> None:
    """`$$ x $$  ` is one line of math and `$$ ` closes a block: the prose after them stays."""
    text = "$$ x $$  \nnever\n\n$$\ny\n$$ \nalways\n"
    assert visible_prose(text) == {2: "never", 7: "always"}


def test_a_starred_word_matches_only_words_starting_with_all_of_it() -> None:
    assert words_pattern(("cancel*",)).findall("cancer cance cancels cancel") == [
        "cancels",
        "cancel",
    ]


def test_a_line_of_three_dollars_opens_and_closes_display_math() -> None:
    """`$$$` starts and ends with `$$`: it is a one-line block, and the prose after it stays."""
    assert visible_prose("$$$\nnever\n") == {2: "never"}


def test_a_code_span_after_docpact_in_an_unclosed_comment_is_not_the_directive() -> None:
    """The word after the blanked code span is read as the directive, and it is unknown."""
    page = read_page("<!-- docpact: `claim` markers\nare described here -->\n")
    assert page.problems == (
        (
            1,
            "unknown docpact directive 'markers'; known directives: claim, config-defaults, "
            "console, not-a-claim",
        ),
    )
