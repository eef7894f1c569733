#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that every git-tracked Python file starts with the project's SPDX license header."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HEADER = "# SPDX-License-Identifier: MIT"


class UsageError(Exception):
    """A root, path or environment the check cannot use: exit status 2."""


def get_parser() -> argparse.ArgumentParser:
    """Build the parser for `check_headers.py [--root PATH] [-v] [PATH ...]`."""
    parser = argparse.ArgumentParser(prog="check_headers", description=__doc__)
    parser.add_argument("paths", nargs="*", type=Path, help="files to check instead of tracked")
    parser.add_argument("--root", type=Path, default=Path(), help="repository root (default: .)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print a summary to stderr")
    return parser


def tracked_files(root: Path) -> list[Path]:
    """List the `.py` files git tracks under `root` that exist in the work tree.

    Raises:
        UsageError: If `root` is not a directory in a git work tree, or git is missing.
    """
    if not root.is_dir():
        msg = f"--root {root} is not a directory"
        raise UsageError(msg)
    try:
        result = subprocess.run(
            ["git", "ls-files", "-z", "--", "*.py"], cwd=root, capture_output=True, check=False
        )
    except FileNotFoundError:
        msg = "git is not installed or not on PATH"
        raise UsageError(msg) from None
    if result.returncode != 0:
        msg = f"--root {root} is not a git repository"
        raise UsageError(msg)
    # A tracked file deleted in the work tree has nothing to check until the deletion is committed.
    names = os.fsdecode(result.stdout).split("\0")
    return [root / name for name in names if name and (root / name).is_file()]


def check(path: Path) -> tuple[int, str] | None:
    """Return the line and `CODE message` of the file's finding, or None if its header is right."""
    data = path.read_bytes()
    try:
        lines = data.decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        return data[: exc.start].count(b"\n") + 1, "HDR002 not valid UTF-8"
    index = 1 if lines and lines[0].startswith("#!") else 0
    if index < len(lines) and lines[index] == HEADER:
        return None
    return index + 1, f"HDR001 missing {HEADER!r} header"


def main(argv: list[str] | None = None) -> int:
    """Print one `path:line: CODE message` per offending file; exit 0 clean, 1 findings, 2 usage."""
    args = get_parser().parse_args(argv)
    root = args.root.resolve()
    try:
        missing = [str(path) for path in args.paths if not path.is_file()]
        if missing:
            msg = f"{missing[0]} does not exist or is not a file"
            raise UsageError(msg)
        files = [path.resolve() for path in args.paths] or tracked_files(root)
        findings = []
        for path in files:
            if (finding := check(path)) is not None:
                shown = path.relative_to(root) if path.is_relative_to(root) else path
                findings.append((shown.as_posix(), *finding))
    except (UsageError, OSError) as exc:
        print(f"check_headers: error: {exc}", file=sys.stderr)
        return 2
    for shown, line, message in sorted(findings):
        print(f"{shown}:{line}: {message}")
    if args.verbose:
        summary = f"{len(files)} files checked, {len(findings)} without the header"
        print(f"check_headers: {summary}", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
