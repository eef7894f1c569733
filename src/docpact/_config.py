# SPDX-License-Identifier: MIT
"""Contracts as declared in the `[[tool.docpact.contract]]` tables of `pyproject.toml`."""

from __future__ import annotations

import keyword
import os
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from docpact._errors import DocpactError
from docpact._findings import cannot_read, relative
from docpact._mkdocs import (
    DEFAULT_HEADINGS,
    DOCSTRING_STYLES,
    Headings,
    docstring_style,
    headings,
)
from docpact._registry import KINDS

__all__ = ["Config", "Contract", "find_pyproject", "load_config"]

_TABLE_KEYS = frozenset({"contract", "paths", "docstring-style", "coverage"})
_CONTRACT_HEADER = re.compile(r"^\s*\[\[\s*tool\s*\.\s*docpact\s*\.\s*contract\s*\]\]")
_TABLE_HEADER = re.compile(r"^\s*\[\s*tool\s*\.\s*docpact\s*\]")
_ANY_HEADER = re.compile(r"^\s*\[")
# The key a configuration error names first: `tool.docpact.contract[0].docs must ...`.
_ERROR_KEY = re.compile(
    r"^tool\.docpact(?:\.contract\[(?P<index>\d+)\])?(?:\.(?P<key>[\w-]+))?[ :]"
)


@dataclass(frozen=True)
class Contract:
    """One `[[tool.docpact.contract]]` table: what must keep agreeing, by its kind.

    Attributes:
        object: The dotted path of the object, for example
            `rolloutnorm._normalize.normalize_advantages_by_rollout`; empty for a
            `config-defaults` contract.
        operands: For a `divisor` contract, the names the divisor is computed from, each
            named as inline code in the docstring and in every docs section.
        docs: Docs sections as `page#anchor`, the page relative to the project root and the
            anchor the heading has on the built site (`mkdocs.yml`'s `toc` settings).
        line: The line of the contract's table in `pyproject.toml`.
        kind: `divisor` (the default), `names` or `config-defaults`.
        names: For a `names` contract, the identifiers the docstring and docs must name.
        file: For a `config-defaults` contract, the file the docs' YAML block must equal.
        pages: For a `claims` contract, the docs pages whose claims and claim words are
            checked, relative to the project root.
        properties: For a `claims` contract, the test files and folders searched for
            `@docpact.claim` bindings.
        words: For a `claims` contract, the claim words (`word*` matches longer words too).
        session: For a `claims` contract, the nox session of a binding that names none.
    """

    object: str = ""
    operands: tuple[str, ...] = ()
    docs: tuple[str, ...] = ()
    line: int = 1
    kind: str = "divisor"
    names: tuple[str, ...] = ()
    file: str = ""
    pages: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    session: str = "tests"

    @property
    def package(self) -> str | None:
        """The top-level package that holds the object, `None` for a contract without one."""
        return self.object.partition(".")[0] if self.object else None

    @property
    def identifiers(self) -> tuple[str, ...]:
        """What the docstring and docs must name: the operands, or the names."""
        return self.operands if self.kind == "divisor" else self.names

    @property
    def label(self) -> str:
        """How messages name the contract: its object, its file, or its kind."""
        return self.object or self.file or self.kind


_DEFAULT_PATHS = ("src", ".")


@dataclass(frozen=True)
class Config:
    """The contracts of one project.

    Attributes:
        pyproject: The absolute path of the `pyproject.toml` that declares them.
        contracts: The contracts, in the order they are declared.
        paths: Where the contracts' packages are searched for, in order, relative to the
            project root: `[tool.docpact] paths`, by default `src` then the root itself.
        docstring_style: How docstrings' sections are read (`google`, `numpy`, `sphinx`):
            `[tool.docpact] docstring-style`, else the `docstring_style` that `mkdocs.yml`
            gives mkdocstrings' Python handler, else `google`.
        headings: How the site gives headings their anchors, from `mkdocs.yml`.
        coverage: The packages `docpact coverage` covers by default: `[tool.docpact]
            coverage`.
    """

    pyproject: Path
    contracts: tuple[Contract, ...]
    paths: tuple[str, ...] = _DEFAULT_PATHS
    docstring_style: str = "google"
    headings: Headings = DEFAULT_HEADINGS
    coverage: tuple[str, ...] = ()

    @property
    def root(self) -> Path:
        """The project root: the folder of `pyproject.toml`."""
        return self.pyproject.parent


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
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as error:
        msg = f"{prefix} {cannot_read(error)}"
        raise DocpactError(msg) from None
    except tomllib.TOMLDecodeError as error:
        at = re.search(r"at line (\d+)", str(error))
        msg = (
            f"{relative(path, Path.cwd())}:{at[1] if at else 1}: error: is not valid TOML: {error}"
        )
        raise DocpactError(msg) from None
    try:
        tool = data.get("tool")
        table = tool.get("docpact") if isinstance(tool, dict) else None
        if not contracts and table is None:
            table = {}
        declared = _contracts(table) if contracts or "contract" in table else []
        paths = _paths(table["paths"]) if "paths" in table else _DEFAULT_PATHS
        covered = table.get("coverage", [])
        if not isinstance(covered, list) or not all(
            isinstance(name, str) and name and all(map(_is_name, name.split(".")))
            for name in covered
        ):
            msg = f"tool.docpact.coverage must be a list of dotted package names, got {covered!r}"
            raise ValueError(msg)
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
            if not _inside(page):
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
    )


def _contracts(table: object) -> list[Contract]:
    if table is None:
        msg = "no [[tool.docpact.contract]] table"
        raise ValueError(msg)
    if not isinstance(table, dict):
        msg = f"tool.docpact must be a table, got {table!r}"
        raise ValueError(msg)
    if unknown := sorted(set(table) - _TABLE_KEYS):
        msg = f"tool.docpact has unknown keys {unknown}; known keys are {sorted(_TABLE_KEYS)}"
        raise ValueError(msg)
    entries = table.get("contract")
    if not isinstance(entries, list) or not entries:
        msg = f"tool.docpact.contract must be a non-empty array of tables, got {entries!r}"
        raise ValueError(msg)
    contracts = [_contract(entry, f"tool.docpact.contract[{i}]") for i, entry in enumerate(entries)]
    claims = [i for i, contract in enumerate(contracts) if contract.kind == "claims"]
    if len(claims) > 1:
        msg = (
            f"tool.docpact.contract[{claims[1]}].kind is a second claims contract: a claim ID "
            "names one claim over all the pages, so list every claims page in one contract"
        )
        raise ValueError(msg)
    return contracts


def _contract(entry: object, key: str) -> Contract:
    if not isinstance(entry, dict):
        msg = f"{key} must be a table, got {entry!r}"
        raise ValueError(msg)
    kind_name = entry.get("kind", "divisor")
    if not isinstance(kind_name, str) or kind_name not in KINDS:
        msg = f"{key}.kind must be one of {sorted(KINDS)}, got {kind_name!r}"
        raise ValueError(msg)
    kind = KINDS[kind_name]
    allowed = kind.required | kind.optional | {"kind"}
    if unknown := sorted(set(entry) - allowed):
        msg = f"{key} has unknown keys {unknown}; a {kind_name} contract takes {sorted(allowed)}"
        raise ValueError(msg)
    if missing := sorted(kind.required - set(entry) - {"operands", "names", "docs"}):
        msg = f"{key} needs {', '.join(missing)} for a {kind_name} contract"
        raise ValueError(msg)
    values: dict[str, object] = {"kind": kind_name}
    if "object" in kind.required:
        obj = entry.get("object")
        if not isinstance(obj, str) or not all(map(_is_name, obj.split("."))):
            msg = f"{key}.object must be a dotted Python path, got {obj!r}"
            raise ValueError(msg)
        values["object"] = obj
    for field in sorted({"operands", "names"} & kind.required):
        values[field] = _identifiers(entry.get(field), f"{key}.{field}")
    if "file" in kind.required:
        file = entry.get("file")
        if not isinstance(file, str) or not file or "\0" in file or not _inside(file):
            msg = f"{key}.file must be a path inside the project root, got {file!r}"
            raise ValueError(msg)
        values["file"] = file
    if "pages" in kind.required:
        values.update(_claims_keys(entry, key))
    docs = entry.get("docs", [])
    if not isinstance(docs, list) or not all(_is_section(section) for section in docs):
        msg = f"{key}.docs must be a list of 'page.md#anchor' strings, got {docs!r}"
        raise ValueError(msg)
    if "docs" in kind.required and not docs:
        msg = f"{key}.docs must list at least one 'page.md#anchor' for a {kind_name} contract"
        raise ValueError(msg)
    values["docs"] = tuple(docs)
    return Contract(**values)  # type: ignore[arg-type]


def _claims_keys(entry: dict, key: str) -> dict[str, object]:
    from docpact._claims_kind import DEFAULT_WORDS

    values: dict[str, object] = {}
    for field in ("pages", "properties"):
        paths = entry.get(field)
        if (
            not isinstance(paths, list)
            or not paths
            or not all(isinstance(p, str) and p and "\0" not in p and _inside(p) for p in paths)
        ):
            msg = (
                f"{key}.{field} must be a non-empty list of paths inside the project root, "
                f"got {paths!r}"
            )
            raise ValueError(msg)
        # Written as the findings and the site name them: `./docs/a.md` is `docs/a.md`.
        normal = [PurePosixPath(os.path.normpath(p.replace("\\", "/"))).as_posix() for p in paths]
        if repeated := sorted({p for p in normal if normal.count(p) > 1}):
            msg = f"{key}.{field} lists {repeated} more than once; list each once"
            raise ValueError(msg)
        values[field] = tuple(normal)
    words = entry.get("words", list(DEFAULT_WORDS))
    if not isinstance(words, list) or not all(
        isinstance(w, str) and re.fullmatch(r"[A-Za-z][A-Za-z'-]*\*?", w) for w in words
    ):
        msg = (
            f"{key}.words must be a list of words, each letters, optionally ending in * to "
            f"match longer words too, got {words!r}"
        )
        raise ValueError(msg)
    values["words"] = tuple(words)
    session = entry.get("session", "tests")
    if not isinstance(session, str) or not re.fullmatch(r"[\w.\-+]+", session):
        msg = f"{key}.session must be a nox session name, got {session!r}"
        raise ValueError(msg)
    values["session"] = session
    return values


def _identifiers(names: object, key: str) -> tuple[str, ...]:
    if not isinstance(names, list) or not names or not all(map(_is_name, names)):
        msg = f"{key} must be a non-empty list of Python names, not keywords, got {names!r}"
        raise ValueError(msg)
    if repeated := sorted({name for name in names if names.count(name) > 1}):
        msg = f"{key} lists {repeated} more than once; list each once"
        raise ValueError(msg)
    return tuple(names)


def _paths(paths: object) -> tuple[str, ...]:
    names = isinstance(paths, list) and all(isinstance(p, str) and p for p in paths)
    if not names or not paths or any("\0" in p for p in paths):
        msg = f"tool.docpact.paths must be a non-empty list of folder names, got {paths!r}"
        raise ValueError(msg)
    if outside := [p for p in paths if not _inside(p)]:
        msg = f"tool.docpact.paths lists {outside}, absolute or outside the project root"
        raise ValueError(msg)
    return tuple(PurePosixPath(p).as_posix() for p in paths)


def _inside(relative_path: str) -> bool:
    """Whether a path, read as text relative to the project root, stays inside it.

    Links are not followed: a `src` that links elsewhere is the project's own choice.
    """
    if Path(relative_path).is_absolute():
        return False
    path = PurePosixPath(relative_path.replace("\\", "/"))
    return not path.is_absolute() and ".." not in PurePosixPath(os.path.normpath(path)).parts


def _is_name(name: object) -> bool:
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


def _is_section(section: object) -> bool:
    if not isinstance(section, str) or "\0" in section:
        return False
    page, _, anchor = section.partition("#")
    return bool(page and anchor) and "#" not in anchor


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
