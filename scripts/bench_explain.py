#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Time `rolloutnorm explain` in-process against the naive reading floor, side by side."""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from rolloutnorm import load_config
from rolloutnorm._explain.explanation import explain
from rolloutnorm._explain.read import read_batch
from rolloutnorm._explain.schema import render_json

# The same pinning as the normalization's benchmark, which explains it.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_normalize import pin_malloc

ROWS, ROLLOUTS, MAX_TOKENS = 65_536, 20_000, 256
# explain / naive parse, a ratio of medians; within 10% of it counts as met.
TARGET, SLACK = 1.0, 1.1


def get_parser() -> argparse.ArgumentParser:
    """The command line: the batch's size, the rounds and whether a missed target fails."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=ROWS, help="training rows in the batch")
    parser.add_argument("--rollouts", type=int, default=ROLLOUTS, help="rollouts among them")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved timed rounds")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument(
        "--default-malloc",
        action="store_true",
        help="time with glibc's defaults only, not also with its thresholds pinned",
    )
    return parser


def write_batch(path: Path, rows: int, rollouts: int) -> None:
    """A JSON Lines batch: rollouts of at least one row each, 1 to 256 tokens a row, shuffled."""
    rng = random.Random(0)
    cuts = sorted(rng.sample(range(1, rows), rollouts - 1))
    sizes = [end - start for start, end in zip([0, *cuts], [*cuts, rows], strict=True)]
    ids = [f"rollout-{rollout:05d}" for rollout, size in enumerate(sizes) for _ in range(size)]
    rng.shuffle(ids)
    with path.open("w", encoding="utf-8") as file:
        for rollout_id in ids:
            tokens = rng.randint(1, MAX_TOKENS)
            file.write(json.dumps({"rollout_id": rollout_id, "response_tokens": tokens}) + "\n")


def naive(path: Path) -> list:
    """The reading floor: every line parsed with the standard library's json.loads."""
    with path.open(encoding="utf-8") as file:
        return [json.loads(line) for line in file]


def explain_stages(path: Path, config: object) -> dict[str, float]:
    """Run the explain as the CLI does, minus the interpreter: seconds per stage."""
    start = time.perf_counter()
    batch = read_batch(path)
    read = time.perf_counter()
    explanation = explain(batch, config, source=path.name)
    explained = time.perf_counter()
    render_json(explanation)
    done = time.perf_counter()
    return {"read": read - start, "explain": explained - read, "json": done - explained}


def interleave(functions: dict[str, Callable[[], dict[str, float]]], rounds: int) -> dict:
    """Run the functions in turn, round after round, after one warm-up each: every sample."""
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in functions}
    for function in functions.values():
        function()
    for _ in range(rounds):
        for name, function in functions.items():
            samples[name].append(function())
    return samples


def _peak_mib() -> float:
    """The process's peak resident memory so far, in MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def report(samples: dict, rounds: int) -> tuple[list[str], bool]:
    """The lines of one set of rounds: each stage's median, the totals, the ratio, the verdict."""
    stages = {
        name: statistics.median(sample[name] for sample in samples["explain"]) * 1e3
        for name in ("read", "explain", "json")
    }
    total = statistics.median(sum(sample.values()) for sample in samples["explain"]) * 1e3
    floor = statistics.median(sample["parse"] for sample in samples["naive"]) * 1e3
    ratio = total / floor
    met = ratio <= TARGET * SLACK
    lines = [
        f"  {'read (read_batch)':<36}{stages['read']:>8.1f} ms",
        f"  {'retain, normalize, sum (explain)':<36}{stages['explain']:>8.1f} ms",
        f"  {'JSON output (render_json)':<36}{stages['json']:>8.1f} ms",
        f"  {'explain, all stages':<36}{total:>8.1f} ms",
        f"  {'naive floor (json.loads per line)':<36}{floor:>8.1f} ms",
        f"  explain/naive {ratio:.2f}x, medians of {rounds} interleaved rounds; "
        f"target <= {TARGET:.1f}x (within 10%): {'met' if met else 'MISSED'}",
    ]
    return lines, met


def main(argv: list[str] | None = None) -> int:
    """Time both malloc settings in turn; print the stages, the ratios and the peak memory."""
    args = get_parser().parse_args(argv)
    config = load_config()
    verdicts = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "batch.jsonl"
        write_batch(path, args.rows, args.rollouts)
        size_mib = path.stat().st_size / 2**20
        before = _peak_mib()
        reader = read_batch(path).reader
        explain_stages(path, config)
        explain_peak = _peak_mib()
        print(
            f"torch {torch.__version__}, threads {torch.get_num_threads()}; {args.rows:,} rows, "
            f"{args.rollouts:,} rollouts, {size_mib:.1f} MiB of JSON Lines, read by {reader}"
        )

        def timed_naive() -> dict[str, float]:
            start = time.perf_counter()
            naive(path)
            return {"parse": time.perf_counter() - start}

        functions = {"naive": timed_naive, "explain": lambda: explain_stages(path, config)}
        # Fresh memory first: glibc hands big freed blocks back, so every round faults its
        # pages in anew, as a single run of the command does. Then reused memory, pinned.
        settings = [("glibc defaults: fresh pages every round, as one CLI run", None)]
        if not args.default_malloc:
            settings.append(("malloc pinned: memory reused between rounds", pin_malloc))
        for title, setup in settings:
            note = setup() if setup is not None else ""
            print(f"{title}{f' ({note})' if note else ''}")
            lines, met = report(interleave(functions, args.rounds), args.rounds)
            print("\n".join(lines))
            verdicts.append(met)
    print(
        f"peak memory: {explain_peak:.0f} MiB resident after the first explain, "
        f"{explain_peak - before:+.0f} MiB over the {before:.0f} MiB before it"
    )
    return 1 if args.check and not all(verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
