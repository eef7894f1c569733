# SPDX-License-Identifier: MIT
"""The `<!-- docpact: ... -->` directives of a page: their one vocabulary, and announced blocks.

`claim` and `not-a-claim` mark the block after them (`docpact.claims._page`);
`config-defaults FILE` announces the fenced `yaml` block after it; `console` says where the
`console` fence after it runs. `docpact check` and the
Sybil parsers of `docpact.sybil` read the same directives with this vocabulary, so a
misspelt one is an error to both.
"""

from __future__ import annotations

import re

from docpact._readers.markdown.prose import FENCE

__all__ = [
    "ANY_DIRECTIVE",
    "CONFIG_DEFAULTS",
    "CONSOLE",
    "DIRECTIVES",
    "MARKERS",
    "PREFIX",
    "block_after",
    "unknown",
]

MARKERS = ("claim", "not-a-claim")
"""The directives that mark the block after them as a claim, or as prose that claims nothing."""

CONFIG_DEFAULTS = "config-defaults"
"""The directive that announces a `yaml` block equal to a file of the project."""

CONSOLE = "console"
"""The directive that says where the `console` fence after it runs (`docpact.sybil`)."""

DIRECTIVES = frozenset({*MARKERS, CONFIG_DEFAULTS, CONSOLE})
"""Every directive docpact reads."""

PREFIX = r"<!--\s*docpact:\s*"
"""The pattern of a `docpact:` comment's start, up to its directive; every reader uses it."""

ANY_DIRECTIVE = re.compile(rf"{PREFIX}(?P<directive>[^\s>]*)")
"""The start of any `docpact:` comment, with the directive it names."""

_YAML_INFO = re.compile(r"[ \t]*ya?ml(?:[ \t].*)?")


def unknown(directive: str) -> str:
    """The message for a `docpact:` comment whose directive is none of `DIRECTIVES`.

    Args:
        directive: The directive as written.

    Returns:
        The message, which lists the known directives.
    """
    known = ", ".join(sorted(DIRECTIVES))
    return f"unknown docpact directive {directive!r}; known directives: {known}"


def block_after(text: str, end: int) -> tuple[str, int] | None:
    """The fenced `yaml` block that follows an announcing comment ending at `end`.

    Only blank lines may come between the comment and the block. The block may be indented
    (in a list item), and closes at a fence of the same character at least as long, as in
    CommonMark; its lines are given back without the opening fence's indent.

    Args:
        text: The page.
        end: Where the comment ends.

    Returns:
        The block's YAML source and where the block ends, or `None` if no block follows.
    """
    rest = text[end:]
    newline = rest.find("\n")
    # A lexer may end the comment before its `-->`.
    if newline < 0 or not re.fullmatch(r"\s*(?:--+>)?\s*", rest[:newline]):
        return None
    offset = end + newline + 1
    lines = text[offset:].split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    opening = FENCE.match(lines[i]) if i < len(lines) else None
    if opening is None or opening["quote"] or not _YAML_INFO.fullmatch(opening["info"]):
        return None
    fence, indent = opening["fence"], len(opening["indent"])
    # Closed, as Python-Markdown closes a fence, by the very same fence and blanks alone.
    closing = re.compile(rf"[ \t]*{re.escape(fence)}[ \t]*")
    body = []
    for j in range(i + 1, len(lines)):
        if closing.fullmatch(lines[j]):
            block_end = offset + sum(len(line) + 1 for line in lines[: j + 1]) - 1
            return "\n".join(body) + "\n", min(block_end, len(text))
        line = lines[j]
        body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
    return None
