# SPDX-License-Identifier: MIT
"""Python fences as pages write them: with a title or other attributes, `py`, `pycon`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sybil.evaluators.doctest import DocTestEvaluator
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer, FencedCodeBlockLexer

from docpact._readers.markdown.fences import PYTHON, fence_language

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from sybil import Document, Region

__all__ = ["PythonFenceParser"]


class PythonFenceParser:
    """Collect each Python fence of a page: a doctest where it shows `>>>`, else code to run.

    Sybil's `PythonCodeBlockParser` with the info strings pages write: the language is the
    first word (`python`, `py`, `pycon`) or the attribute list's first class
    (`{.python title="x.py"}`), and attributes after it (`python title="x.py"
    linenums="1"`, `python {title="x.py"}`) are read past. A `pycon` fence is a console
    session: its `>>>` lines run as a doctest, whatever comes first. Sybil's
    `<!-- invisible-code: python -->` comments are collected as before.

    Args:
        future_imports: `from __future__` imports put before each code block.
        doctest_optionflags: The doctest flags `>>>` examples are compared with.
    """

    def __init__(self, future_imports: Sequence[str] = (), doctest_optionflags: int = 0) -> None:
        self._doctests = DocTestStringParser(DocTestEvaluator(doctest_optionflags))
        self._evaluator = PythonEvaluator(future_imports)
        self._lexers = (
            FencedCodeBlockLexer(r".+", mapping={"language": "info", "source": "source"}),
            DirectiveInHTMLCommentLexer(
                r"(invisible-)?code(-block)?",
                arguments=".+",
                mapping={"arguments": "info", "source": "source"},
            ),
        )

    def __call__(self, document: Document) -> Iterator[Region]:
        """Yield the regions of a page's Python fences.

        Args:
            document: The page.

        Yields:
            One region per `>>>` example of a console session, one per block of code.
        """
        # Each lexer's regions in turn, as Sybil's own parsers chain them.
        for region in (found for lexer in self._lexers for found in lexer(document)):
            language = fence_language(str(region.lexemes["info"]))
            if language not in PYTHON:
                continue
            source = region.lexemes["source"]
            if language == "pycon" or source.startswith(">>>"):
                for example in self._doctests(source, document.path):
                    example.adjust(region, source)
                    yield example
            else:
                region.parsed = source
                region.evaluator = self._evaluator
                yield region
