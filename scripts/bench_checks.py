#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The check budget: `docpact check` timed against griffe's own load, with and without claims.

This is docpact's one speed budget; later work cites it rather than defining its own.
What is timed is `docpact check` with every contract, the claims extension's included, and
with every contract but the claims ones (the copy of pyproject.toml that `core_contracts.py`
writes beside the original, given by `--pyproject`), on this repository and on the fixture
adopter (tests/samples/adopter_project), in one run.
The reference loads, with a plain `griffe.GriffeLoader` and no extension, every package those
contracts name, from their search paths: the least a static check of them must do.

Every command of every project runs once per round, the projects and commands interleaved,
after one untimed round; each one's median wall time is kept. No cache is carried between
rounds: each run is a process of its own, so nothing docpact or griffe hold in memory
survives it, and neither writes a cache to disk. What a user's machine keeps from one run
to the next stays: the system's file cache, and Python's bytecode cache
(`PYTHONDONTWRITEBYTECODE` is left out of the commands' environment), which the untimed
round warms, and the results files the last test runs wrote (`.docpact/results`), which
the claims read as any check does: where a run fingerprinted a file whose bytes are still
those, the check takes the fingerprints that the runs agree on and that confirm the
review's (DP019's units, the properties' codes) instead of taking them again, so the figures
are those of a check after the tests, as CI runs it. The limit, per project:
`docpact check` at most `RATIO` times griffe's load, or, where that load takes under `FLOOR`
seconds, at most `MARGIN` seconds more than it, for both checks. `--check` exits 1 when a
project is over its limit.
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
ADOPTER = Path("tests") / "samples" / "adopter_project"
RATIO = 1.3
FLOOR = 0.2
MARGIN = 0.1
CHECK = "docpact check"
CHECK_ALL = "with claims"
LOAD = "griffe load"

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path, not as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from core_contracts import CoreError, write_core_pyproject  # noqa: E402

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


def _positive(value: str) -> int:
    """A count of rounds: a whole number, at least 1."""
    try:
        rounds = int(value)
    except ValueError:
        rounds = 0
    if rounds < 1:
        msg = f"must be a whole number of rounds, at least 1, got {value!r}"
        raise argparse.ArgumentTypeError(msg)
    return rounds


def get_parser() -> argparse.ArgumentParser:
    """The command line: rounds, the projects timed, and whether a project over its limit fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=_positive, default=9, help="timed runs of each command (at least 1)"
    )
    parser.add_argument(
        "--root",
        type=Path,
        action="append",
        help=(
            "a project to time, whose pyproject.toml names the packages (repeatable; "
            "default: this repository and its fixture adopter)"
        ),
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help=(
            f"exit 1 if a project's check takes over {RATIO}x griffe's load, or over "
            f"{MARGIN * 1e3:.0f} ms more than a load under {FLOOR * 1e3:.0f} ms"
        ),
    )
    return parser


def limit(load: float) -> float:
    """The most seconds `docpact check` may take beside griffe's load of `load` seconds."""
    return load + MARGIN if load < FLOOR else load * RATIO


def commands(root: Path, pyproject: Path) -> dict[str, list[str]]:
    """The timed commands for the project at ``root``: the checks and griffe's load.

    Args:
        root: The project's folder, where the commands run.
        pyproject: The copy of its pyproject.toml without the claims contracts, beside the
            project's own, which the check of every contract reads.

    Returns:
        Each command's name and its arguments.

    Raises:
        CommandFailed: If the configuration is bad or names no package to load.
    """
    from docpact import DocpactError, load_config  # the contracts say what griffe loads

    try:
        config = load_config(pyproject)
    except DocpactError as error:
        raise CommandFailed(str(error)) from None
    packages = sorted({c.package for c in config.contracts if c.package is not None})
    if not packages:
        msg = f"no contract in {root / 'pyproject.toml'} names a package, so nothing is loaded"
        raise CommandFailed(msg)
    paths = [str((config.root / path).absolute()) for path in config.paths]
    reference = [sys.executable, "-c", _REFERENCE, json.dumps(paths), json.dumps(packages)]
    return {
        CHECK: [sys.executable, "-m", "docpact", "check", "--pyproject", pyproject.name],
        CHECK_ALL: [sys.executable, "-m", "docpact", "check", "--pyproject", "pyproject.toml"],
        LOAD: reference,
    }


def median_seconds(
    timed: dict[Path, dict[str, list[str]]], rounds: int
) -> dict[Path, dict[str, float]]:
    """Run every project's commands interleaved, after one untimed round; their median times.

    Raises:
        CommandFailed: As soon as a run exits with a non-zero status.
    """
    samples = {root: {name: [] for name in named} for root, named in timed.items()}
    for round_index in range(rounds + 1):
        for root, named in timed.items():
            for name, command in named.items():
                start = time.perf_counter()
                result = subprocess.run(
                    command, cwd=root, check=False, stdout=subprocess.DEVNULL, env=_CACHED
                )
                if result.returncode:
                    msg = f"`{name}` exited with status {result.returncode} in {root}"
                    raise CommandFailed(msg)
                if round_index:  # the first round only warms the file and bytecode caches
                    samples[root][name].append(time.perf_counter() - start)
    return {
        root: {name: statistics.median(values) for name, values in named.items()}
        for root, named in samples.items()
    }


def measure(roots: list[Path], rounds: int) -> dict[Path, dict[str, float]]:
    """Time the projects at `roots`, each with its claims contracts left out for the run.

    Raises:
        CommandFailed: If a project's claims contracts cannot be left out, its
            configuration names no package, or a run fails.
    """
    written: list[Path] = []
    try:
        timed = {}
        for root in roots:
            try:
                written.append(write_core_pyproject(root / "pyproject.toml"))
            except CoreError as error:
                raise CommandFailed(str(error)) from None
            timed[root] = commands(root, written[-1])
        return median_seconds(timed, rounds)
    finally:
        for path in written:
            path.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    """Print each project's timings and ratio beside its limit; exit 1 if a command fails."""
    args = get_parser().parse_args(argv)
    roots = args.root or [ROOT, ROOT / ADOPTER]
    try:
        timings = measure(roots, args.rounds)
    except CommandFailed as error:
        print(f"bench_checks: error: {error}; a failing run is not timed", file=sys.stderr)
        return 1
    over = False
    for root, named in timings.items():
        load = named[LOAD]
        checks = {name: named[name] for name in (CHECK, CHECK_ALL) if name in named}
        verdict = "met" if max(checks.values()) <= limit(load) else "MISSED"
        over |= verdict == "MISSED"
        rule = f"{RATIO}x the load" if load >= FLOOR else f"the load + {MARGIN * 1e3:.0f} ms"
        print(f"{root}:")
        for name, seconds in named.items():
            print(f"  {name:>13}: {seconds * 1e3:8.1f} ms (median of {args.rounds})")
        ratios = ", ".join(f"{checks[name] / load:.3f}" for name in checks)
        print(f"  {'ratio':>13}: {ratios}")
        print(f"  {'limit':>13}: {limit(load) * 1e3:8.1f} ms ({rule}: {verdict})")
    return 1 if args.check and over else 0


if __name__ == "__main__":
    sys.exit(main())
