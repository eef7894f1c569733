# SPDX-License-Identifier: MIT
"""Markdown prose as a reader sees it: what fenced code, comments and front matter leave.

Every function keeps the page's line numbers: what is not prose is blanked, not removed.
`FENCE` is the one pattern of a fence line that docpact reads fences with, on pages and in
docstrings alike.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

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


class Span:
    """An HTML comment or a code span found by `INLINE`, read as a regular expression's match.

    ``span[0]`` is its whole text; ``span["comment"]`` the comment, ``span["ticks"]`` and
    ``span["code"]`` the code span's backticks and content; `None` where it is the other.
    """

    __slots__ = ("_groups", "end", "start")

    def __init__(self, text: str, start: int, end: int, code: tuple[int, int] | None) -> None:
        self.start, self.end = start, end
        whole = text[start:end]
        if code is None:
            self._groups = {0: whole, "comment": whole, "ticks": None, "code": None}
        else:
            self._groups = {0: whole, "comment": None, "ticks": text[start : code[0]]}
            self._groups["code"] = text[code[0] : code[1]]

    def __getitem__(self, key: int | str) -> str | None:
        return self._groups[key]


_RUN = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n(?=[ \t]*\n)")


class _Inline:
    """HTML comments and code spans, whichever starts first, found in one linear pass.

    A comment runs from `<!--` to the first `-->`; a code span from a run of backticks to the
    next run of as many, within its paragraph (no blank line inside). Each opener is matched
    by a look-up, not a scan: a page of a thousand unclosed `<!--` or backtick runs costs
    what a plain page of its size does.
    """

    def finditer(self, text: str) -> Iterator[Span]:
        """Each comment and code span of ``text``, in order."""
        runs = [(m.start(), m.end()) for m in _RUN.finditer(text)]
        starts: dict[int, list[int]] = {}
        for start, stop in runs:
            starts.setdefault(stop - start, []).append(start)
        blanks = [m.start() for m in _BLANK_LINE.finditer(text)]
        pos = run = 0
        comments = "<!--" in text
        while True:
            comment = text.find("<!--", pos) if comments else -1
            while run < len(runs) and runs[run][0] < pos:
                run += 1
            if comment == -1 and run == len(runs):
                return
            if comment != -1 and (run == len(runs) or comment < runs[run][0]):
                end = text.find("-->", comment + 4)
                if end == -1:  # no later comment closes either
                    comments = False
                    continue
                yield Span(text, comment, end + 3, None)
                pos = end + 3
                continue
            start, stop = runs[run]
            same = starts[stop - start]
            n = bisect.bisect_right(same, start)
            blank = bisect.bisect_left(blanks, stop)
            limit = blanks[blank] if blank < len(blanks) else len(text)
            if n < len(same) and same[n] <= limit:
                yield Span(text, start, same[n] + stop - start, (stop, same[n]))
                pos = same[n] + stop - start
            else:
                pos = stop

    def sub(self, replace: Callable[[Span], str], text: str) -> str:
        """``text`` with each comment and code span replaced by what ``replace`` gives."""
        parts, pos = [], 0
        for span in self.finditer(text):
            parts += [text[pos : span.start], replace(span)]
            pos = span.end
        parts.append(text[pos:])
        return "".join(parts)


INLINE = _Inline()
"""A code span or an HTML comment, whichever starts first; a code span stays in its paragraph."""
_NAME = re.compile(r"[A-Za-z_]\w*")
# A fence line, in a block quote too; docpact coverage reads docstrings with it as well.
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<quote>(?:>[ \t]*)*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
SETEXT = re.compile(r"^(?:=+|-+)[ ]*$")
# The first line of an admonition (`!!! note "Title"`) or a details block (`??? note`, `???+`).
BLOCK_START = re.compile(r"^(?P<indent> *)(?:!!!|\?\?\?\+?)[ \t]+\S")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# What a reader does not see as prose, besides comments and code spans (`INLINE`): link
# targets, HTML tags, inline math.
_NOT_PROSE = (("](", ")"), ("<", ">"), ("$", "$"))


def _not_prose_blanked(line: str) -> str:
    """The line with each link target, HTML tag and inline math made one space, linearly.

    Leftmost first, each from its opener to the first closer after it: `](` to `)`, `<` to
    `>`, `$` to `$` with something between. An opener that nothing closes is looked for no
    more, where a regular expression would rescan the line from each one.
    """
    parts, pos = [], 0
    nexts = {opener: line.find(opener) for opener, _ in _NOT_PROSE}
    while True:
        alive = [
            (at, opener, closer) for opener, closer in _NOT_PROSE if (at := nexts[opener]) >= 0
        ]
        if not alive:
            break
        at, opener, closer = min(alive)
        end = line.find(closer, at + len(opener))
        if end == -1:  # nothing later closes this kind either
            nexts[opener] = -1
            continue
        if opener == "$" and end == at + 1:  # `$$`: no math here, maybe from the second `$`
            nexts[opener] = end
            continue
        parts += [line[pos:at], " "]
        pos = end + 1
        for other, _ in _NOT_PROSE:
            if 0 <= nexts[other] < pos:
                nexts[other] = line.find(other, pos)
    parts.append(line[pos:])
    return "".join(parts)


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
    visible = {i: _not_prose_blanked(line) for i, line in enumerate(shown.split("\n"), 1)}
    return {i: line for i, line in visible.items() if line.strip()}


def prose_lines(lines: list[str]) -> list[str]:
    """Blank the lines of fenced code blocks, fences included, keeping line numbers.

    Fences are read as Python-Markdown's `fenced_code` and pymdownx's `superfences` read
    them: a fence closes only at a line of the very same fence (as many backticks or tildes,
    no more), with nothing but spaces or tabs after it; a fence that no later line closes is no
    fence, and its line and the lines after it stay prose.
    """
    closers = _Closers(lines)
    prose = []
    fence = ""
    for i, line in enumerate(lines):
        match = FENCE.match(line)
        if fence:
            if match and match["fence"] == fence and not match["info"].strip(" \t"):
                fence = ""
            prose.append("")
        elif (
            match
            and not (match["fence"].startswith("`") and "`" in match["info"])
            and closers.closes(i, match["fence"])
        ):
            fence = match["fence"]
            prose.append("")
        else:
            prose.append(line)
    return prose


class _Closers:
    """The lines that could close a fence, by the fence they close: a look-up in linear time."""

    def __init__(self, lines: list[str]) -> None:
        self.lines: dict[str, list[int]] = {}
        for i, line in enumerate(lines):
            match = FENCE.match(line)
            if match and not match["info"].strip(" \t"):
                self.lines.setdefault(match["fence"], []).append(i)

    def closes(self, i: int, fence: str) -> bool:
        """Whether a later line closes the fence opened on line ``i``."""
        lines = self.lines.get(fence, [])
        return bisect.bisect_right(lines, i) < len(lines)


def without_front_matter(lines: list[str]) -> list[str]:
    """Blank the lines MkDocs reads as a page's metadata, keeping line numbers.

    The rule is MkDocs' own (`mkdocs.utils.meta.get_data`): a first line `---`, then at
    least one line, then a line `---` or `...` followed by a line break, is YAML front matter
    only when it loads as a mapping; else the page keeps every line. A page without those
    delimiters loses its first lines of MultiMarkdown metadata instead: `key: value` lines
    and their indented continuations, up to a blank line.

    Args:
        lines: The page's lines, as `page_lines` splits them (the last is empty after a
            final newline).

    Returns:
        The lines, the metadata's blanked.
    """
    taken = _metadata_lines(tuple(lines))
    return [""] * taken + lines[taken:]


_YAML_OPENS = re.compile(r"-{3}[ \t]*")
_YAML_CLOSES = re.compile(r"(?:\.{3}|-{3})[ \t]*")
_META_KEY = re.compile(r"[ ]{0,3}[A-Za-z0-9_-]+:")
_META_MORE = re.compile(r"[ ]{4}|\t")


@functools.lru_cache(maxsize=32)  # a page is read by several kinds in one check
def _metadata_lines(lines: tuple[str, ...]) -> int:
    """How many of a page's first lines MkDocs takes as its metadata."""
    if lines and _YAML_OPENS.fullmatch(lines[0]):
        closes = (i for i in range(2, len(lines) - 1) if _YAML_CLOSES.fullmatch(lines[i]))
        if (end := next(closes, None)) is not None:
            return end + 1 if _is_mapping("\n".join(lines[1:end]) + "\n") else 0
    taken, keyed = 0, False
    for line in lines:
        if not line.strip():
            return taken
        if _META_KEY.match(line):
            keyed = True
        elif not (keyed and _META_MORE.match(line)):
            return taken
        taken += 1
    return taken


def _is_mapping(text: str) -> bool:
    """Whether YAML text loads as a mapping; text that does not load is none."""
    from docpact._readers.yaml_safe import YamlProblem, safe_load  # only for front matter

    try:
        return isinstance(safe_load(text), dict)
    except YamlProblem:
        return False


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
