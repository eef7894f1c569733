# SPDX-License-Identifier: MIT
"""The dp_size factor on torch.distributed: ranks' loss times dp_size, averaged, is the sum.

Each world (2 and 3 gloo ranks on 127.0.0.1) starts once per module and trains its shards
three ways; the tests compare what DistributedDataParallel leaves on the parameters with the
gradient of the whole batch's loss in one process.
"""

from __future__ import annotations

import time

import pytest
import torch

import ddp_ranks

pytestmark = pytest.mark.slow  # spawns processes

WORLD_SIZES = (2, 3)


@pytest.fixture(scope="module", params=WORLD_SIZES, ids=lambda n: f"{n}-ranks")
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The world size and every rank's gradients, from one run of the ranks."""
    folder = tmp_path_factory.mktemp(f"world{request.param}")
    return request.param, ddp_ranks.run_world(request.param, folder)


@pytest.fixture(scope="module")
def reference() -> torch.Tensor:
    """The gradient of the loss over the whole batch, in one process, with dp_size 1."""
    return ddp_ranks.single_process_gradient()


def test_the_shards_split_a_rollout_between_ranks() -> None:
    """Each world size cuts at least one rollout's rows across two ranks."""
    for world_size in WORLD_SIZES:
        owners: dict[str, set[int]] = {}
        for rank in range(world_size):
            for rollout_id in ddp_ranks.ROLLOUT_IDS[ddp_ranks.shard(rank, world_size)]:
                owners.setdefault(rollout_id, set()).add(rank)
        assert any(len(ranks) > 1 for ranks in owners.values())


def test_ranks_loss_times_dp_size_averaged_is_the_whole_batch_gradient(world, reference):
    """Normalized once on the whole batch, every rank's averaged gradient is the sum's."""
    _, ranks = world
    for rank in ranks:
        torch.testing.assert_close(rank["whole_batch"], reference, rtol=1e-12, atol=1e-14)


def test_micro_batches_accumulate_to_one_pass(world, reference):
    """Gradients accumulated over micro-batches of 2 rows equal one pass over each shard."""
    _, ranks = world
    for rank in ranks:
        torch.testing.assert_close(rank["micro_batches"], reference, rtol=1e-12, atol=1e-14)


def test_normalizing_per_rank_after_the_split_gives_another_gradient(world, reference):
    """Counting tokens and rows per rank, instead of over the whole batch, changes the step."""
    _, ranks = world
    for rank in ranks:
        difference = (rank["per_rank_normalized"] - reference).norm() / reference.norm()
        assert difference > 0.05


def test_the_reference_gradient_is_not_trivial(reference):
    """The single-process gradient is finite and non-zero: the comparisons above mean something."""
    assert torch.isfinite(reference).all()
    assert reference.norm() > 1e-3


def test_a_failing_rank_fails_the_world_with_its_error(tmp_path):
    """A rank that raises ends the run without waiting for the others, naming rank and error."""
    start = time.monotonic()
    with pytest.raises(AssertionError, match=r"(?s)rank1:.*RuntimeError: rank 1 failed on purpose"):
        ddp_ranks.run_world(2, tmp_path, timeout_s=40, fault="raise")
    assert time.monotonic() - start < 30


def test_a_hanging_rank_is_killed_at_the_timeout(tmp_path):
    """Ranks that never finish are killed at the deadline, and the run fails, never hangs."""
    start = time.monotonic()
    killed = r"rank 0 was still running after 4 s: killed\nrank 1 was still running after 4 s"
    with pytest.raises(AssertionError, match=killed):
        ddp_ranks.run_world(2, tmp_path, timeout_s=4, fault="hang")
    assert time.monotonic() - start < 15
