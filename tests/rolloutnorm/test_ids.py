# SPDX-License-Identifier: MIT
"""One id encoder: the same rules for rollout ids and group ids, in every entry point."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rolloutnorm import (
    RolloutNormError,
    _ids,
    check_batch,
    load_config,
    normalize_advantages_by_rollout,
    plan_retention,
    retain_and_normalize,
    rollout_mass_report,
)
from rolloutnorm._ids import IdCodes, encode_ids

_CPU = torch.device("cpu")
_CONFIG = load_config(overrides={"actor_rollout_ref.actor.ppo_mini_batch_size": 1})


def _through_normalize(ids: object) -> None:
    normalize_advantages_by_rollout(torch.ones(3, 2), torch.ones(3, 2), ids, num_trained_rows=3)


def _through_check_batch(ids: object) -> None:
    check_batch(torch.ones(3, 2), torch.ones(3, 2), ids)


def _through_report(ids: object) -> None:
    rollout_mass_report(torch.ones(3, 2), ids, num_trained_rows=3)


def _through_step(ids: object) -> None:
    retain_and_normalize(torch.ones(3, 2), torch.ones(3, 2), ids, config=_CONFIG)


def _through_retention(ids: object) -> None:
    plan_retention(3, mini_batch_size=1, group_ids=ids, rewards=[0.0, 1.0, 0.0])


def _through_step_groups(ids: object) -> None:
    retain_and_normalize(
        torch.ones(3, 2),
        torch.ones(3, 2),
        ["a", "b", "c"],
        config=_CONFIG,
        group_ids=ids,
        rewards=[0.0, 1.0, 0.0],
    )


# Each entry point, and the argument the ids are passed as.
_ENTRY_POINTS = {
    "normalize": (_through_normalize, "rollout_ids"),
    "check_batch": (_through_check_batch, "rollout_ids"),
    "report": (_through_report, "rollout_ids"),
    "step": (_through_step, "rollout_ids"),
    "retention": (_through_retention, "group_ids"),
    "step-groups": (_through_step_groups, "group_ids"),
}

# Bad ids, and the message with NAME for the argument.
_BAD_IDS = {
    "int-and-str": ([1, "1", 2], "NAME must all be of one kind, got int, str"),
    "int-and-bool": ([1, True, 2], "NAME must hold str or int ids, got bool ids"),
    "int-and-float": ([1, 1.0, 2], "NAME must hold str or int ids, got float ids"),
    "bools": ([True, False, True], "NAME must hold str or int ids, got bool ids"),
    "numpy-bools": (
        np.array([True, False, True]),
        "NAME must hold str or int ids, got an array of dtype bool",
    ),
    "str-and-bytes": (["a", b"a", "b"], "NAME must all be of one kind, got bytes, str"),
    "tuple-int-and-bool": (
        [(0, 1), (0, True), (0, 2)],
        "NAME must hold str or int ids, got tuple ids holding bool",
    ),
    "tuple-kinds": (
        [("a", 1), ("a", "1"), ("b", 2)],
        "NAME must all be of one kind, got tuple(str, int), tuple(str, str)",
    ),
    "tuple-and-int": ([(1,), 1, 2], "NAME must all be of one kind, got int, tuple(int)"),
    "unhashable": ([["a"], ["b"], ["c"]], "NAME[0] is unhashable: list"),
    "float-tensor": (
        torch.tensor([1.0, 2.0, 3.0]),
        "NAME must be an integer tensor, got dtype torch.float32",
    ),
    "bool-tensor": (
        torch.tensor([True, False, True]),
        "NAME must be an integer tensor, got dtype torch.bool",
    ),
    "scalar-tensors": (
        list(torch.tensor([7, 7, 9])),
        "NAME must hold str or int ids, got Tensor ids; "
        "pass one 1-D integer tensor, or its .tolist()",
    ),
    "str": ("abc", "NAME must be a list, tuple, numpy array or 1-D integer tensor, got str"),
    "too-few": (["a", "b"], "NAME must hold one id per row: got 2 ids for 3 rows"),
    "2-d-array": (
        np.zeros((3, 1), dtype=np.int64),
        "NAME must be 1-D, got an array of shape (3, 1)",
    ),
}


@pytest.mark.parametrize("entry", list(_ENTRY_POINTS))
@pytest.mark.parametrize("bad", list(_BAD_IDS))
def test_every_entry_point_applies_the_same_id_rules(entry: str, bad: str) -> None:
    """The normalization, the report, the step and the retention reject bad ids in one wording."""
    call, name = _ENTRY_POINTS[entry]
    ids, message = _BAD_IDS[bad]
    with pytest.raises(RolloutNormError, match=f"^{re.escape(message.replace('NAME', name))}$"):
        call(ids)


_ONE_KIND = st.one_of(
    st.lists(st.integers(-3, 3), min_size=1, max_size=12),
    st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=12),
    st.lists(st.tuples(st.sampled_from("xy"), st.integers(0, 2)), min_size=1, max_size=12),
)


@settings(deadline=None, max_examples=150)
@given(_ONE_KIND, st.sampled_from(["list", "tuple", "numpy-object"]))
def test_codes_group_exactly_the_equal_ids(ids: list, container: str) -> None:
    """Ids of one kind get one code per distinct id: rows share a code iff their ids are equal."""
    given_ids: object = ids
    if container == "tuple":
        given_ids = tuple(ids)
    elif container == "numpy-object":
        given_ids = np.empty(len(ids), dtype=object)
        given_ids[:] = ids
    encoded = encode_ids(given_ids, num_rows=len(ids), device=_CPU)
    codes = encoded.codes.tolist()
    assert all(0 <= code < encoded.size for code in codes)
    for i, first in enumerate(ids):
        for j, second in enumerate(ids):
            assert (codes[i] == codes[j]) == (first == second)


_OTHER_KINDS = st.sampled_from([True, False, 1.0, 0.0, "1", b"1", (1,), np.float64(1.0)])


@settings(deadline=None, max_examples=150)
@given(
    st.lists(st.integers(0, 2), min_size=1, max_size=8),
    _OTHER_KINDS,
    st.integers(0, 8),
    st.sampled_from(["rollout_ids", "group_ids"]),
)
def test_ints_never_group_with_another_kind(ints: list, other, position: int, name: str) -> None:
    """1, True, 1.0, "1" and (1,) never group with 1: mixing raises, naming the argument."""
    ids = [*ints]
    ids.insert(min(position, len(ids)), other)
    with pytest.raises(RolloutNormError, match=f"^{name} must "):
        encode_ids(ids, name=name, num_rows=len(ids), device=_CPU)


def test_encoded_codes_pass_through() -> None:
    """Codes already encoded come back as they are, checked for length and moved to the device."""
    encoded = encode_ids(["a", "b", "a"], num_rows=3, device=_CPU)
    again = encode_ids(encoded, num_rows=3, device=_CPU)
    assert again.size == encoded.size
    assert torch.equal(again.codes, encoded.codes)
    kept = encoded.take(torch.tensor([0, 2]))
    assert isinstance(kept, IdCodes)
    assert kept.codes.tolist() == [0, 0]
    assert kept.size == 3
    with pytest.raises(
        RolloutNormError, match=r"^rollout_ids must hold one id per row: got 3 ids for 2 rows$"
    ):
        encode_ids(encoded, num_rows=2, device=_CPU)


def _count_encodings(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count the encodings that run, by the argument they encode."""
    counts: Counter[str] = Counter()
    encode_sequence, encode_tensor = _ids._encode_sequence, _ids._encode_tensor

    def counted_sequence(ids, name):
        counts[name] += 1
        return encode_sequence(ids, name)

    def counted_tensor(ids, *, name, **kwargs):
        counts[name] += 1
        return encode_tensor(ids, name=name, **kwargs)

    monkeypatch.setattr(_ids, "_encode_sequence", counted_sequence)
    monkeypatch.setattr(_ids, "_encode_tensor", counted_tensor)
    return counts


@pytest.mark.parametrize(
    "ids", [["a", "b", "a", "c"], torch.tensor([4, 5, 4, 6])], ids=["str", "tensor"]
)
def test_step_encodes_the_rollout_ids_once(monkeypatch: pytest.MonkeyPatch, ids: object) -> None:
    """retain_and_normalize encodes the rollout ids once, and the group ids once."""
    counts = _count_encodings(monkeypatch)
    config = load_config(overrides={"actor_rollout_ref.actor.ppo_mini_batch_size": 3})
    batch = retain_and_normalize(
        torch.ones(4, 2),
        torch.ones(4, 2),
        ids,
        config=config,
        group_ids=["g", "g", "h", "h"],
        rewards=[1.0, 1.0, 0.0, 1.0],
    )
    assert counts == {"rollout_ids": 1, "group_ids": 1}
    assert batch.plan.num_trained_rows == 3


def test_report_encodes_the_rollout_ids_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """rollout_mass_report encodes once, for the normalization and its grouping alike."""
    counts = _count_encodings(monkeypatch)
    report = rollout_mass_report(torch.ones(3, 2), ["a", "b", "a"], num_trained_rows=3)
    assert counts == {"rollout_ids": 1}
    assert [(r.rollout_id, r.rows, r.tokens) for r in report.rollouts] == [("a", 2, 4), ("b", 1, 2)]


def test_step_with_encoded_ids_equals_the_normalization_of_the_kept_rows() -> None:
    """The kept rows' codes, taken from the whole batch's, normalize exactly as their ids do."""
    generator = torch.Generator().manual_seed(3)
    advantages = torch.randn(7, 5, generator=generator)
    mask = (torch.rand(7, 5, generator=generator) < 0.6).to(torch.int64)
    ids = ["a", "b", "a", "c", "b", "d", "a"]
    config = load_config(overrides={"actor_rollout_ref.actor.ppo_mini_batch_size": 2})
    batch = retain_and_normalize(advantages, mask, ids, config=config, drop=[0, 0, 1, 0, 0, 0, 0])
    kept = list(batch.plan.kept_indices)
    expected = normalize_advantages_by_rollout(
        advantages[kept], mask[kept], [ids[i] for i in kept], num_trained_rows=len(kept)
    )
    assert torch.equal(batch.advantages, expected)


def test_tensor_group_ids_group_like_a_list() -> None:
    """An integer tensor of group ids groups rows as the same ids in a list do."""
    rewards = [1.0, 1.0, 0.0, 1.0, 0.5, 0.5]
    from_list = plan_retention(6, mini_batch_size=4, group_ids=[0, 0, 1, 1, 2, 2], rewards=rewards)
    from_tensor = plan_retention(
        6, mini_batch_size=4, group_ids=torch.tensor([0, 0, 1, 1, 2, 2]), rewards=rewards
    )
    assert from_tensor == from_list
    assert from_list.dropped_from_same_reward_groups == 2
