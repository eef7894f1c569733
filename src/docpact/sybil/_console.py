# SPDX-License-Identifier: MIT
"""Console blocks run as tests: each `$ command` of a `console` fence, its output compared.

A `console` fence whose lines start with `$ ` shows commands and what they print: every
command runs in a shell, in the block's tree, and its output (stdout and stderr together)
is compared with the lines shown under it as a doctest compares (`+ELLIPSIS` and the other
doctest flags where the block asks). A fence with no `$ ` line shows commands only (an
install line, say) and is not run; nor is a console fence shown inside another fence (a
`markdown` example of one), which is text on the page.
"""

from __future__ import annotations

import atexit
import contextlib
import doctest
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from sybil import Region
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer

from docpact._readers.files import copy_files, git_files, kind
from docpact._readers.markdown.directives import CONSOLE, PREFIX
from docpact._readers.markdown.prose import page_lines, prose_lines

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sybil import Document, Example

__all__ = ["ConsoleParser", "copy_tree", "remove_trees"]

TREES = ("project", "tmp", "copy")
"""Where a block's commands run: a copy of the project root (the default), an empty
temporary folder, or a copy of one folder of the project (`copy tests/fixture`)."""

TIMEOUT = 120.0
"""Seconds a command may run unless its block sets `timeout=`."""

MAX_TIMEOUT = 86400
"""The most seconds a block's `timeout=` may give: a day, which no docs command needs."""

LIMIT = 16 * 2**20
"""Bytes a command may print: past them it is stopped, so one that prints without end fails
at once rather than filling memory until its timeout."""

_DIRECTIVE = re.compile(rf"[ \t]*{PREFIX}{CONSOLE}(?![\w-])(?P<arguments>.*?)[ \t]*--+>[ \t]*")
_ANY = re.compile(rf"^[ \t]*{PREFIX}{CONSOLE}(?![\w-])", re.MULTILINE)
_KEY = "__docpact_console_trees__"  # the page's trees, in its namespace
_SKIP_COPY = frozenset({".git", ".nox", ".tox", ".venv", "venv", "site", "__pycache__"})


@dataclass(frozen=True)
class Command:
    """One `$ ` command of a block: its text (continuation lines joined) and its output."""

    line: int
    """The command's line on the page."""
    source: str
    """The command, with its `> ` continuation lines, as the shell reads it."""
    want: str
    """The output shown under it."""


@dataclass(frozen=True)
class Session:
    """A console block: where its commands run and what each must print."""

    tree: str
    """One of `TREES`."""
    folder: str
    """For a `copy` tree, the folder copied, relative to the project root."""
    status: int
    """The exit status every command of the block must end with."""
    flags: int
    """The doctest option flags the outputs are compared with."""
    timeout: float
    """Seconds a command may run."""
    commands: tuple[Command, ...]


class ConsoleParser:
    r"""Collect each `console` fence that holds a `$ ` command, to run its commands.

    The block's tree comes from a comment on the line before the fence, with doctest flags
    and an exit status other than 0 where the commands end so:
    `<!-- docpact: console tmp +ELLIPSIS status=2 -->`. Trees: `project` (a copy of the
    project root, the default: tracked and untracked files that git does not ignore), `tmp`
    (an empty folder) and `copy PATH` (a copy of a folder of the project). A page's blocks of
    one tree share it, in page order, as one shell session's commands would; `$ ` starts a
    command, a `> ` line right after it continues it (a here-document, say), and the lines up
    to the next `$ ` are its output. The commands find this interpreter's scripts first on
    `PATH` (`python3`, `docpact`, the project's console scripts), `COLUMNS` is 80, and the
    tree's absolute path prints as `.`. A `skip:` comment before the block skips it. A
    `copy` folder must resolve inside the project, symlinks followed; a command that prints
    more than `LIMIT` bytes is stopped. Fences are read as `docpact check` reads them
    (`docpact._readers.markdown.prose.prose_lines`): a console fence inside another fence, or
    one that nothing closes, is text, not a block.

    Args:
        root: The project root, which `project` and `copy` trees copy.

    Examples:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from sybil import Sybil
        >>> from sybil.example import SybilFailure
        >>> root = Path(tempfile.mkdtemp())
        >>> _ = (root / "page.md").write_text(
        ...     "<!-- docpact: console tmp -->\n"
        ...     "```console\n$ printf 'one\\ntwo\\n' > f.txt\n$ wc -l < f.txt\n2\n```\n"
        ... )
        >>> sybil = Sybil([ConsoleParser(root)], path=str(root), patterns=["*.md"])
        >>> [example] = sybil.parse(root / "page.md")
        >>> example.evaluate()  # passes: wc printed 2
        >>> _ = (root / "page.md").write_text("```console\n$ echo 3\n2\n```\n")
        >>> [example] = sybil.parse(root / "page.md")
        >>> try:
        ...     example.evaluate()
        ... except SybilFailure as failure:
        ...     print(failure.result)
        line 2: $ echo 3
        Expected:
            2
        Got:
            3
        <BLANKLINE>
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        # `console`, alone or before attributes (```console title="Run it"), as pages write it.
        self._fences = FencedCodeBlockLexer(r"console(?:[ \t][^\n]*)?")

    def __call__(self, document: Document) -> Iterator[Region]:
        """Yield one region per console fence that holds a `$ ` command.

        Args:
            document: The page.

        Yields:
            A region over the fence.

        Raises:
            ValueError: When a `docpact: console` comment is malformed or no console fence
                follows it, or a block shows output before its first command, or a command
                holds a NUL byte.
        """
        text = document.text
        prose, fenced = _read_fences(text)
        announced = _announced(text, prose)
        for region in self._fences(document):
            line = text.count("\n", 0, region.start) + 1
            if not _top_level(fenced, line - 1, text.count("\n", 0, region.end)):
                continue
            where = f"{document.path}:{line}"
            before = text[: region.start].rstrip("\n ").rpartition("\n")
            comment = _DIRECTIVE.fullmatch(before[2])
            if comment is not None:
                announced.discard(len(before[0]) + len(before[1]))
            commands = _commands(str(region.lexemes["source"]), line + 1, where)
            if not commands:
                continue
            arguments = comment["arguments"] if comment else ""
            yield Region(
                region.start, region.end, _session(arguments, commands, where), self.evaluate
            )
        if announced:
            line = text.count("\n", 0, min(announced)) + 1
            msg = (
                f"{document.path}:{line}: error: docpact: console must be followed by a "
                "console fence"
            )
            raise ValueError(msg)

    def evaluate(self, example: Example) -> str | None:
        """Run the block's commands in its tree; what differs, or `None`.

        Args:
            example: The example holding the block.

        Returns:
            `None` when every command printed its output and ended with the block's
            status, else the first difference, with the command's line.

        Raises:
            FileNotFoundError: When a `copy` tree's folder is no folder.
            ValueError: When a `copy` tree's folder resolves outside the project.
        """
        __tracebackhide__ = True
        session: Session = example.parsed
        folder = _tree(example.namespace, session, self.root, f"{example.path}:{example.line}")
        for command in session.commands:
            status, got = _run(command.source, folder, session.timeout)
            where = f"line {command.line}: $ {(command.source.splitlines() or [''])[0]}"
            if status is None:
                return f"{where}\n{got}"
            checker = doctest.OutputChecker()
            if not checker.check_output(command.want, got, session.flags):
                shown = doctest.Example(command.source, command.want)
                return f"{where}\n" + checker.output_difference(shown, got, session.flags)
            if status != session.status:
                return f"{where}\nexited {status}, expected {session.status}; it printed:\n{got}"
        return None


def _announced(text: str, prose: list[str]) -> set[int]:
    """Where each `docpact: console` comment starts, but those shown in fenced code."""
    return {
        match.start()
        for match in _ANY.finditer(text)
        if prose[text.count("\n", 0, match.start())].strip()
    }


def _read_fences(text: str) -> tuple[list[str], list[bool]]:
    """A page's lines as `prose_lines` leaves them, and whether each ends inside fenced code.

    A marker line after each line, which no fence reading counts, is prose exactly where the
    line before it ends outside every fence.
    """
    lines = text.split("\n")
    marked = prose_lines([part for line in lines for part in (line, "\0")])
    return marked[::2], [not marker for marker in marked[1::2]]


def _top_level(fenced: list[bool], opening: int, closing: int) -> bool:
    """Whether lines ``opening`` to ``closing`` (0-based) are one fence outside every other."""
    return (opening == 0 or not fenced[opening - 1]) and (
        all(fenced[opening:closing]) and not fenced[closing]
    )


def _commands(source: str, first: int, where: str) -> list[Command]:
    """The `$ ` commands of a fence's source, from its line `first` on the page."""
    commands: list[Command] = []
    lines = source.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    if not any(line == "$" or line.startswith("$ ") for line in lines):
        return []
    start = text = None
    want: list[str] = []
    for n, line in enumerate(lines, start=first):
        if line == "$" or line.startswith("$ "):
            if text is not None:
                commands.append(Command(start, text, _joined(want)))
            start, text, want = n, line[2:], []
        elif text is None:
            msg = f"{where}: error: console block shows output before its first $ command: {line!r}"
            raise ValueError(msg)
        elif not want and (line == ">" or line.startswith("> ")):
            text += "\n" + line[2:]
        else:
            want.append(line)
    commands.append(Command(start, text, _joined(want)))
    for command in commands:
        if "\0" in command.source:
            msg = (
                f"{where}: error: console command holds a NUL byte, which no shell runs: "
                f"{command.source!r}"
            )
            raise ValueError(msg)
    return commands


def _joined(lines: list[str]) -> str:
    """The output shown, its lines' trailing blanks dropped as they are from what ran."""
    return "".join(f"{line.rstrip()}\n" for line in lines)


def _session(arguments: str, commands: list[Command], where: str) -> Session:
    """A block's session from its comment's arguments: a tree, flags, a status, a timeout."""
    words = arguments.split()
    tree, folder, flags, status, timeout = "project", "", 0, 0, TIMEOUT
    if words and words[0] in TREES:
        tree = words.pop(0)
        if tree == "copy":
            if not words or words[0].startswith(("+", "-")) or "=" in words[0]:
                msg = (
                    f"{where}: error: docpact: console copy needs a folder, as console copy tests/x"
                )
                raise ValueError(msg)
            folder = words.pop(0)
            parts = PurePosixPath(folder.replace("\\", "/")).parts
            if not parts or parts[0] == "/" or ".." in parts or ":" in parts[0]:
                raise ValueError(_outside(where, folder))
    for word in words:
        key, _, value = word.partition("=")
        if word[:1] in "+-" and word[1:] in doctest.OPTIONFLAGS_BY_NAME:
            flag = doctest.OPTIONFLAGS_BY_NAME[word[1:]]
            flags = flags | flag if word[0] == "+" else flags & ~flag
        elif key == "status" and re.fullmatch(r"[0-9]{1,3}", value) and int(value) < 256:
            status = int(value)
        elif (
            key == "timeout"
            and re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", value)
            and (0 < float(value) <= MAX_TIMEOUT)
        ):
            timeout = float(value)
        else:
            msg = (
                f"{where}: error: docpact: console takes a tree ({', '.join(TREES)}), doctest "
                f"flags (+ELLIPSIS), status=N and timeout=SECONDS (at most {MAX_TIMEOUT}), "
                f"got {word!r}"
            )
            raise ValueError(msg)
    return Session(tree, folder, status, flags, timeout, tuple(commands))


def _outside(where: str, folder: str) -> str:
    """The message for a `copy` folder outside the project; what it resolves to may follow."""
    return (
        f"{where}: error: docpact: console copy takes a folder inside the project, "
        f"as console copy tests/x, got {folder!r}"
    )


def _tree(namespace: dict[str, Any], session: Session, root: Path, where: str) -> Path:
    """The page's folder of the session's tree, made on first use; ``where`` is the block's."""
    trees = namespace.setdefault(_KEY, {})
    key = (session.tree, session.folder)
    if key not in trees:
        source = _copied(root, session.folder, where) if session.tree == "copy" else root
        made = tempfile.mkdtemp(prefix="docpact-console-")
        if not _MADE:
            atexit.register(_remove, _MADE)  # what no page's teardown removed
        _MADE.append(made)
        folder = Path(made, "tree")
        if session.tree == "tmp":
            folder.mkdir()
        else:
            copy_tree(source, folder)
        trees[key] = made
    return Path(trees[key], "tree")


def _copied(root: Path, folder: str, where: str) -> Path:
    """The folder a `copy` tree copies, resolved: one inside the project root, symlinks followed."""
    inside = root.resolve()
    try:
        source = (root / folder).resolve()
    except (OSError, RuntimeError):  # a symlink loop: RuntimeError before Python 3.13
        source = inside / folder  # no folder, as below
    if not source.is_relative_to(inside):
        msg = f"{_outside(where, folder)}, which resolves to {source}, outside {inside}"
        raise ValueError(msg)
    if not source.is_dir():
        msg = f"{where}: error: docpact: console copy {folder}: no such folder under {root}"
        raise FileNotFoundError(msg)
    return source


def remove_trees(namespace: dict[str, Any]) -> None:
    """Delete the console trees a page's namespace holds (at the page's teardown).

    Args:
        namespace: The page's namespace.
    """
    made = list(namespace.pop(_KEY, {}).values())
    _remove(made)


_MADE: list[str] = []  # every tree's folder, until removed


def _remove(folders: list[str]) -> None:
    for folder in list(folders):
        shutil.rmtree(folder, ignore_errors=True)
        if folder in _MADE:
            _MADE.remove(folder)


def copy_tree(source: Path, folder: Path) -> None:
    """Copy a folder: the files git does not ignore, where git knows it; else all but caches.

    Without git, what is no file, folder or symlink (a FIFO, a socket) is left out, as git
    lists none: copying one fails, or blocks on a FIFO.
    """
    names = git_files(source)
    if names is None:
        shutil.copytree(source, folder, symlinks=True, ignore=_left_out)
    else:
        copy_files(source, names, folder)


def _left_out(folder: str, names: list[str]) -> set[str]:
    """The names of a folder that `copy_tree` does not copy without git."""
    return {name for name in names if name in _SKIP_COPY or kind(Path(folder, name)) == "other"}


def _run(command: str, folder: Path, timeout: float) -> tuple[int | None, str]:
    """Run one command in a shell in ``folder``: its status and output, or None and why not."""
    shell = shutil.which("bash") or "/bin/sh"
    scripts = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": scripts + os.pathsep + os.environ.get("PATH", ""),
        "COLUMNS": "80",
        "NO_COLOR": "1",  # Python 3.14's argparse colours help where colour is forced
        "PYTHON_COLORS": "0",
        "PYTHONUNBUFFERED": "1",
    }
    output = bytearray()
    deadline = time.monotonic() + timeout
    late = f"did not end within {timeout:g} s"
    # The output is read in a thread, to stop at the limit, from a pipe the thread closes.
    readable, writable = os.pipe()
    reader = threading.Thread(target=_read, args=(readable, output), daemon=True)
    # A session of its own: at the timeout the command's whole process group is killed,
    # the children a shell left running included.
    try:
        process = subprocess.Popen(
            [shell, "-c", command],
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=writable,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except BaseException:
        os.close(readable)
        raise
    finally:
        os.close(writable)  # the command's copy alone keeps it open, so its end is the end
    with process:
        try:
            reader.start()
            reader.join(timeout)
            if len(output) > LIMIT:
                return None, f"printed more than {LIMIT // 2**20} MiB, and was stopped"
            if reader.is_alive():
                return None, late
            try:
                process.wait(max(deadline - time.monotonic(), 0))
            except subprocess.TimeoutExpired:
                return None, late
        finally:
            _kill_group(process)  # what the command left running in the background
    got = output.decode("utf-8", "replace")
    for path in sorted({str(folder.resolve()), str(folder)}, key=len, reverse=True):
        got = got.replace(path + os.sep, "./").replace(path, ".")
    lines = page_lines(got)  # as a page's lines: a form feed or U+2028 is no line break
    return process.returncode, _joined(lines[:-1] if lines[-1] == "" else lines)


def _read(fd: int, into: bytearray) -> None:
    """Read a command's output from ``fd`` into ``into``, to its end or past `LIMIT` bytes."""
    try:
        while len(into) <= LIMIT and (chunk := os.read(fd, 2**16)):
            into += chunk
    finally:
        os.close(fd)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill a command's process group (the command alone where there are none), and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    process.wait()
