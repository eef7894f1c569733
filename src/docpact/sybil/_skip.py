# SPDX-License-Identifier: MIT
"""Sybil's Markdown `skip` directive, with the reason made compulsory."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from sybil.parsers.markdown import ClearNamespaceParser, SkipParser

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sybil import Document, Example, Region

__all__ = ["ConditionsClearNamespaceParser", "ReasonedSkipParser", "add_conditions", "importable"]


def importable(name: str) -> bool:
    """Whether the module ``name`` can be found here; a top-level name is not imported.

    A dotted name imports its parent packages (``verl.trainer`` imports ``verl``); a parent
    that fails to import counts as not importable.

    A page's skip conditions can use it: ``<!-- skip: next if(not importable("verl"),
    reason="needs verl") -->``.

    Args:
        name: A module's import path, ``verl`` or ``verl.trainer``.

    Returns:
        True if the module is found.
    """
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # a dotted name whose parent is missing or broken
        return False


def add_conditions(namespace: dict[str, Any]) -> None:
    """Put the names skip conditions may use (`importable`) into a page's namespace.

    Args:
        namespace: The page's namespace.
    """
    namespace["importable"] = importable


class ConditionsClearNamespaceParser(ClearNamespaceParser):
    """Sybil's `<!-- clear-namespace -->`, keeping the names skip conditions use."""

    @staticmethod
    def evaluate(example: Example) -> None:
        """Clear the page's namespace, then put the condition names back.

        Args:
            example: The directive.
        """
        example.document.namespace.clear()
        add_conditions(example.document.namespace)


class ReasonedSkipParser(SkipParser):
    """Parse `<!-- skip: next "reason" -->` and `<!-- skip: start "reason" -->` directives.

    A skipped example shows as skipped with its reason in the test report; a directive
    without a reason is an error, so no example is skipped silently. Conditions work as in
    Sybil: `<!-- skip: next if(not importable("verl"), reason="needs verl") -->`, where
    `docs_sybil` puts `importable` in every page's namespace.
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
                line = document.text[: region.start].count("\n") + 1
                msg = (
                    f"{document.path}:{line}: skip: {action} needs a reason, "
                    f'for example <!-- skip: {action} "needs a GPU" -->'
                )
                raise ValueError(msg)
            yield region
