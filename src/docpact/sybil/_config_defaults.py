# SPDX-License-Identifier: MIT
"""A Sybil parser that holds a documented YAML block equal, as data, to a file in the project.

The block is announced by an HTML comment naming the file, relative to the project root.
The other `docpact:` directives, `claim` and `not-a-claim`, mark claims for `docpact check`
and are left alone here; any other is an error:

````markdown
<!-- docpact: config-defaults rolloutnorm/src/rolloutnorm/config.yaml -->
```yaml
rolloutnorm:
  retention_seed: 0
```
````
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sybil import Region
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer

from docpact._model.findings import cannot_read, relative
from docpact._readers.data import differences
from docpact._readers.files import Unreadable, read_text
from docpact._readers.markdown.directives import (
    CONFIG_DEFAULTS,
    CONSOLE,
    MARKERS,
    block_after,
    unknown,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sybil import Document, Example

__all__ = ["ConfigDefaultsParser"]


@dataclass(frozen=True)
class _Block:
    file: str
    source: str


class ConfigDefaultsParser:
    """Collect each announced `yaml` block as an example that must equal its file as data.

    A failure names the page, the line of the comment, and every dotted key that differs:
    missing from the block, not in the file, or with another value (both values shown).

    Args:
        root: The folder the announced file paths are relative to, the project root.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        # Every `<!-- docpact: ... -->` comment, so that a misspelt one is an error.
        self._comments = DirectiveInHTMLCommentLexer(directive=r"docpact(?![\w-])")

    def __call__(self, document: Document) -> Iterator[Region]:
        """Yield one region per announced block.

        Args:
            document: The page.

        Yields:
            A region from the comment to the end of its block.

        Raises:
            ValueError: When a `docpact:` comment is not a known directive, does not name
                one file, or is not followed by a fenced `yaml` block.
        """
        for comment in self._comments(document):
            line = document.text[: comment.start].count("\n") + 1
            where = f"{document.path}:{line}"
            # The claim markers are read by docpact check, the console comments by its parser.
            if comment.lexemes["arguments"].split()[:1] in ([d] for d in (*MARKERS, CONSOLE)):
                continue
            file = _file(comment.lexemes["arguments"], where)
            found = block_after(document.text, comment.end)
            if found is None:
                msg = f"{where}: docpact: config-defaults must be followed by a fenced yaml block"
                raise ValueError(msg)
            source, end = found
            yield Region(comment.start, end, _Block(file, source), self.evaluate)

    def evaluate(self, example: Example) -> str | None:
        """Compare the block with its file as data.

        Args:
            example: The example holding the block.

        Returns:
            `None` when they are equal, else what differs, key by key.
        """
        __tracebackhide__ = True
        from docpact._readers.yaml_safe import YamlProblem, safe_load

        block: _Block = example.parsed
        where = f"{relative(Path(example.path), self.root.absolute())}:{example.line}"
        try:
            expected = safe_load(read_text(self.root / block.file))
        except Unreadable as error:
            return f"{where}: {block.file} {cannot_read(error)}"
        except YamlProblem as problem:
            return f"{where}: {problem.about(block.file)}"
        try:
            documented = safe_load(block.source)
        except YamlProblem as problem:
            return f"{where}: {problem.about('the yaml block')}"
        found = differences(documented, expected, file=block.file)
        if not found:
            return None
        return f"{where}: the yaml block differs from {block.file}:\n" + "\n".join(found)


def _file(arguments: str, where: str) -> str:
    """The one file path that a `docpact:` comment's arguments name after the directive."""
    directive, *paths = arguments.split() or [""]
    if directive != CONFIG_DEFAULTS:
        msg = f"{where}: {unknown(directive)}"
        raise ValueError(msg)
    if not paths:
        msg = (
            f"{where}: docpact: {directive} needs a file path, for example "
            f"<!-- docpact: {directive} conf/defaults.yaml -->"
        )
        raise ValueError(msg)
    if len(paths) > 1:
        msg = f"{where}: docpact: {directive} takes one file path, got {' '.join(paths)}"
        raise ValueError(msg)
    return paths[0]
