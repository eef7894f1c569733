# SPDX-License-Identifier: MIT
"""A project's `mkdocs.yml` loaded as MkDocs loads it: its tags, and the files it inherits.

MkDocs' own tags are understood. `!ENV` is MkDocs' own constructor (`pyyaml-env-tag`): the
first variable set gives the value, typed as YAML types it (`5` an int, `true` a bool),
else the last item of the list, a YAML value too (`!ENV [X, 5]` gives the int 5).
`!relative` gives its path as written. Python tags (`!!python/name:...`,
`!!python/object/apply:...`) are kept as `PythonTag`s, imported only when docpact needs one.
The text is read by docpact's safe reader (`docpact._readers.yaml_safe`), which refuses a
document nested too deep or too large; each mapping and list keeps where its items are
(`place_of`), so that a setting of the wrong type is named at its file and line.

`INHERIT: path` names a parent file, relative to the file that has the key, which may
inherit in turn. As MkDocs merges (`mergedeep.merge(parent, child)`), where the parent and
the child both hold a mapping under a key the two merge key by key, at every depth; any other
value of the child, a list included, replaces the parent's: a child's `markdown_extensions`
is its whole list, not an addition to the parent's.
"""

from __future__ import annotations

import copy
import functools
import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
import yaml_env_tag

from docpact._model.errors import DocpactError
from docpact._model.findings import cannot_read, relative
from docpact._readers.files import Unreadable, read_text
from docpact._readers.yaml_places import PlacedLoader, keep_place
from docpact._readers.yaml_safe import YamlProblem, scan

__all__ = ["PythonTag", "read_mkdocs"]


@dataclass(frozen=True)
class PythonTag:
    """A `!!python/...` tag of `mkdocs.yml`, not imported until it is needed.

    Attributes:
        tag: The full tag, `tag:yaml.org,2002:python/name:module.attribute`.
        value: What the tag is applied to (the arguments of `python/object/apply`).
    """

    tag: str
    value: Any = None

    def resolve(self) -> Any:
        """Import what the tag names; call it for `python/object/apply`.

        Returns:
            The object.

        Raises:
            ImportError: When the module or its attribute cannot be imported.
        """
        kind, _, dotted = self.tag.removeprefix("tag:yaml.org,2002:python/").partition(":")
        module, _, attribute = dotted.rpartition(".")
        module = module or "builtins"  # as PyYAML's `python/name:len`
        try:
            obj = getattr(importlib.import_module(module), attribute)
        except AttributeError as error:
            raise ImportError(str(error)) from None
        if kind.startswith("object"):
            value = self.value if isinstance(self.value, dict) else {"args": self.value or []}
            return obj(*value.get("args", []), **value.get("kwds", {}))
        return obj


class _Loader(PlacedLoader):
    """A safe loader that also accepts the tags MkDocs configurations use."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A mapping; a Python tag as a key is refused at its line, as nothing MkDocs reads."""
        for key, _ in node.value:
            if key.tag.startswith(_PYTHON):
                context = "while constructing a mapping"
                problem = f"found a Python tag as a key (!!python/{key.tag.removeprefix(_PYTHON)})"
                raise yaml.constructor.ConstructorError(
                    context, node.start_mark, problem, key.start_mark
                )
        return super().construct_mapping(node, deep=deep)


_PYTHON = "tag:yaml.org,2002:python/"


def _python(loader: _Loader, suffix: str, node: yaml.Node) -> PythonTag:
    if isinstance(node, yaml.MappingNode):
        return PythonTag(node.tag, loader.construct_mapping(node))
    if isinstance(node, yaml.SequenceNode):
        return PythonTag(node.tag, loader.construct_sequence(node))
    return PythonTag(node.tag)


_Loader.add_constructor("!ENV", yaml_env_tag.construct_env_tag)
_Loader.add_constructor("!relative", lambda loader, node: loader.construct_scalar(node))
_Loader.add_multi_constructor(_PYTHON, _python)


def read_mkdocs(root: Path) -> dict[str, Any] | None:
    """Read the project's `mkdocs.yml` (or `mkdocs.yaml`) as data, over the files it inherits.

    Args:
        root: The project root.

    Returns:
        The configuration, its `INHERIT` parents merged beneath it as MkDocs merges them, or
        `None` when the project has no MkDocs configuration.

    Raises:
        DocpactError: When a file cannot be read or is not YAML, or an `INHERIT` is not a
            path, names no file, names a file that is not a mapping, or makes a loop; the
            message names the file and line at fault.
    """
    names = ("mkdocs.yml", "mkdocs.yaml")
    path = next((root / name for name in names if (root / name).is_file()), None)
    if path is None:
        return None
    data = _load(path, {})
    return data if isinstance(data, dict) else {}


def _load(path: Path, children: dict[Path, str]) -> Any:
    """One file's data, merged over its parents'.

    Args:
        path: The file.
        children: The files inheriting it, resolved, each with its name; the nearest last.
    """
    where = relative(path, Path.cwd())
    try:
        text = read_text(path)
    except Unreadable as error:
        msg = f"{where}: error: {cannot_read(error)}"
        raise DocpactError(msg) from None
    cached, line = _parse(where, text, _environment(text))
    # A copy: the merge and the callers change what they get; the cache keeps the file's own.
    data = copy.deepcopy(cached)
    if not (isinstance(data, dict) and "INHERIT" in data):
        return data
    chain = {**children, path.resolve(): where}
    at = f"{where}:{line}: error: INHERIT"
    inherit = data.pop("INHERIT")
    if not isinstance(inherit, str):
        msg = f"{at} must be the path of a file, got {inherit!r}"
        raise DocpactError(msg)
    parent = Path(os.path.normpath(path.parent / inherit))
    name = relative(parent, Path.cwd())
    try:
        resolved, is_file, exists = parent.resolve(), parent.is_file(), parent.exists()
    except (OSError, ValueError) as error:  # a name too long, or holding a NUL byte
        reason = cannot_read(error) if isinstance(error, OSError) else "holds a NUL byte"
        msg = f"{at} names {name!r}, which {reason}"
        raise DocpactError(msg) from None
    if resolved in chain:
        loop = " -> ".join([*chain.values(), chain[resolved]])
        msg = f"{at} loops back to {chain[resolved]}: {loop}"
        raise DocpactError(msg)
    if not is_file:
        problem = "is a folder, not a file" if exists else "does not exist"
        msg = f"{at} names {name}, which {problem}"
        raise DocpactError(msg)
    inherited = _load(parent, chain)
    if inherited is None:  # an empty file, which MkDocs reads as no settings
        return data
    if not isinstance(inherited, dict):
        msg = f"{at} names {name}, which is not a mapping of settings"
        raise DocpactError(msg)
    return _merge(inherited, data)


def _merge(parent: dict[Any, Any], child: dict[Any, Any]) -> dict[Any, Any]:
    """`child` merged over `parent`, in place, by `mergedeep.merge`'s replace strategy."""
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(parent.get(key), dict):
            _merge(parent[key], value)
        else:
            parent[key] = value
        keep_place(parent, child, key)
    return parent


def _environment(text: str) -> tuple[tuple[str, str], ...]:
    """What of the environment a text's `!ENV` tags may read: all of it, if it has one."""
    return tuple(sorted(os.environ.items())) if "!ENV" in text else ()


@functools.lru_cache(maxsize=16)
def _parse(where: str, text: str, environment: tuple[tuple[str, str], ...]) -> tuple[Any, int]:
    """One file's data and the line that gives its `INHERIT`, cached by the file's own text.

    Each file of an `INHERIT` chain is cached by its own text, and `read_mkdocs` reads every
    file and merges the chain anew on each call: an edited parent is never served stale
    beneath an unchanged child. A text with `!ENV` tags is cached by the environment too
    (`environment`), so a changed variable is read anew.
    """
    loader = _Loader(text)
    loader.name = where
    try:
        scan(text)
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node)
    except YamlProblem as problem:
        raise DocpactError(problem.located(where)) from None
    except yaml.YAMLError as error:
        raise DocpactError(YamlProblem.of(error).located(where)) from None
    finally:
        loader.dispose()
    return data, _inherit_line(node)


def _inherit_line(node: yaml.Node | None) -> int:
    """The line of the top-level `INHERIT` key (the last, as YAML keeps the last of a key).

    Without one, the mapping's first line: where a merge key (`<<`) brings `INHERIT` in.
    """
    if not isinstance(node, yaml.MappingNode):
        return 0
    keys = [key for key, _ in node.value if isinstance(key, yaml.ScalarNode)]
    lines = [key.start_mark.line + 1 for key in keys if key.value == "INHERIT"]
    return lines[-1] if lines else node.start_mark.line + 1
