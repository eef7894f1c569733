# SPDX-License-Identifier: MIT
r"""MkDocs hook: render the pages' formulas as MathML at build time, so no script draws them.

Pages write `$...$` inline and `$$ ... $$` display math. `pymdownx.arithmatex` (generic mode)
finds it, leaving code spans and code blocks alone, and wraps the LaTeX as
`<span class="arithmatex">\(...\)</span>` or `<div class="arithmatex">\[...\]</div>`. This hook
swaps the LaTeX inside each wrapper for the MathML that latex2mathml makes of it; browsers draw
MathML natively, with no network. A formula that does not convert cleanly is logged as a
WARNING naming the page and the formula, which aborts the strict build, and is left as LaTeX.
"""

from __future__ import annotations

import os
import re
from html import unescape
from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree

from latex2mathml.converter import convert
from mkdocs.plugins import get_plugin_logger

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

log = get_plugin_logger("mathml")

# Exactly arithmatex's generic wrappers; its LaTeX is HTML-escaped, so it holds no `</`.
_WRAPPED = re.compile(
    r'(?P<open><(?P<tag>span|div) class="arithmatex">)'
    r"\\[(\[](?P<latex>.*?)\\[)\]]"
    r"(?P<close></(?P=tag)>)",
    re.DOTALL,
)
# latex2mathml passes an unknown command through as text and `&` outside a known environment
# through unescaped; either left in its output means the formula did not convert.
_LEFTOVER = re.compile(r"\\(?:[A-Za-z]+|.)|&(?!#?\w+;)")
# The MathML elements whose parts latex2mathml may leave out without raising (`\frac{1}`).
_PARTS = {
    "mfrac": 2,
    "mroot": 2,
    "msub": 2,
    "msup": 2,
    "msubsup": 3,
    "munder": 2,
    "mover": 2,
    "munderover": 3,
}


def to_mathml(latex: str, *, display: str) -> str:
    """Convert one formula to MathML, refusing output that would not show the formula.

    Args:
        latex: The formula, without its `$` delimiters and not HTML-escaped.
        display: `"inline"` or `"block"`.

    Returns:
        The `<math>` element as a string.

    Raises:
        ValueError: latex2mathml failed, passed LaTeX through, or left out part of an element.
    """
    try:
        mathml = convert(latex, display=display)
    # latex2mathml's errors share no base class and some carry no message.
    except Exception as error:
        msg = f"latex2mathml failed: {type(error).__name__} {error}".rstrip()
        raise ValueError(msg) from error
    leftover = _LEFTOVER.search(mathml)
    if leftover:
        msg = f"latex2mathml left '{leftover.group()}' unconverted"
        raise ValueError(msg)
    try:
        root = ElementTree.fromstring(mathml)
    except ElementTree.ParseError as error:
        msg = f"latex2mathml wrote malformed MathML: {error}"
        raise ValueError(msg) from error
    for element in root.iter():
        name = element.tag.rpartition("}")[2]
        if len(element) < _PARTS.get(name, 0):
            msg = f"<{name}> has {len(element)} of its {_PARTS[name]} parts"
            raise ValueError(msg)
    return mathml


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Replace the LaTeX in each arithmatex wrapper of the page with MathML.

    Args:
        html: The page body as rendered from Markdown.
        page: The page, named in warnings.
        config: The site configuration, to name the page relative to `mkdocs.yml`.
        files: The site's files (unused).

    Returns:
        The page body with MathML in place of every formula that converts.
    """

    def replace(match: re.Match[str]) -> str:
        latex = unescape(match["latex"]).strip()
        inline = match["tag"] == "span"
        try:
            mathml = to_mathml(latex, display="inline" if inline else "block")
        except ValueError as error:
            # Inline math sits on one line as `$...$`; display math is found by its first line.
            needle = f"${latex}$" if inline else latex.partition("\n")[0]
            dollars = "$" if inline else "$$"
            formula = f"{dollars}{' '.join(latex.split())}{dollars}"
            log.warning(
                "%s: cannot render %s as MathML: %s", _where(page, config, needle), formula, error
            )
            return match.group()
        return f"{match['open']}{mathml}{match['close']}"

    return _WRAPPED.sub(replace, html)


def _where(page: Page, config: MkDocsConfig, needle: str) -> str:
    """Name the page's source relative to `mkdocs.yml`, with a line where `needle` is just once."""
    if page.file.abs_src_path is None:
        return page.file.src_uri
    root = Path(config.config_file_path).parent
    where = Path(os.path.relpath(page.file.abs_src_path, root)).as_posix()
    source = page.file.content_string
    if not needle or source.count(needle) != 1:
        return where
    line = source.count("\n", 0, source.index(needle)) + 1
    return f"{where}:{line}"
