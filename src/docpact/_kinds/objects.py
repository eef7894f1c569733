# SPDX-License-Identifier: MIT
"""The object rules of the kinds that name one: it exists (DP001) and its docstring names (DP002).

`ObjectContract` is the contract of such a kind: its `object`, and the identifiers the
docstring and docs must name. Nothing here imports the checked package: the object comes
from griffe's static view.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docpact._model.config import Contract
from docpact._model.findings import relative
from docpact._model.rules import Rule
from docpact._readers.markdown.prose import inline_code_names
from docpact._readers.python.sources import (
    filepath,
    function_node,
    is_function,
    lookup,
    missing_object,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from docpact._model.config import Config
    from docpact._model.rules import Subject

__all__ = [
    "DOCSTRING_NAMES",
    "OBJECT",
    "ObjectContract",
    "node",
    "obj",
    "unloadable",
    "unnamed_in_docstring",
    "usable",
]


@dataclass(frozen=True, kw_only=True)
class ObjectContract(Contract):
    """A contract on an object of a package, which griffe loads.

    Attributes:
        object: The dotted path of the object, for example
            `rolloutnorm._normalize.normalize_advantages_by_rollout`.
    """

    object: str = ""

    @property
    def package(self) -> str | None:
        """The top-level package that holds the object."""
        return self.object.partition(".")[0] if self.object else None

    @property
    def label(self) -> str:
        """How messages name the contract: its object."""
        return self.object or self.kind

    @property
    def identifiers(self) -> tuple[str, ...]:
        """What the docstring and docs must name; none unless the kind lists some."""
        return ()


def _obj(subject: Subject) -> Any:
    if subject.package is None:
        return None
    return lookup(subject.package, subject.contract.object.split(".")[1:])


def obj(subject: Subject) -> Any:
    """The object the contract names, aliases resolved, or `None` if griffe has none."""
    return subject.shared(_obj)


def _node(subject: Subject) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    return function_node(obj(subject))


def node(subject: Subject) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function's syntax tree, parsed from its module (a stub's `.py` beside it)."""
    return subject.shared(_node)


def usable(subject: Subject) -> bool:
    """Whether the object's rules can run: it exists, has a docstring, is a function if need be.

    A function may be a method of any kind, or a property (`is_function`).

    Its source may still be unreadable; then `node` is None.
    """
    found = obj(subject)
    if found is None or not found.docstring or not found.docstring.value.strip():
        return False
    return is_function(found) or not subject.kind.needs_function


def unloadable(
    contract: ObjectContract, config: Config, error: Exception | None = None
) -> Iterator[tuple[str, int, str]]:
    """Why a contract's object is missing when griffe could not load its package.

    Args:
        contract: The contract.
        config: The project's configuration.
        error: What griffe raised, or `None` when it found no such package.

    Yields:
        The DP001 finding's path, line and message.
    """
    yield missing_object(contract.object, contract.line, package=None, config=config, error=error)


def _object(subject: Subject) -> Iterator[tuple[str, int, str]]:
    contract, config, found = subject.contract, subject.config, obj(subject)
    if found is None:
        yield missing_object(contract.object, contract.line, package=subject.package, config=config)
        return
    path = relative(filepath(found), config.root)
    function = subject.kind.needs_function  # the kinds that read the body
    if function and not is_function(found):
        kind = found.kind.value
        article = "an" if kind[0] in "aeiou" else "a"
        message = f"{contract.object} is {article} {kind}, not a function, method or property"
        yield path, found.lineno or 1, message
        return
    line = (getattr(node(subject), "lineno", None) if function else None) or found.lineno or 1
    if not found.docstring or not found.docstring.value.strip():
        yield path, line, f"{contract.object} has no docstring"
    elif function and node(subject) is None:
        yield path, line, f"{contract.object} has no source that docpact can read"


def unnamed_in_docstring(
    subject: Subject, names: Iterable[str], read: Callable[[str], set[str]]
) -> Iterator[tuple[str, int, str]]:
    """A finding for each name the object's docstring does not give as inline code.

    Args:
        subject: The contract, whose object `usable` accepts.
        names: The names the docstring must give.
        read: What the docstring gives: its names (`inline_code_names`) or its spans.

    Yields:
        Each finding's path, line and message.
    """
    contract, found = subject.contract, obj(subject)
    named = read(found.docstring.value)
    path = relative(filepath(found), subject.config.root)
    line = found.docstring.lineno or found.lineno or 1
    noun = subject.kind.noun
    for name in names:
        if name not in named:
            message = f"docstring of {contract.object} does not name {noun} `{name}` as inline code"
            yield path, line, message


def _docstring_names(subject: Subject) -> Iterator[tuple[str, int, str]]:
    return unnamed_in_docstring(subject, subject.contract.identifiers, inline_code_names)


OBJECT = Rule(
    "DP001",
    "the object exists, its source can be read and parsed, it has a docstring, and for a "
    "divisor contract it is a function, method or property",
    "the contract, or the file and line at fault",
    _object,
)
DOCSTRING_NAMES = Rule(
    "DP002",
    "the docstring names every operand or name as inline code",
    "the docstring",
    _docstring_names,
    needs=usable,
)
