# SPDX-License-Identifier: MIT
"""Tests for `rolloutnorm explain`: its outputs pinned, its schema, its errors and its options."""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import runpy
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import torch

from rolloutnorm import aggregation_masses, plan_retention
from rolloutnorm.__main__ import get_parser, main
from rolloutnorm._explain.schema import load_schema

# The docs page's batch: A in rows of 50 and 100 tokens, B in three rows of 30, C in one of 40.
DOCS_BATCH = (
    '{"rollout_id": "A", "response_tokens": 50}\n'
    '{"rollout_id": "A", "response_tokens": 100}\n'
    '{"rollout_id": "B", "response_tokens": 30}\n'
    '{"rollout_id": "B", "response_tokens": 30}\n'
    '{"rollout_id": "B", "response_tokens": 30}\n'
    '{"rollout_id": "C", "response_tokens": 40}\n'
)
MINI_BATCH = "actor_rollout_ref.actor.ppo_mini_batch_size"
# Every way a row is dropped: c is marked; the floor and a cap of 3 updates take the rest,
# same-reward groups (p0, p2, and p1 once c is gone) first.
MIXED_BATCH = "".join(
    json.dumps({"rollout_id": rollout, "response_tokens": tokens, **extra}) + "\n"
    for rollout, tokens, extra in [
        ("a", 4, {"reward": 1, "group_id": "p0"}),
        ("b", 2, {"reward": 1, "group_id": "p0"}),
        ("c", 3, {"reward": 0, "group_id": "p1", "drop": True}),
        ("d", 3, {"reward": 1, "group_id": "p1"}),
        ("e", 5, {"reward": 0, "group_id": "p2"}),
        ("e", 1, {"reward": 0, "group_id": "p2"}),
        ("f", 0, {"reward": 1, "group_id": "p3"}),
        ("g", 2, {"reward": 0, "group_id": "p3"}),
        ("h", 2, {"reward": 0, "group_id": "p4"}),
        ("h", 2, {"reward": 1, "group_id": "p4"}),
    ]
)
# The schema as released under each version: change the schema, bump its version, add a line.
SCHEMA_SHA256 = {
    1: "29cfec37c22f281893131b7f73c066412b99fe68d56cb99976611b1bfa0e70b8",
    2: "df9a13f814cd95a115108c100d1a89db6b434455a2de6a12975edebcfe718598",
    3: "84c908ba4409fb4df9d5895ba32d2275892f0cb1df5522e3c2581fad5c16124b",
}


@pytest.fixture
def batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The docs page's batch, as batch.jsonl in the current folder."""
    monkeypatch.chdir(tmp_path)
    path = Path("batch.jsonl")
    path.write_text(DOCS_BATCH, "utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`rolloutnorm explain ARGS` in-process: exit status, stdout, stderr."""
    status = main(["explain", *args])
    out, err = capsys.readouterr()
    return status, out, err


def validate(text: str) -> dict:
    """Parse the JSON output and validate it against the shipped schema."""
    data = json.loads(text)
    jsonschema.validate(data, load_schema(), format_checker=jsonschema.FormatChecker())
    return data


def test_the_docs_batch_gives_each_rollout_a_sixth(batch, capsys):
    """Six rows, two per mini-batch: each rollout carries 1/6 and the batch 1/2, not 1."""
    status, out, err = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=2")
    assert (status, err) == (0, "")
    assert out == (
        "RetentionPlan: 6 rows -> 6 trained, 3 update units per epoch\n"
        "  dropped: 0 marked, 0 at the mini-batch floor, 0 at the update cap\n"
        "num_trained_rows: 6; update units: 3 per epoch, 3 over 1 epoch\n"
        "\n"
        "rollout  rows  trained  tokens  mass          alternative\n"
        "A           2        2     150  1/6 (0.1667)  1/3 (0.3333)\n"
        "B           3        3      90  1/6 (0.1667)  1/3 (0.3333)\n"
        "C           1        1      40  1/6 (0.1667)  1/3 (0.3333)\n"
        "batch       6        6     280  1/2 (0.5000)  1 (1.0000)\n"
        "\n"
        "mass: the code's, divided by max(1, rollout_token_count * num_trained_rows);\n"
        "  num_trained_rows = 6\n"
        "alternative: divided by rollout_token_count * distinct rollouts (3);\n"
        "  the code does not use it\n"
    )


def test_the_json_output_of_a_floor_drop(batch, capsys):
    """Four rows per mini-batch: the floor drops two of B's rows, each one listed."""
    status, out, _ = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=4", "--format", "json")
    assert status == 0
    data = validate(out)
    assert data["plan"] == {
        "num_rows": 6,
        "num_trained_rows": 4,
        "mini_batch_size": 4,
        "max_ppo_update_times": None,
        "ppo_epochs": 1,
        "update_units_per_epoch": 1,
        "update_units": 1,
        "dropped": {"marked": 0, "mini_batch_floor": 2, "max_ppo_update_times": 0},
        "dropped_from_same_reward_groups": 0,
    }
    assert data["dropped_rows"] == [
        {"row": 3, "rollout_id": "B", "stage": "mini_batch_floor", "same_reward_group": False},
        {"row": 4, "rollout_id": "B", "stage": "mini_batch_floor", "same_reward_group": False},
    ]
    assert data["rollouts"] == [
        {"rollout_id": "A", "rows": 2, "trained_rows": 2, "tokens": 150, "mass": 0.25,
         "alternative_mass": 0.333333333333333},
        {"rollout_id": "B", "rows": 3, "trained_rows": 1, "tokens": 30, "mass": 0.25,
         "alternative_mass": 0.333333333333333},
        {"rollout_id": "C", "rows": 1, "trained_rows": 1, "tokens": 40, "mass": 0.25,
         "alternative_mass": 0.333333333333333},
    ]  # fmt: skip
    assert data["batch"] == {
        "rollouts": 3,
        "trained_rollouts": 3,
        "rows": 6,
        "trained_rows": 4,
        "tokens": 220,
        "mass": 0.75,
        "alternative_mass": 1.0,
    }
    assert data["divisors"] == {
        "implemented": "max(1, rollout_token_count * num_trained_rows)",
        "num_trained_rows": 4,
        "alternative": "max(1, rollout_token_count * distinct_trained_rollouts)",
        "distinct_trained_rollouts": 3,
        "alternative_is_used": False,
    }
    assert (data["schema_version"], data["source"], data["trained"]) == (3, "batch.jsonl", True)
    assert data["selected_mode"] == "per_rollout_mean"
    assert data["config"][MINI_BATCH] == 4
    assert list(data) == [name for name in load_schema()["properties"] if name != "modes"]


def test_the_json_output_puts_one_rollout_on_a_line(batch, capsys):
    """The JSON text: two-space indents, each rollout and dropped row on a line of its own."""
    _, out, _ = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=4", "--format", "json")
    lines = out.splitlines()
    assert lines[lines.index('  "rollouts": [') + 1] == (
        '    {"rollout_id": "A", "rows": 2, "trained_rows": 2, "tokens": 150, "mass": 0.25, '
        '"alternative_mass": 0.333333333333333},'
    )
    assert '  "dropped_rows": [' in lines
    assert lines[-1] == "}"
    assert json.loads(out) == json.loads(json.dumps(json.loads(out)))


def test_every_drop_has_its_reason(tmp_path, monkeypatch, capsys):
    """Marked, floor and cap drops are listed with their stage, same-reward ones flagged."""
    monkeypatch.chdir(tmp_path)
    Path("mixed.jsonl").write_text(MIXED_BATCH, "utf-8")
    options = [f"{MINI_BATCH}=2", "rolloutnorm.max_ppo_update_times=3"]
    options.append("actor_rollout_ref.actor.ppo_epochs=2")
    status, out, _ = run(capsys, "mixed.jsonl", *(f"--set={option}" for option in options))
    assert status == 0
    assert out == (
        "RetentionPlan: 10 rows -> 6 trained, 3 update units per epoch, 6 over 2 epochs\n"
        "  dropped: 1 marked, 1 at the mini-batch floor, 2 at the update cap\n"
        "  same-reward groups first: 3 of the floor and cap drops\n"
        "num_trained_rows: 6; update units: 3 per epoch, 6 over 2 epochs\n"
        "\n"
        "rollout  rows  trained  tokens  mass          alternative\n"
        "a           1        1       4  1/6 (0.1667)  1/5 (0.2000)\n"
        "b           1        0       0  0 (0.0000)    0 (0.0000)\n"
        "c           1        0       0  0 (0.0000)    0 (0.0000)\n"
        "d           1        0       0  0 (0.0000)    0 (0.0000)\n"
        "e           2        1       5  1/6 (0.1667)  1/5 (0.2000)\n"
        "f           1        1       0  0 (0.0000)    0 (0.0000)\n"
        "g           1        1       2  1/6 (0.1667)  1/5 (0.2000)\n"
        "h           2        2       4  1/6 (0.1667)  1/5 (0.2000)\n"
        "batch      10        6      15  2/3 (0.6667)  4/5 (0.8000)\n"
        "\n"
        "mass: the code's, divided by max(1, rollout_token_count * num_trained_rows);\n"
        "  num_trained_rows = 6\n"
        "alternative: divided by rollout_token_count * distinct rollouts (5);\n"
        "  the code does not use it\n"
        "\n"
        "dropped rows (4):\n"
        "row  rollout  reason\n"
        "  1  b        update cap, same-reward group first\n"
        "  2  c        marked\n"
        "  3  d        update cap, same-reward group first\n"
        "  5  e        mini-batch floor, same-reward group first\n"
    )
    _, out, _ = run(capsys, "mixed.jsonl", "--format=json", *(f"--set={o}" for o in options))
    assert [(row["row"], row["stage"], row["same_reward_group"]) for row in validate(out)[
        "dropped_rows"
    ]] == [
        (1, "max_ppo_update_times", True),
        (2, "marked", False),
        (3, "max_ppo_update_times", True),
        (5, "mini_batch_floor", True),
    ]  # fmt: skip


def test_the_markdown_output(batch, capsys):
    """Markdown: the plan as a list, the rollouts and the dropped rows as tables."""
    status, out, _ = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=4", "--format", "markdown")
    assert status == 0
    assert out == (
        "### `batch.jsonl`\n"
        "\n"
        "- rows: 6 given, 4 trained (`num_trained_rows`)\n"
        "- dropped: 0 marked, 2 at the mini-batch floor, 0 at the update cap\n"
        "- update units: 1 per epoch, 1 over 1 epoch\n"
        "\n"
        "| rollout | rows | trained | tokens | mass | alternative (not used) |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: |\n"
        "| A | 2 | 2 | 150 | 1/4 (0.2500) | 1/3 (0.3333) |\n"
        "| B | 3 | 1 | 30 | 1/4 (0.2500) | 1/3 (0.3333) |\n"
        "| C | 1 | 1 | 40 | 1/4 (0.2500) | 1/3 (0.3333) |\n"
        "| **batch** | 6 | 4 | 220 | 3/4 (0.7500) | 1 (1.0000) |\n"
        "\n"
        "- mass: the code's, divided by max(1, rollout_token_count * num_trained_rows); "
        "num_trained_rows = 4\n"
        "- alternative: divided by rollout_token_count * distinct rollouts (3); the code does "
        "not use it\n"
        "\n"
        "| dropped row | rollout | reason |\n"
        "| ---: | --- | --- |\n"
        "| 3 | B | mini-batch floor |\n"
        "| 4 | B | mini-batch floor |\n"
    )


def test_markdown_escapes_pipes_in_ids(tmp_path, monkeypatch, capsys):
    """A rollout id holding a pipe does not break its table row."""
    monkeypatch.chdir(tmp_path)
    Path("b.jsonl").write_text('{"rollout_id": "x|y", "response_tokens": 1}\n', "utf-8")
    _, out, _ = run(capsys, "b.jsonl", "--set", f"{MINI_BATCH}=1", "--format", "markdown")
    assert "| x\\|y | 1 | 1 | 1 | 1 (1.0000) | 1 (1.0000) |\n" in out


def test_no_trained_row_is_explained_not_an_error(batch, capsys):
    """Fewer candidates than a mini-batch: the output says so, shows the plan, exits 0."""
    status, out, err = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=8")
    assert (status, err) == (0, "")
    assert out.splitlines()[:4] == [
        "no row is trained: 6 candidate rows, fewer than one mini-batch of 8",
        "RetentionPlan: 6 rows -> 0 trained, 0 update units per epoch",
        "  dropped: 0 marked, 6 at the mini-batch floor, 0 at the update cap",
        "num_trained_rows: 0; update units: 0 per epoch, 0 over 1 epoch",
    ]
    assert "batch       6        0       0  0 (0.0000)  0 (0.0000)" in out
    _, out, _ = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=8", "--format", "json")
    data = validate(out)
    assert data["trained"] is False
    assert [row["row"] for row in data["dropped_rows"]] == list(range(6))
    assert {rollout["mass"] for rollout in data["rollouts"]} == {0.0}
    _, out, _ = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=8", "--format", "markdown")
    assert out.splitlines()[2] == (
        "- no row is trained: 6 candidate rows, fewer than one mini-batch of 8"
    )


def test_a_bad_batch_still_fails_when_no_row_is_trained(tmp_path, monkeypatch, capsys):
    """A malformed tensor batch is an error even where retention would train nothing."""
    monkeypatch.chdir(tmp_path)
    torch.save({"response_mask": torch.full((1, 2), 2), "rollout_ids": [0]}, "batch.pt")
    status, out, err = run(capsys, "batch.pt", "--set", f"{MINI_BATCH}=2")
    assert (status, out) == (2, "")
    assert err == "batch.pt: response_mask must hold only 0 and 1, got values in [2, 2]\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"response_mask": torch.full((2, 2), 2), "rollout_ids": [0, 1]},
         "batch.pt: response_mask must hold only 0 and 1, got values in [2, 2]"),
        ({"response_mask": torch.ones(2, 2), "rollout_ids": [0, "a"]},
         "batch.pt: rollout_ids must all be of one kind, got int, str"),
        ({"response_mask": torch.ones(2, 2), "rollout_ids": [0, 1], "drop": [0, 2]},
         "batch.pt: drop must hold only booleans or the ints 0 and 1, got dtype int64"),
        ({"response_mask": torch.ones(2, 2), "rollout_ids": [0, 1], "rewards": [1.0, 0.0],
          "group_ids": [0.5, 1.5]},
         "batch.pt: group_ids must hold str or int ids, got float ids"),
    ],
)  # fmt: skip
def test_a_bad_tensor_batch_names_the_file_and_the_field(
    tmp_path, monkeypatch, capsys, content, message
):
    """Faults found by the package's own checks are reported with the file, exit 2."""
    monkeypatch.chdir(tmp_path)
    torch.save(content, "batch.pt")
    status, out, err = run(capsys, "batch.pt", "--set", f"{MINI_BATCH}=1")
    assert (status, out, err) == (2, "", message + "\n")


def test_a_malformed_line_exits_2_without_a_traceback(batch, capsys):
    """A bad line is printed as path:LINE: message on stderr, nothing else, exit 2."""
    batch.write_text(DOCS_BATCH + '{"rollout_id": "D", "response_tokens": -1}\n', "utf-8")
    assert run(capsys, "batch.jsonl") == (
        2,
        "",
        "batch.jsonl:7: response_tokens must be an int from 0 to 268435456, got -1\n",
    )
    assert run(capsys, "missing.jsonl") == (
        2,
        "",
        "missing.jsonl: cannot be read: the file does not exist\n",
    )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("foo.bar=1", "argument --set: foo.bar is not a key rolloutnorm reads; known keys: "
         "actor_rollout_ref.actor.policy_loss.loss_mode, actor_rollout_ref.actor.loss_agg_mode, "
         "actor_rollout_ref.actor.ppo_mini_batch_size, actor_rollout_ref.actor.ppo_epochs, "
         "actor_rollout_ref.actor.clip_ratio_low, actor_rollout_ref.actor.clip_ratio_high, "
         "actor_rollout_ref.actor.clip_ratio_c, actor_rollout_ref.rollout.n, "
         "rolloutnorm.max_ppo_update_times, rolloutnorm.retention_seed"),
        ("rolloutnorm.retention_seed", "argument --set: expected KEY=VALUE, got "
         "'rolloutnorm.retention_seed'"),
        ("=1", "argument --set: expected KEY=VALUE, got '=1'"),
        (f"{MINI_BATCH}=[1, 2]", f"argument --set: {MINI_BATCH}: the value '[1, 2]' is not a "
         "YAML scalar: it reads as a list"),
        (f"{MINI_BATCH}='1", f"argument --set: {MINI_BATCH}: the value \"'1\" is not a YAML "
         "scalar"),
    ],
)  # fmt: skip
def test_a_bad_set_is_a_usage_error(batch, capsys, option, message):
    """An unknown key or a value that is no YAML scalar exits 2 through argparse."""
    with pytest.raises(SystemExit) as exit_:
        main(["explain", "batch.jsonl", "--set", option])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"rolloutnorm explain: error: {message}"


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (f"{MINI_BATCH}=0", f"--set: {MINI_BATCH} must be a positive int, got 0"),
        (f"{MINI_BATCH}=two", f"--set: {MINI_BATCH} must be a positive int, got str 'two'"),
        ("rolloutnorm.max_ppo_update_times=1.5",
         "--set: rolloutnorm.max_ppo_update_times must be a positive int, got float 1.5"),
    ],
)  # fmt: skip
def test_a_bad_set_value_is_named(batch, capsys, option, message):
    """A value of the wrong type or range is reported by load_config's check, exit 2."""
    assert run(capsys, "batch.jsonl", "--set", option) == (2, "", message + "\n")


def test_set_values_are_yaml_scalars(batch, capsys):
    """--set reads null, ints and strings as YAML does."""
    args = ["batch.jsonl", "--format", "json", "--set", f"{MINI_BATCH}=2"]
    args += ["--set", "rolloutnorm.max_ppo_update_times=1", "--set", "rolloutnorm.retention_seed=7"]
    config = validate(run(capsys, *args)[1])["config"]
    assert (config["rolloutnorm.max_ppo_update_times"], config["rolloutnorm.retention_seed"]) == (
        1,
        7,
    )
    args += ["--set", "rolloutnorm.max_ppo_update_times=null"]
    assert validate(run(capsys, *args)[1])["config"]["rolloutnorm.max_ppo_update_times"] is None


VERL_CONFIG = """\
data:
  train_batch_size: 1024
actor_rollout_ref:
  model:
    path: Qwen/Qwen2.5-7B
  actor:
    ppo_mini_batch_size: 4
    policy_loss:
      loss_mode: per_rollout_mean
      clip_cov_ratio: 0.0002
  rollout:
    n: 1
    name: vllm
rolloutnorm:
  retention_seed: 3
"""


def test_a_whole_verl_config_is_read_for_its_keys(batch, capsys):
    """A verl trainer YAML gives the keys rolloutnorm reads; --verbose lists the others."""
    Path("verl.yaml").write_text(VERL_CONFIG, "utf-8")
    status, out, err = run(capsys, "batch.jsonl", "--config", "verl.yaml", "--format", "json")
    assert (status, err) == (0, "")
    config = validate(out)["config"]
    assert (config[MINI_BATCH], config["rolloutnorm.retention_seed"]) == (4, 3)
    args = ["batch.jsonl", "--config", "verl.yaml", "--set", f"{MINI_BATCH}=2", "--verbose"]
    status, out, err = run(capsys, *args)
    assert status == 0
    assert out.startswith("RetentionPlan: 6 rows -> 6 trained, 3 update units per epoch\n")
    assert err.splitlines() == [
        "verl.yaml: read actor_rollout_ref.actor.ppo_mini_batch_size = 4",
        "verl.yaml: read actor_rollout_ref.actor.policy_loss.loss_mode = 'per_rollout_mean'",
        "verl.yaml: read actor_rollout_ref.rollout.n = 1",
        "verl.yaml: read rolloutnorm.retention_seed = 3",
        "verl.yaml: ignored data (not a key rolloutnorm reads)",
        "verl.yaml: ignored actor_rollout_ref.model (not a key rolloutnorm reads)",
        "verl.yaml: ignored actor_rollout_ref.actor.policy_loss.clip_cov_ratio (not a key "
        "rolloutnorm reads)",
        "verl.yaml: ignored actor_rollout_ref.rollout.name (not a key rolloutnorm reads)",
        "batch.jsonl: read by pyarrow",
    ]


OTHER_LOSS = """\
actor_rollout_ref:
  actor:
    ppo_mini_batch_size: 2
    loss_agg_mode: seq-mean-token-mean
    policy_loss:
      loss_mode: vanilla
"""


def test_a_verl_config_of_another_loss_mode_is_explained(batch, capsys):
    """A config of loss_mode vanilla is explained: it says what it selects, masses unchanged."""
    Path("verl.yaml").write_text(OTHER_LOSS, "utf-8")
    status, out, err = run(capsys, "batch.jsonl", "--config", "verl.yaml")
    assert (status, err) == (0, "")
    ours = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=2")[1]
    selects = (
        "the config selects loss_mode vanilla with loss_agg_mode seq-mean-token-mean;\n"
        "  the masses below are per_rollout_mean's, a mode it does not select"
    )
    assert out == f"{selects}\n{ours}"
    markdown = run(capsys, "batch.jsonl", "--config", "verl.yaml", "--format", "markdown")[1]
    assert "\n".join(markdown.splitlines()[2:4]) == f"- {selects}"
    data = validate(run(capsys, "batch.jsonl", "--config", "verl.yaml", "--format", "json")[1])
    assert data["selected_mode"] == "seq-mean-token-mean"
    assert data["config"]["actor_rollout_ref.actor.policy_loss.loss_mode"] == "vanilla"
    assert [rollout["mass"] for rollout in data["rollouts"]] == pytest.approx([1 / 6] * 3)


def test_a_per_rollout_mean_config_says_nothing_of_its_mode(batch, capsys):
    """Under per_rollout_mean, whatever its loss_agg_mode, the table has no line on the mode."""
    args = ["batch.jsonl", "--set", f"{MINI_BATCH}=2"]
    plain = run(capsys, *args)[1]
    other_agg = run(capsys, *args, "--set", "actor_rollout_ref.actor.loss_agg_mode=token-sum")[1]
    assert plain == other_agg
    assert plain.startswith("RetentionPlan: ")


def test_the_schema_lists_the_aggregation_modes():
    """The schema's modes are the ones aggregation_masses computes, verl's first."""
    from rolloutnorm._aggregation import MODES

    schema = load_schema()
    assert tuple(schema["$defs"]["mode"]["enum"]) == MODES
    agg = schema["properties"]["config"]["properties"]["actor_rollout_ref.actor.loss_agg_mode"]
    assert tuple(agg["enum"]) == MODES[:-1]
    modes = schema["properties"]["modes"]["properties"]
    assert modes["rollouts"]["items"]["required"] == ["rollout_id", *MODES]
    assert modes["batch"]["required"] == list(MODES)


MODES_TABLE = """\
rollout  token-mean  token-sum  seq-mean-token-sum
A        1           150        75
B        1.429       90         45
C        0.5714      40         20
batch    3           280        140

rollout  seq-mean-token-mean  seq-mean-token-sum-norm  per_rollout_mean*
A        1                    0.75                     0.1667
B        1.5                  0.45                     0.1667
C        0.5                  0.2                      0.1667
batch    3                    1.4                      0.5

modes: each rollout's mass under each loss aggregation;
  unit advantages over one epoch of the rows kept;
  dp_size 1, loss_scale_factor 100 (the padded width), verl's defaults
*: the mode the config selects
"""


def test_modes_add_a_table_of_every_mode(batch, capsys):
    """--modes adds every rollout's mass under each mode after the legend, its mode marked.

    Three modes a table, so that each line fits 80 columns.
    """
    plain = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=2")[1]
    status, out, err = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=2", "--modes")
    assert (status, err) == (0, "")
    assert out == f"{plain}\n{MODES_TABLE}"


def test_modes_in_json_are_the_aggregation_masses(batch, capsys):
    """The JSON modes are aggregation_masses on the plan's rows; per_rollout_mean is the mass."""
    args = ("batch.jsonl", "--set", f"{MINI_BATCH}=4", "--format", "json")
    plain = validate(run(capsys, *args)[1])
    data = validate(run(capsys, *args, "--modes")[1])
    modes = data.pop("modes")
    assert data == plain
    assert (modes["selected"], modes["dp_size"], modes["loss_scale_factor"]) == (
        "per_rollout_mean",
        1,
        100,
    )
    mask = torch.arange(100) < torch.tensor([50, 100, 30, 30, 30, 40]).unsqueeze(-1)
    plan = plan_retention(6, mini_batch_size=4)
    expected = aggregation_masses(mask, list("AABBBC"), plan=plan)
    assert modes["names"] == list(expected.masses)
    for mode, masses in expected.masses.items():
        got = [rollout[mode] for rollout in modes["rollouts"]]
        assert got == pytest.approx(masses.tolist(), rel=1e-14), mode
        assert modes["batch"][mode] == pytest.approx(sum(masses.tolist()), rel=1e-14)
    assert [rollout["per_rollout_mean"] for rollout in modes["rollouts"]] == [
        rollout["mass"] for rollout in data["rollouts"]
    ]


def test_modes_mark_the_mode_another_loss_selects(batch, capsys):
    """Under loss_mode vanilla the marked mode is its loss_agg_mode, in every format."""
    Path("verl.yaml").write_text(OTHER_LOSS, "utf-8")
    args = ("batch.jsonl", "--config", "verl.yaml", "--modes")
    out = run(capsys, *args)[1]
    assert "  seq-mean-token-mean*  " in out
    assert "per_rollout_mean*" not in out
    markdown = run(capsys, *args, "--format", "markdown")[1]
    assert "| seq-mean-token-mean (selected) |" in markdown
    data = validate(run(capsys, *args, "--format", "json")[1])
    assert data["modes"]["selected"] == data["selected_mode"] == "seq-mean-token-mean"


def test_modes_of_a_batch_with_no_row_trained_are_zero(batch, capsys):
    """With nothing trained every mode gives every rollout 0, and the output exits 0."""
    args = ("batch.jsonl", "--set", f"{MINI_BATCH}=8", "--modes", "--format", "json")
    status, out, _ = run(capsys, *args)
    assert status == 0
    modes = validate(out)["modes"]
    assert {value for rollout in modes["rollouts"] for value in list(rollout.values())[1:]} == {0.0}


def test_the_modes_plot_has_a_panel_per_mode(batch, capsys):
    """--plot with --modes draws one panel per mode, the selected one's title marked."""
    pytest.importorskip("matplotlib")
    args = ("batch.jsonl", "--set", f"{MINI_BATCH}=4", "--modes", "--plot", "modes.svg")
    assert run(capsys, *args)[0] == 0
    svg = Path("modes.svg").read_text("utf-8")
    assert svg.count('id="axes_') == 6
    assert "per_rollout_mean (selected)" in svg


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("rolloutnorm:\n  retention_sed: 1\n", "verl.yaml: rolloutnorm.retention_sed is not a "
         "key rolloutnorm reads; known keys: "),
        ("actor_rollout_ref:\n  rollout:\n    n: 0\n",
         "verl.yaml: actor_rollout_ref.rollout.n must be a positive int, got 0"),
        ("actor_rollout_ref: [1]\n", "verl.yaml: actor_rollout_ref must be a mapping"),
        ("- 1\n", "verl.yaml: the top level must be a mapping"),
        ("a: [\n", "verl.yaml:2: not valid YAML: while parsing a flow node; expected the node "
         "content, but found '<stream end>'"),
    ],
)  # fmt: skip
def test_a_bad_config_file_is_named(batch, capsys, content, message):
    """A typo in rolloutnorm's own section, a bad value or bad YAML is an error, exit 2."""
    Path("verl.yaml").write_text(content, "utf-8")
    status, out, err = run(capsys, "batch.jsonl", "--config", "verl.yaml")
    assert (status, out) == (2, "")
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_an_empty_config_file_sets_nothing(batch, capsys):
    """An empty YAML file leaves the defaults."""
    Path("empty.yaml").write_text("", "utf-8")
    _, out, _ = run(capsys, "batch.jsonl", "--config", "empty.yaml", "--format", "json")
    assert validate(out)["config"][MINI_BATCH] == 256


def test_the_plot_is_written(batch, capsys):
    """--plot writes an image of the masses, in the format its suffix names."""
    status, _, err = run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=4", "--plot", "mass.png")
    assert (status, err) == (0, "")
    assert Path("mass.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    run(capsys, "batch.jsonl", "--set", f"{MINI_BATCH}=8", "--plot", "mass.svg")
    svg = Path("mass.svg").read_text("utf-8")
    assert "(dropped)" in svg or "dropped" in svg


def test_the_plot_needs_its_extra(batch, capsys, monkeypatch):
    """Without matplotlib, --plot is an error naming the extra that brings it."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert run(capsys, "batch.jsonl", "--plot", "mass.png") == (
        2,
        "",
        "--plot needs matplotlib: pip install matplotlib\n",
    )
    assert not Path("mass.png").exists()


def test_a_plot_that_cannot_be_written_is_named(batch, capsys):
    """A plot into a missing folder is an error, exit 2."""
    status, _, err = run(capsys, "batch.jsonl", "--plot", "missing/mass.png")
    assert status == 2
    assert err.startswith("--plot missing/mass.png: cannot be written: ")


def test_the_schema_is_valid_and_versioned():
    """The shipped schema is a valid JSON Schema whose version is the one outputs name."""
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema_version"] == {
        "const": schema["version"],
        "description": "The version of this schema the output follows.",
    }


def test_the_schema_changes_only_with_its_version():
    """A change to the schema without a version bump fails: each version has one text."""
    text = importlib.resources.files("rolloutnorm").joinpath("explain.schema.json").read_bytes()
    digest = hashlib.sha256(text).hexdigest()
    assert SCHEMA_SHA256[load_schema()["version"]] == digest


def test_the_parser_lists_the_formats():
    """The explain subcommand takes the three formats, table by default."""
    explain = get_parser()._subparsers._group_actions[0].choices["explain"]
    fmt = next(action for action in explain._actions if action.dest == "format")
    assert (fmt.choices, fmt.default) == (("table", "json", "markdown"), "table")


def test_python_m_rolloutnorm_runs_the_same_main(batch, capsys, monkeypatch):
    """`python -m rolloutnorm explain` is the same command line, run as __main__."""
    monkeypatch.setattr(
        sys, "argv", ["rolloutnorm", "explain", "batch.jsonl", "--set", f"{MINI_BATCH}=2"]
    )
    monkeypatch.delitem(sys.modules, "rolloutnorm.__main__")
    with pytest.raises(SystemExit) as exit_:
        runpy.run_module("rolloutnorm", run_name="__main__", alter_sys=True)
    assert exit_.value.code == 0
    assert "batch       6        6     280  1/2 (0.5000)  1 (1.0000)\n" in capsys.readouterr().out


@pytest.mark.slow
def test_the_console_script(batch):
    """The installed `rolloutnorm` script explains the docs batch in a process of its own."""
    script = Path(sys.executable).with_name("rolloutnorm")
    result = subprocess.run(
        [str(script), "explain", "batch.jsonl", "--set", f"{MINI_BATCH}=2", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")
    data = validate(result.stdout)
    assert [rollout["mass"] for rollout in data["rollouts"]] == pytest.approx([1 / 6] * 3)
    assert data["batch"]["mass"] == pytest.approx(0.5)


def test_verbose_names_the_line_reader_without_the_extra(batch, capsys, monkeypatch):
    """Without pyarrow the standard library reads the batch, to the same output."""
    args = ("batch.jsonl", "--set", f"{MINI_BATCH}=2", "--format", "json")
    _, with_pyarrow, _ = run(capsys, *args)
    for module in ("pyarrow", "pyarrow.compute", "pyarrow.csv", "pyarrow.json"):
        monkeypatch.setitem(sys.modules, module, None)
    status, out, err = run(capsys, *args, "--verbose")
    assert (status, out) == (0, with_pyarrow)
    assert err == "batch.jsonl: read by the standard library\n"


def test_ids_of_other_kinds_are_written_as_text(tmp_path, monkeypatch, capsys):
    """Byte-string ids of an .npz come out as text, valid under the schema."""
    monkeypatch.chdir(tmp_path)
    np.savez("batch.npz", response_mask=np.ones((2, 1), bool), rollout_ids=np.array([b"a", b"b"]))
    status, out, _ = run(capsys, "batch.npz", "--set", f"{MINI_BATCH}=1", "--format", "json")
    assert status == 0
    assert [rollout["rollout_id"] for rollout in validate(out)["rollouts"]] == ["a", "b"]
