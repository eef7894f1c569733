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

from docpact._kinds.claims.command import add_command
from docpact._kinds.claims.contract import parse
from docpact._kinds.claims.rules import RULES
from docpact._model.rules import Kind

__all__ = ["CLAIMS"]

CLAIMS = Kind(
    name="claims",
    summary="every claim on the listed pages is bound to one property, reviewed against its text",
    required=frozenset({"pages", "properties"}),
    optional=frozenset({"words", "session", "results", "suspect"}),
    noun="claim",
    rules=RULES,
    parse=parse,
    once="a claim ID names one claim over all the pages, so list every claims page in one contract",
    commands=(add_command,),
)
