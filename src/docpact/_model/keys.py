# SPDX-License-Identifier: MIT
"""The checks of a contract table's values, which every kind's parser shares.

Each raises `ValueError` with a message that starts with the key at fault
(`tool.docpact.contract[0].operands must ...`); `docpact._pyproject` turns it into a
`pyproject.toml:LINE: error:` line naming that key's line.
"""

from __future__ import annotations

import keyword
import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

__all__ = [
    "REVIEWED",
    "SESSION",
    "dotted_path",
    "identifiers",
    "inside",
    "is_name",
    "project_file",
    "project_paths",
    "require",
    "sections",
]


SESSION = re.compile(r"[\w.\-+]+")
"""A nox session's name."""

REVIEWED = re.compile(r"[0-9a-f]{12}/[0-9a-f]{12}(?:/[0-9a-f]{12})?")
"""A review stamp: the fingerprints of a claim's text, of its property's code and of the
code under test; the last is absent from a stamp written before it was reviewed."""


def require(entry: dict[str, Any], key: str, kind: str, names: tuple[str, ...]) -> None:
    """Refuse a table that lacks some of the keys its kind needs.

    Args:
        entry: The contract's table.
        key: The table's key, `tool.docpact.contract[N]`.
        kind: The contract's kind, for the message.
        names: The keys checked here; a kind checks the others with messages of their own.

    Raises:
        ValueError: When a key of `names` is missing, naming every missing one.
    """
    if missing := sorted(set(names) - set(entry)):
        msg = f"{key} needs {', '.join(missing)} for a {kind} contract"
        raise ValueError(msg)


def dotted_path(value: object, key: str) -> str:
    """A dotted Python path, such as `package.module.function`.

    Raises:
        ValueError: When the value is not one.
    """
    if not isinstance(value, str) or not all(map(is_name, value.split("."))):
        msg = f"{key} must be a dotted Python path, got {value!r}"
        raise ValueError(msg)
    return value


def identifiers(names: object, key: str) -> tuple[str, ...]:
    """A non-empty list of Python names, each once.

    Raises:
        ValueError: When the value is not one.
    """
    if not isinstance(names, list) or not names or not all(map(is_name, names)):
        msg = f"{key} must be a non-empty list of Python names, not keywords, got {names!r}"
        raise ValueError(msg)
    if repeated := sorted({name for name in names if names.count(name) > 1}):
        msg = f"{key} lists {repeated} more than once; list each once"
        raise ValueError(msg)
    return tuple(names)


def project_file(value: object, key: str) -> str:
    """A path inside the project root.

    Raises:
        ValueError: When the value is not one.
    """
    if not isinstance(value, str) or not value or "\0" in value or not inside(value):
        msg = f"{key} must be a path inside the project root, got {value!r}"
        raise ValueError(msg)
    return value


def project_paths(paths: object, key: str) -> tuple[str, ...]:
    """A non-empty list of paths inside the project root, each once, normalized.

    A path is written as the findings and the site name it: `./docs/a.md` is `docs/a.md`.

    Raises:
        ValueError: When the value is not one.
    """
    if (
        not isinstance(paths, list)
        or not paths
        or not all(isinstance(p, str) and p and "\0" not in p and inside(p) for p in paths)
    ):
        msg = f"{key} must be a non-empty list of paths inside the project root, got {paths!r}"
        raise ValueError(msg)
    normal = [PurePosixPath(os.path.normpath(p.replace("\\", "/"))).as_posix() for p in paths]
    if repeated := sorted({p for p in normal if normal.count(p) > 1}):
        msg = f"{key} lists {repeated} more than once; list each once"
        raise ValueError(msg)
    return tuple(normal)


def sections(docs: object, key: str, *, kind: str, required: bool = False) -> tuple[str, ...]:
    """A list of docs sections, each `page.md#anchor`.

    Args:
        docs: The value.
        key: Its key, `tool.docpact.contract[N].docs`.
        kind: The contract's kind, for the message.
        required: Whether the list must hold at least one section.

    Raises:
        ValueError: When the value is not such a list.
    """
    if not isinstance(docs, list) or not all(_is_section(section) for section in docs):
        msg = f"{key} must be a list of 'page.md#anchor' strings, got {docs!r}"
        raise ValueError(msg)
    if required and not docs:
        msg = f"{key} must list at least one 'page.md#anchor' for a {kind} contract"
        raise ValueError(msg)
    return tuple(docs)


def inside(relative_path: str) -> bool:
    """Whether a path, read as text relative to the project root, stays inside it.

    Links are not followed: a `src` that links elsewhere is the project's own choice.
    """
    if Path(relative_path).is_absolute():
        return False
    path = PurePosixPath(relative_path.replace("\\", "/"))
    return not path.is_absolute() and ".." not in PurePosixPath(os.path.normpath(path)).parts


def is_name(name: object) -> bool:
    """Whether a value is a Python name that is not a keyword."""
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


def _is_section(section: object) -> bool:
    if not isinstance(section, str) or "\0" in section:
        return False
    page, _, anchor = section.partition("#")
    return bool(page and anchor) and "#" not in anchor
