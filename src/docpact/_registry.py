# SPDX-License-Identifier: MIT
"""The one registry of contract kinds and their rules, from which `CODES` and the help come.

The CLI's help and the table of rules on the docs page come from here too (a test keeps the
page and the registry equal).

To add a rule, write its check in the module of its kind (or a shared one), add one `Rule` to
that kind's `rules`, and test it; a new kind is one module with a `Kind`, listed in `KINDS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docpact._claims_kind import CLAIMS
from docpact._config_defaults import CONFIG_DEFAULTS
from docpact._coverage import COVERAGE_RULES
from docpact._divisor import DIVISOR
from docpact._names import NAMES
from docpact._rule import Kind, Rule, Subject

if TYPE_CHECKING:
    from griffe import Module

    from docpact._config import Config, Contract
    from docpact._findings import Finding

__all__ = ["CODES", "KINDS", "RULES", "check_contract"]

KINDS: dict[str, Kind] = {kind.name: kind for kind in (DIVISOR, NAMES, CONFIG_DEFAULTS, CLAIMS)}
"""Every kind of contract, by the value of its `kind` key."""

_BY_CODE = {rule.code: rule for kind in KINDS.values() for rule in kind.rules}
_BY_CODE.update({rule.code: rule for rule in COVERAGE_RULES})
RULES: tuple[Rule, ...] = tuple(_BY_CODE[code] for code in sorted(_BY_CODE))
"""Every rule once, by code, whichever kinds share it, and `docpact coverage`'s."""

CODES: dict[str, str] = {rule.code: rule.summary for rule in RULES}
"""Every finding code, with what the rule under that code requires."""


def check_contract(contract: Contract, *, config: Config, package: Module | None) -> list[Finding]:
    """Run the rules of a contract's kind, in order.

    A rule that needs the object is skipped when it is missing, has no docstring or, for a
    divisor contract, is not a function: DP001 reports those.

    Args:
        contract: The contract.
        config: The project's configuration.
        package: The contract's top-level package, completely loaded by griffe, for kinds
            that name an object; `None` for the others.

    Returns:
        The findings, possibly none.
    """
    subject = Subject(contract, config, KINDS[contract.kind], package)
    findings: list[Finding] = []
    for rule in subject.kind.rules:
        if not rule.needs_object or subject.usable:
            findings += rule.check(subject)
    return findings
