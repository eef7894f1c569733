# SPDX-License-Identifier: MIT
"""What a rule and a contract kind are, and the subject a rule checks.

A rule is its finding code, a one-line summary of what it requires, where its findings are
reported, and its check; every finding of the check gets the rule's code. A kind of contract
is its keys, the parser of its tables, and its rules, run in order; a rule that `needs`
something of its subject (an object that DP001 accepts) is skipped where it is missing.
`docpact._registry` puts the kinds together; nothing else defines a code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from docpact._model.findings import Finding

if TYPE_CHECKING:
    from pathlib import Path

    from docpact._model.config import Config, Contract

__all__ = ["Kind", "Rule", "Site", "Subject"]

_T = TypeVar("_T")

Check = Callable[["Subject"], Iterable[tuple[str, int, str]]]
"""A rule's check: from a contract's subject to its findings, each `(path, line, message)`."""


@dataclass(frozen=True)
class Rule:
    """One rule of docpact, defined once.

    Attributes:
        code: The finding code, `DP001`...
        summary: What the rule requires, in one line (the CLI's help and the docs show it).
        reported_at: Where a finding of the rule points.
        check: The check, from a contract's subject to each finding's path, line and
            message; `None` for the rules of `docpact coverage`, which checks packages, not
            contracts.
        needs: What the check needs of the subject to run at all, as a test; the rule is
            skipped where it fails (another rule reports why).
        severity: The severity of the rule's findings for a subject, from its contract's
            settings; `error` without one.
    """

    code: str
    summary: str
    reported_at: str
    check: Check | None = field(repr=False, compare=False)
    needs: Callable[[Subject], bool] | None = field(default=None, repr=False, compare=False)
    severity: Callable[[Subject], str] | None = field(default=None, repr=False, compare=False)

    def finding(self, path: str, line: int, message: str) -> Finding:
        """A finding of this rule, under its code.

        Args:
            path: The file, relative to the project root.
            line: The 1-based line.
            message: What is wrong.

        Returns:
            The finding.
        """
        return Finding(path, line, self.code, message)

    def run(self, subject: Subject) -> list[Finding]:
        """Run the check on a subject, unless it lacks what the check needs.

        Args:
            subject: The contract being checked.

        Returns:
            The findings, possibly none.
        """
        if self.check is None or (self.needs is not None and not self.needs(subject)):
            return []
        severity = self.severity(subject) if self.severity is not None else "error"
        return [
            Finding(path, line, self.code, message, severity)
            for path, line, message in self.check(subject)
        ]


@dataclass(frozen=True)
class Kind:
    """A kind of contract: the keys its `[[tool.docpact.contract]]` table takes, and its rules.

    Its hooks, each optional, are how a kind reaches the front ends without their knowing
    it: `parse` reads its tables, `commands` adds `docpact` subcommands, `site` changes the
    built pages, and `impact` reports what a change puts at risk beside the contract.

    Attributes:
        name: The value of the contract's `kind` key.
        summary: What a contract of this kind keeps, in one line.
        required: The keys a contract of this kind must set, besides `kind`.
        optional: The keys it may set.
        noun: What the checked names are called in messages (`operand`, `identifier`).
        rules: The rules, in the order they run.
        parse: Turns a table, whose keys are among `required` and `optional`, into the
            kind's `Contract`, given the table's key (`tool.docpact.contract[N]`); it raises
            `ValueError` with a message that starts with the key at fault. Without one, the
            table must set every `required` key, and becomes a plain `Contract` with its
            `docs`.
        needs_function: Whether the contract's object must be a function.
        once: Why a project may declare at most one contract of this kind, or empty when
            it may declare several.
        commands: The `docpact` subcommands the kind adds (`docpact claims`): each a
            function given the CLI's subparsers and the kind, which adds one command and
            returns what it runs: a function of the parsed options and the project's
            `Config` that gives the exit status.
        site: What the kind's contracts do to a built site (the claims' boxes), whichever
            builder builds it; `None` for nothing.
        impact: What `docpact impact` reports of a contract of the kind beside the
            contract itself (a claim, a suppression), given the contract, the project's
            configuration and `touched`: a function of `(what, path, first, last)` spans
            (`last` 0 for a whole file) that names those the change touches, as
            `what (path:line)` joined by commas, or gives an empty string. It returns the
            findings, under the kind's own rules. `None` for nothing beside the contract.
    """

    name: str
    summary: str
    required: frozenset[str]
    optional: frozenset[str]
    noun: str
    rules: tuple[Rule, ...]
    parse: Callable[[dict[str, Any], str], Contract] | None = field(
        default=None, repr=False, compare=False
    )
    needs_function: bool = False
    once: str = ""
    commands: tuple[Callable[[Any, Kind], Callable[[Any, Config], int]], ...] = field(
        default=(), repr=False, compare=False
    )
    site: Site | None = field(default=None, repr=False, compare=False)
    impact: Impact | None = field(default=None, repr=False, compare=False)


Span = tuple[str, str, int, int]
"""What an `impact` hook asks about: `(what, path, first, last)`, `last` 0 for a whole file."""

Impact = Callable[["Contract", "Config", Callable[[list[Span]], str]], list[Finding]]
"""A kind's `impact` hook (`Kind.impact`)."""


@dataclass(frozen=True)
class Site:
    """What a kind's contracts do to a built site, as every builder's front end calls it.

    The MkDocs plugin calls it; so may any other front end that sees each page's Markdown
    before it is rendered, such as a Python-Markdown extension.

    Attributes:
        prepare: Once per build, given a contract of the kind and the project's
            configuration, returns the page hook: a function of a page's path, relative
            to the project root with forward slashes, and its Markdown, that returns the
            Markdown to render (the text itself for a page the contract leaves alone).
        stylesheet: The CSS the rewritten pages need, added to the site once; empty for
            none.
        extensions: The Python-Markdown extensions the rewritten Markdown needs; the
            build is refused, naming them, without them.
        watched: Given the contract and the configuration, the paths a live-reloading
            server should watch besides the docs, each with whether its subfolders are
            watched too.
        pages: Given the contract, the pages the hook may rewrite, relative to the project
            root: a front end that is given a page's Markdown without its path (a
            Python-Markdown extension) finds the page among them by its text.
    """

    prepare: Callable[[Contract, Config], Callable[[str, str], str]] = field(repr=False)
    stylesheet: str = field(default="", repr=False)
    extensions: tuple[str, ...] = ()
    watched: Callable[[Contract, Config], tuple[tuple[Path, bool], ...]] | None = field(
        default=None, repr=False
    )
    pages: Callable[[Contract], tuple[str, ...]] | None = field(default=None, repr=False)


@dataclass
class Subject:
    """One contract being checked, with what its rules share, each computed once.

    Attributes:
        contract: The contract.
        config: The project's configuration.
        kind: The contract's kind.
        package: The contract's top-level package as griffe loaded it, for contracts that
            name an object; `None` otherwise.
        kinds: Every registered kind, by name, read from the registry when called: what a
            rule needs that checks a list of the kinds (`docpact._registry` gives it).
    """

    contract: Contract
    config: Config
    kind: Kind
    package: Any = None
    kinds: Callable[[], dict[str, Kind]] = field(default=dict, repr=False)
    _shared: dict[Callable[[Subject], Any], Any] = field(
        default_factory=dict, init=False, repr=False
    )

    def shared(self, compute: Callable[[Subject], _T]) -> _T:
        """What several rules of the subject read, computed once by `compute`.

        Args:
            compute: A function of the subject, such as reading its docs pages; the cache
                key.

        Returns:
            What `compute` returned the first time.
        """
        if compute not in self._shared:
            self._shared[compute] = compute(self)
        return self._shared[compute]
