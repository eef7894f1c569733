# SPDX-License-Identifier: MIT
"""Fuzz the command lines for a while, print the cases per outcome, keep each defect found.

``nox -s fuzz -- --minutes 20`` runs this script: seeded hypothesis cases of every command
(``rolloutnorm explain`` so far) until the time is spent; each defect's shrunk case is written
under tests/fuzz/reproducers/<command>/, where test_fuzz.py replays it as a regression test.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import hashlib
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import fuzz_explain  # noqa: E402
from fuzz_runner import DEFECTS, OUTCOMES  # noqa: E402

COMMANDS = {"explain": fuzz_explain}
"""The fuzzed commands by name, each a module with ``cases()`` and ``check(case, folder)``."""


def fuzz(
    command: str, *, minutes: float, seed_: int, mode: str, keep: Path | None, timeout: float
) -> dict:
    """Run cases of one command for ``minutes``; the counts per outcome, defects kept.

    Args:
        command: A key of `COMMANDS`.
        minutes: How long to run.
        seed_: The seed of the first case.
        mode: The runner's mode, ``fork`` or ``exec``.
        keep: The folder for the shrunk reproducers of defects, or None.
        timeout: Seconds before a case is a hang.

    Returns:
        The number of cases per outcome class.
    """
    module = COMMANDS[command]
    counts: collections.Counter = collections.Counter()
    deadline = time.monotonic() + minutes * 60
    found: dict[tuple[str, str], object] = {}
    kinds: collections.Counter = collections.Counter()

    @seed(seed_)
    @settings(
        max_examples=10**9,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate],
    )
    @given(module.cases())
    def one(case: object) -> None:
        if time.monotonic() > deadline:
            raise _Spent
        with tempfile.TemporaryDirectory() as folder:
            result = module.check(case, Path(folder), mode=mode, timeout=timeout)
        counts[result.outcome] += 1
        if result.outcome in DEFECTS:
            kind = (result.outcome, _kind(result))
            kinds[kind] += 1
            if kind not in found:
                budget = 2 if result.outcome == "hang" else 16  # a hang costs its timeout
                found[kind] = shrink(
                    module, case, result.outcome, mode=mode, budget=budget, timeout=timeout
                )

    with contextlib.suppress(_Spent):
        one()
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        for case in found.values():
            text = case.to_json()
            digest = hashlib.sha256(text.encode()).hexdigest()[:12]
            (keep / f"{digest}.json").write_text(text, "utf-8")
    for (outcome, kind), count in sorted(kinds.items()):
        print(f"  {outcome}: {kind}: {count}")
    return {outcome: counts[outcome] for outcome in OUTCOMES}


def _kind(result: object) -> str:
    """A defect's kind: its exception's name, its signal, or its first line of error."""
    lines = result.stderr.strip().splitlines() or [""]
    if result.outcome == "traceback":
        return lines[-1].split(":")[0]
    if result.outcome == "signal":
        return f"signal {-result.status}"
    if result.outcome == "unlocated error":
        return lines[0][:60]
    return result.outcome


def shrink(
    module: object, case: object, outcome: str, *, mode: str, budget: int, timeout: float
) -> object:
    """A smaller case of the same outcome: no config or settings, then chunks of bytes cut.

    Args:
        module: The command's module.
        case: The case found.
        outcome: Its outcome class.
        mode: The runner's mode.
        budget: The most runs spent.
        timeout: Seconds before a case is a hang.

    Returns:
        The smallest case found that still ends as ``outcome``.
    """

    def same(candidate: object) -> bool:
        with tempfile.TemporaryDirectory() as folder:
            result = module.check(candidate, Path(folder), mode=mode, timeout=timeout)
            return result.outcome == outcome

    runs = 0
    for change in ({"config": None}, {"sets": []}):
        candidate = dataclasses.replace(case, **change)
        if candidate != case and runs < budget:
            runs += 1
            case = candidate if same(candidate) else case
    # A case checked against the oracle keeps its bytes: they are the rows the oracle reads.
    size = len(case.batch) // 2 if case.rows is None else 0
    while size and runs < budget:
        start = 0
        while start < len(case.batch) and runs < budget:
            candidate = dataclasses.replace(
                case, batch=case.batch[:start] + case.batch[start + size :]
            )
            runs += 1
            if same(candidate):
                case = candidate
            else:
                start += size
        size //= 2
    return case


class _Spent(Exception):
    """The time given is over."""


def main(args: list[str] | None = None) -> int:
    """Fuzz every command; exit 1 if any case was a defect."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="time per command")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--mode", choices=["fork", "exec"], default="fork")
    parser.add_argument("--command", choices=sorted(COMMANDS), action="append")
    parser.add_argument("--keep", type=Path, default=HERE / "reproducers")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds before a hang")
    options = parser.parse_args(args)
    defects = 0
    for command in options.command or sorted(COMMANDS):
        start = time.monotonic()
        counts = fuzz(
            command,
            minutes=options.minutes,
            seed_=options.seed,
            mode=options.mode,
            keep=options.keep / command,
            timeout=options.timeout,
        )
        total = sum(counts.values())
        print(f"{command}: {total} cases in {time.monotonic() - start:.0f} s")
        for outcome, count in counts.items():
            print(f"  {outcome}: {count}")
        defects += sum(counts[outcome] for outcome in DEFECTS)
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
