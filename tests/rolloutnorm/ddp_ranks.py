# SPDX-License-Identifier: MIT
"""A data-parallel step on CPU ranks (gloo on 127.0.0.1), and the same step in one process.

Every rank builds the same batch and the same tiny policy from fixed seeds, takes its shard
of rows, and writes the gradient that DistributedDataParallel leaves on its parameters. The
parent starts the ranks with `run_world`, which never waits longer than its timeout.
"""

from __future__ import annotations

import os
import time
import traceback
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

from rolloutnorm import PolicyLossConfig, compute_policy_loss_per_rollout_mean
from rolloutnorm import normalize_advantages_by_rollout as normalize

# Twelve trained rows of six rollouts. Cut into 2 or 3 equal shards, rollout d (rows 5, 6)
# is split between ranks 0 and 1 of two, c (rows 3, 4) and e (rows 7, 8, 9) between the
# ranks of three.
ROLLOUT_IDS = ["a", "a", "b", "c", "c", "d", "d", "e", "e", "e", "f", "f"]
TOKENS = [5, 2, 8, 3, 6, 1, 7, 4, 4, 2, 8, 5]
WIDTH, FEATURES, VOCAB = 8, 4, 5
MICRO_BATCH_ROWS = 2
# Behaviour log-probs off by up to this much, so that some tokens clip and some do not.
DRIFT = 0.5


def batch() -> dict[str, object]:
    """The trained batch as the driver holds it, before any row is dispatched to a rank."""
    generator = torch.Generator().manual_seed(1234)
    rows = len(ROLLOUT_IDS)
    mask = (torch.arange(WIDTH) < torch.tensor(TOKENS).unsqueeze(-1)).to(torch.float64)
    advantages = torch.randn(rows, 1, generator=generator, dtype=torch.float64).expand(-1, WIDTH)
    return {
        "inputs": torch.randn(rows, WIDTH, FEATURES, generator=generator, dtype=torch.float64),
        "actions": torch.randint(VOCAB, (rows, WIDTH), generator=generator),
        "drift": DRIFT * (2 * torch.rand(rows, WIDTH, generator=generator).double() - 1),
        "advantages": advantages.contiguous(),
        "response_mask": mask,
        "rollout_ids": ROLLOUT_IDS,
    }


def policy() -> torch.nn.Module:
    """The same tiny float64 policy in every process."""
    torch.manual_seed(0)
    return torch.nn.Linear(FEATURES, VOCAB, dtype=torch.float64)


def _log_prob(model: torch.nn.Module, data: dict[str, object], rows: slice) -> torch.Tensor:
    logits = model(data["inputs"][rows])
    return torch.log_softmax(logits, dim=-1).gather(-1, data["actions"][rows].unsqueeze(-1))[..., 0]


def loss(
    model: torch.nn.Module,
    data: dict[str, object],
    advantages: torch.Tensor,
    rows: slice,
    dp_size: int,
) -> torch.Tensor:
    """The per-rollout-mean loss of ``rows``, with the given (already normalized) advantages."""
    log_prob = _log_prob(model, data, rows)
    old_log_prob = log_prob.detach() + data["drift"][rows]
    value, _ = compute_policy_loss_per_rollout_mean(
        old_log_prob,
        log_prob,
        advantages[rows],
        data["response_mask"][rows],
        config=PolicyLossConfig(0.2, 0.2, 3.0, dp_size=dp_size),
    )
    return value


def whole_batch_normalized(data: dict[str, object]) -> torch.Tensor:
    """The advantages normalized once over the whole trained batch, as the driver does."""
    rows = len(data["rollout_ids"])
    return normalize(
        data["advantages"], data["response_mask"], data["rollout_ids"], num_trained_rows=rows
    )


def single_process_gradient() -> torch.Tensor:
    """The gradient of the whole batch's loss in one process, flattened."""
    data, model = batch(), policy()
    loss(model, data, whole_batch_normalized(data), slice(None), dp_size=1).backward()
    return _flat_grad(model)


def shard(rank: int, world_size: int) -> slice:
    """The contiguous rows of ``rank``: the batch cut into ``world_size`` equal shards."""
    size = len(ROLLOUT_IDS) // world_size
    return slice(rank * size, (rank + 1) * size)


def _flat_grad(model: torch.nn.Module) -> torch.Tensor:
    return torch.cat([parameter.grad.reshape(-1) for parameter in model.parameters()])


def _rank_step(rank: int, world_size: int) -> dict[str, torch.Tensor]:
    """Run the three ways of training this rank's shard; return each synchronized gradient."""
    data = batch()
    rows = shard(rank, world_size)
    model = DistributedDataParallel(policy())
    results = {}

    model.zero_grad()
    loss(model, data, whole_batch_normalized(data), rows, world_size).backward()
    results["whole_batch"] = _flat_grad(model)

    model.zero_grad()
    micro = [
        slice(start, min(start + MICRO_BATCH_ROWS, rows.stop))
        for start in range(rows.start, rows.stop, MICRO_BATCH_ROWS)
    ]
    normalized = whole_batch_normalized(data)
    for index, part in enumerate(micro):
        if index < len(micro) - 1:
            with model.no_sync():  # accumulate locally; the last backward averages
                loss(model, data, normalized, part, world_size).backward()
        else:
            loss(model, data, normalized, part, world_size).backward()
    results["micro_batches"] = _flat_grad(model)

    # The wrong way: each rank normalizes only the rows it was given.
    model.zero_grad()
    local = torch.zeros_like(data["advantages"])
    local[rows] = normalize(
        data["advantages"][rows],
        data["response_mask"][rows],
        data["rollout_ids"][rows],
        num_trained_rows=rows.stop - rows.start,
    )
    loss(model, data, local, rows, world_size).backward()
    results["per_rank_normalized"] = _flat_grad(model)
    return results


def _stage(out: Path, rank: int, name: str) -> None:
    with (out / f"rank{rank}.stages").open("a") as f:
        f.write(name + "\n")


def _stages(out: Path, rank: int) -> list[str]:
    path = out / f"rank{rank}.stages"
    return path.read_text().split() if path.exists() else []


def _rank_main(rank: int, world_size: int, folder: str, timeout_s: float, fault: str) -> None:
    """One rank: join the group on 127.0.0.1, run the step, write gradients or the error.

    ``fault`` tests the launcher: ``raise`` makes the last rank fail, ``hang`` every rank sleep.
    """
    out = Path(folder)
    try:
        if rank == world_size - 1 and fault == "raise":
            msg = f"rank {rank} failed on purpose"
            raise RuntimeError(msg)
        if fault == "hang":
            time.sleep(3600)
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"  # loopback only
        _stage(out, rank, "init")
        dist.init_process_group(
            "gloo",
            init_method=(out / "store").as_uri(),
            rank=rank,
            world_size=world_size,
            timeout=timedelta(seconds=timeout_s),
        )
        _stage(out, rank, "step")
        torch.save(_rank_step(rank, world_size), out / f"rank{rank}.pt")
        _stage(out, rank, "barrier")
        dist.barrier()  # no rank tears its connections down while another still uses them
        dist.destroy_process_group()
        _stage(out, rank, "done")
    except BaseException:
        (out / f"rank{rank}.error").write_text(traceback.format_exc())
        os._exit(1)
    # Leave without the interpreter's teardown: gloo's threads can abort it ("terminate called
    # without an active exception") after the work is done and written.
    os._exit(0)


def run_world(
    world_size: int, folder: Path, timeout_s: float = 45.0, fault: str = ""
) -> list[dict]:
    """Start ``world_size`` ranks, wait at most ``timeout_s``, return each rank's gradients.

    Raises:
        AssertionError: If a rank fails (with its traceback) or the world does not finish in
            time (every rank still running is killed first).
    """
    context = mp.get_context("spawn")
    ranks = [
        context.Process(
            target=_rank_main, args=(rank, world_size, str(folder), timeout_s / 2, fault)
        )
        for rank in range(world_size)
    ]
    for process in ranks:
        process.start()
    deadline = time.monotonic() + timeout_s
    while any(p.is_alive() for p in ranks) and time.monotonic() < deadline:
        if any(p.exitcode not in (None, 0) for p in ranks):
            break  # one rank failed: the others would only wait for it
        time.sleep(0.05)
    killed = [rank for rank, p in enumerate(ranks) if p.is_alive()]
    late = time.monotonic() >= deadline
    for process in ranks:
        if process.is_alive():
            process.kill()
        process.join(timeout=5)
    problems = [f"{path.stem}:\n{path.read_text()}" for path in sorted(folder.glob("*.error"))]
    when = f"after {timeout_s} s" if late else "when another rank failed"
    problems += [f"rank {rank} was still running {when}: killed" for rank in killed]
    problems += [
        f"rank {rank} exited with code {p.exitcode} after stages {_stages(folder, rank)}"
        for rank, p in enumerate(ranks)
        if rank not in killed and p.exitcode != 0 and not (folder / f"rank{rank}.error").exists()
    ]
    if problems:
        raise AssertionError("\n".join(problems))
    return [torch.load(folder / f"rank{rank}.pt") for rank in range(world_size)]
