# SPDX-License-Identifier: MIT
r"""The one place docpact reads a text file or parses Python: what cannot be read, and where.

Every page, source, properties file, `noxfile.py` and configuration file goes through
`read_text`, so each is read the same way: UTF-8 with an optional byte-order mark dropped (as
MkDocs and Python read them), line breaks made ``\\n``, and only a regular file: a FIFO would
block the check for ever, a folder is no page. `parse_python` parses what `read_text` gave.
Either raises `Unreadable` with the 1-based line at fault and a reason worded to follow the
file's name; the caller turns it into a finding (a file a contract points at) or a usage
error (a configuration file).

Limits, stated once: none of docpact's own on a file's size (its scans are linear), and
Python's on nesting: an expression nested past what CPython's parser takes (about 200
brackets, or a few thousand operators in a chain) is reported, at the line nested deepest,
as nested too deeply, never raised as `RecursionError`.
"""

from __future__ import annotations

import ast
import functools
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

__all__ = [
    "Unreadable",
    "copy_files",
    "decode",
    "git_commit",
    "git_files",
    "git_head",
    "kind",
    "parse_python",
    "read_data",
    "read_error",
    "read_python",
    "read_text",
    "replace_file",
]

_KINDS = {
    stat.S_IFDIR: "a folder, not a file",
    stat.S_IFIFO: "a FIFO, not a regular file",
    stat.S_IFSOCK: "a socket, not a regular file",
    stat.S_IFCHR: "a character device, not a regular file",
    stat.S_IFBLK: "a block device, not a regular file",
}


class Unreadable(Exception):
    """A file that cannot be read as text, or as Python: the line at fault and why.

    Attributes:
        line: The 1-based line at fault (1 when the whole file is).
        reason: Why, worded to follow the file's name: ``is not UTF-8 (invalid start byte)``.
        missing: Whether the path does not exist at all.
    """

    def __init__(self, line: int, reason: str, *, missing: bool = False) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason
        self.missing = missing


def read_text(path: Path) -> str:
    r"""The text of a regular UTF-8 file, its byte-order mark dropped and line breaks ``\\n``.

    Args:
        path: The file.

    Returns:
        The text.

    Raises:
        Unreadable: When the path is not a regular file, cannot be opened, or is not UTF-8.
    """
    return decode(read_data(path))


def read_data(path: Path) -> bytes:
    """The bytes of a regular file: what `read_text` decodes.

    Args:
        path: The file.

    Returns:
        The bytes.

    Raises:
        Unreadable: When the path is not a regular file or cannot be opened.
    """
    try:
        mode = os.stat(path).st_mode
    except ValueError:  # a NUL byte in the name
        raise Unreadable(1, "cannot be read: its name holds a NUL byte") from None
    except OSError as error:  # missing, a name too long, a folder that cannot be searched
        missing = isinstance(error, FileNotFoundError)
        raise Unreadable(1, f"cannot be read: {error.strerror}", missing=missing) from None
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise Unreadable(1, f"cannot be read: it is {kind}")
    try:
        return path.read_bytes()
    except OSError as error:
        raise Unreadable(1, f"cannot be read: {error.strerror}") from None


def decode(data: bytes) -> str:
    r"""A file's bytes as `read_text` gives its text: UTF-8, no byte-order mark, ``\n`` breaks.

    Args:
        data: The bytes.

    Returns:
        The text.

    Raises:
        Unreadable: When the bytes are not UTF-8.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise Unreadable(
            line, f"cannot be read: not UTF-8 at line {line} ({error.reason})"
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def kind(path: Path) -> str:
    """What is at a path, from its mode alone: nothing is opened, nothing raised.

    Args:
        path: The path.

    Returns:
        ``file``, ``folder``, ``other`` (a FIFO, a socket, a device), or an empty string when
        nothing is there or the file system refuses the name (too long, a NUL byte).
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return ""
    return "file" if stat.S_ISREG(mode) else "folder" if stat.S_ISDIR(mode) else "other"


def read_error(path: Path) -> str:
    """Why `read_text` cannot read a file, or an empty string when it can."""
    try:
        read_text(path)
    except Unreadable as error:
        return error.reason
    return ""


def parse_python(text: str, filename: str) -> ast.Module:
    """The syntax tree of Python source, parsed once per text: treat it as read-only.

    The readers of one check share it: the claims' bindings and their code under test
    read the same test files.

    Args:
        text: The source.
        filename: Its name, for Python's messages.

    Returns:
        The module's tree.

    Raises:
        Unreadable: When the source has a syntax error, a NUL byte, or nests too deeply.
    """
    if (nul := text.find("\0")) >= 0:  # a ValueError to early 3.11 releases, later a SyntaxError
        raise Unreadable(text.count("\n", 0, nul) + 1, "holds a NUL byte")
    return _parse(text, filename)


@functools.lru_cache(maxsize=32)
def _parse(text: str, filename: str) -> ast.Module:
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as error:
        if "too many nested" in str(error.msg):
            raise Unreadable(error.lineno or 1, _DEEP) from None
        raise Unreadable(error.lineno or 1, f"has a syntax error ({error.msg})") from None
    except (RecursionError, MemoryError):  # CPython's parser and compiler on deep nesting
        raise Unreadable(_deepest_line(text), _DEEP) from None


def read_python(path: Path, root: Path | None = None) -> ast.Module:
    """`parse_python` of `read_text`: a Python file's syntax tree.

    Args:
        path: The file.
        root: The project root, to name the file relative to it in Python's messages.

    Returns:
        The module's tree.

    Raises:
        Unreadable: As `read_text` and `parse_python` do.
    """
    name = path.relative_to(root).as_posix() if root is not None else str(path)
    return parse_python(read_text(path), name)


_DEEP = "nests too deeply for Python's parser"
_BRACKETS = 200  # CPython's limit of nested brackets


def _deepest_line(text: str) -> int:
    """Where a deeply nested expression is: the line brackets nest deepest on, or the longest.

    Brackets count when they nest past what CPython's parser takes (200); else the longest
    line holds the long chain of operators.
    """
    depth = deepest = 0
    line = at = 1
    for char in text:
        if char == "\n":
            line += 1
        elif char in "([{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, line
        elif char in ")]}":
            depth = max(depth - 1, 0)
    if deepest < _BRACKETS:
        lengths = [len(line) for line in text.split("\n")]
        return lengths.index(max(lengths)) + 1
    return at


def git_files(folder: Path) -> list[str] | None:
    """The files under a folder that git does not ignore, tracked or not; None without git.

    Args:
        folder: A folder of a git checkout.

    Returns:
        The paths relative to ``folder``, or None where git is missing or knows no checkout.
    """
    git = shutil.which("git")
    if git is None:
        return None
    listed = subprocess.run(
        [git, "-C", str(folder), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        return None
    return [name for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if name]


def git_commit(folder: Path) -> str | None:
    """The commit a checkout stands on: `git_head` without the state of its files.

    Args:
        folder: A folder of a git checkout.

    Returns:
        The full hex id of ``HEAD``, or None where git is missing, knows no checkout or the
        checkout has no commit yet.
    """
    git = shutil.which("git")
    if git is None:
        return None
    head = subprocess.run(
        [git, "-C", str(folder), "rev-parse", "--verify", "-q", "HEAD"],
        capture_output=True,
        check=False,
    )
    commit = head.stdout.decode("ascii", "replace").strip()
    return commit if head.returncode == 0 and commit else None


def git_head(folder: Path) -> tuple[str | None, bool]:
    """The commit a checkout stands on, and whether its tracked files differ from it.

    Args:
        folder: A folder of a git checkout.

    Returns:
        The full hex id of ``HEAD``, or None where git is missing, knows no checkout or the
        checkout has no commit yet; and whether a tracked file has uncommitted changes
        (False without a commit).
    """
    commit, git = git_commit(folder), shutil.which("git")
    if commit is None or git is None:
        return None, False
    status = subprocess.run(
        [git, "-C", str(folder), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        check=False,
    )
    return commit, status.returncode != 0 or bool(status.stdout.strip())


def copy_files(source: Path, names: list[str], destination: Path) -> None:
    """Copy the named files (and links) of ``source`` to the same paths under ``destination``.

    A name that is no longer a file (a tracked file deleted) is left out.
    """
    destination.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = source / name
        if path.is_file() or path.is_symlink():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination / name, follow_symlinks=False)


def replace_file(target: Path, data: bytes, mode: int) -> None:
    """Replace a file's bytes in one step: written beside it, then renamed over it.

    A reader sees the old bytes or the new ones, never a part; the new file gets `mode`.

    Raises:
        OSError: When the folder cannot be written; nothing is left behind.
    """
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
