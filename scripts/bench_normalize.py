#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Time the normalization against the memory floor, the per-row loop and every mode's masses."""

from __future__ import annotations

import argparse
import ctypes
import platform
import random
import resource
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import torch

from rolloutnorm import aggregation_masses, normalize_advantages_by_rollout
from rolloutnorm._ids import encode_ids
from rolloutnorm._validate import count_row_tokens

# The loop is the tests' oracle, so the benchmark times exactly what the tests trust.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "rolloutnorm"))
from oracle import per_row_loop

# (rows, tokens, id container, vectorized/floor target, loop/vectorized target,
#  modes/vectorized target: every aggregation mode's masses against one normalization)
CASES = (
    (4_096, 1_024, "str", 2.0, None, None),
    (65_536, 128, "str", None, 4.0, 2.0),
    (65_536, 128, "tensor", None, None, 2.0),
)


def get_parser() -> argparse.ArgumentParser:
    """The command line: device, rounds and whether a missed target fails the run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", default="cpu", help="torch device, e.g. cpu or cuda")
    parser.add_argument("--rounds", type=int, default=31, help="timed rounds per function")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument(
        "--default-malloc",
        action="store_true",
        help="leave glibc's trim and mmap thresholds alone (outputs may fault in anew)",
    )
    return parser


def pin_malloc() -> str:
    """Keep glibc from handing freed 16 MB outputs back to the kernel; describe what was done.

    With its default, dynamic thresholds glibc trims the heap when a large block is freed
    on top, so the next call's output faults all its pages in again (4,096 faults, several
    ms on this kind of machine). Whether that happens depends on which function freed last,
    not on the function being timed; pinning both thresholds at 1 GiB takes that chance out
    of the comparison. Other C libraries are left as they are.
    """
    if platform.libc_ver()[0] != "glibc":
        return "malloc: not glibc, left as is"
    libc = ctypes.CDLL(None)
    m_trim_threshold, m_mmap_threshold = -1, -3
    if libc.mallopt(m_trim_threshold, 2**30) and libc.mallopt(m_mmap_threshold, 2**30):
        return "malloc: glibc trim and mmap thresholds pinned at 1 GiB (--default-malloc: not)"
    return "malloc: glibc refused to pin its thresholds, left as is"


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


def median_ms(
    functions: dict[str, Callable[[], object]], rounds: dict[str, int], sync
) -> tuple[dict[str, float], dict[str, int]]:
    """Run the functions interleaved, round after round: each one's median ms and page faults.

    Fault counts are whole numbers, so theirs is the low median: never half a fault.
    """
    samples: dict[str, list[float]] = {name: [] for name in functions}
    faults: dict[str, list[int]] = {name: [] for name in functions}
    for function in functions.values():
        function()
    sync()
    for round_index in range(max(rounds.values())):
        for name, function in functions.items():
            if round_index >= rounds[name]:
                continue
            faults_before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            start = time.perf_counter()
            function()
            sync()
            samples[name].append((time.perf_counter() - start) * 1e3)
            faults[name].append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults_before)
    return (
        {name: statistics.median(values) for name, values in samples.items()},
        {name: statistics.median_low(values) for name, values in faults.items()},
    )


def time_case(
    rows: int, tokens: int, ids: str, device: torch.device, rounds: int, sync
) -> tuple[dict[str, float], dict[str, int]]:
    """The medians of the floor, the vectorized function, two of its parts, the loop and modes.

    The parts are the mask pass (the row sums the floor takes too, and the exact 0/1 check
    it does not) and the coding of the rollout ids; ``modes`` is `aggregation_masses` over
    every mode, every row trained in one mini-batch. Returns milliseconds and page faults.
    """
    advantages, mask, rollout_ids = make_batch(rows, tokens, ids, device)
    loop_ids = rollout_ids.tolist() if isinstance(rollout_ids, torch.Tensor) else rollout_ids
    functions = {
        "floor": lambda: advantages / mask.sum(-1).clamp(min=1).unsqueeze(-1),
        "vector": lambda: normalize_advantages_by_rollout(
            advantages, mask, rollout_ids, num_trained_rows=rows
        ),
        "mask": lambda: torch.stack(count_row_tokens(mask).probes).tolist(),
        "ids": lambda: encode_ids(rollout_ids, num_rows=rows, device=device),
        "loop": lambda: per_row_loop(advantages, mask, loop_ids, rows),
        "modes": lambda: aggregation_masses(mask, rollout_ids),
    }
    # The loop is slow and steady; a fifth of the rounds gives it a stable median.
    return median_ms(
        functions, dict.fromkeys(functions, rounds) | {"loop": max(1, rounds // 5)}, sync
    )


def main(argv: list[str] | None = None) -> int:
    """Print one row per case: the timings, the page faults and two ratios, with the targets."""
    args = get_parser().parse_args(argv)
    device = torch.device(args.device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    print(f"torch {torch.__version__}, device {device}, threads {torch.get_num_threads()}")
    print("malloc: left as is" if args.default_malloc else pin_malloc())
    header = (
        f"{'case':<26}{'floor ms':>10}{'vector ms':>11}{'mask ms':>9}{'ids ms':>8}{'loop ms':>10}"
        f"{'modes ms':>10}"
    )
    print(f"{header}{'faults f/v':>12}{'vec/floor':>11}{'loop/vec':>10}{'modes/vec':>11}  targets")
    missed = False
    for rows, tokens, ids, floor_target, loop_target, modes_target in CASES:
        ms, faults = time_case(rows, tokens, ids, device, args.rounds, sync)
        vec_floor, loop_vec = ms["vector"] / ms["floor"], ms["loop"] / ms["vector"]
        modes_vec = ms["modes"] / ms["vector"]
        verdicts = []
        if floor_target is not None:
            met = vec_floor <= floor_target
            missed |= not met
            verdicts.append(f"vec/floor <= {floor_target:g}: {'met' if met else 'MISSED'}")
        if loop_target is not None:
            met = loop_vec >= loop_target
            missed |= not met
            verdicts.append(f"loop/vec >= {loop_target:g}: {'met' if met else 'MISSED'}")
        if modes_target is not None:
            met = modes_vec <= modes_target
            missed |= not met
            verdicts.append(f"modes/vec <= {modes_target:g}: {'met' if met else 'MISSED'}")
        case = f"{rows:,} x {tokens:,} {ids} ids"
        fault_pair = f"{faults['floor']:g}/{faults['vector']:g}"
        print(
            f"{case:<26}{ms['floor']:>10.2f}{ms['vector']:>11.2f}{ms['mask']:>9.2f}{ms['ids']:>8.2f}"
            f"{ms['loop']:>10.1f}{ms['modes']:>10.2f}{fault_pair:>12}"
            f"{vec_floor:>10.2f}x{loop_vec:>9.1f}x{modes_vec:>10.2f}x  {'; '.join(verdicts) or '-'}"
        )
    return 1 if missed and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
