# SPDX-License-Identifier: MIT
"""What a change puts at risk of a claims contract: its claims and its suppressions.

`docpact impact` calls it through the kind's `impact` hook. A claim depends on its block on
the page, its property's function with its decorators, and each unit of its code under test
that its review recorded (`docpact.claims._ledger`), where the unit is now (one no longer
found: its whole file); a suppression on its marker and block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docpact._model.rules import Rule

if TYPE_CHECKING:
    from collections.abc import Callable

    from docpact._model.config import Config
    from docpact._model.findings import Finding
    from docpact._model.rules import Span
    from docpact.claims._contract import ClaimsContract

__all__ = ["CLAIM_AT_RISK", "SUPPRESSION_AT_RISK", "impact"]

CLAIM_AT_RISK = Rule(
    "DP101",
    "a claim whose text, property or code under test a change touches: read it again",
    "the claim's marker",
    None,  # docpact impact reads a diff, not a contract
)
SUPPRESSION_AT_RISK = Rule(
    "DP103",
    "a `not-a-claim` suppression whose block a change touches",
    "the suppression",
    None,
)


def impact(
    contract: ClaimsContract, config: Config, touched: Callable[[list[Span]], str]
) -> list[Finding]:
    """The claims and suppressions of a claims contract that the changed lines touch.

    Args:
        contract: The claims contract.
        config: The project's configuration.
        touched: Names the spans the change touches (`docpact._model.rules.Impact`).

    Returns:
        One finding per claim or suppression at risk.
    """
    from docpact.claims._analysis import analyse
    from docpact.claims._units import Units

    analysis, units = analyse(contract, config, runs_vouch=True), Units(config.root)
    found = []
    for page, block in analysis.claims:
        spans: list[Span] = [("its text", page, block.line, block.last)]
        for binding in analysis.bound(block.argument):
            first = binding.start or binding.line
            spans.append((f"its property {binding.function}", binding.path, first, binding.end))
            review = analysis.review(block)
            for name in review.units if review is not None else ():
                unit = units.get(name)
                if unit is not None:
                    spans.append((name, unit.path, unit.first, unit.last))
                else:  # removed or renamed: its file, wherever the change touches it
                    spans.append((f"{name}, no longer found", name.rpartition("::")[0], 1, 0))
        if hits := touched(spans):
            message = f"claim {block.argument} depends on changed lines: {hits}"
            found.append(CLAIM_AT_RISK.finding(page, block.line, message))
    for page, read in analysis.read.items():
        for block in read.suppressions:
            if touched([("its block", page, block.line, block.last)]):
                message = f'not-a-claim "{block.argument}": its block changed ({page}:{block.line})'
                found.append(SUPPRESSION_AT_RISK.finding(page, block.line, message))
    return found
