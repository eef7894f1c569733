#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The check budget: `docpact check` timed against griffe's own load of the same packages.

This is docpact's one speed budget; later work cites it rather than defining its own.
Both commands run as subprocesses of the same interpreter, interleaved round by round after
one warm-up round, and each one's median wall time is kept. The reference loads, with a
plain `griffe.GriffeLoader` and no extension, every package the project's contracts name,
from the contracts' search paths: the least a static check of those packages must do. The
ratio of the two medians is what the budget bounds, so a slower machine moves both.

The commands run with Python's bytecode cache, as a user's do: `PYTHONDONTWRITEBYTECODE` is
left out of their environment, since compiling every module on every run is not what a check
costs. `BASELINE` is the ratio recorded on this repository before docpact was split into
layers (commit 243e898: 2.342 and 2.344 in two runs of 11 rounds); `--check` fails a ratio
more than `TOLERANCE` above it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = 2.34
TOLERANCE = 0.05

# griffe's load of the packages, with the options `docpact check` gives its own loader.
_REFERENCE = """\
import json, sys
from griffe import GriffeLoader
paths, packages = json.loads(sys.argv[1]), json.loads(sys.argv[2])
loader = GriffeLoader(search_paths=paths, allow_inspection=False, store_source=False)
for package in packages:
    loader.load(package, try_relative_path=False)
"""


_CACHED = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


class CommandFailed(Exception):
    """A timed command exited with a non-zero status, so its timing measures a failure."""


def get_parser() -> argparse.ArgumentParser:
    """The command line: rounds, the project timed, and whether a ratio over budget fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="timed runs of each command")
    parser.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="the project to check, whose pyproject.toml names the packages (default: this one)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 if the ratio is over {BASELINE} + {TOLERANCE:.0%}".replace("%", "%%"),
    )
    return parser


def commands(root: Path) -> dict[str, list[str]]:
    """The two timed commands for the project at ``root``: the check and griffe's load.

    Raises CommandFailed if the configuration is bad or names no package to load.
    """
    from docpact import DocpactError, load_config  # the contracts say what griffe loads

    try:
        config = load_config(root / "pyproject.toml")
    except DocpactError as error:
        raise CommandFailed(str(error)) from None
    packages = sorted({c.package for c in config.contracts if c.package is not None})
    if not packages:
        msg = f"no contract in {root / 'pyproject.toml'} names a package, so nothing is loaded"
        raise CommandFailed(msg)
    paths = [str((config.root / path).absolute()) for path in config.paths]
    reference = [sys.executable, "-c", _REFERENCE, json.dumps(paths), json.dumps(packages)]
    return {
        "docpact check": [sys.executable, "-m", "docpact", "check"],
        "griffe load": reference,
    }


def median_seconds(timed: dict[str, list[str]], rounds: int, root: Path) -> dict[str, float]:
    """Run the commands interleaved, after one warm-up each; return each one's median wall time.

    Raises CommandFailed as soon as a run exits with a non-zero status.
    """
    samples: dict[str, list[float]] = {name: [] for name in timed}
    for round_index in range(rounds + 1):
        for name, command in timed.items():
            start = time.perf_counter()
            result = subprocess.run(
                command, cwd=root, check=False, stdout=subprocess.DEVNULL, env=_CACHED
            )
            if result.returncode:
                msg = f"`{name}` exited with status {result.returncode} in {root}"
                raise CommandFailed(msg)
            if round_index:  # the first round only warms the file cache
                samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    """Print both timings and their ratio beside the budget; exit 1 if a command fails."""
    args = get_parser().parse_args(argv)
    try:
        timings = median_seconds(commands(args.root), args.rounds, args.root)
    except CommandFailed as error:
        print(f"bench_checks: error: {error}; a failing run is not timed", file=sys.stderr)
        return 1
    ratio = timings["docpact check"] / timings["griffe load"]
    budget = BASELINE * (1 + TOLERANCE)
    for name, seconds in timings.items():
        print(f"{name:>14}: {seconds * 1e3:8.1f} ms (median of {args.rounds})")
    verdict = "met" if ratio <= budget else "MISSED"
    limits = f"baseline {BASELINE}, budget <= {budget:.3f}"
    print(f"{'ratio':>14}: {ratio:8.3f}    ({limits}: {verdict})")
    return 1 if args.check and ratio > budget else 0


if __name__ == "__main__":
    sys.exit(main())
