#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Judge a finished `mutmut run`: the kill rate, and every survivor against its reviewed reason."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

# docpact's own parser of a percentage, as `--fail-under` takes it: the mutate session has it.
from docpact._cli import _percent

ROOT = Path(__file__).resolve().parents[1]
REVIEWED = ROOT / "tests" / "docpact" / "surviving_mutants.toml"
TARGET = 95.0
# A timeout is a kill (the mutant looped), and so is what mutmut calls "check was interrupted
# by user": pytest's exit status 2, which a finished run gets when the mutant breaks the tests'
# collection. A mutant no test covers, a suspicious one (its run behaved unlike a pass or a
# fail) and a segfault are survivors.
KILLED = frozenset({"killed", "timeout", "caught by type check", "check was interrupted by user"})
UNFINISHED = frozenset({"not checked"})


def get_parser() -> argparse.ArgumentParser:
    """The command line: where the reviewed survivors are and the kill rate to reach."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reviewed", type=Path, default=REVIEWED, help="the reviewed survivors")
    parser.add_argument("--target", type=_percent, default=TARGET, help="lowest kill rate, in %%")
    return parser


def parse_results(text: str) -> dict[str, str]:
    """Each mutant's status from the lines `mutmut results --all true` prints (`NAME: STATUS`)."""
    statuses: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, status = line.strip().partition(": ")
        if sep and "__mutmut_" in name:
            statuses[name] = status.strip()
    return statuses


def load_reviewed(path: Path) -> dict[str, str]:
    """The reviewed survivors: mutant name to the reason it may survive."""
    with path.open("rb") as file:
        table = tomllib.load(file)
    reviewed = table.get("survivors", {})
    if not isinstance(reviewed, dict):
        msg = f"{path.name}: [survivors] must be a table of mutant names to reasons"
        raise ValueError(msg)
    blank = sorted(
        name
        for name, reason in reviewed.items()
        if not isinstance(reason, str) or not reason.strip()
    )
    if blank:
        msg = f"{path.name}: survivors without a reason: {', '.join(blank)}"
        raise ValueError(msg)
    return dict(reviewed)


def judge(
    statuses: dict[str, str], reviewed: dict[str, str], target: float
) -> tuple[list[str], bool]:
    """The report's lines, and whether the run passes: rate, unreviewed and stale survivors."""
    counts = Counter(statuses.values())
    unfinished = sorted(name for name, status in statuses.items() if status in UNFINISHED)
    survivors = sorted(name for name, status in statuses.items() if status not in KILLED)
    killed = len(statuses) - len(survivors)
    rate = 100.0 * killed / len(statuses) if statuses else 0.0
    lines = [
        f"mutants: {len(statuses)}  "
        + "  ".join(f"{status}: {count}" for status, count in sorted(counts.items())),
        f"kill rate: {killed} of {len(statuses)} = {rate:.1f}% (target {target:g}%; "
        "no tests, suspicious and segfault count as survivors)",
    ]
    unreviewed = [name for name in survivors if name not in reviewed and name not in unfinished]
    stale = sorted(name for name in reviewed if name not in survivors)
    lines += [f"not run: {name}" for name in unfinished]
    lines += [
        f"unreviewed survivor ({statuses[name]}): {name}  (see: mutmut show {name})"
        for name in unreviewed
    ]
    lines += [
        f"stale review: {name} is {statuses.get(name, 'gone')}; delete its entry" for name in stale
    ]
    ok = statuses != {} and rate >= target and not (unfinished or unreviewed or stale)
    lines.append("PASS" if ok else "FAIL")
    return lines, ok


def main(args: list[str] | None = None) -> int:
    """Read mutmut's results in mutants/ and print the judgement; 1 if it fails."""
    options = get_parser().parse_args(args)
    result = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        print(f"mutmut results failed:\n{result.stderr}", file=sys.stderr)
        return 2
    statuses = parse_results(result.stdout)
    if not statuses:
        print("no mutants found: run `mutmut run` first", file=sys.stderr)
        return 2
    try:
        reviewed = load_reviewed(options.reviewed)
    except (OSError, tomllib.TOMLDecodeError, ValueError) as error:
        print(f"{options.reviewed}: {error}", file=sys.stderr)
        return 2
    lines, ok = judge(statuses, reviewed, options.target)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
