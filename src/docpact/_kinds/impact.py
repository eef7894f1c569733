# SPDX-License-Identifier: MIT
"""The rule of `docpact impact` for a contract, which lists what a change puts at risk.

`docpact._impact` reports under it; the registry lists it with the kinds' rules. A kind
reports what else of its contracts a change puts at risk under rules of its own
(`Kind.impact`): the claims' are DP101 and DP103.
"""

from __future__ import annotations

from docpact._model.rules import Rule

__all__ = ["CONTRACT_AT_RISK"]

CONTRACT_AT_RISK = Rule(
    "DP102",
    "a contract whose object (its code and docstring), file or docs section a change touches",
    "the contract's table in pyproject.toml",
    None,
)
