# SPDX-License-Identifier: MIT
"""Fuzz the command lines for a while, print the cases per outcome, keep each defect found.

``nox -s fuzz -- --minutes 20`` runs this script: seeded hypothesis cases of a target
(``--target explain``, the default: ``rolloutnorm explain``; ``docpact``: ``docpact check``,
``claims``, ``claims --update`` and ``coverage``; ``all``) until the time is spent, then the
cases per command and outcome class; each defect's shrunk case is written under
tests/fuzz/reproducers/<target>/. test_fuzz.py replays explain's as regression tests;
test_fuzz_docpact.py replays docpact's.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import hashlib
import re
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import fuzz_docpact  # noqa: E402
import fuzz_explain  # noqa: E402
from fuzz_runner import DEFECTS, OUTCOMES  # noqa: E402

TARGETS = {"docpact": fuzz_docpact, "explain": fuzz_explain}
"""The fuzzed targets by name, each a module with ``cases()``, ``check(case, folder)``,
``label(case)`` (the command a case runs), ``shrink(case, outcome, same, budget)``,
``TIMEOUT`` and ``SHRINK_RUNS``."""


def fuzz(
    target: str,
    *,
    minutes: float,
    seed_: int,
    mode: str,
    keep: Path | None,
    timeout: float | None = None,
) -> dict[str, dict[str, int]]:
    """Run cases of one target for ``minutes``; the counts per command and outcome, defects kept.

    Args:
        target: A key of `TARGETS`.
        minutes: How long to run.
        seed_: The seed of the first case.
        mode: The runner's mode, ``fork`` or ``exec``.
        keep: The folder for the shrunk reproducers of defects, or None.
        timeout: Seconds before a case is a hang; the target's ``TIMEOUT`` if None.

    Returns:
        The number of cases per command, per outcome class.
    """
    module = TARGETS[target]
    timeout = timeout or module.TIMEOUT
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
        counts[module.label(case), result.outcome] += 1
        if result.outcome in DEFECTS:
            kind = (result.outcome, _kind(result))
            kinds[kind] += 1
            if kind not in found:
                # A hang costs its timeout on every run.
                budget = 2 if result.outcome == "hang" else module.SHRINK_RUNS
                found[kind] = shrink(module, case, kind, mode=mode, budget=budget, timeout=timeout)

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
    commands = sorted({command for command, _ in counts})
    return {c: {outcome: counts[c, outcome] for outcome in OUTCOMES} for c in commands}


_FRAME = re.compile(r'^\s*File "(?P<path>[^"]*)", line \d+,? in (?P<function>\S+)', re.MULTILINE)


def _kind(result: object) -> str:
    """A defect's kind: its exception or hang and where, its signal, its error, what was wrong.

    Where is the innermost frame of the fuzzed packages' sources (under a ``src`` folder),
    else the innermost of all; for a hang, of the stack the child wrote before its timeout.
    """
    lines = result.stderr.strip().splitlines() or [""]
    frames = [(m["path"], m["function"]) for m in _FRAME.finditer(result.stderr)]
    if result.outcome == "hang":
        frames.reverse()  # faulthandler writes the innermost first
    ours = [frame for frame in frames if "/src/" in frame[0]] or frames
    where = [f"{Path(ours[-1][0]).name} {ours[-1][1]}"] if ours else []
    if result.outcome == "traceback":
        last = max((n for n, line in enumerate(lines) if line.startswith("  File ")), default=-1)
        error = next((line for line in lines[last + 1 :] if not line.startswith(" ")), lines[-1])
        return " in ".join([error.split(":")[0], *where])
    if result.outcome == "hang":
        return " in ".join(["hang", *where])
    if result.outcome == "signal":
        return f"signal {-result.status}"
    if result.outcome == "unlocated error":  # one kind, whatever the numbers and folder
        line = re.sub(rf"{re.escape(tempfile.gettempdir())}/[^/\s]+", "FOLDER", lines[0])
        return re.sub(r"[0-9]+", "N", line)[:60]
    return result.detail.split(":")[0] if result.detail else result.outcome


def shrink(
    module: object, case: object, kind: tuple[str, str], *, mode: str, budget: int, timeout: float
) -> object:
    """A smaller case of the same kind of defect, as the target's ``shrink`` makes one.

    Args:
        module: The target's module.
        case: The case found.
        kind: Its outcome class and kind of defect (`_kind`).
        mode: The runner's mode.
        budget: The most runs spent.
        timeout: Seconds before a case is a hang.

    Returns:
        The smallest case found that still ends as ``kind``.
    """

    def same(candidate: object) -> bool:
        with tempfile.TemporaryDirectory() as folder:
            result = module.check(candidate, Path(folder), mode=mode, timeout=timeout)
            return (result.outcome, _kind(result)) == kind

    return module.shrink(case, kind[0], same, budget)


class _Spent(Exception):
    """The time given is over."""


def main(args: list[str] | None = None) -> int:
    """Fuzz the targets; exit 1 if any case was a defect."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="time per target")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--mode", choices=["fork", "exec"], default="fork")
    parser.add_argument("--target", choices=[*sorted(TARGETS), "all"], default="explain")
    parser.add_argument("--keep", type=Path, default=HERE / "reproducers")
    parser.add_argument(
        "--timeout", type=float, help="seconds before a hang (default: the target's)"
    )
    options = parser.parse_args(args)
    defects = 0
    for target in sorted(TARGETS) if options.target == "all" else [options.target]:
        start = time.monotonic()
        counts = fuzz(
            target,
            minutes=options.minutes,
            seed_=options.seed,
            mode=options.mode,
            keep=options.keep / target,
            timeout=options.timeout,
        )
        total = sum(sum(by_outcome.values()) for by_outcome in counts.values())
        print(f"{target}: {total} cases in {time.monotonic() - start:.0f} s")
        for command, by_outcome in counts.items():
            shown = ", ".join(f"{outcome} {n}" for outcome, n in by_outcome.items() if n)
            print(f"  {command}: {sum(by_outcome.values())} ({shown})")
        defects += sum(by[outcome] for by in counts.values() for outcome in DEFECTS)
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
