#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Time the vectorized normalization against the memory floor and the per-row loop, side by side."""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import torch

from rolloutnorm import normalize_advantages_by_rollout
from rolloutnorm._ids import encode_rollout_ids
from rolloutnorm._normalize import _count_row_tokens

# The loop is the tests' oracle, so the benchmark times exactly what the tests trust.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from oracle import per_row_loop

# (rows, tokens, id container, vectorized/floor target, loop/vectorized target)
CASES = (
    (4_096, 1_024, "str", 2.0, None),
    (65_536, 128, "str", None, 4.0),
    (65_536, 128, "tensor", None, None),
)


def get_parser() -> argparse.ArgumentParser:
    """The command line: device, rounds and whether a missed target fails the run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", default="cpu", help="torch device, e.g. cpu or cuda")
    parser.add_argument("--rounds", type=int, default=31, help="timed rounds per function")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    return parser


def make_batch(rows: int, tokens: int, ids: str, device: torch.device) -> tuple:
    """Random advantages, an int64 right-padded mask and rollouts of 1 to 4 rows, shuffled."""
    rng = random.Random(0)
    rollout_ids: list = []
    while len(rollout_ids) < rows:
        rollout_ids += [str(uuid.UUID(int=rng.getrandbits(128)))] * rng.randint(1, 4)
    rollout_ids = rollout_ids[:rows]
    rng.shuffle(rollout_ids)
    generator = torch.Generator().manual_seed(0)
    advantages = torch.randn(rows, tokens, generator=generator).to(device)
    lengths = torch.randint(1, tokens + 1, (rows, 1), generator=generator)
    mask = (torch.arange(tokens) < lengths).to(torch.int64).to(device)
    if ids == "tensor":
        codes = {rollout_id: code for code, rollout_id in enumerate(dict.fromkeys(rollout_ids))}
        rollout_ids = torch.tensor([codes[r] for r in rollout_ids], device=device)
    return advantages, mask, rollout_ids


def median_ms(functions: dict[str, Callable[[], object]], rounds: dict[str, int], sync) -> dict:
    """Run the functions interleaved, round after round, and return each one's median in ms."""
    samples: dict[str, list[float]] = {name: [] for name in functions}
    for function in functions.values():
        function()
    sync()
    for round_index in range(max(rounds.values())):
        for name, function in functions.items():
            if round_index >= rounds[name]:
                continue
            start = time.perf_counter()
            function()
            sync()
            samples[name].append((time.perf_counter() - start) * 1e3)
    return {name: statistics.median(values) for name, values in samples.items()}


def time_case(rows: int, tokens: int, ids: str, device: torch.device, rounds: int, sync) -> dict:
    """The median milliseconds of the floor, the vectorized function, two of its parts and the loop.

    The parts are the mask pass (the row sums the floor takes too, and the exact 0/1 check
    it does not) and the coding of the rollout ids.
    """
    advantages, mask, rollout_ids = make_batch(rows, tokens, ids, device)
    loop_ids = rollout_ids.tolist() if isinstance(rollout_ids, torch.Tensor) else rollout_ids
    functions = {
        "floor": lambda: advantages / mask.sum(-1).clamp(min=1).unsqueeze(-1),
        "vector": lambda: normalize_advantages_by_rollout(
            advantages, mask, rollout_ids, num_trained_rows=rows
        ),
        "mask": lambda: torch.stack(_count_row_tokens(mask)[1]).tolist(),
        "ids": lambda: encode_rollout_ids(rollout_ids, num_rows=rows, device=device),
        "loop": lambda: per_row_loop(advantages, mask, loop_ids, rows),
    }
    # The loop is slow and steady; a fifth of the rounds gives it a stable median.
    return median_ms(
        functions, dict.fromkeys(functions, rounds) | {"loop": max(1, rounds // 5)}, sync
    )


def main(argv: list[str] | None = None) -> int:
    """Print one row per case: the three timings and the two ratios, with the targets."""
    args = get_parser().parse_args(argv)
    device = torch.device(args.device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    print(f"torch {torch.__version__}, device {device}, threads {torch.get_num_threads()}")
    header = (
        f"{'case':<26}{'floor ms':>10}{'vector ms':>11}{'mask ms':>9}{'ids ms':>8}{'loop ms':>10}"
    )
    print(f"{header}{'vec/floor':>11}{'loop/vec':>10}  targets")
    missed = False
    for rows, tokens, ids, floor_target, loop_target in CASES:
        ms = time_case(rows, tokens, ids, device, args.rounds, sync)
        vec_floor, loop_vec = ms["vector"] / ms["floor"], ms["loop"] / ms["vector"]
        verdicts = []
        if floor_target is not None:
            met = vec_floor <= floor_target
            missed |= not met
            verdicts.append(f"vec/floor <= {floor_target:g}: {'met' if met else 'MISSED'}")
        if loop_target is not None:
            met = loop_vec >= loop_target
            missed |= not met
            verdicts.append(f"loop/vec >= {loop_target:g}: {'met' if met else 'MISSED'}")
        case = f"{rows:,} x {tokens:,} {ids} ids"
        print(
            f"{case:<26}{ms['floor']:>10.2f}{ms['vector']:>11.2f}{ms['mask']:>9.2f}{ms['ids']:>8.2f}"
            f"{ms['loop']:>10.1f}"
            f"{vec_floor:>10.2f}x{loop_vec:>9.1f}x  {'; '.join(verdicts) or '-'}"
        )
    return 1 if missed and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
