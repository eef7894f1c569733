# SPDX-License-Identifier: MIT
"""The one YAML reader of docpact: a safe load, refusing documents too costly to build.

libyaml's `CSafeLoader` is used where it is built. Before a document is composed, its event
stream is scanned, iteratively, and refused when:

- it nests deeper than `MAX_DEPTH` (100) collections, its aliases expanded: the composer
  and every reader of the data after it recurse once a level;
- it holds more than `MAX_NODES` (1,000,000) nodes, its aliases expanded: a "billion
  laughs" document, a few lines of anchors, is refused at once instead of being walked.

An integer of more digits than Python converts from text (`sys.get_int_max_str_digits()`,
4300 by default, raised by `PYTHONINTMAXSTRDIGITS`) is refused at its line, as is any text
that is not YAML. Each refusal is a `YamlProblem`: its line (1-based, 0 when unknown) and
what is wrong, which a reader turns into `file:LINE: error: ...` (`YamlProblem.located`).
"""

from __future__ import annotations

import sys
from typing import Any

import yaml

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "SafeLoader",
    "YamlProblem",
    "int_too_long",
    "safe_load",
    "scan",
]

MAX_DEPTH = 100
"""The deepest nesting of collections a document may have, its aliases expanded."""
MAX_NODES = 1_000_000
"""The most nodes a document may have, its aliases expanded."""

_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlProblem(Exception):
    """A YAML text docpact does not read.

    Attributes:
        line: The 1-based line of the offending node, 0 when unknown.
        problem: What is wrong, one line, to follow the text's name: `is not valid YAML: ...`.
        parsed: Whether PyYAML found the problem, its reason naming the line itself.
    """

    def __init__(self, line: int, problem: str, *, parsed: bool = False) -> None:
        super().__init__(line, problem)
        self.line, self.problem, self.parsed = line, problem, parsed

    def about(self, name: str) -> str:
        """The problem after the name of the text, with its line where PyYAML gave none.

        Args:
            name: The file, or `the yaml block`.

        Returns:
            `NAME is not valid YAML: ...`, or `NAME, line 3, nests deeper than ...`.
        """
        line = "" if self.parsed or not self.line else f", line {self.line},"
        return f"{name}{line} {self.problem}"

    @classmethod
    def of(cls, error: yaml.YAMLError) -> YamlProblem:
        """The problem a `yaml.YAMLError` reports, at its line."""
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        return cls(line, f"is not valid YAML: {' '.join(str(error).split())}", parsed=True)

    def located(self, where: str) -> str:
        """The problem as `where:LINE: error: ...`."""
        line = f":{self.line}" if self.line else ""
        return f"{where}{line}: error: {self.problem}"


def int_too_long(digits: int) -> str:
    """Why an integer of so many digits is refused: Python's limit, and how to raise it.

    Args:
        digits: How many digits the integer has.

    Returns:
        The problem, one line.
    """
    return (
        f"has an integer of {digits} digits, over Python's limit of "
        f"{sys.get_int_max_str_digits()} digits for converting text to an int "
        "(set PYTHONINTMAXSTRDIGITS to raise it)"
    )


def _int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    try:
        return yaml.SafeLoader.construct_yaml_int(loader, node)
    except ValueError:
        digits = sum(character.isdigit() for character in node.value)
        if digits <= sys.get_int_max_str_digits():
            raise  # not an integer at all: construct_object says so
        raise YamlProblem(node.start_mark.line + 1, int_too_long(digits)) from None


# What PyYAML's safe constructors raise for a scalar their tag does not take: `2001-02-30`,
# `!!bool maybe`, `!!float abc`, `!!int ""`.
_CONSTRUCTION_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError)


class SafeLoader(_BASE):  # libyaml's, where built
    """The safe loader: a value its tag does not take, or a too long integer, is refused.

    Each refusal is a `YamlProblem` at the value's line.
    """

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """PyYAML's construction, its errors for a value a tag does not take located."""
        try:
            return super().construct_object(node, deep=deep)
        except _CONSTRUCTION_ERRORS:
            tag = node.tag.rpartition(":")[2]
            value = node.value if isinstance(node, yaml.ScalarNode) else "a collection"
            msg = f"is not valid YAML: {value!r} is not a valid {tag}"
            raise YamlProblem(node.start_mark.line + 1, msg) from None


SafeLoader.add_constructor("tag:yaml.org,2002:int", _int)


def scan(text: str) -> None:
    """Refuse a text nested too deep or too large, its aliases expanded.

    Args:
        text: The YAML text.

    Raises:
        YamlProblem: When the text nests deeper than `MAX_DEPTH`, holds more than
            `MAX_NODES` nodes, or is not YAML.
    """
    # Per open collection: its anchor, the node count and the depth at its start, and the
    # deepest level reached inside it.
    open_: list[list[Any]] = []
    sizes: dict[str, tuple[int, int]] = {}  # anchor -> (nodes, height)
    nodes = 0
    try:
        for event in yaml.parse(text, Loader=_BASE):
            depth = len(open_)
            if isinstance(event, yaml.AliasEvent):
                if any(opened[0] == event.anchor for opened in open_):
                    msg = "holds an alias inside its own anchor: data that contains itself"
                    raise YamlProblem(event.start_mark.line + 1, msg)
                count, height = sizes.get(event.anchor, (1, 0))
            elif isinstance(event, yaml.ScalarEvent):
                count, height = 1, 0
            elif isinstance(event, yaml.CollectionStartEvent):
                nodes += 1
                open_.append([event.anchor, nodes, depth + 1])
                _check(nodes, depth + 1, event)
                continue
            elif isinstance(event, yaml.CollectionEndEvent):
                anchor, start, deepest = open_.pop()
                if anchor is not None:
                    sizes[anchor] = (nodes - start + 1, deepest - len(open_))
                if open_:
                    open_[-1][2] = max(open_[-1][2], deepest)
                continue
            else:
                continue
            nodes += count
            if getattr(event, "anchor", None) is not None and isinstance(event, yaml.ScalarEvent):
                sizes[event.anchor] = (1, 0)
            if open_:
                open_[-1][2] = max(open_[-1][2], depth + height)
            _check(nodes, depth + height, event)
    except yaml.YAMLError as error:
        raise YamlProblem.of(error) from None


def _check(nodes: int, depth: int, event: yaml.Event) -> None:
    line = event.start_mark.line + 1
    if depth > MAX_DEPTH:
        msg = f"nests deeper than {MAX_DEPTH} levels, its aliases expanded"
        raise YamlProblem(line, msg)
    if nodes > MAX_NODES:
        msg = f"has more than {MAX_NODES:,} nodes, its aliases expanded"
        raise YamlProblem(line, msg)


def safe_load(text: str, loader: type[yaml.SafeLoader] = SafeLoader) -> Any:
    """The data of one YAML document, scanned first (`scan`).

    Args:
        text: The YAML text.
        loader: The loader class, `SafeLoader` or one built on it.

    Returns:
        The data; `None` for an empty document.

    Raises:
        YamlProblem: When the text is refused, is not YAML, or holds an integer too long.
    """
    scan(text)
    instance = loader(text)
    try:
        node = instance.get_single_node()
        return None if node is None else instance.construct_document(node)
    except yaml.YAMLError as error:
        raise YamlProblem.of(error) from None
    finally:
        instance.dispose()
