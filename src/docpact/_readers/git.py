# SPDX-License-Identifier: MIT
"""The lines a change touches: `git diff` of a revision against the working tree, read.

A line of the working tree is changed when the diff adds or replaces it; where lines were
only removed, the lines on either side of the removal count as changed, so that what held
them is found. A file that is new and untracked, or deleted, is changed as a whole. The
revision compared with is where the checkout's `HEAD` left it (`git merge-base`), as a pull
request's diff is. Paths are relative to the project root, which may be a folder inside the
repository.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import TYPE_CHECKING

from docpact._model.errors import DocpactError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["blob", "changed_lines"]

_HUNK = re.compile(r"@@ -\d+(?:,(?P<old>\d+))? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@")
# The diff as this module reads it, whatever the user's git configuration: a/ and b/ headers,
# hunks that hold changed lines only, binary files and textconv drivers shown as text lines.
_DIFF = [
    *("-U0", "--inter-hunk-context=0", "--src-prefix=a/", "--dst-prefix=b/"),
    *("--no-color", "--no-ext-diff", "--no-textconv", "--text", "--no-renames", "--relative"),
]


def changed_lines(root: Path, base: str) -> dict[str, frozenset[int] | None]:
    """The lines of each file that differ between revision `base` and the working tree.

    Args:
        root: The project root, inside a git checkout.
        base: The revision to compare with (`HEAD`, `main`, a commit id).

    Returns:
        Each changed file, relative to the root, with its changed 1-based lines in the
        working tree; `None` for a file changed as a whole: new and untracked, or deleted.

    Raises:
        DocpactError: Without git, outside a checkout, or when `base` is no revision.
    """
    git = shutil.which("git")
    if git is None:
        msg = "error: docpact impact reads the change with git, and git is not installed"
        raise DocpactError(msg)
    command = [git, "-C", str(root)]
    inside = _run([*command, "rev-parse", "--is-inside-work-tree"])
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        msg = f"error: {root} is not inside a git checkout: docpact impact compares revisions"
        raise DocpactError(msg)
    verified = _run([*command, "rev-parse", "--verify", "-q", f"{base}^{{commit}}"])
    if base.startswith("-") or verified.returncode != 0:
        msg = f"error: --base {base!r} is not a revision of this repository"
        raise DocpactError(msg)
    # What the branch changed since it left base, as a pull request shows it: not the
    # commits made on base since then.
    fork = _run([*command, "merge-base", base, "HEAD"])
    since = fork.stdout.strip() if fork.returncode == 0 and fork.stdout.strip() else base
    diff = _run([*command, "diff", *_DIFF, since, "--"])
    if diff.returncode != 0:
        msg = f"error: git diff {base} failed: {diff.stderr.strip() or diff.returncode}"
        raise DocpactError(msg)
    found = _parsed(diff.stdout)
    untracked = _run([*command, "ls-files", "--others", "--exclude-standard", "-z"])
    for name in untracked.stdout.split("\0"):
        if name:
            found[name] = None
    return found


def _parsed(diff: str) -> dict[str, frozenset[int] | None]:
    """The changed lines of each file of a `git diff -U0`.

    A hunk's lines are counted off its header, so that a changed line reading `++ x` (shown
    as `+++ x`) is never taken for the next file's header.
    """
    found: dict[str, set[int]] = {}
    whole: set[str] = set()
    old = new = ""
    left = 0  # the lines of the current hunk still to come
    for line in diff.split("\n"):
        if left:
            left -= line[:1] in "+- "
            continue
        if line.startswith("--- "):
            old = _path(line[4:], "a/")
        elif line.startswith("+++ "):
            new = _path(line[4:], "b/")
            if not new:  # deleted: every line of what was there
                whole.add(old)
            found.setdefault(new or old, set())
        elif match := _HUNK.match(line):
            start, count = int(match["start"]), int(match["count"] or 1)
            left = int(match["old"] or 1) + count
            if new:
                lines = range(start, start + count) if count else (start, start + 1)
                found[new].update(n for n in lines if n > 0)
    return {path: None if path in whole else frozenset(lines) for path, lines in found.items()}


def _path(text: str, prefix: str) -> str:
    """A diff header's path, `""` for `/dev/null`; git quotes a path with odd characters."""
    text = text.removesuffix("\t")  # git ends a name holding a space with a tab
    if text == "/dev/null":
        return ""
    if text.startswith('"'):
        text = text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        text = text.encode("latin-1").decode("utf-8", "replace")
    return text[len(prefix) :] if text.startswith(prefix) else text


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, capture_output=True, text=True, encoding="utf-8", errors="replace", check=False
    )


def blob(root: Path, blob_id: str) -> bytes | None:
    """The bytes git holds under a blob id, `None` without git or when it holds none."""
    git = shutil.which("git")
    if git is None or not re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", blob_id):
        return None
    found = subprocess.run(
        [git, "-C", str(root), "cat-file", "blob", blob_id], capture_output=True, check=False
    )
    return found.stdout if found.returncode == 0 else None
