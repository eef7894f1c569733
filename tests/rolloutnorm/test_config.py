# SPDX-License-Identifier: MIT
"""Tests for load_config and RolloutNormConfig: defaults, layering, and every bad-input rule."""

from __future__ import annotations

import importlib.resources
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from rolloutnorm import PolicyLossConfig, RolloutNormConfig, RolloutNormError, load_config
from rolloutnorm._config import flatten

# The documented YAML key of every field: the public names, not the defaults.
KEYS = {
    "loss_mode": "actor_rollout_ref.actor.policy_loss.loss_mode",
    "loss_agg_mode": "actor_rollout_ref.actor.loss_agg_mode",
    "ppo_mini_batch_size": "actor_rollout_ref.actor.ppo_mini_batch_size",
    "ppo_epochs": "actor_rollout_ref.actor.ppo_epochs",
    "clip_ratio_low": "actor_rollout_ref.actor.clip_ratio_low",
    "clip_ratio_high": "actor_rollout_ref.actor.clip_ratio_high",
    "clip_ratio_c": "actor_rollout_ref.actor.clip_ratio_c",
    "rollout_n": "actor_rollout_ref.rollout.n",
    "max_ppo_update_times": "rolloutnorm.max_ppo_update_times",
    "retention_seed": "rolloutnorm.retention_seed",
}
N = KEYS["rollout_n"]
MINI = KEYS["ppo_mini_batch_size"]
SEED = KEYS["retention_seed"]


def _packaged_leaves() -> dict[str, Any]:
    """The packaged config.yaml, flattened to values by dotted key."""
    text = importlib.resources.files("rolloutnorm").joinpath("config.yaml").read_text("utf-8")
    leaves: dict[str, Any] = {}

    def walk(tree: dict[str, Any], prefix: str) -> None:
        for name, value in tree.items():
            if isinstance(value, dict):
                walk(value, f"{prefix}{name}.")
            else:
                leaves[f"{prefix}{name}"] = value

    walk(yaml.safe_load(text), "")
    return leaves


def _nested(dotted: dict[str, Any]) -> dict[str, Any]:
    """Turn values by dotted key into the nested mapping a YAML file holds."""
    tree: dict[str, Any] = {}
    for key, value in dotted.items():
        *sections, leaf = key.split(".")
        node = tree
        for section in sections:
            node = node.setdefault(section, {})
        node[leaf] = value
    return tree


def _write(tmp_path: Path, text: str | bytes, name: str = "user.yaml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _fields(config: RolloutNormConfig) -> dict[str, Any]:
    return {field: getattr(config, field) for field in KEYS}


# --- defaults and layering -------------------------------------------------------------------


def test_keys_cover_the_packaged_file_and_the_fields() -> None:
    """The packaged config.yaml sets exactly the documented keys, one per config field."""
    assert set(_packaged_leaves()) == set(KEYS.values())
    assert set(RolloutNormConfig.__dataclass_fields__) == set(KEYS)


def test_defaults_are_the_packaged_file() -> None:
    """load_config() with no arguments holds exactly the packaged config.yaml's values."""
    leaves = _packaged_leaves()
    config = load_config()
    for field, key in KEYS.items():
        value = getattr(config, field)
        assert value == leaves[key], key
        assert type(value) is type(leaves[key]), key


def test_user_file_overrides_only_its_keys(tmp_path: Path) -> None:
    """A user file setting a subset of keys changes those and leaves every other default."""
    defaults = _fields(load_config())
    path = _write(tmp_path, yaml.safe_dump(_nested({N: 4, SEED: 7})))
    config = load_config(path)
    assert (config.rollout_n, config.retention_seed) == (4, 7)
    expected = defaults | {"rollout_n": 4, "retention_seed": 7}
    assert _fields(config) == expected


def test_path_may_be_a_str(tmp_path: Path) -> None:
    """load_config accepts the user file's path as a str."""
    path = _write(tmp_path, yaml.safe_dump(_nested({N: 3})))
    assert load_config(str(path)).rollout_n == 3


def test_overrides_apply_after_the_user_file(tmp_path: Path) -> None:
    """A dotted-key override beats the user file, whose other keys still apply."""
    path = _write(tmp_path, yaml.safe_dump(_nested({N: 4, SEED: 7})))
    config = load_config(path, overrides={N: 8})
    assert config.rollout_n == 8
    assert config.retention_seed == 7


def test_overrides_alone_change_only_their_keys() -> None:
    """Overrides without a user file change only the keys they name."""
    defaults = _fields(load_config())
    config = load_config(overrides={KEYS["clip_ratio_high"]: 0.28, KEYS["ppo_epochs"]: 2})
    assert _fields(config) == defaults | {"clip_ratio_high": 0.28, "ppo_epochs": 2}


def test_max_ppo_update_times_may_be_set_and_unset(tmp_path: Path) -> None:
    """max_ppo_update_times takes a positive int, and null in a later layer removes the cap."""
    key = KEYS["max_ppo_update_times"]
    path = _write(tmp_path, yaml.safe_dump(_nested({key: 3})))
    assert load_config(path).max_ppo_update_times == 3
    assert load_config(path, overrides={key: None}).max_ppo_update_times is None


@pytest.mark.parametrize(
    "text", ["", "# only a comment\n", "---\n"], ids=["empty", "comment", "document-marker"]
)
def test_empty_user_file_changes_nothing(tmp_path: Path, text: str) -> None:
    """An empty user file (or one holding only a comment) gives the defaults."""
    assert load_config(_write(tmp_path, text)) == load_config()


def test_mini_batch_size_is_prompts_times_rollouts() -> None:
    """mini_batch_size is ppo_mini_batch_size * rollout.n rows."""
    config = load_config(overrides={MINI: 3, N: 5})
    assert config.mini_batch_size == 15


def test_policy_loss_config_carries_the_clip_ratios() -> None:
    """policy_loss_config(dp_size=..) holds the config's clip ratios and the given dp_size."""
    config = load_config(
        overrides={
            KEYS["clip_ratio_low"]: 0.1,
            KEYS["clip_ratio_high"]: 0.28,
            KEYS["clip_ratio_c"]: 5,
        }
    )
    assert config.policy_loss_config(dp_size=4) == PolicyLossConfig(
        clip_ratio_low=0.1, clip_ratio_high=0.28, clip_ratio_c=5.0, dp_size=4
    )
    assert config.policy_loss_config().dp_size == 1


def test_replace_changes_fields() -> None:
    """replace() returns a copy with the given fields changed and the original intact."""
    config = load_config()
    changed = config.replace(rollout_n=4, clip_ratio_c=10)
    assert (changed.rollout_n, changed.clip_ratio_c) == (4, 10.0)
    assert type(changed.clip_ratio_c) is float
    assert config == load_config()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("rollout_n", 0),
        ("ppo_mini_batch_size", "4"),
        ("clip_ratio_low", 1.0),
        ("clip_ratio_c", True),
        ("retention_seed", -1),
        ("loss_mode", None),
        ("loss_agg_mode", "token_mean"),
    ],
)
def test_replace_validates(field: str, value: object) -> None:
    """replace() rejects a bad value with an error naming the field's YAML key."""
    with pytest.raises(RolloutNormError, match=re.escape(KEYS[field])):
        load_config().replace(**{field: value})


def test_config_is_frozen() -> None:
    """A config's fields cannot be reassigned."""
    config = load_config()
    with pytest.raises(AttributeError):
        config.rollout_n = 3  # type: ignore[misc]


# --- accepted types --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", [np.int64(4), np.int32(4), np.uint8(4), np.intp(4)], ids=lambda v: type(v).__name__
)
@pytest.mark.parametrize("field", ["ppo_mini_batch_size", "rollout_n", "max_ppo_update_times"])
def test_numpy_ints_are_stored_as_python_ints(field: str, value: object) -> None:
    """A numpy int for an int key is accepted and stored as a Python int."""
    stored = getattr(load_config(overrides={KEYS[field]: value}), field)
    assert stored == 4
    assert type(stored) is int


def test_numpy_int_seed_is_stored_as_python_int() -> None:
    """A numpy int retention seed of 0 is accepted and stored as a Python int."""
    stored = load_config(overrides={SEED: np.int64(0)}).retention_seed
    assert stored == 0
    assert type(stored) is int


@pytest.mark.parametrize("field", ["clip_ratio_high", "clip_ratio_c"])
def test_ints_for_float_keys_are_stored_as_floats(field: str, tmp_path: Path) -> None:
    """An int for a float key, in a file or an override, is accepted and stored as a float."""
    from_file = getattr(
        load_config(_write(tmp_path, yaml.safe_dump(_nested({KEYS[field]: 2})))), field
    )
    from_override = getattr(load_config(overrides={KEYS[field]: 2}), field)
    for stored in (from_file, from_override):
        assert stored == 2.0
        assert type(stored) is float


@pytest.mark.parametrize(
    "value",
    [np.int64(2), np.float64(2.0), np.float32(2.0)],
    ids=lambda v: type(v).__name__,
)
def test_numpy_numbers_for_float_keys_are_stored_as_floats(value: object) -> None:
    """A numpy int or float for a float key is accepted and stored as a Python float."""
    stored = load_config(overrides={KEYS["clip_ratio_c"]: value}).clip_ratio_c
    assert stored == 2.0
    assert type(stored) is float


@pytest.mark.parametrize(
    ("loss_mode", "loss_agg_mode", "selected"),
    [
        ("per_rollout_mean", "token-mean", "per_rollout_mean"),
        ("per_rollout_mean", "seq-mean-token-sum", "per_rollout_mean"),
        ("vanilla", "token-mean", "token-mean"),
        ("gspo", "seq-mean-token-mean", "seq-mean-token-mean"),
        ("sapo", "token-sum", "seq-mean-token-mean"),
        ("my_registered_loss", "token-sum", "token-sum"),
    ],
)
def test_any_policy_loss_loads_and_selects_its_aggregation(
    tmp_path: Path, loss_mode: str, loss_agg_mode: str, selected: str
) -> None:
    """A verl config of any loss_mode loads; it selects per_rollout_mean or its loss_agg_mode.

    sapo is the exception: verl's sapo loss aggregates with seq-mean-token-mean whatever
    loss_agg_mode says.
    """
    values = {KEYS["loss_mode"]: loss_mode, KEYS["loss_agg_mode"]: loss_agg_mode}
    from_file = load_config(_write(tmp_path, yaml.safe_dump(_nested(values))))
    from_overrides = load_config(overrides=values)
    for config in (from_file, from_overrides):
        assert (config.loss_mode, config.loss_agg_mode) == (loss_mode, loss_agg_mode)
        assert config.selected_mode == selected


def test_loss_agg_mode_defaults_to_verls() -> None:
    """loss_agg_mode defaults to token-mean, verl's own default (actor.yaml)."""
    assert load_config().loss_agg_mode == "token-mean"


def test_an_unknown_loss_agg_mode_lists_verls() -> None:
    """An unknown loss_agg_mode names its key and lists the modes verl's agg_loss accepts."""
    with pytest.raises(RolloutNormError) as error:
        load_config(overrides={KEYS["loss_agg_mode"]: "token_mean"})
    assert str(error.value) == (
        f"{KEYS['loss_agg_mode']} must be one of ('token-mean', 'token-sum', "
        "'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'), "
        "got 'token_mean'"
    )


# --- bad input: every error names the dotted key ---------------------------------------------

BAD_VALUES = [
    pytest.param(MINI, "4", id="str-for-int"),
    pytest.param(N, True, id="bool-for-int"),
    pytest.param(N, 4.0, id="float-for-int"),
    pytest.param(KEYS["max_ppo_update_times"], 1.5, id="float-for-optional-int"),
    pytest.param(SEED, False, id="bool-for-seed"),
    pytest.param(KEYS["clip_ratio_low"], "0.2", id="str-for-float"),
    pytest.param(KEYS["clip_ratio_c"], True, id="bool-for-float"),
    pytest.param(KEYS["clip_ratio_high"], None, id="null-for-float"),
    pytest.param(KEYS["clip_ratio_high"], float("nan"), id="nan-for-float"),
    pytest.param(KEYS["clip_ratio_c"], float("inf"), id="inf-for-float"),
    pytest.param(KEYS["clip_ratio_high"], 10**400, id="int-past-float"),
    pytest.param(MINI, 0, id="ppo_mini_batch_size-0"),
    pytest.param(KEYS["ppo_epochs"], 0, id="ppo_epochs-0"),
    pytest.param(KEYS["ppo_epochs"], True, id="bool-for-ppo_epochs"),
    pytest.param(KEYS["ppo_epochs"], 2.0, id="float-for-ppo_epochs"),
    pytest.param(N, -2, id="rollout.n-negative"),
    pytest.param(KEYS["clip_ratio_low"], 1.0, id="clip_ratio_low-1"),
    pytest.param(KEYS["clip_ratio_low"], -0.1, id="clip_ratio_low-negative"),
    pytest.param(KEYS["clip_ratio_high"], -0.1, id="clip_ratio_high-negative"),
    pytest.param(KEYS["clip_ratio_c"], 1.0, id="clip_ratio_c-1"),
    pytest.param(KEYS["max_ppo_update_times"], 0, id="max_ppo_update_times-0"),
    pytest.param(SEED, -1, id="retention_seed-negative"),
    pytest.param(KEYS["loss_mode"], None, id="loss_mode-null"),
    pytest.param(KEYS["loss_mode"], "", id="loss_mode-empty"),
    pytest.param(KEYS["loss_mode"], 1, id="loss_mode-int"),
    pytest.param(KEYS["loss_agg_mode"], "token_mean", id="loss_agg_mode-unknown"),
    pytest.param(KEYS["loss_agg_mode"], None, id="loss_agg_mode-null"),
]


@pytest.mark.parametrize(("key", "value"), BAD_VALUES)
def test_bad_override_names_its_key(key: str, value: object) -> None:
    """A dotted-key override of the wrong type or range raises an error naming that key."""
    with pytest.raises(RolloutNormError, match=re.escape(key)):
        load_config(overrides={key: value})


@pytest.mark.parametrize(("key", "value"), BAD_VALUES)
def test_bad_file_value_names_its_key(tmp_path: Path, key: str, value: object) -> None:
    """A user-file value of the wrong type or range raises an error naming its dotted key."""
    path = _write(tmp_path, yaml.safe_dump(_nested({key: value})))
    with pytest.raises(RolloutNormError, match=re.escape(key)):
        load_config(path)


def test_bad_value_message_names_what_is_wrong() -> None:
    """The message starts with the key and says what it must be and what it got."""
    with pytest.raises(RolloutNormError) as error:
        load_config(overrides={MINI: 0})
    assert str(error.value) == f"{MINI} must be a positive int, got 0"


@pytest.mark.parametrize(
    ("value", "got"), [(0, "0"), (True, "bool True"), (1.5, "float 1.5"), ("2", "str '2'")]
)
def test_bad_ppo_epochs_message(value: object, got: str) -> None:
    """A ppo_epochs that is not a positive int is refused under its dotted key."""
    with pytest.raises(RolloutNormError) as error:
        load_config(overrides={KEYS["ppo_epochs"]: value})
    assert str(error.value) == f"{KEYS['ppo_epochs']} must be a positive int, got {got}"


@pytest.mark.parametrize(
    "key",
    [
        "foo",
        "actor_rollout_ref.foo",
        "actor_rollout_ref.actor.foo",
        "actor_rollout_ref.actor.policy_loss.clip_ratio",
        "rolloutnorm.foo",
        "actor_rollout_ref.actor",
        "rollout_n",
    ],
)
def test_unknown_override_key_is_named(key: str) -> None:
    """An override whose dotted key rolloutnorm does not read raises an error naming it."""
    with pytest.raises(RolloutNormError, match=rf"^{re.escape(key)} in overrides is not a key"):
        load_config(overrides={key: 1})


@pytest.mark.parametrize(
    "key",
    ["foo", "actor_rollout_ref.foo", "actor_rollout_ref.actor.foo", "rolloutnorm.foo"],
)
def test_unknown_file_key_is_named(tmp_path: Path, key: str) -> None:
    """A user-file key, nested or top-level, that rolloutnorm does not read is named by path."""
    path = _write(tmp_path, yaml.safe_dump(_nested({key: 1})))
    with pytest.raises(RolloutNormError, match=rf"^{re.escape(key)} in .*user\.yaml is not a key"):
        load_config(path)


def test_unknown_key_next_to_known_ones_is_rejected(tmp_path: Path) -> None:
    """One unknown key among valid ones still fails the whole file."""
    path = _write(tmp_path, yaml.safe_dump(_nested({N: 4, "actor_rollout_ref.rollout.m": 4})))
    with pytest.raises(RolloutNormError, match=re.escape("actor_rollout_ref.rollout.m")):
        load_config(path)


def test_missing_file_is_named(tmp_path: Path) -> None:
    """A user file that does not exist raises an error naming its path."""
    path = tmp_path / "absent.yaml"
    with pytest.raises(RolloutNormError, match=re.escape(str(path))):
        load_config(path)


def test_invalid_yaml_is_named(tmp_path: Path) -> None:
    """A user file that is not valid YAML raises an error naming its path."""
    path = _write(tmp_path, "actor_rollout_ref: [\n")
    with pytest.raises(RolloutNormError, match=r"user\.yaml:2: not valid YAML: "):
        load_config(path)


def test_undecodable_file_is_named(tmp_path: Path) -> None:
    """A user file that is not UTF-8 text raises RolloutNormError naming its path."""
    path = _write(tmp_path, b"\xff\xfe\x00rollout: 1\n")
    with pytest.raises(RolloutNormError, match=r"user\.yaml"):
        load_config(path)


@pytest.mark.parametrize("text", ["- 1\n- 2\n", "42\n", "just text\n"], ids=["list", "int", "str"])
def test_top_level_must_be_a_mapping(tmp_path: Path, text: str) -> None:
    """A user file whose top level is a list or a scalar is rejected as not a mapping."""
    path = _write(tmp_path, text)
    with pytest.raises(RolloutNormError, match=r"^the top level in .*user\.yaml must be a mapping"):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("actor_rollout_ref: 5\n", "actor_rollout_ref"),
        ("actor_rollout_ref:\n  actor: fast\n", "actor_rollout_ref.actor"),
        ("actor_rollout_ref:\n  actor: [1, 2]\n", "actor_rollout_ref.actor"),
        ("rolloutnorm: 0\n", "rolloutnorm"),
    ],
    ids=["top-section-int", "nested-section-str", "nested-section-list", "rolloutnorm-int"],
)
def test_scalar_section_is_named_as_not_a_mapping(tmp_path: Path, text: str, section: str) -> None:
    """A section that holds a scalar or a list is named and rejected as not a mapping."""
    path = _write(tmp_path, text)
    with pytest.raises(RolloutNormError, match=rf"^{re.escape(section)} in .* must be a mapping"):
        load_config(path)


def test_one_flattener_reads_a_whole_trainer_config_or_only_rolloutnorms_keys() -> None:
    """The flattener lists the keys outside rolloutnorm's where asked, else refuses them."""
    tree = {
        "data": {"train_batch_size": 8},
        "actor_rollout_ref": {"actor": {"ppo_mini_batch_size": 4}, "model": None},
        "rolloutnorm": {"retention_seed": 3},
    }
    ignored: list[str] = []
    assert flatten(tree, ignored=ignored) == {MINI: 4, SEED: 3}
    assert ignored == ["data", "actor_rollout_ref.model"]
    with pytest.raises(RolloutNormError, match=r"^data in user\.yaml is not a key rolloutnorm"):
        flatten(tree, source="user.yaml")
    typo = {"rolloutnorm": {"retention_sed": 3}}
    with pytest.raises(RolloutNormError, match=r"^rolloutnorm\.retention_sed is not a key"):
        flatten(typo, ignored=[])
