# SPDX-License-Identifier: MIT
"""The `claims` kind: every claim on the listed pages is bound to one reviewed property.

A claims contract lists `pages` and the `properties` folders (or files) whose test
functions carry `@docpact.claim("ID", reviewed=...)`. Its rules, in order: the markers are
well-formed and the IDs unique (DP012); every claim has exactly one property (DP013); every
property names a claim that exists, and a session of `noxfile.py` (DP014); each claim's text
and its property's code still have the fingerprints recorded when the one was last reviewed
against the other (DP015); and outside claim blocks, no sentence uses a claim word without a
written `not-a-claim` reason (DP016).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from docpact._bindings import REVIEWED, Binding, read_bindings, sessions
from docpact._claims import Block, Page, read_page, visible_prose, words_pattern
from docpact._findings import Finding, cannot_read
from docpact._rule import Kind, Rule

if TYPE_CHECKING:
    from docpact._config import Config, Contract
    from docpact._rule import Subject

__all__ = ["CLAIMS", "DEFAULT_WORDS", "Analysis", "analyse", "changed"]

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

_UPDATE = "docpact claims --update"


@dataclass(frozen=True)
class Analysis:
    """What a claims contract's rules share: the pages' claims and the properties' bindings.

    Attributes:
        contract: The contract.
        pages: Each listed page's text, or the error reading it.
        read: Each readable page's blocks.
        bindings: Every binding found under the contract's `properties`.
        unreadable: The property files that cannot be read or parsed, as
            `(path, line, message)`.
        sessions: The sessions of `noxfile.py`, `None` without one.
    """

    contract: Contract
    pages: dict[str, str | OSError | UnicodeDecodeError]
    read: dict[str, Page]
    bindings: tuple[Binding, ...]
    unreadable: tuple[tuple[str, int, str], ...]
    sessions: frozenset[str] | None

    @property
    def claims(self) -> list[tuple[str, Block]]:
        """Every claim of the pages, as `(page, block)`, the first of a repeated ID only."""
        seen, found = set(), []
        for page, read in self.read.items():
            for block in read.claims:
                if block.argument not in seen:
                    seen.add(block.argument)
                    found.append((page, block))
        return found

    def bound(self, claim_id: str) -> list[Binding]:
        """The well-formed bindings of a claim ID."""
        return [b for b in self.bindings if b.claim == claim_id]

    def session(self, binding: Binding) -> str:
        """The session a binding runs in: its own, else the contract's."""
        return binding.session or self.contract.session


def analyse(contract: Contract, config: Config) -> Analysis:
    """Read a claims contract's pages and properties.

    Args:
        contract: The claims contract.
        config: The project's configuration.

    Returns:
        What the contract's rules check.
    """
    pages: dict[str, str | OSError | UnicodeDecodeError] = {}
    for page in contract.pages:
        try:
            pages[page] = (config.root / page).read_text(encoding="utf-8-sig")  # as MkDocs
        except (OSError, UnicodeDecodeError) as error:
            pages[page] = error
    read = {page: read_page(text) for page, text in pages.items() if isinstance(text, str)}
    bindings, unreadable = read_bindings(config.root, contract.properties)
    names = sessions(config.root)
    return Analysis(
        contract,
        pages,
        read,
        tuple(bindings),
        tuple(unreadable),
        None if names is None else frozenset(names),
    )


def _well_formed(subject: Subject) -> list[Finding]:
    analysis, contract = subject.claims, subject.contract
    findings = []
    for page, text in analysis.pages.items():
        if isinstance(text, FileNotFoundError):
            message = f"claims page {page} does not exist"
            findings.append(Finding(subject.config.pyproject.name, contract.line, "DP012", message))
        elif not isinstance(text, str):
            message = f"claims page {page} {cannot_read(text)}"
            findings.append(Finding(subject.config.pyproject.name, contract.line, "DP012", message))
    first: dict[str, tuple[str, int]] = {}
    for page, read in analysis.read.items():
        findings += [Finding(page, line, "DP012", message) for line, message in read.problems]
        for block in read.claims:
            if block.argument in first:
                where = ":".join(map(str, first[block.argument]))
                message = f"claim ID {block.argument} is given twice, first at {where}"
                findings.append(Finding(page, block.line, "DP012", message))
            else:
                first[block.argument] = (page, block.line)
    return findings


def _one_property_each(subject: Subject) -> list[Finding]:
    analysis = subject.claims
    findings = []
    for page, block in analysis.claims:
        bound = analysis.bound(block.argument)
        if not bound:
            folders = ", ".join(subject.contract.properties)
            message = (
                f"claim {block.argument} has no property: decorate the test that checks it, "
                f'in {folders}, with @docpact.claim("{block.argument}"), then run {_UPDATE}'
            )
            findings.append(Finding(page, block.line, "DP013", message))
        elif len(bound) > 1:
            where = ", ".join(f"{b.path}:{b.line} {b.function}" for b in bound)
            message = f"claim {block.argument} has {len(bound)} properties, not one: {where}"
            findings.append(Finding(page, block.line, "DP013", message))
    return findings


def _bound_to_claims(subject: Subject) -> list[Finding]:
    analysis = subject.claims
    pyproject, contract_line = subject.config.pyproject.name, subject.contract.line
    findings = [
        Finding(pyproject, contract_line, "DP014", message)
        if line == 0
        else Finding(path, line, "DP014", message)
        for path, line, message in analysis.unreadable
    ]
    known = {block.argument for _, block in analysis.claims}
    for binding in analysis.bindings:
        if binding.claim is None:
            findings.append(Finding(binding.path, binding.line, "DP014", binding.problem))
            continue
        if binding.claim not in known:
            pages = ", ".join(subject.contract.pages)
            message = (
                f"property {binding.function} is bound to claim {binding.claim}, which no "
                f"claims page has ({pages}): mark its claim with "
                f"<!-- docpact: claim {binding.claim} -->, or remove the binding"
            )
            findings.append(Finding(binding.path, binding.line, "DP014", message))
        session = analysis.session(binding)
        if analysis.sessions is not None and session not in analysis.sessions:
            message = (
                f"property {binding.function} runs in session {session}, which noxfile.py "
                f"does not define (it has {', '.join(sorted(analysis.sessions)) or 'none'})"
            )
            findings.append(Finding(binding.path, binding.line, "DP014", message))
    return findings


def changed(block: Block, binding: Binding) -> tuple[str, ...]:
    """What changed since a binding's review: `text`, `code`, both, or nothing.

    Args:
        block: The claim.
        binding: Its property, whose `reviewed` is `TEXT/CODE` (a malformed one differs in
            both).

    Returns:
        The parts whose fingerprint is not the one recorded, in that order.
    """
    text, _, code = binding.reviewed.partition("/")
    pairs = (("text", text, block.fingerprint), ("code", code, binding.code))
    return tuple(what for what, recorded, now in pairs if recorded != now)


def _reviewed(subject: Subject) -> list[Finding]:
    analysis = subject.claims
    findings = []
    for page, block in analysis.claims:
        claim_at = f"{page}:{block.line}"
        for binding in analysis.bound(block.argument):
            property_at = f"{binding.path}:{binding.line}"
            again = f"review the one against the other, then run {_UPDATE} {block.argument}"
            if not binding.reviewed:
                message = (
                    f"property {binding.function} was never reviewed against claim "
                    f"{block.argument} ({claim_at}): {again}"
                )
                findings.append(Finding(binding.path, binding.line, "DP015", message))
                continue
            if REVIEWED.fullmatch(binding.reviewed) is None:
                message = (
                    f"property {binding.function} has reviewed={binding.reviewed!r}, not "
                    f"TEXT/CODE with 12 hex digits each: {again}"
                )
                findings.append(Finding(binding.path, binding.line, "DP015", message))
                continue
            stale = changed(block, binding)
            if "text" in stale:
                message = (
                    f"claim {block.argument} changed since its property {binding.function} "
                    f"({property_at}) was reviewed against it: {again}"
                )
                findings.append(Finding(page, block.line, "DP015", message))
            if "code" in stale:
                message = (
                    f"property {binding.function} changed since it was reviewed against "
                    f"claim {block.argument} ({claim_at}): {again}"
                )
                findings.append(Finding(binding.path, binding.line, "DP015", message))
    return findings


def _claim_words(subject: Subject) -> list[Finding]:
    analysis, words = subject.claims, subject.contract.words
    if not words:
        return []
    pattern = words_pattern(words)
    findings = []
    for page, read in analysis.read.items():
        prose = visible_prose(analysis.pages[page])  # type: ignore[arg-type]
        marked = {n for b in read.blocks for n in range(b.first, b.last + 1)}
        for line, text in prose.items():
            if line in marked:
                continue
            for word in dict.fromkeys(m[0] for m in pattern.finditer(text)):
                message = (
                    f"claim word {word!r} outside a claim block: bind the sentence to a "
                    "property (<!-- docpact: claim ID -->), reword it, or give the reason it "
                    "claims nothing (<!-- docpact: not-a-claim REASON -->)"
                )
                findings.append(Finding(page, line, "DP016", message))
        for block in read.suppressions:
            lines = range(block.first, block.last + 1)
            if not any(pattern.search(prose.get(n, "")) for n in lines):
                message = "<!-- docpact: not-a-claim --> marks a block without a claim word"
                findings.append(Finding(page, block.line, "DP016", message))
    return findings


CLAIMS = Kind(
    name="claims",
    summary="every claim on the listed pages is bound to one property, reviewed against its text",
    required=frozenset({"pages", "properties"}),
    optional=frozenset({"words", "session"}),
    noun="claim",
    rules=(
        Rule(
            "DP012",
            "every listed claims page exists, and its claim markers "
            "(`<!-- docpact: claim ID -->`) have a valid, unique ID and a paragraph or "
            "admonition after them",
            "the marker, or the contract",
            _well_formed,
        ),
        Rule(
            "DP013",
            'every claim has exactly one property: a test decorated with `@docpact.claim("ID")`',
            "the claim's marker",
            _one_property_each,
        ),
        Rule(
            "DP014",
            "every property binding is well-formed and names a claim on a listed page, and a "
            "session of `noxfile.py`",
            "the binding",
            _bound_to_claims,
        ),
        Rule(
            "DP015",
            "each claim's text and its property's code have the fingerprints recorded when "
            "they were last reviewed (`docpact claims --update`)",
            "the claim's marker for a changed text, the binding otherwise",
            _reviewed,
        ),
        Rule(
            "DP016",
            "no line of a claims page outside a claim block uses a claim word, unless a "
            "`<!-- docpact: not-a-claim REASON -->` marks its block",
            "the line, or the suppression",
            _claim_words,
        ),
    ),
    needs_package=False,
)
