#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Time `docpact check` on this repository next to `python -c "import torch"`, as a ratio."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.15
COMMANDS = {
    "docpact check": [sys.executable, "-m", "docpact", "check"],
    "import torch": [sys.executable, "-c", "import torch"],
}


def get_parser() -> argparse.ArgumentParser:
    """The command line: rounds and whether a missed target fails the run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7, help="timed runs of each command")
    parser.add_argument("--check", action="store_true", help=f"exit 1 if the ratio is {TARGET}+")
    return parser


class CommandFailed(Exception):
    """A timed command exited with a non-zero status, so its timing measures a failure."""


def median_seconds(rounds: int) -> dict[str, float]:
    """Run the commands interleaved, after one warm-up each; return each one's median wall time.

    Raises CommandFailed as soon as a run exits with a non-zero status.
    """
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for round_index in range(rounds + 1):
        for name, command in COMMANDS.items():
            start = time.perf_counter()
            result = subprocess.run(command, cwd=ROOT, check=False, stdout=subprocess.DEVNULL)
            if result.returncode:
                msg = f"`{name}` exited with status {result.returncode} in {ROOT}"
                raise CommandFailed(msg)
            if round_index:  # the first round only warms the file cache
                samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    """Print both timings and their ratio next to the target; exit 1 if a command fails."""
    args = get_parser().parse_args(argv)
    try:
        timings = median_seconds(args.rounds)
    except CommandFailed as error:
        print(f"bench_checks: error: {error}; a failing run is not timed", file=sys.stderr)
        return 1
    ratio = timings["docpact check"] / timings["import torch"]
    for name, seconds in timings.items():
        print(f"{name:>14}: {seconds * 1e3:8.1f} ms (median of {args.rounds})")
    verdict = "met" if ratio < TARGET else "MISSED"
    print(f"{'ratio':>14}: {ratio:8.3f}    (target < {TARGET}: {verdict})")
    return 1 if args.check and ratio >= TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
