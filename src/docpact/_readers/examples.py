# SPDX-License-Identifier: MIT
"""The examples that pytest-examples and markdown-exec run, found by their own rules.

Neither is imported: their rules are read here from their sources, so that `docpact
coverage` needs neither installed.
"""

from __future__ import annotations

import re
import textwrap

from docpact._readers.markdown.fences import Fence, fence_attributes, fence_language

__all__ = ["markdown_exec_runs", "markdown_exec_session", "pytest_examples"]

# pytest_examples.find_examples: a docstring is `"""` (or `r"""`) that opens its line after
# spaces alone, up to the next `"""`; a block opens at a line's spaces and three backticks,
# with a prefix starting `py` or `{.py` (lower-cased), and ends at the same spaces and
# backticks. Every `.md` file's blocks count, and every `.py` file's docstrings'.
_DOCSTRING = re.compile(r'(^ *)(r?""")(.+?)"""', re.MULTILINE | re.DOTALL)
_BLOCK = re.compile(r"(^ *```)( *)(.*?)\n(.+?)\1", re.MULTILINE | re.DOTALL)

# markdown_exec's formatters of Python code, by language, and the values of `exec` that are
# false (`_to_bool`): any other value runs the block.
_MARKDOWN_EXEC_PYTHON = frozenset({"python", "py", "pycon"})
_FALSE = frozenset({"", "no", "off", "false", "0"})


def pytest_examples(text: str, *, python_file: bool) -> list[Fence]:
    """The examples `pytest_examples.find_examples` collects from a file's text.

    Args:
        text: The file's text.
        python_file: Whether the file is a `.py` file, whose docstrings are read, else a
            `.md` page, read whole.

    Returns:
        Each example, its line the opening fence's, its info the prefix pytest-examples reads.
    """
    if not python_file:
        return _blocks(text, 0)
    found = []
    for docstring in _DOCSTRING.finditer(text):
        found += _blocks(docstring[3], text.count("\n", 0, docstring.start()))
    return found


def _blocks(text: str, line_offset: int) -> list[Fence]:
    found = []
    for block in _BLOCK.finditer(text):
        prefix = block[3].lower()
        if prefix.startswith(("py", "{.py")):
            line = line_offset + text.count("\n", 0, block.start()) + 1
            found.append(Fence(line, prefix, textwrap.dedent(block[4])))
    return found


def markdown_exec_runs(fence: Fence) -> bool:
    """Whether markdown-exec runs a Python fence: `exec` set, and not to a false value.

    `exec="on"`, `exec="1"`, `exec="true"` run it; `exec="off"`, `exec="0"` do not.

    Args:
        fence: A fence of a page, or of a docstring that mkdocstrings renders.

    Returns:
        True where markdown-exec runs its code.
    """
    if fence_language(fence.info) not in _MARKDOWN_EXEC_PYTHON:
        return False
    return fence_attributes(fence.info).get("exec", "").lower() not in _FALSE


def markdown_exec_session(fence: Fence) -> str:
    """The session whose names a markdown-exec fence shares; `""` for one of its own.

    Args:
        fence: A fence markdown-exec runs.

    Returns:
        Its `session` attribute.
    """
    return fence_attributes(fence.info).get("session", "")
