# SPDX-License-Identifier: MIT
"""The one exception type that docpact raises for a configuration it cannot use."""

from __future__ import annotations

__all__ = ["DocpactError"]


class DocpactError(Exception):
    """A `[tool.docpact]` table, or a path given to docpact, that docpact cannot use.

    The message is one line that starts with the file it is about, for example
    ``pyproject.toml:12: error: tool.docpact.contract[0].operands must be a non-empty list of
    names, got []``. The command line prints it and exits with status 2.
    """
