# SPDX-License-Identifier: MIT
"""The settings docpact takes from a project's `mkdocs.yml`, read as data.

MkDocs' own tags are understood: `!ENV` is read from the environment and `!relative` gives
its path. Python tags (`!!python/name:...`, `!!python/object/apply:...`) are kept as
`PythonTag`s; only the ones that shape heading anchors (a custom `toc` slugify) are imported,
when docpact computes anchors as the site has them.
"""

from __future__ import annotations

import copy
import functools
import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from docpact._model.config import DEFAULT_HEADINGS, DOCSTRING_STYLES, Headings
from docpact._model.errors import DocpactError
from docpact._model.findings import cannot_read, relative

__all__ = [
    "PythonTag",
    "docstring_style",
    "headings",
    "read_mkdocs",
]

# The extensions whose indented blocks (`!!! note`, `??? note`) can hold headings.
_BLOCK_EXTENSIONS = frozenset({"admonition", "pymdownx.details"})


@dataclass(frozen=True)
class PythonTag:
    """A `!!python/...` tag of `mkdocs.yml`, not imported until it is needed.

    Attributes:
        tag: The full tag, `tag:yaml.org,2002:python/name:module.attribute`.
        value: What the tag is applied to (the arguments of `python/object/apply`).
    """

    tag: str
    value: Any = None

    def resolve(self) -> Any:
        """Import what the tag names; call it for `python/object/apply`.

        Returns:
            The object.

        Raises:
            ImportError: When the module or its attribute cannot be imported.
        """
        kind, _, dotted = self.tag.removeprefix("tag:yaml.org,2002:python/").partition(":")
        module, _, attribute = dotted.rpartition(".")
        try:
            obj = getattr(importlib.import_module(module), attribute)
        except AttributeError as error:
            raise ImportError(str(error)) from None
        if kind.startswith("object"):
            value = self.value if isinstance(self.value, dict) else {"args": self.value or []}
            return obj(*value.get("args", []), **value.get("kwds", {}))
        return obj


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml's, where built
    """A safe loader that also accepts the tags MkDocs configurations use."""


def _env(loader: _Loader, node: yaml.Node) -> Any:
    names = (
        [loader.construct_scalar(node)]
        if isinstance(node, yaml.ScalarNode)
        else loader.construct_sequence(node)
    )
    *variables, default = names if len(names) > 1 else [*names, None]
    return next((os.environ[name] for name in variables if name in os.environ), default)


def _python(loader: _Loader, suffix: str, node: yaml.Node) -> PythonTag:
    if isinstance(node, yaml.MappingNode):
        return PythonTag(node.tag, loader.construct_mapping(node))
    if isinstance(node, yaml.SequenceNode):
        return PythonTag(node.tag, loader.construct_sequence(node))
    return PythonTag(node.tag)


_Loader.add_constructor("!ENV", _env)
_Loader.add_constructor("!relative", lambda loader, node: loader.construct_scalar(node))
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _python)


def read_mkdocs(root: Path) -> dict[str, Any] | None:
    """Read the project's `mkdocs.yml` (or `mkdocs.yaml`) as data, once per version of it.

    Args:
        root: The project root.

    Returns:
        The configuration, or `None` when the project has no MkDocs configuration.

    Raises:
        DocpactError: When the file cannot be read or is not YAML, naming the line at fault.
    """
    names = ("mkdocs.yml", "mkdocs.yaml")
    path = next((root / name for name in names if (root / name).is_file()), None)
    if path is None:
        return None
    where = relative(path, Path.cwd())
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        msg = f"{where}: error: {cannot_read(error)}"
        raise DocpactError(msg) from None
    # A copy: callers may change what they get, and the cache keeps the file's own data.
    return copy.deepcopy(_parse(where, text))


@functools.lru_cache(maxsize=8)  # by the text itself: an edit is never served stale
def _parse(where: str, text: str) -> dict[str, Any]:
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        msg = f"{where}{line}: error: is not valid YAML: {' '.join(str(error).split())}"
        raise DocpactError(msg) from None
    return data if isinstance(data, dict) else {}


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
