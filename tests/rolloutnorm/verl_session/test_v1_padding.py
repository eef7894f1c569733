# SPDX-License-Identifier: MIT
"""verl V1's own padding on a batch, then retain_and_normalize with the padding marked."""

from __future__ import annotations

import pytest
import v1_padding

SPEC = v1_padding.SPEC


def test_v1_pads_to_a_multiple_of_the_ranks_and_the_mini_batch_with_rows_without_tokens():
    """Two synthetic rows, tagged is_padding, with one response token that the mask leaves out."""
    assert [v1_padding.required_multiple(SPEC, size) for size in (1, 2, 8)] == [4, 4, 8]
    padded, extra = v1_padding.pad(SPEC, dp_size=2)
    assert (len(padded), len(extra)) == (12, 2)
    assert [bool(tag.get("is_padding")) for tag in padded.tags] == [False] * 10 + [True] * 2
    for sample in extra:
        assert sample["responses"].numel() == 1
        assert int(sample["response_mask"].sum()) == 0


def test_the_rollout_id_of_a_v1_row_is_its_key_without_the_turn():
    """V1's keys are {uid}_{session_id}_{index}: an episode's turns share uid and session."""
    padded, _ = v1_padding.pad(SPEC, dp_size=2)
    ids = [v1_padding.rollout_id(key) for key in padded.keys[:10]]
    assert ids == [f"p{rollout}_0" for rollout in SPEC.rollout_ids]
    assert len(set(map(v1_padding.rollout_id, padded.keys[10:]))) == 2  # a session each


def _v1_batch(count_padding: bool):
    return v1_padding.padded_rows(SPEC, dp_size=2, mark_padding=not count_padding).trained


def test_with_the_padding_marked_its_rows_are_kept_with_mass_0_and_not_counted():
    """Marked, V1's padding rows stay (12 rows, 3 updates), get 0 and leave 1/10 per rollout."""
    trained = _v1_batch(count_padding=False)
    assert trained.plan.num_trained_rows == 10
    assert trained.plan.update_units == 3
    assert trained.plan.padding_indices == (10, 11)
    assert not trained.advantages[10:].any()
    masses = [rollout.mass for rollout in trained.report().rollouts]
    assert masses == pytest.approx([1 / 10] * 6)


def test_unmarked_the_padding_rows_dilute_every_rollout():
    """Counted as trained rows, V1's two padding rows leave each rollout only 1/12."""
    trained = _v1_batch(count_padding=True)
    assert trained.plan.num_trained_rows == 12
    masses = [rollout.mass for rollout in trained.report().rollouts if rollout.tokens]
    assert masses == pytest.approx([1 / 12] * 6)
