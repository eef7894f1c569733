# SPDX-License-Identifier: MIT
"""The `docpact` command line."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from docpact._check import check_project
from docpact._config import find_pyproject, load_config
from docpact._errors import DocpactError
from docpact._findings import CODES

__all__ = ["get_parser", "main"]

logger = logging.getLogger("docpact")


def get_parser() -> argparse.ArgumentParser:
    """Build the command line parser.

    Returns:
        The parser for `docpact`.
    """
    codes = "\n".join(f"  {code}  {rule}" for code, rule in CODES.items())
    exits = "exit status: 0 clean, 1 findings, 2 usage or configuration error"
    epilog = f"finding codes:\n{codes}\n\n{exits}"
    parser = argparse.ArgumentParser(
        prog="docpact",
        description="Check that docstrings, code and docs keep the contracts in pyproject.toml.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="check every [[tool.docpact.contract]] of the project",
        description="Check every [[tool.docpact.contract]] of the project, without importing it.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "--pyproject",
        type=Path,
        default=None,
        help="the pyproject.toml to read (default: the nearest one from the current folder up)",
    )
    check.add_argument(
        "--format",
        choices=["text", "github"],
        default="text",
        help="text prints path:line: CODE message; github prints GitHub Actions annotations",
    )
    return parser


def main(args: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        args: The arguments, without the program name; `sys.argv[1:]` by default.

    Returns:
        The exit status: 0 clean, 1 findings, 2 configuration error (or a griffe too old
        to run the checks). Usage errors exit with status 2 through `SystemExit`.
    """
    options = get_parser().parse_args(args)
    with _console():
        try:
            config = load_config(options.pyproject or find_pyproject(Path.cwd()))
            findings = check_project(config)
        except DocpactError as error:
            logger.error("%s", error)
            return 2
        for finding in findings:
            logger.warning("%s", finding.github() if options.format == "github" else finding)
    return 1 if findings else 0


@contextmanager
def _console() -> Iterator[None]:
    """Print the `docpact` logger's records: findings on stdout, errors on stderr."""
    out = logging.StreamHandler(sys.stdout)
    out.addFilter(lambda record: record.levelno < logging.ERROR)
    err = logging.StreamHandler(sys.stderr)
    err.setLevel(logging.ERROR)
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(out)
    logger.addHandler(err)
    try:
        yield
    finally:
        logger.removeHandler(out)
        logger.removeHandler(err)
        logger.setLevel(level)
