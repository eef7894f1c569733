# SPDX-License-Identifier: MIT
"""The configuration keys rolloutnorm reads, loaded from YAML into a validated object."""

from __future__ import annotations

import dataclasses
import importlib.resources
import numbers
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from rolloutnorm._counts import as_count
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._loss import PolicyLossConfig, check_loss_agg_mode

__all__ = [
    "KEYS",
    "LOSS_MODE",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "RolloutNormConfig",
    "field_for",
    "flatten",
    "load_config",
    "parse_yaml",
    "read_yaml",
    "regular_file",
]

LOSS_MODE = "per_rollout_mean"

# verl 0.9.1's policy losses that call agg_loss with a mode of their own, not loss_agg_mode.
_OWN_AGG_MODES = {"sapo": "seq-mean-token-mean"}

# The dotted key that each field of RolloutNormConfig is read from.
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
_FIELD_BY_KEY = {key: field for field, key in KEYS.items()}


@dataclasses.dataclass(frozen=True, kw_only=True)
class RolloutNormConfig:
    """The validated values of the configuration keys rolloutnorm reads.

    Build it with `load_config`; derive variants with `replace`. Every field is checked on
    construction, and an error names the YAML key (``actor_rollout_ref.rollout.n``), not
    the field.

    Attributes:
        loss_mode: ``actor_rollout_ref.actor.policy_loss.loss_mode``, the policy loss verl
            looks up: ``per_rollout_mean``, the loss this package implements and the only
            one `retain_and_normalize` runs for, or any other name (``vanilla``...).
        loss_agg_mode: ``actor_rollout_ref.actor.loss_agg_mode``, one of verl's aggregation
            modes (``token-mean`` by default, as in verl): how verl's own policy losses
            aggregate the token losses; under ``per_rollout_mean`` it aggregates only the
            entropy and KL terms.
        ppo_mini_batch_size: ``actor_rollout_ref.actor.ppo_mini_batch_size``, in prompts.
        ppo_epochs: ``actor_rollout_ref.actor.ppo_epochs``, passes over the trained rows;
            the plan of `retain_and_normalize` counts its ``update_units`` over all of them.
        clip_ratio_low: ``actor_rollout_ref.actor.clip_ratio_low``.
        clip_ratio_high: ``actor_rollout_ref.actor.clip_ratio_high``.
        clip_ratio_c: ``actor_rollout_ref.actor.clip_ratio_c``, the dual-clip bound.
        rollout_n: ``actor_rollout_ref.rollout.n``, rollouts sampled per prompt.
        max_ppo_update_times: ``rolloutnorm.max_ppo_update_times``, the cap on mini-batch
            updates per epoch, or ``None`` for none.
        retention_seed: ``rolloutnorm.retention_seed``, the seed of the random row drops.

    Examples:
        >>> config = load_config(overrides={"actor_rollout_ref.rollout.n": 4})
        >>> (
        ...     isinstance(config, RolloutNormConfig),
        ...     config.rollout_n,
        ...     config.mini_batch_size,
        ... )
        (True, 4, 1024)
        >>> config.replace(ppo_mini_batch_size=8).mini_batch_size
        32
    """

    loss_mode: str
    loss_agg_mode: str
    ppo_mini_batch_size: int
    ppo_epochs: int
    clip_ratio_low: float
    clip_ratio_high: float
    clip_ratio_c: float
    rollout_n: int
    max_ppo_update_times: int | None
    retention_seed: int

    def __post_init__(self) -> None:
        if not isinstance(self.loss_mode, str) or not self.loss_mode:
            got = f"{type(self.loss_mode).__name__} {self.loss_mode!r}"
            msg = f"{KEYS['loss_mode']} must name a policy loss, got {got}"
            raise RolloutNormError(msg)
        check_loss_agg_mode(self.loss_agg_mode, KEYS["loss_agg_mode"])
        for field in ("ppo_mini_batch_size", "ppo_epochs", "rollout_n", "retention_seed"):
            minimum = 0 if field == "retention_seed" else 1
            value = as_count(getattr(self, field), KEYS[field], minimum=minimum)
            object.__setattr__(self, field, value)
        if self.max_ppo_update_times is not None:
            value = as_count(self.max_ppo_update_times, KEYS["max_ppo_update_times"])
            object.__setattr__(self, "max_ppo_update_times", value)
        clip_ratios = ("clip_ratio_low", "clip_ratio_high", "clip_ratio_c")
        for field in clip_ratios:
            value = getattr(self, field)
            if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
                msg = f"{KEYS[field]} must be a number, got {type(value).__name__} {value!r}"
                raise RolloutNormError(msg)
        try:
            loss = self.policy_loss_config()
        except RolloutNormError as error:
            msg = f"actor_rollout_ref.actor.{error}"
            raise RolloutNormError(msg) from None
        for field in clip_ratios:
            object.__setattr__(self, field, getattr(loss, field))

    @property
    def selected_mode(self) -> str:
        """The loss aggregation this configuration selects, as `aggregation_masses` names it.

        ``per_rollout_mean`` where ``loss_mode`` is that loss, else ``loss_agg_mode``, which
        verl's own policy losses pass to its ``agg_loss``; but ``sapo``, whose loss passes
        ``seq-mean-token-mean`` whatever ``loss_agg_mode`` says (verl 0.9.1), selects that.

        Examples:
            >>> load_config().selected_mode
            'per_rollout_mean'
            >>> load_config(
            ...     overrides={"actor_rollout_ref.actor.policy_loss.loss_mode": "vanilla"}
            ... ).selected_mode
            'token-mean'
        """
        if self.loss_mode == LOSS_MODE:
            return LOSS_MODE
        return _OWN_AGG_MODES.get(self.loss_mode, self.loss_agg_mode)

    @property
    def mini_batch_size(self) -> int:
        """Rows per PPO mini-batch: ``ppo_mini_batch_size * rollout.n``."""
        return self.ppo_mini_batch_size * self.rollout_n

    def policy_loss_config(self, *, dp_size: int = 1) -> PolicyLossConfig:
        """The clip ratios of this configuration with a data-parallel size, for the loss.

        Args:
            dp_size: The number of data-parallel ranks.

        Returns:
            The loss configuration.
        """
        return PolicyLossConfig(
            clip_ratio_low=self.clip_ratio_low,
            clip_ratio_high=self.clip_ratio_high,
            clip_ratio_c=self.clip_ratio_c,
            dp_size=dp_size,
        )

    def replace(self, **changes: Any) -> RolloutNormConfig:
        """A copy with some fields changed, validated like the original.

        Args:
            **changes: New values by field name.

        Returns:
            The new configuration.
        """
        return dataclasses.replace(self, **changes)


def load_config(
    path: str | Path | None = None, *, overrides: Mapping[str, Any] | None = None
) -> RolloutNormConfig:
    """Load the packaged defaults, then a user's YAML file, then overrides, and validate.

    Args:
        path: A YAML file setting any subset of the keys in the packaged ``config.yaml``.
        overrides: Values by dotted key (``{"actor_rollout_ref.rollout.n": 4}``), applied last.

    Returns:
        The validated configuration.

    Raises:
        RolloutNormError: If the file is missing or not YAML, a key is unknown, or a value
            has the wrong type or range; the message names the key.

    Examples:
        >>> config = load_config(
        ...     overrides={"actor_rollout_ref.actor.ppo_mini_batch_size": 4}
        ... )
        >>> config.mini_batch_size, config.max_ppo_update_times
        (4, None)
    """
    text = importlib.resources.files("rolloutnorm").joinpath("config.yaml").read_text("utf-8")
    values = flatten(yaml.safe_load(text), source="config.yaml")
    if path is not None:
        values.update(flatten(read_yaml(Path(path)), source=str(path)))
    for key, value in (overrides or {}).items():
        field_for(key, source="overrides")
        values[key] = value
    return RolloutNormConfig(**{_FIELD_BY_KEY[key]: value for key, value in values.items()})


# The bounds of a user's YAML file: a trainer config nests a few levels and repeats a few
# anchors; a document past these is refused before it is built ("billion laughs").
MAX_YAML_DEPTH = 64
MAX_YAML_NODES = 1_000_000


class _YamlRefused(Exception):
    """A YAML document refused at a line: nested or expanded past the bounds, or a bad value."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, its nesting and its expanded size (aliases counted) bounded."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0
        self.sizes: dict[int, int] = {}

    def compose_node(self, parent: object, index: object) -> yaml.Node:
        self.depth += 1
        try:
            if self.depth > MAX_YAML_DEPTH:
                line = self.peek_event().start_mark.line + 1
                msg = f"nested more than {MAX_YAML_DEPTH} levels deep (MAX_YAML_DEPTH)"
                raise _YamlRefused(line, msg)
            node = super().compose_node(parent, index)
        finally:
            self.depth -= 1
        if self.depth == 0 and node is not None:
            self._expanded_size(node)
        return node

    def construct_object(self, node: yaml.Node, deep: bool = False) -> object:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, AttributeError, LookupError, ArithmeticError) as error:
            # PyYAML's constructors raise these for a scalar that matches a tag's pattern but
            # is no value of it: an integer past Python's digit limit, a 13th month, `!!int x`,
            # `!!bool x` (a KeyError), an empty `!!float` (an IndexError), a sexagesimal
            # float past a float's range (an OverflowError).
            raise _YamlRefused(node.start_mark.line + 1, _unreadable(node, error)) from None

    def _expanded_size(self, node: yaml.Node) -> int:
        """The nodes ``node`` builds with every alias expanded, each shared node counted once."""
        known = self.sizes.get(id(node))
        if known is not None:
            return known
        self.sizes[id(node)] = 1  # a node reached again through itself adds nothing more
        size = 1
        if isinstance(node, yaml.SequenceNode):
            size += sum(self._expanded_size(item) for item in node.value)
        elif isinstance(node, yaml.MappingNode):
            size += sum(self._expanded_size(k) + self._expanded_size(v) for k, v in node.value)
        if size > MAX_YAML_NODES:
            msg = (
                f"expands to more than {MAX_YAML_NODES} values through its aliases "
                "(MAX_YAML_NODES): a trainer config repeats an anchor a few times"
            )
            raise _YamlRefused(node.start_mark.line + 1, msg)
        self.sizes[id(node)] = size
        return size


def regular_file(path: Path) -> None:
    """Raise unless ``path`` is a regular file: a folder, FIFO or device is never read.

    Args:
        path: The file.

    Raises:
        RolloutNormError: ``path: cannot be read: ...``, naming what the path is instead.
    """
    try:
        mode = path.stat().st_mode
    except OSError as error:
        msg = f"{path}: cannot be read: {error.strerror}"
        raise RolloutNormError(msg) from None
    if not stat.S_ISREG(mode):
        kinds = {stat.S_ISDIR: "a folder", stat.S_ISFIFO: "a FIFO", stat.S_ISSOCK: "a socket"}
        kind = next((name for test, name in kinds.items() if test(mode)), "a device")
        msg = f"{path}: cannot be read: it is {kind}, not a regular file"
        raise RolloutNormError(msg)


def _unreadable(node: yaml.Node, error: Exception) -> str:
    """Why a scalar's value cannot be built, in one line."""
    value, kind = str(node.value), node.tag.rpartition(":")[2]
    if kind == "int" and value.lstrip("+-").isdigit():
        return (
            f"an integer of {len(value.lstrip('+-'))} digits, more than the "
            f"{sys.get_int_max_str_digits()} Python converts"
        )
    shown = repr(value) if len(value) <= 40 else f"{value[:40]!r}..."
    # A ValueError or OverflowError says what is wrong (month must be in 1..12); the others
    # are PyYAML's own.
    reason = str(error).split(";")[0] if isinstance(error, ValueError | OverflowError) else ""
    return f"{shown} is no {kind}{': ' if reason else ''}{reason}"


def read_yaml(path: Path) -> object:
    """A user's YAML file, parsed safely; a file that cannot be read, or is not YAML, is one line.

    No tag builds an object (PyYAML's safe loader); the nesting is bounded by
    ``MAX_YAML_DEPTH`` and the values the aliases expand to by ``MAX_YAML_NODES``.
    """
    regular_file(path)
    try:
        text = path.read_text("utf-8")
    except OSError as error:
        msg = f"{path}: cannot be read: {error.strerror}"
        raise RolloutNormError(msg) from None
    except UnicodeDecodeError as error:
        msg = f"{path}: not UTF-8 text: {error.reason} at byte {error.start}"
        raise RolloutNormError(msg) from None
    return parse_yaml(text, source=str(path))


def parse_yaml(text: str, *, source: str | None = None) -> object:
    """YAML text parsed as `read_yaml` parses a file: safely, bounded, any fault one line.

    Args:
        text: The YAML.
        source: The file, named in an error as ``SOURCE:LINE: message``; None for a caller
            that names the text itself (``--set KEY=VALUE``), the error then the message.

    Returns:
        The parsed value.

    Raises:
        RolloutNormError: If the text is not YAML, nests or expands past the bounds, or holds
            a scalar that is no value of its type (an integer past Python's digit limit).
    """
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    except _YamlRefused as error:
        line, message = error.line, error.message
    except yaml.YAMLError as error:
        # One line, as every error of a user's file: PyYAML's own spans several.
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        parts = [getattr(error, "context", None), getattr(error, "problem", None)]
        reason = "; ".join(part for part in parts if part) or str(error)
        message = f"not valid YAML: {' '.join(reason.split())}"
    finally:
        loader.dispose()
    if source is not None:
        message = f"{source}:{line}: {message}" if line is not None else f"{source}: {message}"
    raise RolloutNormError(message)


def flatten(
    tree: object, *, source: str | None = None, ignored: list[str] | None = None
) -> dict[str, Any]:
    """The values of the keys rolloutnorm reads out of a parsed YAML tree, by dotted key.

    An empty file or section (None) sets nothing. ``load_config`` takes rolloutnorm's keys
    only; ``rolloutnorm explain --config`` takes a whole trainer config through ``ignored``.

    Args:
        tree: The parsed YAML.
        source: The file, named in a message as ``KEY in SOURCE``; None for a caller that
            names it itself.
        ignored: None: any other key is an error. A list: the other keys are appended to
            it, in order, but those of the ``rolloutnorm`` section, rolloutnorm's own.

    Returns:
        The values, in the order of the tree.

    Raises:
        RolloutNormError: If a section is not a mapping or a key is not one rolloutnorm
            reads; the message names the key.
    """
    values: dict[str, Any] = {}

    def walk(node: object, prefix: str) -> None:
        if node is None:
            return
        if not isinstance(node, Mapping):
            msg = f"{_named(prefix.rstrip('.') or 'the top level', source)} must be a mapping"
            raise RolloutNormError(msg)
        for name, value in node.items():
            key = f"{prefix}{name}"
            if key in _FIELD_BY_KEY:
                values[key] = value
            elif any(known.startswith(f"{key}.") for known in _FIELD_BY_KEY):
                walk(value, f"{key}.")
            elif ignored is not None and key.split(".")[0] != "rolloutnorm":
                ignored.append(key)
            else:
                field_for(key, source=source)

    walk(tree, "")
    return values


def field_for(key: str, *, source: str | None = None) -> str:
    """The field of `RolloutNormConfig` that a dotted key sets; an unknown key is an error."""
    if key not in _FIELD_BY_KEY:
        known = ", ".join(KEYS.values())
        msg = f"{_named(key, source)} is not a key rolloutnorm reads; known keys: {known}"
        raise RolloutNormError(msg)
    return _FIELD_BY_KEY[key]


def _named(subject: str, source: str | None) -> str:
    return subject if source is None else f"{subject} in {source}"
