# SPDX-License-Identifier: MIT
"""A claims contract's keys: its pages, its properties, its words, session and results."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from docpact._model import keys
from docpact._model.config import Contract
from docpact._model.keys import SESSION
from docpact.claims._results import DEFAULT_RESULTS, pattern_error

__all__ = ["DEFAULT_WORDS", "SCOPES", "SEVERITIES", "ClaimsContract", "parse"]

SEVERITIES = ("error", "warning")
"""What a claims contract's `suspect` may be."""

SCOPES = ("sections", "pages")
"""Where a claims contract's claim words are checked: `sections`, the docs sections that the
project's contracts name and those that hold a claim; `pages`, the whole of every page."""

DEFAULT_WORDS = (
    "always",
    "cancel*",
    "compensat*",
    "ensure*",
    "exactly",
    "guarantee*",
    "invariant*",
    "never",
)
"""The claim words of a claims contract that sets no `words`."""

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*\*?")


@dataclass(frozen=True, kw_only=True)
class ClaimsContract(Contract):
    """A `claims` contract: every claim on its pages is bound to one reviewed property.

    Attributes:
        pages: The docs pages whose claims and claim words are checked, relative to the
            project root.
        properties: The test files and folders searched for bindings (`@docpact.claim`
            or the `docpact_claim` marker).
        words: The claim words (`word*` matches longer words too).
        session: The nox session of a binding that names none; empty when the properties
            run under plain pytest.
        results: Glob patterns of the results files that pytest's `--docpact-results`
            writes, relative to the project root.
        suspect: The severity of a suspect claim (`DP019`): `error`, which fails the check
            and the strict build, or `warning`, which reports it and fails neither.
        scope: Where the claim words are checked (`SCOPES`): by default the sections of
            the pages that the project's contracts name and those that hold a claim.
    """

    kind: str = "claims"
    pages: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    words: tuple[str, ...] = DEFAULT_WORDS
    session: str = ""
    results: tuple[str, ...] = DEFAULT_RESULTS
    suspect: str = "error"
    scope: str = "sections"


def parse(entry: dict[str, Any], key: str) -> ClaimsContract:
    """Read a `claims` table: `pages`, `properties`, and the optional keys of `ClaimsContract`."""
    keys.require(entry, key, "claims", ("pages", "properties"))
    pages = keys.project_paths(entry.get("pages"), f"{key}.pages")
    properties = keys.project_paths(entry.get("properties"), f"{key}.properties")
    words = entry.get("words", list(DEFAULT_WORDS))
    if words == []:
        msg = (
            f"{key}.words is empty, which would turn the claim-word net off: keep the words, "
            'and narrow where they are checked with scope = "sections" (the default: the '
            "sections the contracts name and those that hold a claim)"
        )
        raise ValueError(msg)
    if not isinstance(words, list) or not all(
        isinstance(w, str) and _WORD.fullmatch(w) for w in words
    ):
        msg = (
            f"{key}.words must be a list of words, each letters, optionally ending in * to "
            f"match longer words too, got {words!r}"
        )
        raise ValueError(msg)
    session = entry.get("session", "")
    if "session" in entry and (not isinstance(session, str) or not SESSION.fullmatch(session)):
        msg = f"{key}.session must be a nox session name, got {session!r}"
        raise ValueError(msg)
    results = DEFAULT_RESULTS
    if "results" in entry:
        results = keys.project_paths(entry["results"], f"{key}.results")
        for pattern in results:
            if (why := pattern_error(pattern)) is not None:
                msg = f"{key}.results lists {pattern!r}, which {why}"
                raise ValueError(msg)
    suspect = entry.get("suspect", "error")
    if suspect not in SEVERITIES:
        msg = f"{key}.suspect must be one of {', '.join(SEVERITIES)}, got {suspect!r}"
        raise ValueError(msg)
    scope = entry.get("scope", "sections")
    if scope not in SCOPES:
        msg = f"{key}.scope must be one of {', '.join(SCOPES)}, got {scope!r}"
        raise ValueError(msg)
    return ClaimsContract(
        pages=pages,
        properties=properties,
        words=tuple(words),
        session=session,
        results=results,
        suspect=suspect,
        scope=scope,
    )
