# SPDX-License-Identifier: MIT
"""The settings docpact takes from a project's `mkdocs.yml`: its docstring style and anchors.

The file is read as MkDocs reads it (`docpact._readers.mkdocs_load`): MkDocs' tags, and the
files it names in `INHERIT`, merged beneath it. Nothing it names is imported but a custom
`toc` slugify, when docpact computes anchors as the site has them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docpact._model.config import DEFAULT_HEADINGS, DOCSTRING_STYLES, Headings
from docpact._model.errors import DocpactError
from docpact._readers.mkdocs_load import PythonTag, read_mkdocs

__all__ = ["docstring_style", "headings"]

# The extensions whose indented blocks (`!!! note`, `??? note`) can hold headings.
_BLOCK_EXTENSIONS = frozenset({"admonition", "pymdownx.details"})


def docstring_style(root: Path) -> str | None:
    """The `docstring_style` that mkdocstrings' Python handler is given in `mkdocs.yml`.

    Args:
        root: The project root.

    Returns:
        The style, or `None` when `mkdocs.yml` does not set one.

    Raises:
        DocpactError: When `mkdocs.yml` cannot be read, or sets a style griffe does not know.
    """
    settings = read_mkdocs(root) or {}
    for plugin in settings.get("plugins") or []:
        if not (isinstance(plugin, dict) and isinstance(plugin.get("mkdocstrings"), dict)):
            continue
        python = (plugin["mkdocstrings"].get("handlers") or {}).get("python") or {}
        style = (python.get("options") or {}).get("docstring_style")
        if style is None:
            return None
        if style not in DOCSTRING_STYLES:
            msg = (
                f"mkdocs.yml: error: mkdocstrings' docstring_style is {style!r}; "
                f"docpact reads {', '.join(DOCSTRING_STYLES)}"
            )
            raise DocpactError(msg)
        return style
    return None


def headings(root: Path) -> Headings:
    """How the project's site gives headings their anchors, from `mkdocs.yml`.

    Args:
        root: The project root.

    Returns:
        The `toc` settings of `markdown_extensions` (MkDocs always adds `toc`), `attr_list`
        if listed, and whether admonitions or details blocks can hold headings.
        `DEFAULT_HEADINGS` without `mkdocs.yml`.

    Raises:
        DocpactError: When a Python tag in the `toc` settings (a custom `slugify`) cannot
            be imported; the message names it. The site's other extensions are not loaded:
            they do not change an anchor, and the checker needs none of them.
    """
    settings = read_mkdocs(root)
    if settings is None:
        return DEFAULT_HEADINGS
    listed: dict[str, dict[str, Any]] = {}
    for entry in settings.get("markdown_extensions") or []:
        name, config = (entry, {}) if isinstance(entry, str) else next(iter(entry.items()))
        listed[name.removeprefix("markdown.extensions.")] = config or {}
    # Only what shapes anchors is imported (toc's Python tags): a checker without the site's
    # other extensions (pymdownx...) computes the same ids.
    toc = dict(listed.get("toc", {}))
    for key, value in toc.items():
        if isinstance(value, PythonTag):
            try:
                toc[key] = value.resolve()
            except ImportError as error:
                where = f"mkdocs.yml: error: markdown_extensions toc {key}"
                msg = f"{where} cannot be imported: {error}"
                raise DocpactError(msg) from None
    # Only what decides an anchor: the rendered page's permalinks and titles do not.
    toc = {key: value for key, value in toc.items() if key in {"slugify", "separator"}}
    extensions = ("toc", "attr_list") if "attr_list" in listed else ("toc",)
    return Headings(extensions, tuple(sorted(toc.items())), bool(_BLOCK_EXTENSIONS & set(listed)))
