# SPDX-License-Identifier: MIT
"""A ready Sybil configuration that runs every example of the docs pages."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sybil import Sybil

from docpact._model.errors import DocpactError
from docpact._pyproject import find_pyproject
from docpact.sybil._config_defaults import ConfigDefaultsParser
from docpact.sybil._console import ConsoleParser, remove_trees
from docpact.sybil._python import PythonFenceParser
from docpact.sybil._skip import ConditionsClearNamespaceParser, ReasonedSkipParser, add_conditions

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["docs_sybil"]


def docs_sybil(
    path: str | os.PathLike[str] = "docs",
    *,
    root: str | os.PathLike[str] | None = None,
    patterns: tuple[str, ...] = ("*.md",),
    **options: Any,
) -> Sybil:
    """Build a Sybil that runs every Python example, config-defaults block and console block.

    Each page runs in its own namespace, cleared after the page and wherever the page says
    `<!-- clear-namespace -->`. Python examples are `python`, `py` and `pycon` fenced
    blocks, doctest-style (`>>>`) or plain, with or without attributes (`python
    title="x.py"`, `{.python}`); `<!-- skip: next "reason" -->` skips the next one, and the
    reason is required. A condition skips only where it holds:
    `<!-- skip: next if(not importable("verl"), reason="needs verl") -->`; `importable` is in
    every page's namespace, before any `setup` of yours runs. A `console` fence with `$ `
    commands runs them and compares what they print (`docpact.sybil.ConsoleParser`); a
    `<!-- docpact: console tmp -->` line before it picks the folder it runs in.

    Use it from a `conftest.py`, naming the project root (the folder of `pyproject.toml`),
    as `pytest_collect_file = docs_sybil(root=Path(__file__).parent).pytest()`.

    Args:
        path: The folder of the pages, relative to `root`.
        root: The project root; by default the nearest folder holding a `pyproject.toml`,
            from the current folder upward (where pytest runs).
        patterns: Glob patterns of the pages, relative to `path`.
        **options: Passed on to `sybil.Sybil` (`setup`, `fixtures`, `excludes`...).

    Returns:
        The Sybil.

    Raises:
        DocpactError: When the docs folder does not exist.

    Examples:
        >>> from pathlib import Path
        >>> # This repository, seen from src/docpact/sybil/_docs.py:
        >>> root = Path(__file__).parents[3]
        >>> sybil = docs_sybil(root=root)
        >>> sybil.path == (root / "docs").absolute(), sybil.patterns
        (True, ['*.md'])
        >>> callable(sybil.pytest())
        True
    """
    if root is None:
        root = find_pyproject(Path.cwd()).parent
    folder = Path(root, path)
    if not folder.is_dir():
        msg = f"docs_sybil: the docs folder {folder} does not exist (root {root}, path {path})"
        raise DocpactError(msg)
    options.setdefault("teardown", _clear)
    options["setup"] = _setup_with(options.get("setup"))
    return Sybil(
        parsers=[
            ReasonedSkipParser(),
            ConditionsClearNamespaceParser(),
            PythonFenceParser(),
            ConfigDefaultsParser(root),
            ConsoleParser(root),
        ],
        # An absolute path: Sybil reads a relative one from this module's folder.
        path=str(folder.absolute()),
        patterns=list(patterns),
        **options,
    )


def _clear(namespace: dict[str, Any]) -> None:
    remove_trees(namespace)
    namespace.clear()


def _setup_with(
    setup: Callable[[dict[str, Any]], None] | None,
) -> Callable[[dict[str, Any]], None]:
    """A page setup that adds the skip conditions' names, then runs ``setup``."""

    def run(namespace: dict[str, Any]) -> None:
        add_conditions(namespace)
        if setup is not None:
            setup(namespace)

    return run
