# SPDX-License-Identifier: MIT
"""The `docpact` command line."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from docpact._check import check_project
from docpact._formats import FORMATS, render
from docpact._model.errors import DocpactError
from docpact._pyproject import find_pyproject, load_config
from docpact._registry import CODES, KINDS, all_kinds, codes

if TYPE_CHECKING:
    from docpact._model.config import Config

__all__ = ["get_parser", "main"]

logger = logging.getLogger("docpact")


def get_parser(*, registered: bool = False) -> argparse.ArgumentParser:
    """Build the command line parser.

    Args:
        registered: Add the commands of the kinds other distributions register too, which
            reads their entry points (`all_kinds`) and raises `DocpactError` for a broken one.

    Returns:
        The parser for `docpact`.
    """
    from docpact import __version__

    parser: _Parser = _Parser(
        prog="docpact",
        description="Check that docstrings, code and docs keep the contracts in pyproject.toml.",
    )
    parser.add_argument("--version", action="version", version=f"docpact {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="check every [[tool.docpact.contract]] of the project",
        description="Check every [[tool.docpact.contract]] of the project, without importing it.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.lazy_epilog = _codes_epilog
    check.add_argument(
        "--pyproject",
        type=Path,
        help="the pyproject.toml to read (default: the nearest one from the current folder up)",
    )
    check.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help=(
            "text prints path:line: CODE message; github prints GitHub Actions "
            "annotations; json prints docpact's JSON document, sarif a SARIF 2.1.0 log"
        ),
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
            "exercises: a doctest in their docstring, or an example that a runner of "
            "[tool.docpact] examples runs and that uses them; then the share covered."
        ),
        epilog=(
            "exit status: 0 covered (at least --fail-under), 1 below --fail-under, a "
            "DP011 python fence that no declared runner runs, or a DP001 package that "
            "cannot be loaded, 2 usage or configuration error"
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
    coverage.add_argument(
        "--select",
        type=_coverage_codes,
        metavar="CODES",
        help="report only these of DP010 and DP011, comma-separated; default: both",
    )
    coverage.add_argument(
        "--ignore",
        type=_coverage_codes,
        default=frozenset(),
        metavar="CODES",
        help="do not report these of DP010 and DP011; applied after --select",
    )
    impact = commands.add_parser(
        "impact",
        help="list what a change puts at risk: contracts, claims, suppressions",
        description=(
            "List every contract, claim and not-a-claim suppression that depends on a line "
            "changed between a revision and the working tree (untracked files included): "
            "a contract's object, file and docs sections; a claim's text, property and code "
            "under test. What a pull request's review should read again."
        ),
        epilog=(
            "exit status: 0 nothing bound changed, 1 something at risk is listed, 2 usage or "
            "configuration error (no git, --base no revision)"
        ),
    )
    impact.add_argument("--pyproject", type=Path, help="the pyproject.toml to read")
    impact.add_argument(
        "--base", default="HEAD", help="the revision to compare with (default: HEAD)"
    )
    impact.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="as for check: text, github annotations, json or sarif",
    )
    # What each command runs, and whether the project must declare contracts for it.
    parser.runs = {
        "check": (_check, True),
        "coverage": (_coverage, False),
        "impact": (_impact, True),
    }
    for kind in (all_kinds() if registered else KINDS).values():
        for add_command in kind.commands:
            before = set(commands.choices)
            run = add_command(commands, kind)
            parser.runs.update(dict.fromkeys(set(commands.choices) - before, (run, True)))
    return parser


class _Parser(argparse.ArgumentParser):
    """A parser whose epilog is written only when its help is printed (`lazy_epilog`)."""

    lazy_epilog: Callable[[], str] | None = None
    runs: dict[str, tuple[Callable[[argparse.Namespace, Config], int], bool]]

    def format_help(self) -> str:
        if self.lazy_epilog is not None:
            try:  # the epilog reads the registered kinds, which may be broken
                self.epilog = self.lazy_epilog()
            except DocpactError as error:
                self.exit(2, f"{error}\n")
        return super().format_help()


def _codes_epilog() -> str:
    """The table of every finding code, the registered kinds' too, and the exit statuses."""
    # Wrapped here, at a width any terminal has: the epilog is printed as written.
    table = "\n".join(
        textwrap.fill(rule, width=79, initial_indent=f"  {code}  ", subsequent_indent=" " * 9)
        for code, rule in codes(all_kinds()).items()
    )
    exits = "exit status: 0 clean, 1 findings, 2 usage or configuration error"
    return f"finding codes:\n{table}\n\n{exits}"


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
    given = [code.strip().upper() for code in value.split(",") if code.strip()]
    if not given:
        msg = f"expected comma-separated codes such as DP002,DP004, got {value!r}"
        raise argparse.ArgumentTypeError(msg)
    if set(given) <= set(CODES):
        return frozenset(given)
    try:  # a code of a kind another distribution registers
        known = codes(all_kinds())
    except DocpactError as error:
        # argparse prefixes its own "error: argument --select: ".
        raise argparse.ArgumentTypeError(str(error).removeprefix("error: ")) from None
    if unknown := sorted(set(given) - set(known)):
        msg = f"unknown code {', '.join(unknown)}; the codes are {', '.join(known)}"
        raise argparse.ArgumentTypeError(msg)
    return frozenset(given)


def main(args: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        args: The arguments, without the program name; `sys.argv[1:]` by default.

    Returns:
        The exit status: 0 clean, 1 findings, 2 configuration error (or a griffe too old
        to run the checks), 1 when the reader of the output closed it early (`| head`).
        Usage errors exit with status 2 through `SystemExit`.
    """
    try:
        return _main(list(sys.argv[1:] if args is None else args))
    except BrokenPipeError:  # `docpact check | head -1`: end quietly, as Python's docs advise
        _discard_stdout()
        return 1


def _main(argv: list[str]) -> int:
    """Run the command line on `argv`; a closed output raises `BrokenPipeError`."""
    parser = get_parser()
    if _wants_registered(argv, parser.runs):
        try:
            parser = get_parser(registered=True)
        except DocpactError as error:
            with _console():
                logger.error(error)
            return 2
    options = parser.parse_args(argv)
    run, contracts = parser.runs[options.command]
    with _console():
        try:
            pyproject = options.pyproject or find_pyproject(Path.cwd())
            return run(options, load_config(pyproject, contracts=contracts))
        except DocpactError as error:
            logger.error(error)
            return 2


def _wants_registered(argv: list[str], runs: dict[str, object]) -> bool:
    """Whether `argv` names a command none of docpact's own kinds adds, or asks the top help.

    Only then are the registered kinds read, for their commands.
    """
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    if command is None:
        return "-h" in argv or "--help" in argv
    return command not in runs


def _check(options: argparse.Namespace, config: Config) -> int:
    """Run `docpact check`: one line per finding, or one document of them all."""
    findings = [
        finding
        for finding in check_project(config)
        if (options.select is None or finding.code in options.select)
        and finding.code not in options.ignore
    ]
    for output in render(findings, options.format):
        logger.warning(output)
    return 1 if any(finding.severity == "error" for finding in findings) else 0


def _impact(options: argparse.Namespace, config: Config) -> int:
    """Run `docpact impact`: what depends on the lines changed since `--base`."""
    from docpact._impact import impact  # reads git: not for a check

    findings = impact(config, options.base)
    for output in render(findings, options.format):
        logger.warning(output)
    if not findings and options.format in {"text", "github"}:
        logger.info("nothing that docpact checks depends on the changes since %s", options.base)
    return 1 if findings else 0


def _coverage(options: argparse.Namespace, config: Config) -> int:
    """Run `docpact coverage`: one line per gap, then the share covered.

    The share decides the exit status through `--fail-under` alone; a DP011 reported, or a
    DP001 (which `--select` and `--ignore` never hide), fails it whatever the share.
    """
    from docpact._coverage import check_coverage  # its readers only for this command

    packages = options.packages or list(config.coverage)
    if not packages:
        msg = (
            f"{config.pyproject.name}: error: no package to cover: name one, or list "
            "them in [tool.docpact] coverage"
        )
        raise DocpactError(msg)
    result = check_coverage(config, packages)
    shown = result.reported(options.select, options.ignore)
    for finding in shown:
        logger.warning(finding)
    logger.warning(
        "coverage: %d of %d public objects have an executed example (%.1f%%)",
        result.covered,
        result.total,
        result.percent,
    )
    below = options.fail_under is not None and result.percent < options.fail_under
    return 1 if below or result.fails(shown) else 0


def _coverage_codes(value: str) -> frozenset[str]:
    """Parse `docpact coverage`'s --select or --ignore: codes among DP010 and DP011."""
    from docpact._coverage import COVERAGE_CODES

    given = _codes(value)
    if other := sorted(given - COVERAGE_CODES):
        msg = (
            f"coverage reports {', '.join(sorted(COVERAGE_CODES))} (a DP001 always), "
            f"not {', '.join(other)}"
        )
        raise argparse.ArgumentTypeError(msg)
    return given


@contextmanager
def _console() -> Iterator[None]:
    """Print the `docpact` logger's records: findings on stdout, errors on stderr."""
    out = _Stream(sys.stdout)
    out.addFilter(lambda record: record.levelno < logging.ERROR)
    err = _Stream(sys.stderr)
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


class _Stream(logging.StreamHandler):
    """A handler that lets a closed pipe end the command, where logging prints a traceback."""

    def handleError(self, record: logging.LogRecord) -> None:
        """Raise the `BrokenPipeError` of a closed output; report any other error as logging does.

        Args:
            record: The record that could not be written.
        """
        error = sys.exc_info()[1]
        if isinstance(error, BrokenPipeError):
            raise error
        super().handleError(record)


def _discard_stdout() -> None:
    """Point stdout at `os.devnull`, so that Python's flush at exit meets no closed pipe."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stdout, as under pytest
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, descriptor)
    os.close(devnull)
