# SPDX-License-Identifier: MIT
"""Fenced code blocks: their language, their attributes and their code, as pages write them.

An info string names its language first (```` ```python ````), or as the first class of an
attribute list (```` ```{.python title="x.py"} ````); attributes follow, braced or not
(pymdownx's `title="x.py" linenums="1"`).
"""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass

from docpact._readers.markdown.prose import FENCE, prose_lines

__all__ = ["PYTHON", "Fence", "fence_attributes", "fence_language", "fenced_blocks", "python_code"]

PYTHON = frozenset({"python", "py", "pycon"})
"""The languages of a Python fence: code, or a console session (`pycon`) of `>>>` lines."""

_LANGUAGE = re.compile(
    r"[ \t]*(?:\{[ \t]*\.(?P<braced>[\w+#.-]+)|(?P<word>[\w+#.-]+)(?![\w+#.=-]))"
)
_ATTRIBUTE = re.compile(
    r"""(?P<key>[A-Za-z_][\w-]*)=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s"'{}]+))"""
)


@dataclass(frozen=True)
class Fence:
    """A fenced block of a text."""

    line: int
    """The opening fence's line, 1-based."""
    info: str
    """What follows the opening backticks or tildes."""
    source: str
    """The lines between the fences, their fence's indent removed."""

    @property
    def language(self) -> str:
        """The block's language, `fence_language` of its info string."""
        return fence_language(self.info)


def fence_language(info: str) -> str:
    """The language an info string names: its first word, or its attribute list's first class.

    Args:
        info: What follows a fence's backticks: `python title="x.py"`, `{.python}`.

    Returns:
        The language as written, `""` where it names none (`{title="x.py"}`).
    """
    match = _LANGUAGE.match(info)
    return (match["braced"] or match["word"]) if match else ""


def fence_attributes(info: str) -> dict[str, str]:
    """The `key="value"` attributes of an info string, braced or not, quoted or not.

    Args:
        info: What follows a fence's backticks: `python exec="on" session="a"`.

    Returns:
        Each attribute's value.
    """
    return {
        match["key"]: next(v for v in (match["dq"], match["sq"], match["bare"]) if v is not None)
        for match in _ATTRIBUTE.finditer(info)
    }


def fenced_blocks(text: str) -> list[Fence]:
    """The fenced blocks of a Markdown text, read as `prose_lines` reads fences.

    Args:
        text: A page, or a docstring.

    Returns:
        The blocks, in order; one that nothing closes is no block.
    """
    lines = text.split("\n")
    prose = prose_lines(lines)
    blocks: list[Fence] = []
    opening: tuple[int, re.Match[str]] | None = None
    for i, line in enumerate(lines):
        match = FENCE.match(line)
        if match is None:
            continue
        if opening is None:
            if not prose[i]:  # a fence line prose_lines blanked, outside any block: it opens one
                opening = (i, match)
        elif match["fence"] == opening[1]["fence"] and not match["info"].strip(" \t"):
            start, opened = opening
            indent = len(opened["indent"])
            body = "".join(f"{_dedent(text, indent)}\n" for text in lines[start + 1 : i])
            blocks.append(Fence(start + 1, opened["info"], body))
            opening = None
    return blocks


def _dedent(line: str, indent: int) -> str:
    """A block's line without its fence's indent, as Markdown removes it: spaces, at most."""
    stripped = line.lstrip(" ")
    return line[min(indent, len(line) - len(stripped)) :]


def python_code(source: str, language: str = "python") -> str:
    """The code a Python fence runs: its `>>>` examples' for a console session, else all of it.

    A fence is a console session when its language is `pycon` or its code opens with `>>>`.

    Args:
        source: The fence's lines.
        language: The fence's language.

    Returns:
        The code, one example after the other.
    """
    if language != "pycon" and not source.lstrip().startswith(">>>"):
        return source
    try:
        examples = doctest.DocTestParser().get_examples(source)
    except ValueError:  # a prompt without its space, an indent that does not line up
        return ""
    return "".join(example.source for example in examples)
