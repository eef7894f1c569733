# SPDX-License-Identifier: MIT
"""The claims extension: every claim on the listed pages is bound to one reviewed property.

A kind of contract like any other distribution's, registered under the `docpact.kinds`
entry point; no module of docpact imports it, but the package's `docpact.claim`. A claims
contract lists `pages` and the `properties` folders (or files) whose test functions carry
`@docpact.claim("ID")` or `@pytest.mark.docpact_claim("ID")`. Its rules, in order:

- DP012: the claim markers are well-formed and the IDs unique;
- DP013: every claim has exactly one property;
- DP014: every binding is well-formed, carries no review, and names a claim that exists and
  a session of `noxfile.py`;
- DP015: each claim's text and its property's code are as the review ledger recorded them
  (`docpact-reviews/`, written by `docpact claims --update`);
- DP016: outside claim blocks, no sentence in scope uses a claim word without a written
  `not-a-claim` reason;
- DP018: no property failed in the results of a test run on the commit checked, the files
  pytest's `--docpact-results` writes;
- DP019: no unit of code under test that a claim's review recorded changed since;
- DP020: every `not-a-claim` block is the one its review recorded;
- DP021: each claim's property executed the code the claim is about.

`docpact impact` reports a claim (DP101) or a suppression (DP103) that a change touches.
The kind's page hook draws the claim boxes (`Kind.site`), whichever builder calls it, and
its pytest plugin (the `pytest11` entry point) writes the results.
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
