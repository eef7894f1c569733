# SPDX-License-Identifier: MIT
"""`rolloutnorm explain --format json`, through every file format, against an oracle.

The masses are checked against the per-row loop of oracle.py and the retention against its
counts recomputed by hand, never against the code the command calls.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle import per_row_loop
from rolloutnorm.__main__ import main
from rolloutnorm._explain.schema import load_schema


@st.composite
def batches(draw: st.DrawFn) -> dict:
    """A batch of 1 to 14 rows of 6 rollouts at most, with drops, groups and a config."""
    num_rows = draw(st.integers(1, 14))
    rows = []
    for _ in range(num_rows):
        row = {"rollout_id": draw(st.integers(0, 5))}
        if draw(st.integers(0, 3)) == 0:
            row["response_mask"] = draw(st.lists(st.integers(0, 1), max_size=6))
        else:
            row["response_tokens"] = draw(st.integers(0, 6))
        rows.append(row)
    if draw(st.booleans()):
        for row in rows:
            row["drop"] = draw(st.integers(0, 4)) == 0
    if draw(st.booleans()):
        for row in rows:
            row["group_id"] = draw(st.integers(0, 3))
            row["reward"] = draw(st.sampled_from([0.0, 1.0, 0.5, 1.000001]))
    config = {
        "actor_rollout_ref.actor.ppo_mini_batch_size": draw(st.integers(1, 4)),
        "actor_rollout_ref.rollout.n": draw(st.integers(1, 2)),
        "rolloutnorm.max_ppo_update_times": draw(st.none() | st.integers(1, 3)),
        "rolloutnorm.retention_seed": draw(st.integers(0, 3)),
        "actor_rollout_ref.actor.ppo_epochs": draw(st.integers(1, 2)),
    }
    return {"rows": rows, "config": config}


def mask_of(rows: list[dict]) -> torch.Tensor:
    """The response mask the rows describe, right-padded, built here by hand."""
    lists = [
        row["response_mask"] if "response_mask" in row else [1] * row["response_tokens"]
        for row in rows
    ]
    width = max(1, *map(len, lists))
    return torch.tensor([values + [0] * (width - len(values)) for values in lists])


def write_all(folder: Path, rows: list[dict]) -> list[Path]:
    """The batch as JSON Lines, CSV (where every row gives its tokens), .pt and .npz."""
    paths = [folder / "batch.jsonl"]
    paths[0].write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")
    if all("response_tokens" in row for row in rows):
        fields = ["rollout_id", "response_tokens", "reward", "group_id", "drop"]
        lines = [",".join(fields)]
        lines += [",".join(str(row.get(field, "")) for field in fields) for row in rows]
        paths.append(folder / "batch.csv")
        paths[-1].write_text("\n".join(lines) + "\n", "utf-8")
    tensors = {
        "response_mask": mask_of(rows).bool(),
        "rollout_ids": torch.tensor([row["rollout_id"] for row in rows]),
    }
    if "drop" in rows[0]:
        tensors["drop"] = torch.tensor([row["drop"] for row in rows])
    if "reward" in rows[0]:
        tensors["rewards"] = torch.tensor([row["reward"] for row in rows], dtype=torch.float64)
        tensors["group_ids"] = torch.tensor([row["group_id"] for row in rows])
    torch.save(tensors, folder / "batch.pt")
    np.savez(folder / "batch.npz", **{name: value.numpy() for name, value in tensors.items()})
    return [*paths, folder / "batch.pt", folder / "batch.npz"]


def explain_json(capsys: pytest.CaptureFixture[str], path: Path, config: dict) -> dict:
    """Run the command line in-process and validate its JSON against the shipped schema."""
    args = ["explain", str(path), "--format", "json"]
    args += [f"--set={key}={'null' if value is None else value}" for key, value in config.items()]
    status = main(args)
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    data = json.loads(out)
    jsonschema.validate(data, load_schema())
    return data


def same_reward_groups(rows: list[dict], candidates: list[int]) -> set:
    """The groups whose candidate rewards all lie within allclose's tolerance of the first."""
    first: dict = {}
    for row in candidates:
        first.setdefault(rows[row]["group_id"], rows[row]["reward"])
    return {
        group
        for group, reward in first.items()
        if all(
            abs(rows[row]["reward"] - reward) <= 1e-8 + 1e-5 * abs(reward)
            for row in candidates
            if rows[row]["group_id"] == group
        )
    }


def check_against_oracle(data: dict, rows: list[dict], config: dict) -> None:
    """The plan's counts recomputed by hand, and every mass from the per-row loop."""
    num_rows = len(rows)
    mini_batch = config["actor_rollout_ref.actor.ppo_mini_batch_size"]
    mini_batch *= config["actor_rollout_ref.rollout.n"]
    cap = config["rolloutnorm.max_ppo_update_times"]
    marked = [row for row in range(num_rows) if rows[row].get("drop")]
    candidates = [row for row in range(num_rows) if row not in marked]
    floor = len(candidates) // mini_batch * mini_batch
    target = floor if cap is None else min(floor, cap * mini_batch)
    plan = data["plan"]
    assert plan["num_trained_rows"] == target
    assert plan["dropped"] == {
        "marked": len(marked),
        "mini_batch_floor": len(candidates) - floor,
        "max_ppo_update_times": floor - target,
    }
    assert plan["update_units_per_epoch"] == target // mini_batch
    epochs = config["actor_rollout_ref.actor.ppo_epochs"]
    assert plan["update_units"] == target // mini_batch * epochs
    assert data["trained"] == (target > 0)

    dropped = data["dropped_rows"]
    assert [row["row"] for row in dropped if row["stage"] == "marked"] == marked
    assert (
        Counter(row["stage"] for row in dropped if row["stage"] != "marked")
        == Counter(
            {"mini_batch_floor": len(candidates) - floor, "max_ppo_update_times": floor - target}
        )
        - Counter()
    )
    assert all(rows[row["row"]]["rollout_id"] == row["rollout_id"] for row in dropped)
    if "reward" in rows[0]:
        same = same_reward_groups(rows, candidates)
        tier = [row for row in candidates if rows[row]["group_id"] in same]
        flagged = [row["row"] for row in dropped if row["same_reward_group"]]
        assert len(flagged) == min(len(candidates) - target, len(tier))
        assert set(flagged) <= set(tier)
        assert plan["dropped_from_same_reward_groups"] == len(flagged)
    else:
        assert not any(row["same_reward_group"] for row in dropped)

    kept = sorted(set(range(num_rows)) - {row["row"] for row in dropped})
    assert len(kept) == target
    mask = mask_of(rows).double()
    ids = [rows[row]["rollout_id"] for row in kept]
    masses: Counter = Counter()
    if kept:
        ones = torch.ones(len(kept), mask.shape[1], dtype=torch.float64)
        row_masses = (per_row_loop(ones, mask[kept], ids, target) * mask[kept]).sum(-1)
        for rollout_id, row_mass in zip(ids, row_masses.tolist(), strict=True):
            masses[rollout_id] += row_mass
    tokens = Counter()
    for row in kept:
        tokens[rows[row]["rollout_id"]] += int(mask[row].sum())
    order = list(dict.fromkeys(row["rollout_id"] for row in rows))
    distinct = len(set(ids))
    expected = [
        {
            "rollout_id": rollout_id,
            "rows": sum(row["rollout_id"] == rollout_id for row in rows),
            "trained_rows": ids.count(rollout_id),
            "tokens": tokens[rollout_id],
            "mass": pytest.approx(masses[rollout_id], rel=1e-12, abs=1e-15),
            "alternative_mass": pytest.approx(1 / distinct if tokens[rollout_id] else 0.0),
        }
        for rollout_id in order
    ]
    rollouts = [
        {**rollout, "rollout_id": int(rollout["rollout_id"])} for rollout in data["rollouts"]
    ]
    assert rollouts == expected
    assert data["batch"] == {
        "rollouts": len(order),
        "trained_rollouts": distinct,
        "rows": num_rows,
        "trained_rows": target,
        "tokens": sum(tokens.values()),
        "mass": pytest.approx(sum(masses.values()), rel=1e-12, abs=1e-15),
        "alternative_mass": pytest.approx(sum(1 / distinct for n in tokens.values() if n)),
    }


def comparable(data: dict) -> dict:
    """The output without its source, ids as text: what every format must agree on."""

    def text_ids(items: list[dict]) -> list[dict]:
        return [{**item, "rollout_id": str(item["rollout_id"])} for item in items]

    rollouts, dropped = text_ids(data["rollouts"]), text_ids(data["dropped_rows"])
    return {**data, "source": None, "rollouts": rollouts, "dropped_rows": dropped}


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batch=batches())
def test_every_format_agrees_with_the_oracle(tmp_path, capsys, batch):
    """JSON Lines, CSV, .pt and .npz give one output, and it matches the oracle's masses."""
    rows, config = batch["rows"], batch["config"]
    outputs = [explain_json(capsys, path, config) for path in write_all(tmp_path, rows)]
    check_against_oracle(outputs[0], rows, config)
    first = comparable(outputs[0])
    for output in outputs[1:]:
        assert comparable(output) == first
