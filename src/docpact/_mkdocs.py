# SPDX-License-Identifier: MIT
"""The settings docpact takes from a project's `mkdocs.yml`, read as data, never run.

MkDocs' own tags are understood: `!ENV` is read from the environment and `!relative` gives
its path; Python tags (`!!python/name:...`) are kept as the text they name, since docpact
imports nothing a configuration file names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from docpact._errors import DocpactError
from docpact._findings import cannot_read, relative

__all__ = ["DOCSTRING_STYLES", "docstring_style", "read_mkdocs"]

DOCSTRING_STYLES = ("google", "numpy", "sphinx")


class _Loader(yaml.SafeLoader):
    """A safe loader that also accepts the tags MkDocs configurations use."""


def _env(loader: _Loader, node: yaml.Node) -> Any:
    names = (
        [loader.construct_scalar(node)]
        if isinstance(node, yaml.ScalarNode)
        else loader.construct_sequence(node)
    )
    *variables, default = names if len(names) > 1 else [*names, None]
    return next((os.environ[name] for name in variables if name in os.environ), default)


def _opaque(loader: _Loader, suffix: str, node: yaml.Node) -> str:
    return node.tag  # the full tag, `tag:yaml.org,2002:python/name:...`


_Loader.add_constructor("!ENV", _env)
_Loader.add_constructor("!relative", lambda loader, node: loader.construct_scalar(node))
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _opaque)


def read_mkdocs(root: Path) -> dict[str, Any] | None:
    """Read the project's `mkdocs.yml` (or `mkdocs.yaml`) as data.

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
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, UnicodeDecodeError) as error:
        msg = f"{where}: error: {cannot_read(error)}"
        raise DocpactError(msg) from None
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
