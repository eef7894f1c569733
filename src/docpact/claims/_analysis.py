# SPDX-License-Identifier: MIT
"""What a claims contract's rules share: its pages' claims, its properties' bindings, results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from docpact._readers.files import Unreadable, git_commit, read_text
from docpact.claims._bindings import Binding, read_bindings, sessions
from docpact.claims._ledger import ClaimReview, Ledger, read_ledger
from docpact.claims._page import Block, Page, read_page
from docpact.claims._results import Run, State, read_runs, state

if TYPE_CHECKING:
    from docpact._model.config import Config
    from docpact._model.rules import Subject
    from docpact.claims._contract import ClaimsContract

__all__ = ["Analysis", "analyse", "changed", "claims_analysis"]

_EMPTY = Ledger({}, {})


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
        runs: The results files the contract's `results` match, in path order.
        bad_runs: The matched files that are not results files, as `(path, why)`.
        head: The commit the checkout stands on (`None` without git, or when no results
            file is there to compare it with).
        ledger: The review ledger (`docpact.claims._ledger`).
    """

    contract: ClaimsContract
    pages: dict[str, str | Unreadable]
    read: dict[str, Page]
    bindings: tuple[Binding, ...]
    unreadable: tuple[tuple[str, int, str], ...]
    sessions: frozenset[str] | None
    runs: tuple[Run, ...] = ()
    bad_runs: tuple[tuple[str, str], ...] = ()
    head: str | None = None
    ledger: Ledger = _EMPTY

    def review(self, block: Block) -> ClaimReview | None:
        """A claim's last review, `None` when it has none."""
        return self.ledger.claims.get(block.argument)

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
        """The nox session a binding runs in: its own, else the contract's; empty for none."""
        return binding.session or self.contract.session

    def command(self, binding: Binding) -> str:
        """The command that runs a binding's property: its nox session, else pytest on it."""
        session = self.session(binding)
        return f"nox -s {session}" if session else f"pytest {binding.path}::{binding.node}"

    def state(self, binding: Binding) -> State:
        """What the results files say of a binding's property on the commit checked."""
        return state(binding, self.session(binding), list(self.runs), self.head)


def claims_analysis(subject: Subject) -> Analysis:
    """The claims contract's pages and properties, read once for all its rules."""
    return subject.shared(_analysis)


def _analysis(subject: Subject) -> Analysis:
    return analyse(subject.contract, subject.config, runs_vouch=True)


def analyse(contract: ClaimsContract, config: Config, *, runs_vouch: bool = False) -> Analysis:
    """Read a claims contract's pages and properties.

    Args:
        contract: The claims contract.
        config: The project's configuration.
        runs_vouch: Whether a code that the results files took of a test file's bytes as
            they are now stands in for fingerprinting a property, where every run that took
            one agrees and it is the review's code: how the check, the claim boxes and the
            listing read. What writes a review or a results file (`docpact claims --update`,
            the pytest plugin) never takes a results file's code, so that none reaches the
            ledger or the next results file.

    Returns:
        What the contract's rules check.
    """
    pages: dict[str, str | Unreadable] = {}
    for page in contract.pages:
        try:
            pages[page] = read_text(config.root / page)
        except Unreadable as error:
            pages[page] = error
    read = {page: read_page(text) for page, text in pages.items() if isinstance(text, str)}
    ledger = read_ledger(config.root)
    runs, bad_runs = read_runs(config.root, contract.results)
    # The codes a review took, of a test file's bytes by their blob id, and those the runs
    # took of other bytes where they agree and confirm the review's: a run's code that
    # differs (another docpact's, a file written by hand) is not taken on trust.
    known: dict[str, dict[str, dict[tuple[str, str], str]]] = {}
    reviewed = {(r.path, r.node, r.claim): r.code for r in ledger.claims.values()}
    for (path, node, claim), code in reviewed.items():
        if blob := ledger.claims[claim].files.get(path):
            known.setdefault(path, {}).setdefault(blob, {})[node, claim] = code
    taken: dict[tuple[str, str, str, str], set[str]] = {}
    for run in runs if runs_vouch else ():
        for (path, node), (claim, blob) in run.blobs.items():
            taken.setdefault((path, blob, node, claim), set()).add(run.outcomes[path, node][0])
    for (path, blob, node, claim), codes in taken.items():
        code = reviewed.get((path, node, claim))
        if code is not None and codes == {code}:
            known.setdefault(path, {}).setdefault(blob, {}).setdefault((node, claim), code)
    bindings, unreadable = read_bindings(config.root, contract.properties, known)
    names = sessions(config.root)
    return Analysis(
        contract,
        pages,
        read,
        tuple(bindings),
        tuple(unreadable),
        None if names is None else frozenset(names),
        tuple(runs),
        tuple(bad_runs),
        git_commit(config.root) if runs else None,
        ledger,
    )


def changed(block: Block, binding: Binding, review: ClaimReview | None) -> tuple[str, ...]:
    """What changed of a claim since its review: `text`, `code`, both, or nothing.

    Args:
        block: The claim.
        binding: Its property.
        review: Its last review; without one, both changed.

    Returns:
        The parts that are not as reviewed, in that order: the claim's text (its title
        included), the property (its code, or another property bound in its place).
    """
    if review is None:
        return ("text", "code")
    text = (review.title, review.text) != (block.title, block.text)
    code = (review.path, review.node, review.code) != (binding.path, binding.node, binding.code)
    return tuple(what for what, stale in (("text", text), ("code", code)) if stale)
