# SPDX-License-Identifier: MIT
"""The `claims` kind: every claim on the listed pages is bound to one reviewed property.

A claims contract lists `pages` and the `properties` folders (or files) whose test
functions carry `@docpact.claim("ID", reviewed=...)`. Its rules, in order: the markers are
well-formed and the IDs unique (DP012); every claim has exactly one property (DP013); every
property names a claim that exists, and a session of `noxfile.py` (DP014); each claim's text
and its property's code still have the fingerprints recorded when the one was last reviewed
against the other (DP015); outside claim blocks, no sentence uses a claim word without a
written `not-a-claim` reason (DP016); and no property failed in the results of a test run
on the commit checked, the files pytest's `--docpact-results` writes (DP018).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docpact._model.rules import Kind
from docpact.claims._boxes import SITE
from docpact.claims._command import add_command
from docpact.claims._contract import parse
from docpact.claims._impact import CLAIM_AT_RISK, SUPPRESSION_AT_RISK, impact
from docpact.claims._rules import RULES

if TYPE_CHECKING:
    from docpact.claims._decorator import claim

__all__ = ["CLAIMS", "claim"]

CLAIMS = Kind(
    name="claims",
    summary="every claim on the listed pages is bound to one property, reviewed against its text",
    required=frozenset({"pages", "properties"}),
    optional=frozenset({"words", "session", "results", "suspect", "scope"}),
    noun="claim",
    rules=(*RULES, CLAIM_AT_RISK, SUPPRESSION_AT_RISK),
    parse=parse,
    once="a claim ID names one claim over all the pages, so list every claims page in one contract",
    commands=(add_command,),
    site=SITE,
    impact=impact,  # type: ignore[arg-type]
)
"""The claims kind, registered under the `docpact.kinds` entry point group."""


def __dir__() -> list[str]:
    """The module's names, `claim` among them though it is imported on first use."""
    return sorted({*globals(), "claim"})


def __getattr__(name: str) -> Any:
    """`claim`, imported when a test module first asks for it."""
    if name == "claim":
        from docpact.claims._decorator import claim

        return claim
    msg = f"module 'docpact.claims' has no attribute {name!r}"
    raise AttributeError(msg)
