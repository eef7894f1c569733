# SPDX-License-Identifier: MIT
"""The rules of `docpact coverage`, which checks packages rather than contracts.

`docpact._coverage` runs them; the registry lists them with the kinds' rules.
"""

from __future__ import annotations

from docpact._model.rules import Rule

__all__ = ["COVERAGE_CODES", "COVERAGE_RULES", "FENCES", "UNCOVERED"]

UNCOVERED = Rule(
    "DP010",
    "every public object of a covered package is exercised by an executed example: a "
    "doctest in its docstring, or an example that a declared runner runs and that refers "
    "to it",
    "the object's definition",
    None,  # check_coverage checks packages, not contracts
)
FENCES = Rule(
    "DP011",
    "no docstring of a covered package holds a python fence that no declared example runner runs",
    "the fence",
    None,  # check_coverage checks packages, not contracts
)
COVERAGE_RULES = (UNCOVERED, FENCES)
"""The rules of `docpact coverage`, by code."""
COVERAGE_CODES = frozenset(rule.code for rule in COVERAGE_RULES)
"""The codes `docpact coverage --select` and `--ignore` choose among."""
