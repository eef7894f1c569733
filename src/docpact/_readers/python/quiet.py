# SPDX-License-Identifier: MIT
"""griffe's log records dropped while docpact loads a package: one line instead of a traceback."""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["griffe_quiet"]

# Whether griffe's records are dropped: set only while this context loads a package, so
# another thread's or task's griffe logging is left alone, and no logger is switched off.
_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("docpact_quiet", default=False)
# mkdocstrings moves griffe's records to `mkdocs.plugins.griffe` once it is imported.
_GRIFFE_LOGGERS = ("griffe", "mkdocs.plugins.griffe")


def _drop_while_quiet(record: logging.LogRecord) -> bool:
    return not _QUIET.get()


# How many checks run now, nested or in other threads: the filter stays while any does.
_FILTERING = {"checks": 0}
_FILTERING_LOCK = threading.Lock()


@contextlib.contextmanager
def _griffe_filtered() -> Iterator[None]:
    """Let `_QUIET` drop griffe's records for as long as a check runs, and no longer.

    Re-entrant: the filter is added by the first check that starts and removed by the last
    that ends, so a nested or concurrent check leaves it in place for the others.
    """
    loggers = [logging.getLogger(name) for name in _GRIFFE_LOGGERS]
    with _FILTERING_LOCK:
        _FILTERING["checks"] += 1
        if _FILTERING["checks"] == 1:
            for logger in loggers:
                logger.addFilter(_drop_while_quiet)
    try:
        yield
    finally:
        with _FILTERING_LOCK:
            _FILTERING["checks"] -= 1
            if not _FILTERING["checks"]:
                for logger in loggers:
                    logger.removeFilter(_drop_while_quiet)


@contextlib.contextmanager
def griffe_quiet() -> Iterator[None]:
    """Drop griffe's records while this context loads a package.

    docpact reports one line where griffe would log a traceback for a package it cannot parse.
    """
    with _griffe_filtered():
        quiet = _QUIET.set(True)
        try:
            yield
        finally:
            _QUIET.reset(quiet)
