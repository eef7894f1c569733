# SPDX-License-Identifier: MIT
"""The settings docpact takes from a project's `mkdocs.yml`: its docstring style and anchors.

The file is read as MkDocs reads it (`docpact._readers.mkdocs_load`): MkDocs' tags, and the
files it names in `INHERIT`, merged beneath it. Nothing it names is imported but a custom
`toc` slugify, when docpact computes anchors as the site has them.

What docpact reads is checked as MkDocs checks it: `markdown_extensions` and `plugins` are
a list of names, or of one-name mappings to their settings, or a mapping of names to their
settings (`{toc: {permalink: true}, admonition: null}`), the two forms read alike; a setting
of another type is refused as `mkdocs.yml:LINE: error: KEY must be ..., got ...`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docpact._model.config import DEFAULT_HEADINGS, DOCSTRING_STYLES, Headings
from docpact._model.errors import DocpactError
from docpact._readers.mkdocs_load import PythonTag, read_mkdocs
from docpact._readers.yaml_places import place_of

__all__ = ["docstring_style", "headings"]

# The extensions whose indented blocks (`!!! note`, `??? note`) can hold headings.
_BLOCK_EXTENSIONS = frozenset({"admonition", "pymdownx.details"})
# Only the `toc` settings that decide an anchor are read and checked: the others (`title:
# null`, `anchorlink: 'true'`) are Python-Markdown's to take or refuse when the site builds.


def _refuse(place: str, key: str, expected: str, value: Any) -> DocpactError:
    return DocpactError(f"{place}: error: {key} must be {expected}, got {value!r}")


def _mapping(container: Any, name: Any, key: str) -> dict[Any, Any]:
    """`container[name]`, a mapping or nothing (`{}`), else refused as `key`."""
    value = container.get(name) if isinstance(container, dict) else None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _refuse(place_of(container, name), key, "a mapping", value)
    return value


def _entries(settings: dict[str, Any], key: str) -> list[tuple[str, dict[Any, Any], str]]:
    """The entries of `markdown_extensions` or `plugins`: name, settings, place, in order."""
    value, place = settings.get(key), place_of(settings, key)
    if value is None:
        return []
    if isinstance(value, dict):
        pairs = [(name, config, place_of(value, name)) for name, config in value.items()]
    elif isinstance(value, list):
        pairs = []
        for n, item in enumerate(value):
            entry = {item: None} if isinstance(item, str) else item  # a name alone
            if not (isinstance(entry, dict) and len(entry) == 1):
                expected = "names or mappings of one name to its settings"
                raise _refuse(place_of(value, n), f"{key} entries", expected, item)
            name, config = next(iter(entry.items()))
            pairs.append((name, config, place_of(entry, name, place_of(value, n))))
    else:
        expected = "a list of names or a mapping of names to their settings"
        raise _refuse(place, key, expected, value)
    found = []
    for name, config, at in pairs:
        if not isinstance(name, str):
            raise _refuse(at, f"{key} names", "str", name)
        if config and not isinstance(config, dict):  # MkDocs reads a falsy one as none
            raise _refuse(at, f"{key} {name} settings", "a mapping", config)
        found.append((name, config or {}, at))
    return found


def docstring_style(root: Path) -> str | None:
    """The `docstring_style` that mkdocstrings' Python handler is given in `mkdocs.yml`.

    Args:
        root: The project root.

    Returns:
        The style, or `None` when `mkdocs.yml` does not set one.

    Raises:
        DocpactError: When `mkdocs.yml` cannot be read, gives mkdocstrings' settings of a
            type MkDocs refuses, or sets a style griffe does not know.
    """
    settings = read_mkdocs(root) or {}
    for name, plugin, _ in _entries(settings, "plugins"):
        if name != "mkdocstrings":
            continue
        handlers = _mapping(plugin, "handlers", "mkdocstrings handlers")
        python = _mapping(handlers, "python", "mkdocstrings handlers python")
        options = _mapping(python, "options", "mkdocstrings handlers python options")
        style = options.get("docstring_style")
        if style is None:
            return None
        place = place_of(options, "docstring_style")
        if not isinstance(style, str):
            raise _refuse(place, "mkdocstrings' docstring_style", "a str", style)
        if style not in DOCSTRING_STYLES:
            msg = (
                f"{place}: error: mkdocstrings' docstring_style is {style!r}; "
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
        DocpactError: When `markdown_extensions` or a `toc` setting is not of a type MkDocs
            and Python-Markdown take, or a Python tag in the `toc` settings (a custom
            `slugify`) cannot be imported; the message names it and its line. The site's
            other extensions are not loaded: they do not change an anchor, and the checker
            needs none of them.
    """
    settings = read_mkdocs(root)
    if settings is None:
        return DEFAULT_HEADINGS
    listed: dict[str, dict[Any, Any]] = {}
    for name, config, _ in _entries(settings, "markdown_extensions"):
        listed[name.removeprefix("markdown.extensions.")] = config
    # Only what shapes anchors is imported (toc's Python tags): a checker without the site's
    # other extensions (pymdownx...) computes the same ids.
    given = listed.get("toc", {})
    toc = dict(given)
    for key, value in toc.items():
        place, setting = place_of(given, key), f"markdown_extensions toc {key}"
        if isinstance(value, PythonTag):
            try:
                toc[key] = value = value.resolve()
            except ImportError as error:
                msg = f"{place}: error: {setting} cannot be imported: {error}"
                raise DocpactError(msg) from None
        if key == "slugify" and not callable(value):
            raise _refuse(place, setting, "a function (a !!python/name: tag)", value)
        if key == "separator" and not isinstance(value, str):
            raise _refuse(place, setting, "a str", value)
    # Only what decides an anchor: the rendered page's permalinks and titles do not.
    toc = {key: value for key, value in toc.items() if key in {"slugify", "separator"}}
    extensions = ("toc", "attr_list") if "attr_list" in listed else ("toc",)
    return Headings(extensions, tuple(sorted(toc.items())), bool(_BLOCK_EXTENSIONS & set(listed)))
