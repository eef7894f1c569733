# SPDX-License-Identifier: MIT
"""Sybil's Markdown `skip` directive, with the reason made compulsory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sybil.parsers.markdown import SkipParser

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sybil import Document, Region

__all__ = ["ReasonedSkipParser"]


class ReasonedSkipParser(SkipParser):
    """Parse `<!-- skip: next "reason" -->` and `<!-- skip: start "reason" -->` directives.

    A skipped example shows as skipped with its reason in the test report; a directive
    without a reason is an error, so no example is skipped silently. Conditions work as in
    Sybil: `<!-- skip: next if(sys.platform == "win32", reason="POSIX paths") -->`.
    """

    def __call__(self, document: Document) -> Iterator[Region]:
        """Yield the skip regions of a page.

        Args:
            document: The page.

        Yields:
            One region per directive.

        Raises:
            ValueError: When a `skip: next` or `skip: start` directive gives no reason.
        """
        for region in super().__call__(document):
            action, reason = region.parsed
            if action in {"next", "start"} and not reason:
                line = document.text.count("\n", 0, region.start) + 1
                msg = (
                    f"{document.path}:{line}: skip: {action} needs a reason, "
                    f'for example <!-- skip: {action} "needs a GPU" -->'
                )
                raise ValueError(msg)
            yield region
