# SPDX-License-Identifier: MIT
"""Findings: what a broken contract reports, under the codes of the registry's `CODES`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["Finding", "cannot_read", "relative"]


@dataclass(frozen=True, order=True)
class Finding:
    """One broken rule of one contract, at one place in the project.

    Findings sort by path, then line, then code, the order in which the command line
    prints them.

    Attributes:
        path: The file the finding is about, relative to the project root when it lies
            inside it, with forward slashes.
        line: The 1-based line in that file.
        code: The finding code, a key of `CODES`.
        message: What is wrong, in one line.
        severity: `error`, which fails the check and the strict build, or `warning`,
            which is reported and fails neither (a contract's setting chooses it).
    """

    path: str
    line: int
    code: str
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        warning = "warning: " if self.severity == "warning" else ""
        return f"{self.path}:{self.line}: {warning}{self.code} {self.message}"

    def github(self) -> str:
        """Format the finding as a GitHub Actions error annotation.

        Returns:
            One `::error` (`::warning`) workflow command that GitHub shows on the file and
            line.
        """
        file, title = _escape_property(self.path), _escape_property(self.code)
        kind = "warning" if self.severity == "warning" else "error"
        return f"::{kind} file={file},line={self.line},title={title}::{_escape(self.message)}"


def _escape(text: str) -> str:
    """Escape a workflow command's message: ``%`` and the line breaks that would end it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """Escape one of a workflow command's properties (``file=...``).

    A property also escapes ``:`` and ``,``, which would end the property list or the value.
    """
    return _escape(text).replace(":", "%3A").replace(",", "%2C")


def relative(path: Path, root: Path) -> str:
    """Write a path relative to the project root when it lies inside it.

    Args:
        path: An absolute path.
        root: The project root.

    Returns:
        The path with forward slashes, relative when possible.
    """
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def cannot_read(error: Exception) -> str:
    """Say why a file cannot be read, for a message that names the file before it.

    Args:
        error: `Unreadable` from `docpact._readers.files`, or what Python's own reading raised.

    Returns:
        The reason, for example ``cannot be read: it is a FIFO, not a regular file``.
    """
    if (reason := getattr(error, "reason", None)) and not isinstance(error, UnicodeDecodeError):
        return reason
    if isinstance(error, UnicodeDecodeError):
        return f"cannot be read: not UTF-8 ({error.reason})"
    return f"cannot be read: {error.strerror}"
