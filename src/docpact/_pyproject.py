# SPDX-License-Identifier: MIT
"""Read a project's configuration from `pyproject.toml`: `[tool.docpact]` and its contracts.

The loader checks the table's own keys and which kind each contract is; each kind parses
and checks its own keys (`Kind.parse`). Any error names `pyproject.toml:LINE` and the key.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from docpact import _registry as registry
from docpact._model import keys
from docpact._model.config import (
    DEFAULT_EXAMPLES,
    DEFAULT_HEADINGS,
    DEFAULT_PATHS,
    DOCSTRING_STYLES,
    EXAMPLE_RUNNERS,
    Config,
    Contract,
)
from docpact._model.errors import DocpactError
from docpact._model.findings import cannot_read, relative
from docpact._readers.files import Unreadable, read_text
from docpact._readers.mkdocs_yml import docstring_style, headings
from docpact._readers.yaml_safe import int_too_long

if TYPE_CHECKING:
    from docpact._model.rules import Kind

__all__ = ["find_pyproject", "load_config"]

_TABLE_KEYS = frozenset({"contract", "paths", "docstring-style", "coverage", "examples"})
_CONTRACT_HEADER = re.compile(r"^\s*\[\[\s*tool\s*\.\s*docpact\s*\.\s*contract\s*\]\]")
_TABLE_HEADER = re.compile(r"^\s*\[\s*tool\s*\.\s*docpact\s*\]")
_ANY_HEADER = re.compile(r"^\s*\[")
# The key a configuration error names first: `tool.docpact.contract[0].docs must ...`.
_ERROR_KEY = re.compile(
    r"^tool\.docpact(?:\.contract\[(?P<index>\d+)\])?(?:\.(?P<key>[\w-]+))?[ :]"
)


def find_pyproject(start: str | os.PathLike[str]) -> Path:
    """Find the `pyproject.toml` in a folder or the nearest folder above it.

    Args:
        start: The folder to start from.

    Returns:
        The absolute path of the file.

    Raises:
        DocpactError: When no folder from `start` upward holds a `pyproject.toml`.
    """
    folder = Path(start).absolute()
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file():
            return candidate / "pyproject.toml"
    msg = f"{relative(folder, Path.cwd())}: error: no pyproject.toml in this folder or above it"
    raise DocpactError(msg)


def load_config(pyproject: str | os.PathLike[str], *, contracts: bool = True) -> Config:
    """Read and validate the contracts declared in a `pyproject.toml`.

    Args:
        pyproject: The path of the file.
        contracts: Whether the file must declare contracts; `docpact coverage` needs none.

    Returns:
        The validated contracts.

    Raises:
        DocpactError: When the file cannot be read or parsed, or its `[tool.docpact]` table
            is missing or malformed; the message names the key at fault.
    """
    path = Path(pyproject).absolute()
    prefix = f"{relative(path, Path.cwd())}: error:"
    try:
        text = read_text(path)
        data = tomllib.loads(text)
    except Unreadable as error:
        msg = f"{prefix} {cannot_read(error)}"
        raise DocpactError(msg) from None
    except tomllib.TOMLDecodeError as error:
        at = re.search(r"at line (\d+)", str(error))
        msg = (
            f"{relative(path, Path.cwd())}:{at[1] if at else 1}: error: is not valid TOML: {error}"
        )
        raise DocpactError(msg) from None
    except (ValueError, RecursionError) as error:
        raise DocpactError(_unreadable(relative(path, Path.cwd()), text, error)) from None
    try:
        tool = data.get("tool")
        if tool is not None and not isinstance(tool, dict):
            msg = f"tool must be a table, got {tool!r}"
            raise ValueError(msg)
        table = tool.get("docpact") if isinstance(tool, dict) else None
        if not contracts and table is None:
            table = {}
        _table_keys(table)
        declared = _contracts(table) if contracts or "contract" in table else []
        paths = _paths(table["paths"]) if "paths" in table else DEFAULT_PATHS
        covered = table.get("coverage", [])
        if not isinstance(covered, list) or not all(
            isinstance(name, str) and name and all(map(keys.is_name, name.split(".")))
            for name in covered
        ):
            msg = f"tool.docpact.coverage must be a list of dotted package names, got {covered!r}"
            raise ValueError(msg)
        examples = _examples(table.get("examples", list(DEFAULT_EXAMPLES)))
        style = table.get("docstring-style")
        if style is not None and style not in DOCSTRING_STYLES:
            msg = f"tool.docpact.docstring-style must be one of {DOCSTRING_STYLES}, got {style!r}"
            raise ValueError(msg)
    except ValueError as error:
        line = _line_of_key(text, str(error))
        msg = f"{relative(path, Path.cwd())}:{line}: error: {error}"
        raise DocpactError(msg) from None
    lines = _header_lines(text, len(declared))
    numbered = tuple(replace(contract, line=lines[i]) for i, contract in enumerate(declared))
    for index, contract in enumerate(numbered):
        for section in contract.docs:
            page = section.partition("#")[0]
            if not keys.inside(page):
                msg = (
                    f"{relative(path, Path.cwd())}:{contract.line}: error: "
                    f"tool.docpact.contract[{index}].docs names {page}, which is absolute or "
                    "outside the project root; list pages relative to the folder of "
                    "pyproject.toml, inside it"
                )
                raise DocpactError(msg)
    style = style or docstring_style(path.parent) or "google"
    # Anchors only matter to contracts that list docs sections; mkdocs.yml is read for them.
    anchors = headings(path.parent) if any(c.docs for c in numbered) else DEFAULT_HEADINGS
    return Config(
        pyproject=path,
        contracts=numbered,
        paths=paths,
        docstring_style=style,
        headings=anchors,
        coverage=tuple(covered),
        examples=examples,
    )


def _table_keys(table: object) -> None:
    """Refuse a `[tool.docpact]` that is not a table, or has a key docpact does not know."""
    if table is None:
        return  # `_contracts` says which table is missing
    if not isinstance(table, dict):
        msg = f"tool.docpact must be a table, got {table!r}"
        raise ValueError(msg)
    if unknown := sorted(set(table) - _TABLE_KEYS):
        msg = f"tool.docpact has unknown keys {unknown}; known keys are {sorted(_TABLE_KEYS)}"
        raise ValueError(msg)


def _examples(runners: object) -> tuple[str, ...]:
    """The example runners `[tool.docpact] examples` declares, each known and named once."""
    if not isinstance(runners, list) or not runners or not all(isinstance(r, str) for r in runners):
        msg = (
            "tool.docpact.examples must be a non-empty list of example runners "
            f"({', '.join(EXAMPLE_RUNNERS)}), got {runners!r}"
        )
        raise ValueError(msg)
    if unknown := [runner for runner in runners if runner not in EXAMPLE_RUNNERS]:
        msg = (
            f"tool.docpact.examples names unknown runner {unknown[0]!r}; the known runners "
            f"are {', '.join(EXAMPLE_RUNNERS)}"
        )
        raise ValueError(msg)
    if len(set(runners)) < len(runners):
        msg = f"tool.docpact.examples names a runner twice: {runners!r}"
        raise ValueError(msg)
    return tuple(runners)


def _unreadable(where: str, text: str, error: ValueError | RecursionError) -> str:
    """What `tomllib` could not build, at its line: an integer too long, arrays too deep."""
    if isinstance(error, RecursionError):
        at = re.search(r"[\[{](?:\s*[\[{]){49}", text)
        problem = "nests arrays or tables deeper than tomllib can read"
    else:
        limit = sys.get_int_max_str_digits()
        at = re.search(rf"[0-9_]{{{limit + 1},}}", text)
        digits = sum(c.isdigit() for c in at[0]) if at else limit + 1
        problem = int_too_long(digits)
    line = text.count("\n", 0, at.start()) + 1 if at else 1
    return f"{where}:{line}: error: {problem}"


def _contracts(table: object) -> list[Contract]:
    if table is None:
        msg = "no [[tool.docpact.contract]] table"
        raise ValueError(msg)
    entries = table.get("contract")
    if not isinstance(entries, list) or not entries:
        msg = f"tool.docpact.contract must be a non-empty array of tables, got {entries!r}"
        raise ValueError(msg)
    parsed = [_contract(entry, f"tool.docpact.contract[{i}]") for i, entry in enumerate(entries)]
    contracts = [contract for contract, _ in parsed]
    for name, once in {contract.kind: kind.once for contract, kind in parsed}.items():
        same = [i for i, contract in enumerate(contracts) if contract.kind == name]
        if once and len(same) > 1:
            msg = f"tool.docpact.contract[{same[1]}].kind is a second {name} contract: {once}"
            raise ValueError(msg)
    return contracts


def _contract(entry: object, key: str) -> tuple[Contract, Kind]:
    """A contract table's contract, and its kind, which `_contracts` checks it by."""
    if not isinstance(entry, dict):
        msg = f"{key} must be a table, got {entry!r}"
        raise ValueError(msg)
    name = entry.get("kind", registry.DEFAULT_KIND)
    found = registry.kind(name) if isinstance(name, str) else None
    if found is None:
        msg = f"{key}.kind must be one of {sorted(registry.all_kinds())}, got {name!r}"
        raise ValueError(msg)
    allowed = found.required | found.optional | {"kind"}
    if unknown := sorted(set(entry) - allowed):
        msg = f"{key} has unknown keys {unknown}; a {name} contract takes {sorted(allowed)}"
        raise ValueError(msg)
    values = {k: v for k, v in entry.items() if k != "kind"}
    if found.parse is not None:
        return found.parse(values, key), found
    keys.require(values, key, name, tuple(found.required))
    docs = keys.sections(values.get("docs", []), f"{key}.docs", kind=name)
    return Contract(kind=name, docs=docs), found


def _paths(paths: object) -> tuple[str, ...]:
    names = isinstance(paths, list) and all(isinstance(p, str) and p for p in paths)
    if not names or not paths or any("\0" in p for p in paths):
        msg = f"tool.docpact.paths must be a non-empty list of folder names, got {paths!r}"
        raise ValueError(msg)
    if outside := [p for p in paths if not keys.inside(p)]:
        msg = f"tool.docpact.paths lists {outside}, absolute or outside the project root"
        raise ValueError(msg)
    return tuple(PurePosixPath(p).as_posix() for p in paths)


def _line_of_key(text: str, message: str) -> int:
    """The line of the key a configuration error starts with, found in the TOML text.

    `tool.docpact.contract[1].operands ...` is the `operands =` line of the second
    `[[tool.docpact.contract]]` table, or its header; `tool.docpact.paths ...` the `paths =`
    line of `[tool.docpact]`. Where the key cannot be found (dotted or inline tables), 1.
    """
    match = _ERROR_KEY.match(message)
    if match is None:
        return 1
    lines = text.splitlines()
    if match["index"] is not None:
        starts = [i for i, line in enumerate(lines) if _CONTRACT_HEADER.match(line)]
        index = int(match["index"])
        if index >= len(starts):
            return 1
        start = starts[index]
    else:
        start = next((i for i, line in enumerate(lines) if _TABLE_HEADER.match(line)), None)
        if start is None:
            return 1
    end = next((i for i in range(start + 1, len(lines)) if _ANY_HEADER.match(lines[i])), len(lines))
    if match["key"]:
        key = re.compile(rf"^\s*[\"']?{re.escape(match['key'])}[\"']?\s*=")
        found = next((i for i in range(start + 1, end) if key.match(lines[i])), start)
        return found + 1
    return start + 1


def _header_lines(text: str, count: int) -> list[int]:
    lines = [i for i, line in enumerate(text.splitlines(), 1) if _CONTRACT_HEADER.match(line)]
    # Inline arrays (`contract = [{...}]`) have no headers; their findings point at line 1.
    return lines if len(lines) == count else [1] * count
