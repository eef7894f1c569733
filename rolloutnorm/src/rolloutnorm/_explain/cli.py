# SPDX-License-Identifier: MIT
"""The `rolloutnorm` command line: ``rolloutnorm explain BATCH``, or ``python -m rolloutnorm``."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rolloutnorm._config import (
    RolloutNormConfig,
    field_for,
    flatten,
    load_config,
    parse_yaml,
    read_yaml,
)
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._explain.explanation import explain
from rolloutnorm._explain.plot import write_plot
from rolloutnorm._explain.read import read_batch
from rolloutnorm._explain.schema import render_json
from rolloutnorm._explain.table import render_markdown, render_table

__all__ = ["get_parser", "main"]

logger = logging.getLogger("rolloutnorm")

_FORMATS = ("table", "json", "markdown")


def get_parser() -> argparse.ArgumentParser:
    """Build the command line parser.

    Returns:
        The parser for `rolloutnorm`.
    """
    from rolloutnorm import __version__

    parser = argparse.ArgumentParser(
        prog="rolloutnorm",
        description="Tools around rolloutnorm's per-rollout advantage normalization.",
    )
    parser.add_argument("--version", action="version", version=f"rolloutnorm {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    explain = commands.add_parser(
        "explain",
        help="show how a batch is retained and how much mass each rollout carries",
        description=(
            "Run the retention and the normalization of a trainer step (retain_and_normalize) "
            "on a batch, with unit advantages, and show the plan, a reason for every dropped "
            "row and each rollout's normalized token mass, beside the mass a divisor counting "
            "distinct rollouts would give (which the code does not use)."
        ),
        epilog=(
            "BATCH: JSON Lines (.jsonl) or CSV (.csv), one row per training row, with the "
            "fields rollout_id, then response_tokens (an int) or, in JSON Lines, "
            "response_mask (a list of 0 and 1), and optionally reward with group_id, and "
            "drop; or .pt / .npz holding the tensors response_mask and rollout_ids, and "
            "optionally rewards with group_ids, and drop.\n\n"
            "exit status: 0 explained (a batch with no row trained included), 2 usage error "
            "or a malformed batch or configuration"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explain.add_argument("batch", type=Path, metavar="BATCH", help="the batch file")
    explain.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help=(
            "a YAML file: rolloutnorm's keys, or a whole verl trainer config, whose other "
            "keys are ignored (listed with --verbose)"
        ),
    )
    explain.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        type=_assignment,
        metavar="KEY=VALUE",
        help="set a configuration key, the value read as a YAML scalar; repeat for more",
    )
    explain.add_argument(
        "--format", choices=_FORMATS, default="table", help="the output's form (default: table)"
    )
    explain.add_argument(
        "--modes",
        action="store_true",
        help=(
            "also give every rollout's mass under each loss aggregation mode (verl's "
            "loss_agg_mode values and per_rollout_mean), marking the one the config selects"
        ),
    )
    explain.add_argument(
        "--plot",
        type=Path,
        metavar="FILE",
        help=(
            "also write a bar chart of every rollout's mass, with --modes one chart per mode "
            "side by side (needs matplotlib, the plot extra)"
        ),
    )
    explain.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="on stderr: the reader used, the configuration keys read and those ignored",
    )
    return parser


def _assignment(text: str) -> tuple[str, Any]:
    """Parse ``KEY=VALUE``: a key rolloutnorm reads, and a YAML scalar."""
    key, equals, value = text.partition("=")
    key = key.strip()
    if not equals or not key:
        msg = f"expected KEY=VALUE, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    try:
        field_for(key)
    except RolloutNormError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    try:
        parsed = parse_yaml(value)
    except RolloutNormError as error:
        reason = str(error)
        if reason.startswith("not valid YAML"):
            msg = f"{key}: the value {_quoted(value)} is not a YAML scalar"
        else:
            msg = f"{key}: the value {_quoted(value)} cannot be read: {reason}"
        raise argparse.ArgumentTypeError(msg) from None
    if isinstance(parsed, list | dict):
        kind = type(parsed).__name__
        msg = f"{key}: the value {_quoted(value)} is not a YAML scalar: it reads as a {kind}"
        raise argparse.ArgumentTypeError(msg)
    return key, parsed


def _quoted(value: str) -> str:
    """A value of ``--set`` as its error quotes it: a long one cut, with its length."""
    if len(value) <= 60:
        return repr(value)
    return f"{value[:30]!r}... ({len(value)} characters)"


def main(args: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        args: The arguments, without the program name; `sys.argv[1:]` by default.

    Returns:
        The exit status: 0 explained, 2 a malformed batch or configuration. Usage errors
        exit with status 2 through `SystemExit`.
    """
    options = get_parser().parse_args(args)
    with _console(verbose=options.verbose):
        try:
            text = _explain_batch(options)
        except RolloutNormError as error:
            logger.error("%s", error)
            return 2
    sys.stdout.write(text)
    return 0


def _explain_batch(options: argparse.Namespace) -> str:
    """Read, explain and render the batch; write the plot if asked."""
    config = _load_config(options.config, dict(options.overrides))
    batch = read_batch(options.batch)
    logger.info("%s: read by %s", options.batch, batch.reader)
    try:
        explanation = explain(batch, config, source=str(options.batch), modes=options.modes)
    except RolloutNormError as error:
        msg = f"{options.batch}: {error}"
        raise RolloutNormError(msg) from None
    if options.plot is not None:
        written = write_plot(explanation, options.plot)
        logger.info("%s: plot written", written)
    render = {"table": render_table, "json": render_json, "markdown": render_markdown}
    return render[options.format](explanation)


def _load_config(path: Path | None, overrides: Mapping[str, Any]) -> RolloutNormConfig:
    """`load_config` on the keys rolloutnorm reads from a YAML file, then on ``--set``.

    The file may be a whole trainer config: the keys outside rolloutnorm's are ignored and
    listed with ``--verbose``; an unknown key inside the ``rolloutnorm`` section, which is
    rolloutnorm's own, is an error.
    """
    values: dict[str, Any] = {}
    if path is not None:
        tree = read_yaml(path)
        ignored: list[str] = []
        try:
            values = flatten(tree, ignored=ignored)
            for key, value in values.items():
                logger.info("%s: read %s = %r", path, key, value)
            for key in ignored:
                logger.info("%s: ignored %s (not a key rolloutnorm reads)", path, key)
            load_config(overrides=values)
        except RolloutNormError as error:
            msg = f"{path}: {error}"
            raise RolloutNormError(msg) from None
    try:
        return load_config(overrides={**values, **overrides})
    except RolloutNormError as error:
        msg = f"--set: {error}"
        raise RolloutNormError(msg) from None


@contextmanager
def _console(*, verbose: bool) -> Iterator[None]:
    """Print the `rolloutnorm` logger's records on stderr: errors, and notes with --verbose."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.INFO if verbose else logging.ERROR)
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
