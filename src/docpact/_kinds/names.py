# SPDX-License-Identifier: MIT
"""The `names` kind: an object's docstring and docs sections keep naming some identifiers.

No division is required: the contract holds that every identifier in its `names` list is
named as inline code in the object's docstring and in each listed docs section. The object
may be a function, a class, a module or an attribute with a docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from docpact._kinds.docs import DOCS_EXIST, DOCS_NAME
from docpact._kinds.objects import DOCSTRING_NAMES, OBJECT, ObjectContract
from docpact._model import keys
from docpact._model.rules import Kind

__all__ = ["NAMES", "NamesContract"]


@dataclass(frozen=True, kw_only=True)
class NamesContract(ObjectContract):
    """A `names` contract: an object whose docstring and docs name some identifiers.

    Attributes:
        names: The identifiers the docstring and docs must name.
    """

    kind: str = "names"
    names: tuple[str, ...] = ()

    @property
    def identifiers(self) -> tuple[str, ...]:
        """What the docstring and docs must name: the names."""
        return self.names


def _parse(entry: dict[str, Any], key: str) -> NamesContract:
    keys.require(entry, key, "names", ("object",))
    return NamesContract(
        object=keys.dotted_path(entry.get("object"), f"{key}.object"),
        names=keys.identifiers(entry.get("names"), f"{key}.names"),
        docs=keys.sections(entry.get("docs", []), f"{key}.docs", kind="names"),
    )


NAMES = Kind(
    name="names",
    summary="an object's docstring and docs keep naming the identifiers of `names`",
    required=frozenset({"object", "names"}),
    optional=frozenset({"docs"}),
    noun="identifier",
    rules=(OBJECT, DOCSTRING_NAMES, DOCS_EXIST, DOCS_NAME),
    parse=_parse,
)
