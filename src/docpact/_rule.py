# SPDX-License-Identifier: MIT
"""What a rule and a contract kind are, and the subject a rule checks.

A rule is its finding code, a one-line summary of what it requires, where its findings are
reported, and its check. A kind of contract is its keys and its rules, run in order; a rule
that needs the object (`needs_object`) is skipped when the object is missing, has no
docstring or, for a divisor contract, is not a function (DP001 reports each).
`docpact._registry` puts the kinds together; nothing else defines a code.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from docpact._sources import lookup

if TYPE_CHECKING:
    from griffe import Module

    from docpact._claims_kind import Analysis
    from docpact._config import Config, Contract
    from docpact._findings import Finding
    from docpact._markdown import Section

__all__ = ["Kind", "Rule", "Subject"]


@dataclass(frozen=True)
class Rule:
    """One rule of docpact, defined once.

    Attributes:
        code: The finding code, `DP001`...
        summary: What the rule requires, in one line (the CLI's help and the docs show it).
        reported_at: Where a finding of the rule points.
        check: The check, from a contract's subject to its findings; `None` for the rules
            of `docpact coverage`, which checks packages, not contracts.
        needs_object: Whether the check needs the object that DP001 checks.
    """

    code: str
    summary: str
    reported_at: str
    check: Callable[[Subject], list[Finding]] | None = field(repr=False, compare=False)
    needs_object: bool = False


@dataclass(frozen=True)
class Kind:
    """A kind of contract: the keys its `[[tool.docpact.contract]]` table takes, and its rules.

    Attributes:
        name: The value of the contract's `kind` key.
        summary: What a contract of this kind keeps, in one line.
        required: The keys a contract of this kind must set, besides `kind`.
        optional: The keys it may set.
        noun: What the checked names are called in messages (`operand`, `identifier`).
        rules: The rules, in the order they run.
        needs_package: Whether the contract names an object, read from its package by griffe.
    """

    name: str
    summary: str
    required: frozenset[str]
    optional: frozenset[str]
    noun: str
    rules: tuple[Rule, ...]
    needs_package: bool = True


@dataclass
class Subject:
    """One contract being checked, with what its rules share, each computed once.

    Attributes:
        contract: The contract.
        config: The project's configuration.
        kind: The contract's kind.
        package: The contract's top-level package as griffe loaded it, for kinds that name
            an object; `None` otherwise.
    """

    contract: Contract
    config: Config
    kind: Kind
    package: Module | None = None

    @cached_property
    def obj(self) -> Any:
        """The object the contract names, aliases resolved, or `None` if griffe has none."""
        if self.package is None:
            return None
        return lookup(self.package, self.contract.object.split(".")[1:])

    @property
    def usable(self) -> bool:
        """Whether the object's rules can run: it exists, has a docstring, is a function if need be.

        Its source may still be unreadable; then `node` is None.
        """
        obj = self.obj
        if obj is None or not obj.docstring or not obj.docstring.value.strip():
            return False
        return obj.is_function or self.kind.name != "divisor"

    @cached_property
    def node(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function's syntax tree, parsed from its module (a stub's `.py` beside it)."""
        obj = self.obj
        if obj is None or not obj.is_function:
            return None
        path = obj.filepath
        if path.suffix == ".pyi":
            path = path.with_suffix(".py")
        try:
            tree = ast.parse(path.read_text(encoding="utf-8-sig"), filename=str(path))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            return None  # reported as a function without readable source
        # griffe gives a decorated function the line of its first decorator.
        return next(
            (
                node
                for node in ast.walk(tree)
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name == obj.name
                and obj.lineno in {node.lineno, *(d.lineno for d in node.decorator_list)}
            ),
            None,
        )

    @cached_property
    def claims(self) -> Analysis:
        """A claims contract's pages and properties, read once for all its rules."""
        from docpact._claims_kind import analyse

        return analyse(self.contract, self.config)

    @cached_property
    def pages(self) -> dict[str, str | OSError | UnicodeDecodeError]:
        """Each listed docs page's text, or the error reading it, by its path."""
        pages: dict[str, str | OSError | UnicodeDecodeError] = {}
        for section in self.contract.docs:
            page = section.partition("#")[0]
            if page not in pages:
                try:
                    pages[page] = (self.config.root / page).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as error:
                    pages[page] = error
        return pages

    @cached_property
    def sections(self) -> dict[str, Section | None]:
        """Each listed `page#anchor`'s section, `None` where its page or heading is missing."""
        from docpact._markdown import sections

        parsed = {
            page: sections(text, self.config.headings)
            for page, text in self.pages.items()
            if isinstance(text, str)
        }
        found: dict[str, Section | None] = {}
        for ref in self.contract.docs:
            page, _, anchor = ref.partition("#")
            found[ref] = next((s for s in parsed.get(page, []) if s.anchor == anchor), None)
        return found
