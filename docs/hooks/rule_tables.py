# SPDX-License-Identifier: MIT
"""MkDocs hook: the tables of docpact's kinds and rules, made from its registry at build time.

docs/reference/contracts.md holds two markers, each an HTML comment alone on its line:
`<!-- docpact-kinds: ... -->` and `<!-- docpact-rules: ... -->`. Before the page is rendered,
this hook replaces each with its table, built from `docpact._registry` (`all_kinds`, `rules`):
every kind installed, docpact's own and those registered under the `docpact.kinds` entry
point (the claims extension), as the help of `docpact check` lists them. A new rule or kind
shows on the site with no edit to the page. Every page's markers are replaced; the reference page
without one of them aborts the build with a `PluginError` naming it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mkdocs.exceptions import PluginError

from docpact._registry import all_kinds, rules

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

# The page that documents the registry, relative to docs/: it must hold every marker.
REFERENCE_PAGE = "reference/contracts.md"


def _code(names: Iterable[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> str:
    lines = [header, ("---",) * len(header), *rows]
    return "\n".join(f"| {' | '.join(cells)} |" for cells in lines)


def kinds_table() -> str:
    """The Markdown table of the installed kinds: what each keeps, its keys and rules, in order.

    A kind's keys are its required keys, then, after a semicolon, its optional ones.
    """
    return _table(
        ("Kind", "Keeps", "Keys: required; optional", "Rules"),
        (
            (
                f"`{kind.name}`",
                kind.summary,
                "; ".join(
                    part
                    for part in (_code(sorted(kind.required)), _code(sorted(kind.optional)))
                    if part
                ),
                _code(rule.code for rule in kind.rules),
            )
            for kind in all_kinds().values()
        ),
    )


def rules_table() -> str:
    """The Markdown table of the installed kinds' rules, by code: what each requires, where."""
    return _table(
        ("Code", "Rule broken", "Reported at"),
        ((f"`{rule.code}`", rule.summary, rule.reported_at) for rule in rules(all_kinds())),
    )


TABLES: dict[str, Callable[[], str]] = {"docpact-kinds": kinds_table, "docpact-rules": rules_table}
"""Each marker's name, with the function that builds the table it stands for."""

MARKER = re.compile(rf"^<!-- (?P<name>{'|'.join(TABLES)}):.*-->[ \t]*$", re.MULTILINE)


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Replace every marker of the page with its table.

    Args:
        markdown: The page's Markdown source.
        page: The page; the reference page must hold every marker.
        config: The site configuration (unused).
        files: The site's files (unused).

    Returns:
        The Markdown with each marker line replaced by its table.

    Raises:
        PluginError: When the reference page lacks one of the markers.
    """
    found = {match["name"] for match in MARKER.finditer(markdown)}
    missing = sorted(set(TABLES) - found)
    if page.file.src_uri == REFERENCE_PAGE and missing:
        markers = ", ".join(f"<!-- {name}: ... -->" for name in missing)
        msg = (
            f"{REFERENCE_PAGE} has no {markers} line, where docs/hooks/rule_tables.py puts "
            "the table of docpact's registry"
        )
        raise PluginError(msg)
    return MARKER.sub(lambda match: TABLES[match["name"]](), markdown)
