# SPDX-License-Identifier: MIT
"""The one registry of contract kinds and their rules, from which `CODES` and the help come.

The CLI's help and the table of rules on the docs page come from here too (a test keeps the
page and the registry equal).

To add a rule, write its check in the module of its kind (or a shared one), add one `Rule` to
that kind's `rules`, and test it. A new kind is one module with a `Kind`: docpact's own are
listed in `KINDS`; another distribution registers its kinds under the `docpact.kinds` entry
point group, which is read only when a name or a code is not one of docpact's own (or
every kind is asked for, as by the help).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from docpact._kinds.codes import CODES_NAMED
from docpact._kinds.config_defaults import CONFIG_DEFAULTS
from docpact._kinds.coverage import COVERAGE_RULES
from docpact._kinds.divisor import DIVISOR
from docpact._kinds.impact import CONTRACT_AT_RISK
from docpact._kinds.kinds import KIND_NAMES
from docpact._kinds.names import NAMES
from docpact._model.errors import DocpactError
from docpact._model.rules import Kind, Rule, Subject

if TYPE_CHECKING:
    from griffe import Module

    from docpact._model.config import Config, Contract
    from docpact._model.findings import Finding

__all__ = [
    "CODES",
    "DEFAULT_KIND",
    "ENTRY_POINTS",
    "KINDS",
    "RULES",
    "all_kinds",
    "check_contract",
    "codes",
    "kind",
    "rules",
]

ENTRY_POINTS = "docpact.kinds"
"""The entry point group under which other distributions register kinds."""

KINDS: dict[str, Kind] = {
    kind.name: kind for kind in (DIVISOR, NAMES, CONFIG_DEFAULTS, KIND_NAMES, CODES_NAMED)
}
"""docpact's own kinds of contract, by the value of their `kind` key."""

DEFAULT_KIND = DIVISOR.name
"""The kind of a contract table without a `kind` key."""


def rules(kinds: dict[str, Kind]) -> tuple[Rule, ...]:
    """Every rule of some kinds once, by code, with `docpact coverage`'s and `impact`'s.

    A rule that several kinds share is listed once.

    Args:
        kinds: The kinds, from `all_kinds` or `KINDS`.

    Returns:
        The rules, sorted by code.
    """
    by_code = {rule.code: rule for kind in kinds.values() for rule in kind.rules}
    by_code.update({rule.code: rule for rule in (*COVERAGE_RULES, CONTRACT_AT_RISK)})
    return tuple(by_code[code] for code in sorted(by_code))


RULES: tuple[Rule, ...] = rules(KINDS)
"""Every rule of docpact's own kinds once, by code, whichever kinds share it, and
`docpact coverage`'s and `docpact impact`'s: not the rules of the kinds that distributions
register, the claims extension's among them (`rules(all_kinds())` has those)."""


def all_kinds() -> dict[str, Kind]:
    """Every kind: docpact's own, then those that installed distributions register.

    The entry points are read once per `sys.path` and the modification times of its
    folders (where a distribution installed later changes one): a run asks several times.

    Returns:
        Every kind, by name.

    Raises:
        DocpactError: When a registered kind cannot be imported, is not a `Kind`, or takes
            the name of another kind or a code of another rule; the message names the
            distribution.
    """
    key = tuple((folder, _modified(folder)) for folder in sys.path)
    if key not in _ALL_KINDS:
        _ALL_KINDS.clear()  # one `sys.path` at a time: a test that changes it reads them anew
        _ALL_KINDS[key] = _registered_kinds()
    return dict(_ALL_KINDS[key])


_ALL_KINDS: dict[tuple[tuple[str, int], ...], dict[str, Kind]] = {}


def _modified(folder: str) -> int:
    try:
        return os.stat(folder or ".").st_mtime_ns
    except (OSError, ValueError):
        return -1


def _registered_kinds() -> dict[str, Kind]:
    from importlib.metadata import entry_points  # only when a kind not docpact's is asked for

    kinds = dict(KINDS)
    owners = {rule.code: (rule, "docpact") for rule in RULES}
    for point in entry_points(group=ENTRY_POINTS):
        # entry_points() reads each point from a distribution's metadata: `dist` is always set.
        distribution = f"distribution {point.dist.name}"
        where = f"entry point {point.name} ({point.value}) of {distribution}"
        try:
            kind = point.load()
        except Exception as error:  # any failure of another distribution's import
            msg = f"error: docpact kind {where} cannot be imported: {type(error).__name__}: {error}"
            raise DocpactError(msg) from None
        if not isinstance(kind, Kind):
            msg = f"error: docpact kind {where} is a {type(kind).__name__}, not a docpact Kind"
            raise DocpactError(msg)
        if kind.name in kinds:
            msg = f"error: docpact kind {where} is named {kind.name!r}, which another kind is"
            raise DocpactError(msg)
        for rule in kind.rules:
            owner = owners.get(rule.code)
            if owner is not None and owner[0] is not rule:
                msg = (
                    f"error: docpact kind {where} defines code {rule.code}, which {owner[1]} "
                    "already defines: give the rule a code of its own"
                )
                raise DocpactError(msg)
            owners[rule.code] = (rule, distribution)
        kinds[kind.name] = kind
    return kinds


def kind(name: str) -> Kind | None:
    """The kind of a name: docpact's own, else one an installed distribution registers.

    Args:
        name: The value of a contract's `kind` key.

    Returns:
        The kind, or `None` when no kind has that name.

    Raises:
        DocpactError: When the registered kinds must be read and one of them is broken.
    """
    return KINDS.get(name) or all_kinds().get(name)


def codes(kinds: dict[str, Kind]) -> dict[str, str]:
    """Every finding code of some kinds and `docpact coverage`, with what its rule requires.

    Args:
        kinds: The kinds, from `all_kinds` or `KINDS`.

    Returns:
        The summaries, by code, sorted.
    """
    return {rule.code: rule.summary for rule in rules(kinds)}


CODES: dict[str, str] = codes(KINDS)
"""Every finding code of docpact's own rules, with what the rule under that code requires.

The codes of registered kinds, the claims extension's included, are not here: they are
known once the entry points are read, as `codes(all_kinds())` reads them. The help of
`docpact check`, its `--select` and `--ignore`, the rules of its JSON and SARIF documents
and the tables of the docs list those too."""


def check_contract(contract: Contract, *, config: Config, package: Module | None) -> list[Finding]:
    """Run the rules of a contract's kind, in order.

    A rule that needs the object is skipped when it is missing, has no docstring or, for a
    kind that needs a function, is not a function: DP001 reports those.

    Args:
        contract: The contract.
        config: The project's configuration.
        package: The contract's top-level package, completely loaded by griffe, for kinds
            that name an object; `None` for the others.

    Returns:
        The findings, possibly none.
    """
    found = kind(contract.kind)
    if found is None:  # load_config only makes contracts of known kinds
        msg = f"error: no docpact kind {contract.kind!r}"
        raise DocpactError(msg)
    subject = Subject(contract, config, found, package, kinds=all_kinds)
    return [finding for rule in found.rules for finding in rule.run(subject)]
