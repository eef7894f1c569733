# SPDX-License-Identifier: MIT
"""YAML data that knows where each of its items is: the `file:LINE` a message names.

`PlacedLoader`, docpact's safe loader (`docpact._readers.yaml_safe.SafeLoader`), builds each
mapping and list as a subclass of `dict` or `list` holding the place of each key or item,
which `place_of` gives; a copy (`copy.deepcopy`) keeps them.
"""

from __future__ import annotations

from typing import Any

import yaml

from docpact._readers.yaml_safe import SafeLoader

__all__ = ["PlacedLoader", "keep_place", "place_of"]


class _Mapping(dict):  # type: ignore[type-arg]
    """A mapping that knows the file and line of each of its keys."""

    places: dict[Any, str]


class _List(list):  # type: ignore[type-arg]
    """A list that knows the file and line of each of its items."""

    places: list[str]


def place_of(container: Any, key: Any, default: str = "mkdocs.yml") -> str:
    """The `file:LINE` of a key of a mapping, or an item of a list, that `PlacedLoader` read.

    Args:
        container: The mapping or list.
        key: The key, or the index.
        default: What to give when the place is not known.

    Returns:
        The place, or `default`.
    """
    places = getattr(container, "places", None)
    if isinstance(places, dict):
        return places.get(key, default)
    if isinstance(places, list) and isinstance(key, int) and 0 <= key < len(places):
        return places[key]
    return default


def keep_place(parent: Any, child: Any, key: Any) -> None:
    """Give `parent[key]` the place of `child[key]`, which a merge has put there."""
    if isinstance(parent, _Mapping) and isinstance(child, _Mapping):
        parent.places[key] = place_of(child, key)


class PlacedLoader(SafeLoader):
    """docpact's safe loader, its mappings and lists knowing where each item is."""

    name: str = "mkdocs.yml"  # the file, as messages name it


def _place(loader: PlacedLoader, node: yaml.Node) -> str:
    return f"{loader.name}:{node.start_mark.line + 1}"


def _map(loader: PlacedLoader, node: yaml.MappingNode) -> Any:
    data = _Mapping()
    yield data
    data.update(loader.construct_mapping(node))  # flattens `<<` merges into node.value
    data.places = {}
    for key, _ in node.value:
        data.places[loader.construct_object(key)] = _place(loader, key)


def _seq(loader: PlacedLoader, node: yaml.SequenceNode) -> Any:
    data = _List()
    yield data
    data.extend(loader.construct_sequence(node))
    data.places = [_place(loader, item) for item in node.value]


PlacedLoader.add_constructor("tag:yaml.org,2002:map", _map)
PlacedLoader.add_constructor("tag:yaml.org,2002:seq", _seq)
