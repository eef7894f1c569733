# SPDX-License-Identifier: MIT
"""The `names` kind: an object's docstring and docs sections keep naming some identifiers.

No division is required: the contract holds that every identifier in its `names` list is
named as inline code in the object's docstring and in each listed docs section. The object
may be a function, a class, a module or an attribute with a docstring.
"""

from __future__ import annotations

from docpact._docs import DOCS_EXIST, DOCS_NAME
from docpact._objects import DOCSTRING_NAMES, OBJECT
from docpact._rule import Kind

__all__ = ["NAMES"]

NAMES = Kind(
    name="names",
    summary="an object's docstring and docs keep naming the identifiers of `names`",
    required=frozenset({"object", "names"}),
    optional=frozenset({"docs"}),
    noun="identifier",
    rules=(OBJECT, DOCSTRING_NAMES, DOCS_EXIST, DOCS_NAME),
)
