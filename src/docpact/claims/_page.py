# SPDX-License-Identifier: MIT
"""Claims on docs pages: the blocks that `<!-- docpact: claim ID -->` marks, and claim words.

A claim marker stands on a line of its own; the block that follows it (blank lines may come
between) is the claim: a paragraph, which runs to the next blank line, fence, heading or
marker, or an admonition or details block (`!!! note`, `??? note`), which runs to the end of
its indented body. A marker written in a code span (`` `<!-- docpact: claim ID -->` ``) is
shown, not read. The claim's text is that block's Markdown with every run of whitespace
made one space, so that rewrapping the lines changes nothing; its fingerprint is the first
12 hex digits of the text's SHA-256. A marker may give the claim a title for its box, in
double quotes after the ID (`<!-- docpact: claim ID "Title" -->`); a titled claim's
fingerprint is taken of the title, in quotes, a space and the text, so a review covers what
the box shows.

`<!-- docpact: not-a-claim REASON -->` marks the block after it the same way, as prose that
uses a claim word (`never`, `exactly`...) without claiming what a property could check; the
reason is required and is listed on the project's verification page. A suppression is
reviewed as a claim is, in the review ledger (`docpact.claims._ledger`), with its block's
text, so a block that changes after its review is suppressed no longer. A `reviewed=STAMP`
that earlier releases wrote into the marker is read for `docpact claims --migrate`.

Everything here reads Markdown only; `docpact.claims._bindings` reads the
properties.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from docpact._readers.markdown.directives import (
    ANY_DIRECTIVE,
    DIRECTIVES,
    MARKERS,
    PREFIX,
    unknown,
)
from docpact._readers.markdown.prose import (
    BLOCK_START,
    INLINE,
    SETEXT,
    page_lines,
    prose_lines,
    without_front_matter,
)

__all__ = [
    "CLAIM_ID",
    "STAMP",
    "Block",
    "Page",
    "fingerprint",
    "normalized",
    "read_page",
    "words_pattern",
]

CLAIM_ID = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
"""A valid claim ID: lowercase letters and digits in words joined by single hyphens."""

_MARKER_NAMES = "|".join(map(re.escape, MARKERS))
_DIRECTIVE = re.compile(rf"{PREFIX}(?P<directive>{_MARKER_NAMES})(?![\w-])")
_MARKER = re.compile(
    rf"(?P<indent>[ \t]*){PREFIX}(?P<directive>{_MARKER_NAMES})"
    r"(?P<arguments>(?:(?!-->).)*)-->[ \t]*"
)
_ID_AND_TITLE = re.compile(r'(?P<id>[^\s"]*)(?:[ \t]+"(?P<title>[^"]*)")?')
_SUPPRESSION_STAMP = re.compile(r"(?P<reason>.*?)(?:[ \t]+reviewed=(?P<stamp>\S*))?")
STAMP = re.compile(r"[0-9a-f]{12}")
"""A suppression's review stamp: the fingerprint of its reason and its block."""
_HASH_HEADING = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")


@dataclass(frozen=True)
class Block:
    """A block marked by a claim marker or a `not-a-claim` suppression.

    Attributes:
        directive: `claim` or `not-a-claim`.
        argument: The claim's ID, or the suppression's reason, as written.
        line: The 1-based line of the marker.
        first: The 1-based first line of the block, or 0 when no block follows.
        last: The 1-based last line of the block, or 0 when no block follows.
        text: The block's normalized text (`normalized`).
        title: A claim's title as its marker gives it, normalized; empty without one.
        reviewed: A suppression's `reviewed=` stamp, empty without one.
    """

    directive: str
    argument: str
    line: int
    first: int = 0
    last: int = 0
    text: str = ""
    title: str = ""
    reviewed: str = ""

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the block's normalized text, after its title if it has one.

        A suppression's is of its reason, a space and its text.
        """
        if self.directive == "not-a-claim":
            return fingerprint(f"{self.argument} {self.text}")
        return fingerprint(f'"{self.title}" {self.text}' if self.title else self.text)


@dataclass(frozen=True)
class Page:
    """A page's claims and suppressions, and what is wrong with its markers.

    Attributes:
        blocks: Every marked block, claims and suppressions, in page order.
        problems: Malformed markers, as `(line, message)`, in page order.
    """

    blocks: tuple[Block, ...] = ()
    problems: tuple[tuple[int, str], ...] = field(default=())

    @property
    def claims(self) -> tuple[Block, ...]:
        """The claims with a valid ID and a block, in page order."""
        return tuple(b for b in self.blocks if b.directive == "claim")

    @property
    def suppressions(self) -> tuple[Block, ...]:
        """The `not-a-claim` blocks with a reason and a block, in page order."""
        return tuple(b for b in self.blocks if b.directive == "not-a-claim")


def normalized(text: str) -> str:
    """A claim's text with every run of whitespace made one space, and none at either end.

    Args:
        text: The claim's Markdown.

    Returns:
        The normalized text, which its fingerprint is taken of.
    """
    return " ".join(text.split())


def fingerprint(text: str) -> str:
    """The fingerprint of a normalized claim text: 12 hex digits of its SHA-256.

    Args:
        text: The normalized text.

    Returns:
        The fingerprint.
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def read_page(text: str) -> Page:
    """Find a page's claim markers and suppressions, with the blocks they mark.

    Markers inside fenced code blocks and YAML front matter are not markers.

    Args:
        text: The Markdown page.

    Returns:
        The page's blocks and the problems of its markers: an invalid ID, a suppression
        without a reason, a marker not alone on its line, a marker with no block after it.
    """
    lines = page_lines(text)
    prose = prose_lines(without_front_matter(lines))
    blocks, problems = [], []
    for i, line in enumerate(prose):
        if "docpact" not in line:  # blanking code spans makes no comment: none is here
            continue
        shown = INLINE.sub(_code_spans_blanked, line)
        directives = [match["directive"] for match in ANY_DIRECTIVE.finditer(shown)]
        if unknowns := [directive for directive in directives if directive not in DIRECTIVES]:
            problems.append((i + 1, unknown(unknowns[0])))
            continue
        if not _DIRECTIVE.search(shown):
            continue
        marker = _MARKER.fullmatch(line)
        if marker is None:
            problems.append((i + 1, _not_alone(line)))
            continue
        directive, argument, title = marker["directive"], marker["arguments"].strip(), ""
        if directive == "claim":
            named = _ID_AND_TITLE.fullmatch(argument)
            if named is None or (named["title"] is not None and not named["title"].strip()):
                problems.append((i + 1, _bad_title(argument)))
                continue
            argument, title = named["id"], normalized(named["title"] or "")
            if CLAIM_ID.fullmatch(argument) is None:
                problems.append((i + 1, _bad_id(argument)))
                continue
        reviewed = ""
        if directive == "not-a-claim":
            stamped = _SUPPRESSION_STAMP.fullmatch(argument)
            assert stamped is not None  # every text matches
            argument, reviewed = stamped["reason"].strip(), stamped["stamp"]
            if reviewed is not None and STAMP.fullmatch(reviewed) is None:
                message = (
                    f"<!-- docpact: not-a-claim --> has reviewed={reviewed!r}, not 12 hex "
                    "digits: remove it (the review ledger holds reviews now), then run docpact "
                    "claims --update"
                )
                problems.append((i + 1, message))
                continue
            reviewed = reviewed or ""
        if directive == "not-a-claim" and not argument:
            problems.append(
                (i + 1, "<!-- docpact: not-a-claim --> needs a written reason after it")
            )
            continue
        span = _block_after(lines, prose, i, len(marker["indent"].expandtabs(4)))
        if span is None:
            what = f"claim {argument}" if directive == "claim" else "not-a-claim"
            message = (
                f"<!-- docpact: {what} --> is followed by no paragraph or admonition: a "
                "heading, a code block, a comment or the end of the page comes first"
            )
            problems.append((i + 1, message))
            continue
        first, last = span
        body = "\n".join(lines[first : last + 1])
        block = Block(
            directive, argument, i + 1, first + 1, last + 1, normalized(body), title, reviewed
        )
        blocks.append(block)
    return Page(tuple(blocks), tuple(problems))


def words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """The pattern of a list of claim words, where `word*` also matches longer words.

    Args:
        words: The words, each letters and hyphens, optionally ending in `*`.

    Returns:
        A case-insensitive pattern matching any of them as a whole word.
    """
    parts = [re.escape(w[:-1]) + r"\w*" if w.endswith("*") else re.escape(w) for w in words]
    return re.compile(r"(?<![\w-])(?:" + "|".join(parts) + r")(?![\w-])", re.IGNORECASE)


def _block_after(
    lines: list[str], prose: list[str], at: int, indent: int
) -> tuple[int, int] | None:
    """The 0-based first and last lines of the block after the marker on line `at`."""
    first = at + 1
    while first < len(lines) and not lines[first].strip():
        first += 1
    if first == len(lines) or not prose[first].strip() or _is_heading(lines, first, indent):
        return None  # the end, a fence (blanked in prose), a heading or a comment
    if start := BLOCK_START.match(lines[first].expandtabs(4)[indent:]):
        body = indent + len(start["indent"]) + 4
        last = first
        for j in range(first + 1, len(lines)):
            line = lines[j].expandtabs(4)
            if not line.strip():
                continue
            if len(line) - len(line.lstrip(" ")) < body:
                break
            last = j
        return first, last
    last = first
    while (
        last + 1 < len(lines)
        and prose[last + 1].strip()  # neither blank nor a fence
        and not _MARKER.fullmatch(prose[last + 1])
        and not _HASH_HEADING.match(lines[last + 1].expandtabs(4)[indent:])
    ):
        last += 1
    return first, last


def _is_heading(lines: list[str], first: int, indent: int) -> bool:
    """Whether a block's first line is a hash heading, a setext heading's text or a comment."""
    line = lines[first].expandtabs(4)[indent:]
    after = lines[first + 1].expandtabs(4)[indent:] if first + 1 < len(lines) else ""
    return bool(
        _HASH_HEADING.match(line) or line.lstrip(" \t").startswith("<!--") or SETEXT.match(after)
    )


def _code_spans_blanked(match: re.Match[str]) -> str:
    return match[0] if match["comment"] else " "


def _bad_id(argument: str) -> str:
    if not argument:
        return (
            "<!-- docpact: claim --> needs an ID, for example <!-- docpact: claim mass-per-row -->"
        )
    return (
        f"claim ID {argument!r} is not a valid name: lowercase letters and digits in words "
        "joined by single hyphens, starting with a letter (mass-per-rollout)"
    )


def _bad_title(argument: str) -> str:
    return (
        "a claim marker takes an ID and, optionally, a title in double quotes, as "
        f'<!-- docpact: claim mass-per-rollout "Each rollout\'s mass" -->, got {argument!r}'
    )


def _not_alone(line: str) -> str:
    return (
        f"a docpact claim marker must stand alone on its line, as <!-- docpact: claim ID -->, "
        f"got {line.strip()!r}"
    )
