# SPDX-License-Identifier: MIT
"""The `docpact` command line."""

from __future__ import annotations

import argparse
import logging
import sys
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from docpact._check import check_project
from docpact._config import find_pyproject, load_config
from docpact._coverage import check_coverage
from docpact._errors import DocpactError
from docpact._registry import CODES

if TYPE_CHECKING:
    from docpact._bindings import Binding
    from docpact._claims import Block

__all__ = ["get_parser", "main"]

logger = logging.getLogger("docpact")


def get_parser() -> argparse.ArgumentParser:
    """Build the command line parser.

    Returns:
        The parser for `docpact`.
    """
    # Wrapped here, at a width any terminal has: the epilog is printed as written.
    codes = "\n".join(
        textwrap.fill(rule, width=79, initial_indent=f"  {code}  ", subsequent_indent=" " * 9)
        for code, rule in CODES.items()
    )
    exits = "exit status: 0 clean, 1 findings, 2 usage or configuration error"
    epilog = f"finding codes:\n{codes}\n\n{exits}"
    from docpact import __version__

    parser = argparse.ArgumentParser(
        prog="docpact",
        description="Check that docstrings, code and docs keep the contracts in pyproject.toml.",
    )
    parser.add_argument("--version", action="version", version=f"docpact {__version__}")
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
        help="the pyproject.toml to read (default: the nearest one from the current folder up)",
    )
    check.add_argument(
        "--format",
        choices=["text", "github"],
        default="text",
        help="text prints path:line: CODE message; github prints GitHub Actions annotations",
    )
    check.add_argument(
        "--select",
        type=_codes,
        metavar="CODES",
        help="report only these codes, comma-separated (DP002,DP004); default: every code",
    )
    check.add_argument(
        "--ignore",
        type=_codes,
        default=frozenset(),
        metavar="CODES",
        help="do not report these codes, comma-separated; applied after --select",
    )
    coverage = commands.add_parser(
        "coverage",
        help="list the public objects that no executed example exercises",
        description=(
            "List the public objects (__all__) of packages that no executed example "
            "exercises: a doctest in their docstring, or a docs example that runs and uses "
            "them; then the share covered."
        ),
        epilog=(
            "exit status: 0 covered (at least --fail-under), 1 below --fail-under or a "
            "python fence in a docstring, 2 usage or configuration error"
        ),
    )
    coverage.add_argument(
        "packages",
        nargs="*",
        metavar="PACKAGE",
        help="packages to cover (default: [tool.docpact] coverage)",
    )
    coverage.add_argument("--pyproject", type=Path, help="the pyproject.toml to read")
    coverage.add_argument(
        "--fail-under",
        type=_percent,
        metavar="PCT",
        help="exit 1 when fewer than PCT percent of the public objects are covered",
    )
    claims = commands.add_parser(
        "claims",
        help="list the claims and their properties; --update re-approves them",
        description=(
            "List every claim of the claims contracts with the property that checks it and "
            "whether they were reviewed against each other as they stand. With --update, "
            "record the claims' and properties' fingerprints as reviewed: do it after "
            "reading each changed claim against its property."
        ),
        epilog=(
            "exit status: 0 every claim bound and reviewed (after --update: re-approved), "
            "1 a claim unbound, bound twice or not reviewed, 2 usage or configuration error"
        ),
    )
    claims.add_argument(
        "ids", nargs="*", metavar="ID", help="the claims to re-approve (default: every claim)"
    )
    claims.add_argument("--pyproject", type=Path, help="the pyproject.toml to read")
    claims.add_argument(
        "--update",
        action="store_true",
        help="rewrite the reviewed= fingerprints of the properties, formatted with ruff",
    )
    return parser


def _percent(value: str) -> float:
    """Parse a percentage from 0 to 100."""
    msg = f"expected a percentage from 0 to 100, got {value!r}"
    try:
        percent = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(msg) from None
    if not 0 <= percent <= 100:
        raise argparse.ArgumentTypeError(msg)
    return percent


def _codes(value: str) -> frozenset[str]:
    """Parse a comma-separated list of finding codes, each one a key of `CODES`."""
    codes = [code.strip().upper() for code in value.split(",") if code.strip()]
    if not codes:
        msg = f"expected comma-separated codes such as DP002,DP004, got {value!r}"
        raise argparse.ArgumentTypeError(msg)
    if unknown := sorted(set(codes) - set(CODES)):
        msg = f"unknown code {', '.join(unknown)}; the codes are {', '.join(CODES)}"
        raise argparse.ArgumentTypeError(msg)
    return frozenset(codes)


def main(args: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        args: The arguments, without the program name; `sys.argv[1:]` by default.

    Returns:
        The exit status: 0 clean, 1 findings, 2 configuration error (or a griffe too old
        to run the checks). Usage errors exit with status 2 through `SystemExit`.
    """
    options = get_parser().parse_args(args)
    if options.command == "coverage":
        return _coverage(options)
    if options.command == "claims":
        with _console():
            try:
                return _claims(options)
            except DocpactError as error:
                logger.error(error)
                return 2
    with _console():
        try:
            config = load_config(options.pyproject or find_pyproject(Path.cwd()))
            findings = check_project(config)
        except DocpactError as error:
            logger.error(error)
            return 2
        findings = [
            finding
            for finding in findings
            if (options.select is None or finding.code in options.select)
            and finding.code not in options.ignore
        ]
        for finding in findings:
            logger.warning(finding.github() if options.format == "github" else finding)
    return 1 if findings else 0


def _coverage(options: argparse.Namespace) -> int:
    """Run `docpact coverage`: one line per gap, then the share covered."""
    with _console():
        try:
            pyproject = options.pyproject or find_pyproject(Path.cwd())
            config = load_config(pyproject, contracts=False)
            packages = options.packages or list(config.coverage)
            if not packages:
                msg = (
                    f"{config.pyproject.name}: error: no package to cover: name one, or list "
                    "them in [tool.docpact] coverage"
                )
                raise DocpactError(msg)
            result = check_coverage(config, packages)
        except DocpactError as error:
            logger.error(error)
            return 2
        for finding in result.findings:
            logger.warning(finding)
        logger.warning(
            "coverage: %d of %d public objects have an executed example (%.1f%%)",
            result.covered,
            result.total,
            result.percent,
        )
    below = options.fail_under is not None and result.percent < options.fail_under
    fences = any(finding.code == "DP011" for finding in result.findings)
    return 1 if below or fences else 0


def _claims(options: argparse.Namespace) -> int:
    """Run `docpact claims`: one line per claim, or per re-approval with `--update`."""
    from docpact._claims_kind import analyse
    from docpact._registry import check_contract
    from docpact._review import reviews, write_reviews

    config = load_config(options.pyproject or find_pyproject(Path.cwd()))
    # load_config allows one claims contract: a claim ID names one claim over all pages.
    contract = next((c for c in config.contracts if c.kind == "claims"), None)
    if contract is None:
        msg = f"{config.pyproject.name}: error: no [[tool.docpact.contract]] of kind claims"
        raise DocpactError(msg)
    if options.ids and not options.update:
        msg = "error: claim IDs select what --update re-approves; add --update"
        raise DocpactError(msg)
    if options.update:
        found = reviews(analyse(contract, config), options.ids)
        write_reviews(config, found)
        for review in found:
            binding = review.binding
            was = review.old or "never reviewed"
            logger.warning(
                "%s:%d: re-approved %s against claim %s (%s:%d): %s -> %s",
                binding.path,
                binding.line,
                binding.function,
                binding.claim,
                review.page,
                review.line,
                was,
                review.new,
            )
        logger.warning("%d re-approved", len(found))
    analysis = analyse(contract, config)  # again: --update rewrote the test files
    for page, block in analysis.claims:
        bound = analysis.bound(block.argument)
        checked = ", ".join(
            f"{b.path}:{b.line} {b.function} (session {analysis.session(b)})" for b in bound
        )
        line = f"{page}:{block.line}: {block.argument}: {_claim_status(block, bound)}"
        if checked:
            line += f": {checked}"
        logger.info("%s", line)
    # Every status but `reviewed` comes with one of these findings, which settle the exit.
    codes = {"DP012", "DP013", "DP014", "DP015"}
    unsettled = [
        f for f in check_contract(contract, config=config, package=None) if f.code in codes
    ]
    for finding in unsettled:
        logger.warning("%s", finding)
    return 1 if unsettled else 0


def _claim_status(block: Block, bound: list[Binding]) -> str:
    """How a claim stands against its properties, in a few words."""
    from docpact._claims_kind import changed

    if not bound:
        return "no property"
    if len(bound) > 1:
        return f"{len(bound)} properties"
    if not bound[0].reviewed:
        return "never reviewed"
    stale = changed(block, bound[0])
    return " and ".join(stale) + " changed" if stale else "reviewed"


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
