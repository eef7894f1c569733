# SPDX-License-Identifier: MIT
"""The rules of `docpact impact`, which lists what a change puts at risk rather than checks.

`docpact._impact` reports under them; the registry lists them with the kinds' rules.
"""

from __future__ import annotations

from docpact._model.rules import Rule

__all__ = ["CLAIM_AT_RISK", "CONTRACT_AT_RISK", "IMPACT_RULES", "SUPPRESSION_AT_RISK"]

CLAIM_AT_RISK = Rule(
    "DP101",
    "a claim whose text, property or code under test a change touches: read it again",
    "the claim's marker",
    None,  # docpact impact reads a diff, not a contract
)
CONTRACT_AT_RISK = Rule(
    "DP102",
    "a contract whose object (its code and docstring), file or docs section a change touches",
    "the contract's table in pyproject.toml",
    None,
)
SUPPRESSION_AT_RISK = Rule(
    "DP103",
    "a `not-a-claim` suppression whose block a change touches",
    "the suppression",
    None,
)
IMPACT_RULES = (CLAIM_AT_RISK, CONTRACT_AT_RISK, SUPPRESSION_AT_RISK)
"""The rules of `docpact impact`, by code."""
