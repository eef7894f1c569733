# SPDX-License-Identifier: MIT
"""Which rollout rows a PPO update trains on, and how many (`num_trained_rows`)."""

from __future__ import annotations

import dataclasses
import itertools
import numbers
import types
from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import torch

from rolloutnorm._counts import as_count
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._ids import encode_ids

__all__ = ["DropReason", "RetentionPlan", "plan_retention"]

_STAGES = ("marked", "mini_batch_floor", "max_ppo_update_times")
_STAGE_NAMES = dict(zip(_STAGES, ("marked", "mini-batch floor", "update cap"), strict=True))
# torch.allclose's defaults: the tolerance within which a group's rewards count as one reward.
_RTOL, _ATOL = 1e-5, 1e-8
_HOST = torch.device("cpu")


@dataclasses.dataclass(frozen=True, slots=True)
class DropReason:
    """Why one row is not trained: the stage that dropped it, and its tier.

    ``str(reason)`` names the stage (``marked``, ``mini-batch floor`` or ``update cap``) and
    adds ``, same-reward group first`` for a row taken from a same-reward group.

    Attributes:
        stage: ``"marked"``, ``"mini_batch_floor"`` or ``"max_ppo_update_times"``, the keys
            of `RetentionPlan.dropped`.
        same_reward_group: Whether the floor or the cap took the row from a same-reward
            group, the tier drawn first; ``False`` for a marked row, since same-reward
            groups are judged over the candidates.

    Examples:
        >>> plan = plan_retention(
        ...     6,
        ...     mini_batch_size=4,
        ...     group_ids=[0, 0, 1, 1, 2, 2],
        ...     rewards=[1, 1, 0, 1, 0, 1],
        ... )
        >>> plan.drop_reasons[0]
        DropReason(stage='mini_batch_floor', same_reward_group=True)
        >>> print(plan.drop_reasons[0])
        mini-batch floor, same-reward group first
        >>> print(DropReason("max_ppo_update_times"))
        update cap
    """

    stage: str
    same_reward_group: bool = False

    def __post_init__(self) -> None:
        if self.stage not in _STAGES:
            msg = f"stage must be one of {', '.join(map(repr, _STAGES))}, got {self.stage!r}"
            raise RolloutNormError(msg)
        if not isinstance(self.same_reward_group, bool | np.bool_):
            kind = type(self.same_reward_group).__name__
            msg = f"same_reward_group must be a bool, got {kind} {self.same_reward_group!r}"
            raise RolloutNormError(msg)
        if self.stage == "marked" and self.same_reward_group:
            msg = "same_reward_group must be False for a marked row: groups count candidates"
            raise RolloutNormError(msg)
        object.__setattr__(self, "same_reward_group", bool(self.same_reward_group))

    def __str__(self) -> str:
        tier = ", same-reward group first" if self.same_reward_group else ""
        return f"{_STAGE_NAMES[self.stage]}{tier}"


# The five reasons a dropped row can have, shared by every plan: a reason holds no row index.
_REASON_TABLE = {
    (stage, same): DropReason(stage, same)
    for stage in _STAGES
    for same in (False, True)
    if not (stage == "marked" and same)
}


@dataclasses.dataclass(frozen=True, slots=True)
class RetentionPlan:
    """The rows one PPO update trains on, with the rows dropped for each reason.

    A plan with no trained rows is valid: it says that no candidate remained, or fewer
    candidates and padding rows together than one mini-batch, and the caller decides to skip
    the step. Such a plan keeps no row, padding neither, so its ``update_units`` is 0.

    Examples:
        >>> plan = plan_retention(
        ...     10, mini_batch_size=4, drop=[True] + [False] * 9, ppo_epochs=2
        ... )
        >>> (
        ...     isinstance(plan, RetentionPlan),
        ...     plan.num_trained_rows,
        ...     plan.update_units_per_epoch,
        ...     plan.update_units,
        ... )
        (True, 8, 2, 4)
        >>> {row: str(reason) for row, reason in plan.drop_reasons.items()}
        {0: 'marked', 8: 'mini-batch floor'}

    ``str(plan)`` is a summary in exactly this format::

        RetentionPlan: 10 rows -> 8 trained, 2 update units per epoch
          dropped: 1 marked, 1 at the mini-batch floor, 0 at the update cap

    the numbers being ``num_rows``, ``num_trained_rows``, ``update_units_per_epoch`` and the
    three ``dropped`` counts: rows, not settings. With more than one epoch, the first line
    ends with ``update_units`` over ``ppo_epochs`` (``, 4 over 2 epochs``); with padding rows,
    their number follows the trained rows (``8 trained + 2 padding``), and padding rows left
    out have a line of their own (``  padding left out: 2 rows, not needed for whole
    mini-batches``), after the dropped rows, whose counts they are not in. When some of the
    floor and cap drops came from same-reward groups, a last line says how many
    (``  same-reward groups first: 2 of the floor and cap drops``). The summary stays this
    short at any batch size: which rows each stage dropped is in ``drop_reasons``.

    Attributes:
        kept_indices: Original indices of the kept rows, ascending: the trained rows and
            the padding rows kept with them.
        num_rows: How many rows the rollout batch held before retention.
        mini_batch_size: Rows per PPO mini-batch (``ppo_mini_batch_size * rollout.n``).
        max_ppo_update_times: Cap on mini-batch updates per epoch, or ``None`` for no cap.
        dropped: Rows dropped per reason, read-only, with exactly the keys ``"marked"``,
            ``"mini_batch_floor"`` and ``"max_ppo_update_times"``.
        dropped_from_same_reward_groups: How many of the floor and cap drops were taken from
            same-reward groups (as `plan_retention` defines them).
        drop_reasons: Why each dropped row went, read-only: original row index to its
            `DropReason`, one entry per dropped row, keys ascending. A stage's count in
            ``dropped`` is its number of entries, and ``dropped_from_same_reward_groups``
            the number of entries with ``same_reward_group`` set.
        ppo_epochs: Passes over the trained rows in the step, each consuming every trained
            row once (``actor_rollout_ref.actor.ppo_epochs``).
        padding_indices: Original indices of the kept rows that are padding, ascending: rows
            a trainer added only so that the batch divides into its ranks and mini-batches.
            They fill the mini-batches, so they count in ``update_units``, and carry no mass,
            so they do not count in ``num_trained_rows``. Given as distinct ints (numpy ints
            become Python ints), never all the kept rows.
        spare_padding_indices: Original indices of the padding rows not kept, ascending:
            those the kept rows did not need to fill whole mini-batches. They are no dropped
            rows (no `DropReason`, in no ``dropped`` count): they were never to be trained.

    Raises:
        RolloutNormError: If ``ppo_epochs`` is not a positive int, ``drop_reasons``
            disagrees with the dropped rows, ``dropped`` or
            ``dropped_from_same_reward_groups``, ``padding_indices`` or
            ``spare_padding_indices`` is not a collection of distinct ints, not bools, a
            padding row is not kept, every kept row is padding, or a spare padding row is
            kept or outside the batch.
    """

    kept_indices: tuple[int, ...]
    num_rows: int
    mini_batch_size: int
    max_ppo_update_times: int | None
    dropped: Mapping[str, int]
    dropped_from_same_reward_groups: int = 0
    drop_reasons: Mapping[int, DropReason] = dataclasses.field(default_factory=dict)
    ppo_epochs: int = 1
    padding_indices: tuple[int, ...] = ()
    spare_padding_indices: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "kept_indices", tuple(self.kept_indices))
        _check_padding(self)
        object.__setattr__(self, "dropped", types.MappingProxyType(dict(self.dropped)))
        reasons = types.MappingProxyType(dict(sorted(self.drop_reasons.items())))
        object.__setattr__(self, "drop_reasons", reasons)
        object.__setattr__(self, "ppo_epochs", as_count(self.ppo_epochs, "ppo_epochs"))
        _check_reasons(self)

    @property
    def num_trained_rows(self) -> int:
        """The number of rows trained on, the divisor of the per-rollout normalization.

        The kept rows that are not padding.
        """
        return len(self.kept_indices) - len(self.padding_indices)

    @property
    def update_units_per_epoch(self) -> int:
        """The PPO mini-batch updates per epoch: the kept rows, padding included, per mini-batch.

        ``(num_trained_rows + len(padding_indices)) // mini_batch_size``: 0 for a plan
        without trained rows, which keeps no padding.
        """
        return len(self.kept_indices) // self.mini_batch_size

    @property
    def update_units(self) -> int:
        """The PPO mini-batch updates over all epochs: ``update_units_per_epoch * ppo_epochs``."""
        return self.update_units_per_epoch * self.ppo_epochs

    @property
    def dropped_indices(self) -> tuple[int, ...]:
        """Original indices of the dropped rows, ascending: the keys of ``drop_reasons``.

        The rows neither kept nor spare padding.
        """
        mask = np.ones(self.num_rows, dtype=bool)
        mask[list(self.kept_indices)] = False
        mask[list(self.spare_padding_indices)] = False
        return tuple(np.flatnonzero(mask).tolist())

    def __str__(self) -> str:
        units = self.update_units_per_epoch
        epochs = (
            f", {self.update_units} over {self.ppo_epochs} epochs" if self.ppo_epochs > 1 else ""
        )
        dropped = self.dropped
        padding = f" + {len(self.padding_indices)} padding" if self.padding_indices else ""
        lines = [
            f"RetentionPlan: {self.num_rows} rows -> {self.num_trained_rows} trained{padding}, "
            f"{units} update unit{'' if units == 1 else 's'} per epoch{epochs}",
            f"  dropped: {dropped['marked']} marked, {dropped['mini_batch_floor']} at the "
            f"mini-batch floor, {dropped['max_ppo_update_times']} at the update cap",
        ]
        if self.spare_padding_indices:
            spare = len(self.spare_padding_indices)
            lines.append(
                f"  padding left out: {spare} row{'' if spare == 1 else 's'}, "
                "not needed for whole mini-batches"
            )
        if self.dropped_from_same_reward_groups:
            lines.append(
                f"  same-reward groups first: {self.dropped_from_same_reward_groups} of the "
                "floor and cap drops"
            )
        return "\n".join(lines)


def _check_padding(plan: RetentionPlan) -> None:
    """Normalize the plan's padding rows, raising unless they are kept and spare as defined."""
    padding = _as_rows(plan.padding_indices, "padding_indices")
    spare = _as_rows(plan.spare_padding_indices, "spare_padding_indices")
    object.__setattr__(plan, "padding_indices", padding)
    object.__setattr__(plan, "spare_padding_indices", spare)
    kept = set(plan.kept_indices)
    stray = sorted(set(padding) - kept)
    if stray:
        msg = f"padding_indices must be kept rows: row {stray[0]!r} is not in kept_indices"
        raise RolloutNormError(msg)
    if padding and len(padding) == len(kept):
        msg = (
            "padding_indices must leave a trained row: a plan without trained rows keeps no "
            f"padding, got all {len(padding)} kept rows as padding"
        )
        raise RolloutNormError(msg)
    for row in spare:
        if row in kept or not 0 <= row < plan.num_rows:
            where = "a kept row" if row in kept else f"outside the {plan.num_rows} rows"
            msg = f"spare_padding_indices must be rows left out, got row {row}, {where}"
            raise RolloutNormError(msg)


def _as_rows(rows: object, name: str) -> tuple[int, ...]:
    """``rows`` as distinct Python ints, ascending, or an error naming ``name``."""
    if isinstance(rows, str | bytes | torch.Tensor) or not isinstance(
        rows, Sequence | np.ndarray | set | frozenset
    ):
        msg = f"{name} must be a sequence of row indices, got {type(rows).__name__} {rows!r}"
        raise RolloutNormError(msg)
    for row in rows:
        if isinstance(row, bool | np.bool_) or not isinstance(row, numbers.Integral):
            msg = f"{name} must hold only int row indices, got {type(row).__name__} {row!r}"
            raise RolloutNormError(msg)
    ints = sorted(int(row) for row in rows)
    repeated = [row for row, after in itertools.pairwise(ints) if row == after]
    if repeated:
        msg = f"{name} must not repeat a row, got row {repeated[0]} more than once"
        raise RolloutNormError(msg)
    return tuple(ints)


def _check_reasons(plan: RetentionPlan) -> None:
    """Raise unless the plan's drop reasons agree with its dropped rows and its counts."""
    reasons, dropped = plan.drop_reasons, plan.dropped_indices
    if tuple(reasons) != dropped:
        extra = sorted(set(reasons) - set(dropped))
        row = (extra or sorted(set(dropped) - set(reasons)))[0]
        fault = "is not a dropped row" if extra else "is dropped without a reason"
        msg = f"drop_reasons must hold one reason per dropped row: row {row!r} {fault}"
        raise RolloutNormError(msg)
    stages = dict.fromkeys(_STAGES, 0)
    same_reward = 0
    for row, reason in reasons.items():
        if not isinstance(reason, DropReason):
            msg = f"drop_reasons[{row}] must be a DropReason, got {type(reason).__name__}"
            raise RolloutNormError(msg)
        stages[reason.stage] += 1
        same_reward += reason.same_reward_group
    if stages != dict(plan.dropped):
        msg = (
            f"drop_reasons must agree with dropped: they count {stages}, "
            f"dropped is {dict(plan.dropped)}"
        )
        raise RolloutNormError(msg)
    field = plan.dropped_from_same_reward_groups
    if same_reward != field:
        msg = (
            f"drop_reasons must agree with dropped_from_same_reward_groups: they count "
            f"{same_reward} same-reward drops, the field is {field!r}"
        )
        raise RolloutNormError(msg)


def _as_row_array(values: object, name: str, num_rows: int) -> np.ndarray:
    """Return ``values`` as a 1-D array of ``num_rows`` entries."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError):
        msg = f"{name} must be a sequence with one entry per row ({num_rows})"
        raise RolloutNormError(msg) from None
    if array.ndim != 1 or array.shape[0] != num_rows:
        msg = f"{name} must be 1-D with one entry per row ({num_rows}), got shape {array.shape}"
        raise RolloutNormError(msg)
    return array


def _same_reward(codes: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """Per row, whether its group is a same-reward group, judged over the rows given.

    Every reward of such a group lies within `torch.allclose`'s default tolerance of the
    group's first: ``|reward - first| <= 1e-8 + 1e-5 * |first|``, as the trainer decides.
    """
    _, first_rows = np.unique(codes, return_index=True)
    first_reward = np.zeros(codes.max(initial=-1) + 1)
    first_reward[codes[first_rows]] = rewards[first_rows]
    close = np.isclose(rewards, first_reward[codes], rtol=_RTOL, atol=_ATOL)
    strays = np.bincount(codes, weights=~close, minlength=len(first_reward))
    return strays[codes] == 0


def plan_retention(
    num_rows: int,
    *,
    mini_batch_size: int,
    max_ppo_update_times: int | None = None,
    drop: Sequence[bool] | np.ndarray | None = None,
    group_ids: Sequence[Hashable] | np.ndarray | None = None,
    rewards: Sequence[float] | np.ndarray | None = None,
    seed: int = 0,
    ppo_epochs: int = 1,
    padding: Sequence[bool] | np.ndarray | None = None,
) -> RetentionPlan:
    """Decide which rows a PPO update trains on.

    Marked rows go first (``"marked"``). The remaining candidates are floored to a whole
    number of mini-batches (``"mini_batch_floor"``), then capped at
    ``mini_batch_size * max_ppo_update_times`` rows (``"max_ppo_update_times"``). These
    counts depend only on the sizes; which candidates go is drawn at random, one stage at a
    time from one generator seeded with ``seed``: the floor's rows first, then the cap's
    among the rows the floor kept, each stage taking rows of same-reward groups first, then
    other candidates. So every dropped row has one `DropReason`, and adding a cap does
    not change which rows the floor drops. No candidate, or fewer candidates and padding
    rows together than one mini-batch, give a plan that keeps no row:
    ``num_trained_rows == 0`` and ``update_units == 0``.

    Padding rows (``padding``), which a trainer adds only so that its batch divides into
    ranks and mini-batches, count towards the whole mini-batches: the floor and the cap
    apply to the candidates and the padding rows together. That many rows are kept,
    candidates first: a candidate is drawn only if the candidates alone are more, and then
    no padding row is kept; otherwise every candidate is kept, with the first padding rows
    (in row order) that the kept total still needs. So padding never takes a candidate's
    place. The padding rows not needed are left out (``spare_padding_indices``): no
    drop reason, in no ``dropped`` count. Padding rows are never trained rows, so
    ``num_trained_rows`` leaves them out, and their group ids and rewards are not read:
    a padding row's reward need not be finite, only of the argument's type.

    A same-reward group carries no GRPO signal: it is decided as the trainer decides it,
    over the group's candidate rows (a lone row included), every reward being within
    ``torch.allclose``'s default tolerance (``rtol=1e-5``, ``atol=1e-8``) of the group's
    first candidate reward, that is ``|reward - first| <= 1e-8 + 1e-5 * |first|``.

    Args:
        num_rows: Rows in the rollout batch, a non-negative int.
        mini_batch_size: Rows per PPO mini-batch, ``ppo_mini_batch_size * rollout.n``.
        max_ppo_update_times: Cap on mini-batch updates per epoch, or ``None`` for no cap.
        drop: Per row, whether it is marked for dropping (overlong, failed): booleans, or
            the ints 0 and 1. ``None`` marks no row.
        group_ids: Per row, the prompt or GRPO group id, under the rules of rollout ids:
            a list, tuple, numpy array or 1-D integer tensor of hashable ids all of one
            kind (str, int...), never bools or floats. Needs ``rewards``.
        rewards: Per row, the finite sequence-level reward. Needs ``group_ids``.
        seed: Non-negative seed for ``numpy.random.default_rng``; one seed, one plan.
        ppo_epochs: Passes over the trained rows in the step, a positive int; it sets
            ``update_units`` and no row.
        padding: Per row, whether it is padding, in the forms ``drop`` takes; a padding row
            cannot also be marked. ``None``: no row is padding.

    Returns:
        The plan, with kept indices ascending.

    Raises:
        RolloutNormError: If an argument has the wrong type, sign or length, ``drop`` or
            ``padding`` holds something other than booleans, a row is both marked and
            padding, a reward of a row that is not padding is not a finite number, a group
            id of such a row is unhashable, a bool or a float, those group ids mix kinds, or
            only one of ``group_ids`` and ``rewards`` is given.

    Examples:
        Two real rows and two padding rows make one mini-batch of four:

        >>> padding = [False, False, True, True]
        >>> plan = plan_retention(4, mini_batch_size=4, padding=padding)
        >>> plan.num_trained_rows, plan.update_units, plan.padding_indices
        (2, 1, (2, 3))
        >>> print(plan)
        RetentionPlan: 4 rows -> 2 trained + 2 padding, 1 update unit per epoch
          dropped: 0 marked, 0 at the mini-batch floor, 0 at the update cap

        Five real rows need no padding to fill one mini-batch of four:

        >>> print(plan_retention(7, mini_batch_size=4, padding=[0] * 5 + [1] * 2))
        RetentionPlan: 7 rows -> 4 trained, 1 update unit per epoch
          dropped: 0 marked, 1 at the mini-batch floor, 0 at the update cap
          padding left out: 2 rows, not needed for whole mini-batches
    """
    num_rows = as_count(num_rows, "num_rows", minimum=0)
    mini_batch_size = as_count(mini_batch_size, "mini_batch_size")
    if max_ppo_update_times is not None:
        max_ppo_update_times = as_count(max_ppo_update_times, "max_ppo_update_times")
    seed = as_count(seed, "seed", minimum=0)
    ppo_epochs = as_count(ppo_epochs, "ppo_epochs")
    if (group_ids is None) != (rewards is None):
        given, missing = ("group_ids", "rewards") if rewards is None else ("rewards", "group_ids")
        msg = f"{missing} is required when {given} is given"
        raise RolloutNormError(msg)

    marked = _flags(drop, "drop", num_rows)
    padded = _flags(padding, "padding", num_rows)
    both = np.flatnonzero(marked & padded)
    if both.size:
        msg = f"drop and padding must not both mark a row: row {both[0]} is marked and padding"
        raise RolloutNormError(msg)
    num_padding = int(padded.sum())
    candidates = np.flatnonzero(~marked & ~padded)

    same_reward = np.zeros(num_rows, dtype=bool)
    if group_ids is not None and rewards is not None:
        values = _as_row_array(rewards, "rewards", num_rows)
        if values.size and (
            values.dtype.kind not in "biuf" or not np.isfinite(values[~padded]).all()
        ):
            msg = "rewards must hold only finite real numbers"
            raise RolloutNormError(msg)
        ids = encode_ids(
            _unread_padding(group_ids, padded), name="group_ids", num_rows=num_rows, device=_HOST
        )
        same_reward[candidates] = _same_reward(
            ids.codes.numpy()[candidates], values[candidates].astype(float)
        )

    # The rows kept, padding included: the floor and the cap count whole mini-batches.
    floor_target = (len(candidates) + num_padding) // mini_batch_size * mini_batch_size
    target = floor_target
    if max_ppo_update_times is not None:
        target = min(floor_target, mini_batch_size * max_ppo_update_times)
    # Candidates fill the kept rows first; padding only what they leave, if they are kept.
    floor_real = min(len(candidates), floor_target)
    kept_real = min(len(candidates), target)
    padding_rows = np.flatnonzero(padded)
    needed = target - kept_real if kept_real else 0

    rng = np.random.default_rng(seed)
    # Per row, the index in _STAGES of the stage that dropped it, or -1 for a kept row.
    stage = np.where(marked, 0, -1).astype(np.int8)
    stage[_draw(rng, candidates, same_reward, len(candidates) - floor_real)] = 1
    floor_kept = np.flatnonzero((stage < 0) & ~padded)
    stage[_draw(rng, floor_kept, same_reward, floor_real - kept_real)] = 2
    kept = stage < 0
    kept[padding_rows[needed:]] = False
    rows = np.flatnonzero(stage >= 0)
    codes, same = stage[rows].tolist(), same_reward[rows].tolist()
    counts = (int(marked.sum()), len(candidates) - floor_real, floor_real - kept_real)
    return RetentionPlan(
        kept_indices=tuple(np.flatnonzero(kept).tolist()),
        num_rows=num_rows,
        mini_batch_size=mini_batch_size,
        max_ppo_update_times=max_ppo_update_times,
        dropped=dict(zip(_STAGES, counts, strict=True)),
        dropped_from_same_reward_groups=sum(same),
        drop_reasons={
            row: _REASON_TABLE[_STAGES[code], flag]
            for row, code, flag in zip(rows.tolist(), codes, same, strict=True)
        },
        ppo_epochs=ppo_epochs,
        padding_indices=tuple(padding_rows[:needed].tolist()),
        spare_padding_indices=tuple(padding_rows[needed:].tolist()),
    )


def _unread_padding(
    group_ids: Sequence[Hashable] | np.ndarray, padded: np.ndarray
) -> Sequence[Hashable] | np.ndarray:
    """The group ids, padding rows' replaced by another row's: padding ids are never read.

    Integer arrays and tensors are valid whatever a row holds, and pass as given.
    """
    if not padded.any() or isinstance(group_ids, torch.Tensor):
        return group_ids
    if isinstance(group_ids, np.ndarray):
        if group_ids.ndim != 1 or group_ids.dtype.kind not in "USO":
            return group_ids
        group_ids = group_ids.tolist()
    if (
        isinstance(group_ids, str | bytes)
        or not isinstance(group_ids, Sequence)
        or len(group_ids) != len(padded)
    ):
        return group_ids
    real = np.flatnonzero(~padded)
    stand_in = group_ids[int(real[0])] if len(real) else 0
    ids = list(group_ids)
    for row in np.flatnonzero(padded).tolist():
        ids[row] = stand_in
    return ids


def _flags(values: Sequence[bool] | np.ndarray | None, name: str, num_rows: int) -> np.ndarray:
    """Per row, the flag of ``values`` (booleans or the ints 0 and 1); all False for None."""
    if values is None:
        return np.zeros(num_rows, dtype=bool)
    flags = _as_row_array(values, name, num_rows)
    if flags.size and not (
        flags.dtype == bool or (flags.dtype.kind in "iu" and np.isin(flags, (0, 1)).all())
    ):
        msg = f"{name} must hold only booleans or the ints 0 and 1, got dtype {flags.dtype}"
        raise RolloutNormError(msg)
    return flags.astype(bool)


def _draw(
    rng: np.random.Generator, pool: np.ndarray, same_reward: np.ndarray, size: int
) -> np.ndarray:
    """Draw ``size`` rows of ``pool`` at random, rows of same-reward groups first."""
    first_tier = pool[same_reward[pool]]
    from_same_reward = min(size, len(first_tier))
    drawn = first_tier[rng.choice(len(first_tier), size=from_same_reward, replace=False)]
    if size == from_same_reward:
        return drawn
    second_tier = pool[~same_reward[pool]]
    rest = second_tier[rng.choice(len(second_tier), size=size - from_same_reward, replace=False)]
    return np.concatenate([drawn, rest])
