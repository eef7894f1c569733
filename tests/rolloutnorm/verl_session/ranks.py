# SPDX-License-Identifier: MIT
"""The CPU ranks of a real-loop world: gloo processes that meet through a file, bounded in time.

Every rank runs the world's work (`actor_world.run_scenarios` unless `run_world` is given
another); rank 0 saves what it returns. The ranks meet through ``init_method=file://`` in the
world's temporary folder, so no port is chosen and raced for.
`run_world` reports every rank's exit: a rank that failed with its traceback, one killed by a
signal, one killed after the timeout, and one killed because another failed first.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import actor_world
import cpu_verl
import torch
import torch.multiprocessing as mp


def _rank_main(rank: int, world_size: int, folder: str, work: Callable, args: tuple) -> None:
    out = Path(folder)
    try:
        os.environ.update(
            RANK=str(rank),
            LOCAL_RANK=str(rank),
            WORLD_SIZE=str(world_size),
            GLOO_SOCKET_IFNAME="lo",
        )
        # verl's Worker records a master address and port, and opens nothing on them.
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="0")
        cpu_verl.install_cpu_platform()
        torch.distributed.init_process_group(
            "gloo",
            init_method=f"file://{out / 'rendezvous'}",
            rank=rank,
            world_size=world_size,
            timeout=timedelta(seconds=120),
        )
        import rolloutnorm.verl

        rolloutnorm.verl.register()
        results = work(rank, world_size, *args)
        if rank == 0:
            torch.save(results, out / "results.pt")
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
    except BaseException:
        (out / f"rank{rank}.error").write_text(traceback.format_exc())
        os._exit(1)
    os._exit(0)  # gloo's threads can abort the interpreter's teardown after the work is done


def _wait(ranks: list, timeout_s: float) -> bool:
    """Wait until every rank ends, one fails, or the time is up; True if the time ran out."""
    deadline = time.monotonic() + timeout_s
    while any(p.is_alive() for p in ranks):
        if any(p.exitcode not in (None, 0) for p in ranks):
            return False  # one rank failed: the others would only wait for it
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.1)
    return False


def _exit_report(
    rank: int, exitcode: int | None, *, killed: bool, timed_out: bool, timeout_s: float
) -> str:
    if killed:
        why = f"after {timeout_s} s" if timed_out else "when another rank failed"
        return f"rank {rank}: still running {why}: killed"
    if exitcode is not None and exitcode < 0:
        return f"rank {rank}: killed by signal {-exitcode}"
    return f"rank {rank}: exit code {exitcode}"


def run_world(
    world_size: int,
    folder: Path,
    scenarios: list,
    model: Path,
    timeout_s: float,
    *,
    work: Callable = actor_world.run_scenarios,
) -> dict:
    """Start ``world_size`` ranks, wait at most ``timeout_s``, return rank 0's records.

    Each rank calls ``work(rank, world_size, scenarios, model)``; ``work`` must be a function
    of a module the ranks can import (they are spawned).

    Raises:
        AssertionError: If a rank does not exit with 0: every rank's exit is reported, with
            the traceback of each that failed. Every rank still running is killed first.
    """
    context = mp.get_context("spawn")
    ranks = [
        context.Process(
            target=_rank_main,
            args=(rank, world_size, str(folder), work, (scenarios, Path(model))),
        )
        for rank in range(world_size)
    ]
    killed: set[int] = set()
    timed_out = False
    try:
        for process in ranks:
            process.start()
        timed_out = _wait(ranks, timeout_s)
    finally:
        for rank, process in enumerate(ranks):
            if process.is_alive():
                killed.add(rank)
                process.kill()
            if process.pid is not None:
                process.join(timeout=5)
    exits = [
        _exit_report(
            rank, p.exitcode, killed=rank in killed, timed_out=timed_out, timeout_s=timeout_s
        )
        for rank, p in enumerate(ranks)
    ]
    if killed or any(p.exitcode != 0 for p in ranks):
        errors = [f"{path.stem}:\n{path.read_text()}" for path in sorted(folder.glob("*.error"))]
        raise AssertionError("\n".join([*exits, *errors]))
    return torch.load(folder / "results.pt", weights_only=False)
