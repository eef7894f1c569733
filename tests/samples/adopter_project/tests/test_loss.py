# SPDX-License-Identifier: MIT
"""The adopter's properties: plain pytest, no docpact import."""

import pytest

from agentrl.loss import per_rollout_mean


@pytest.mark.docpact_claim(
    "mass-per-rollout",
)
def test_each_rollout_carries_one_over_the_trained_rows():
    ids = ["a", "a", "b"]
    scaled = per_rollout_mean([1.0, 1.0, 1.0], ids, [3, 1, 2], num_trained_rows=3)
    tokens = [3, 1, 2]
    mass = {rid: 0.0 for rid in ids}
    for rid, share, count in zip(ids, scaled, tokens, strict=True):
        mass[rid] += share * count
    assert mass == pytest.approx({"a": 1 / 3, "b": 1 / 3})
