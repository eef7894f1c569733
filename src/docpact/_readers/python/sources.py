# SPDX-License-Identifier: MIT
"""Why griffe gave docpact no object for a contract: the source file at fault, if any.

The package root is a folder with `__init__.py`, a single module `<name>.py`, or a namespace
package (a folder without `__init__.py`), in one of the configured search paths (`src/`,
then the project root, by default). Each file on the
way from the package root to the object is read as Python would read it; the first one that
is not UTF-8, holds a NUL byte or does not parse is reported, at the line at fault.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING, Any

from griffe import AliasResolutionError, CyclicAliasError, LoadingError

from docpact._model.findings import relative
from docpact._readers.files import Unreadable, kind, read_error, read_python

if TYPE_CHECKING:
    from griffe import Module

    from docpact._model.config import Config

__all__ = [
    "PARSE_ERRORS",
    "filepath",
    "function_node",
    "is_function",
    "lookup",
    "missing_object",
    "search_paths",
    "special_source",
    "unreadable",
]


PARSE_ERRORS = (LoadingError, OSError, SyntaxError, ValueError, RecursionError, MemoryError)
"""What griffe raises for a package whose source it cannot read or parse (the last two: nested
too deeply for Python's parser and compiler); `missing_object` says which file and why."""


def lookup(module: Module, parts: list[str]) -> Any:
    """The object at a dotted path inside a griffe module, aliases resolved.

    Args:
        module: The module griffe loaded.
        parts: The path's names below the module; none for the module itself.

    Returns:
        The object, or `None` when griffe has none there (or the alias cannot be resolved).
    """
    try:
        obj = module[parts] if parts else module
        return obj.final_target if obj.is_alias else obj
    except (KeyError, AliasResolutionError, CyclicAliasError):
        return None


def filepath(obj: Any) -> Path:
    """The file of a griffe object; a namespace package's first folder (it has a list)."""
    path = obj.filepath
    return path[0] if isinstance(path, list) else path


def missing_object(
    dotted: str,
    line: int,
    *,
    package: Module | None,
    config: Config,
    error: Exception | None = None,
) -> tuple[str, int, str]:
    """Say why griffe could not give an object, at its unreadable file if it has one.

    Args:
        dotted: The object's dotted path.
        line: The line of the contract naming it, in `pyproject.toml`.
        package: Its top-level package, or `None` when griffe could not load the package.
        config: The project's contracts, for its root and `pyproject.toml`.
        error: The error griffe raised while loading the package, if any.

    Returns:
        The path, line and message of the finding.
    """
    files = _source_files(dotted, package, config)
    if error is not None:  # the module at fault may be anywhere in the package
        modules = _package_modules(dotted.partition(".")[0], config)
        files += [module for module in modules if module.suffix == ".py"]
    for file in files:
        if problem := unreadable(file):
            at, reason = problem
            where = relative(file, config.root)
            return where, at, f"{dotted} cannot be loaded: {where} {reason}"
    if error is not None:
        reason = " ".join(str(error).split()) or type(error).__name__
        message = f"{dotted} cannot be loaded: {reason}"
    elif package is None:
        name = dotted.partition(".")[0]
        where = ", ".join(f"{path}/" for path in config.paths)
        message = f"{dotted} does not exist: no package {name} under {where}"
        message += _did_you_mean(_closest(name, _top_level_names(config)))
    else:
        message = f"{dotted} does not exist" + _did_you_mean(_near_objects(dotted, package))
    return config.pyproject.name, line, message


def _near_objects(dotted: str, package: Module) -> list[str]:
    """The existing paths closest to a missing object's: its first missing name respelled."""
    parts = dotted.split(".")
    # The longest path griffe has (the package at least); the name after it is misspelled.
    depth = next(i for i in range(len(parts) - 1, 0, -1) if lookup(package, parts[1:i]) is not None)
    parent = lookup(package, parts[1:depth])
    try:
        names = list(parent.all_members)
    except (AttributeError, AliasResolutionError, CyclicAliasError):
        names = list(getattr(parent, "members", {}))
    near = []
    # The name as written is no suggestion: it is there, but griffe cannot resolve it (an
    # alias of another package, or of a module that does not parse).
    for name in _closest(parts[depth], [name for name in names if name != parts[depth]]):
        respelled = [*parts[:depth], name, *parts[depth + 1 :]]
        whole = lookup(package, respelled[1:]) is not None
        near.append(".".join(respelled if whole else respelled[: depth + 1]))
    return [path for path in near if path != dotted]


def _top_level_names(config: Config) -> list[str]:
    """The names of the packages and modules in the search paths."""
    names = set()
    for folder in search_paths(config):
        try:
            children = list(folder.iterdir())
        except OSError:
            continue
        for child in children:
            name = child.name.removesuffix(".py") if kind(child) == "file" else child.name
            if name.isidentifier() and (name != child.name or kind(child) == "folder"):
                names.add(name)
    return sorted(names)


def _closest(name: str, names: list[str]) -> list[str]:
    import difflib  # only for a finding

    return difflib.get_close_matches(name, sorted(set(names)), n=3, cutoff=0.6)


def _did_you_mean(paths: list[str]) -> str:
    if not paths:
        return ""
    named = [f"`{path}`" for path in paths]
    listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"
    return f" (did you mean {listed}?)"


def unreadable(file: Path) -> tuple[int, str] | None:
    """Say why Python could not read a source file, if it could not.

    Args:
        file: The source file.

    Returns:
        `None` when the file parses, else the 1-based line at fault and the reason, worded
        to follow the file's name: `is not UTF-8 (invalid start byte)`.
    """
    try:
        read_python(file)
    except Unreadable as error:
        return error.line, error.reason
    return None


def _source_files(dotted: str, package: Module | None, config: Config) -> list[Path]:
    if package is not None:
        filepath = package.filepath
        roots = filepath if isinstance(filepath, list) else [filepath]
    else:
        roots = _package_root(dotted.partition(".")[0], search_paths(config))
    parts = dotted.split(".")[1:]
    files = []
    for path in roots:
        if path.is_dir():  # a namespace package
            folder = path
        elif path.name == "__init__.py":
            files.append(path)
            folder = path.parent
        else:  # a single module has no submodules
            files.append(path)
            continue
        for part in parts:
            files += [folder / f"{part}.py", folder / part / "__init__.py"]
            folder = folder / part
    return [file for file in files if kind(file)]  # a FIFO too: `unreadable` says what it is


def special_source(name: str, config: Config) -> str | None:
    """Why a module of a top-level package is no regular file, or `None` when each is one.

    griffe would wait for ever on a FIFO named `x.py`; docpact reports it before griffe runs.

    Args:
        name: The package's name.
        config: The project's root and search paths.

    Returns:
        The first such module, in path order, and why: `src/pkg/x.py cannot be read: ...`.
    """
    for path in _package_modules(name, config):
        if kind(path) == "other":
            return f"{relative(path, config.root)} {read_error(path)}"
    return None


def _package_modules(name: str, config: Config) -> list[Path]:
    """A top-level package's modules and stubs, in path order; a single module alone."""
    found = []
    for root in _package_root(name, search_paths(config)):
        folder = root.parent if root.name == "__init__.py" else root
        if kind(folder) == "folder":
            found += sorted(p for p in folder.rglob("*.py*") if p.suffix in {".py", ".pyi"})
        else:
            found.append(folder)
    return found


def search_paths(config: Config) -> list[Path]:
    """Where the checked packages are looked for, in order: `[tool.docpact] paths`.

    Args:
        config: The project's contracts and search paths.

    Returns:
        The folders, for griffe's loader and for reading unloadable sources alike.
    """
    return [(config.root / path).absolute() for path in config.paths]


def _package_root(name: str, folders: list[Path]) -> list[Path]:
    for folder in folders:
        for candidate in (folder / name / "__init__.py", folder / f"{name}.py", folder / name):
            if kind(candidate):  # a name too long for the file system names no package
                return [candidate]
    return []


def is_function(obj: Any) -> bool:
    """Whether a griffe object has a body to read: a function or method, or a property.

    griffe models a `@property` or `functools.cached_property` as an attribute labelled
    `property`, and a class or static method as a function.

    Args:
        obj: The griffe object.

    Returns:
        True for a function, a method of any kind, or a property's getter.
    """
    return obj.is_function or (obj.is_attribute and "property" in obj.labels)


def function_node(obj: Any) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """A griffe function's syntax tree, parsed from its module (a stub's `.py` beside it).

    Args:
        obj: The griffe function, or property whose getter is read (its callers have found
            one that `is_function` accepts: DP001 reports the rest).

    Returns:
        The function's node, or `None` when its source cannot be read or parsed.
    """
    path = obj.filepath
    if path.suffix == ".pyi":
        path = path.with_suffix(".py")
    try:
        tree = read_python(path)
    except Unreadable:
        return None  # reported as a function without readable source
    # griffe gives a decorated function the line of its first decorator, a property its def's.
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
