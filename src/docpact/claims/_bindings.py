# SPDX-License-Identifier: MIT
"""Properties bound to claims: the bindings of `docpact.claim`, read without importing.

A property is a test function decorated with `docpact.claim("ID", ...)`, or marked with
`pytest.mark.docpact_claim("ID", ...)`, which needs no docpact where the tests run: the
project registers the marker in its own pytest configuration. docpact reads the decorator
from the test file's syntax tree, as it reads code through griffe: the tests are never
imported, so `docpact check` runs without their dependencies (torch, hypothesis).
Reviews live in the review ledger (`docpact.claims._ledger`), not in the test files. A
`reviewed="TEXT/CODE..."` argument, where earlier releases wrote the review into the
decorator, is still read, so that `docpact claims --migrate` can move it into the ledger and
remove it; the checks report it until then.

Only the files whose text names the marker or imports docpact are parsed: a cheap scan of
the text finds them first.
"""

from __future__ import annotations

import ast
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from docpact._model import keys
from docpact._readers.files import (
    Unreadable,
    decode,
    kind,
    parse_python,
    read_data,
    read_python,
)
from docpact.claims._fingerprint import (
    MARKER,
    Fingerprints,
    code_fingerprint,
    is_claim,
    statements,
)
from docpact.claims._page import CLAIM_ID

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "REVIEWED",
    "SESSION",
    "Binding",
    "read_bindings",
    "read_text_bindings",
    "sessions",
    "source_lines",
]

REVIEWED = keys.REVIEWED
"""A review stamp (`docpact._model.keys.REVIEWED`)."""

SESSION = keys.SESSION
"""A nox session's name (`docpact._model.keys.SESSION`)."""


@dataclass(frozen=True)
class Binding:
    """One `@claim(...)` decorator or `docpact_claim` marker, as read from its test file.

    Attributes:
        path: The test file, relative to the project root, with forward slashes.
        line: The 1-based line of the decorator.
        function: The decorated function's name.
        claim: The claim's ID, or `None` when the decorator is malformed.
        reviewed: The `reviewed` argument, empty when absent.
        session: The `session` argument, empty when absent.
        code: The fingerprint of the property's code now.
        problem: What is malformed in the decorator, or empty.
        span: Where `reviewed`'s string is in the file (start and end, as 1-based line and
            0-based character column), which `--migrate` removes; zeros when it is absent.
        has_reviewed: Whether the decorator passes `reviewed`.
        node: The property's pytest node id after its path: the function's name, or
            `Class::name` for a method.
        end: The last line of the decorated function.
        start: Its first line: its first decorator's, which may stand above the binding.
        blob: The git blob id of the file's bytes that `code` was taken from; empty for a
            binding read from a text (`read_text_bindings`).
    """

    path: str
    line: int
    function: str
    claim: str | None
    reviewed: str = ""
    session: str = ""
    code: str = ""
    problem: str = ""
    span: tuple[int, int, int, int] = (0, 0, 0, 0)
    has_reviewed: bool = False
    node: str = ""
    end: int = 0
    start: int = 0
    blob: str = ""


def read_bindings(
    root: Path,
    paths: tuple[str, ...],
    known: dict[str, dict[str, dict[tuple[str, str], str]]] | None = None,
) -> tuple[list[Binding], list[tuple[str, int, str]]]:
    """Read every binding of the Python files under `paths`, in path and line order.

    A file is parsed only when its text names the marker or imports docpact.

    Args:
        root: The project root.
        paths: Files and folders relative to the root; folders are searched recursively.
        known: Fingerprints already taken, as the reviews and the test runs recorded them:
            by file and git blob id, each property's code by node id and claim. A file whose
            bytes have one of those ids has its fingerprints: its properties are not
            fingerprinted again.

    Returns:
        The bindings, and the problems of files that cannot be read or parsed, as
        `(path, line, message)`; a path of `paths` that does not exist is a problem of
        `pyproject.toml` at line 0, for the caller to give the contract's line.
    """
    from docpact.claims._ledger import blob_id

    bindings, problems, shared, known = [], [], Fingerprints(), known or {}
    for file in _python_files(root, paths):
        if isinstance(file, str):
            problems.append(("pyproject.toml", 0, f"properties path {file} does not exist"))
            continue
        where = file.relative_to(root).as_posix()
        try:
            data = read_data(file)  # the bytes parsed are those whose blob id is compared
            text = decode(data)
            if "docpact" not in text or not _BOUND.search(text):  # a substring's test first
                continue
            tree = parse_python(text, where)
        except Unreadable as error:
            problems.append((where, error.line, f"{where} {error.reason}"))
            continue
        blob = blob_id(data)
        codes = known.get(where, {}).get(blob, {})
        bindings += _bindings(tree, where, text, shared, codes, blob)
    return bindings, problems


# What a file that binds a property holds: the marker, or an import of docpact, whose
# `claim` it may use under any name (`from docpact import claim as c`).
_BOUND = re.compile(rf"{MARKER}|\b(?:from|import)\s+docpact\b")


def read_text_bindings(text: str, where: str) -> list[Binding]:
    """The bindings of one file's text, read as `read_bindings` reads a file's.

    Args:
        text: The file's text, whatever its line breaks.
        where: Its path relative to the project root.

    Returns:
        The bindings.

    Raises:
        SyntaxError: When the text does not parse.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # as a file is read
    try:
        tree = parse_python(text, where)
    except Unreadable as error:
        raise SyntaxError(error.reason, (where, error.line, 1, None)) from None
    return _bindings(tree, where, text)


def _python_files(root: Path, paths: tuple[str, ...]) -> Iterator[Path | str]:
    """The Python files under `paths`, each once; a path that does not exist, as its name.

    Folders whose name starts with a dot (`.nox`, `.venv`) are not searched.
    """
    seen = set()
    for name in paths:
        path, at = root / name, kind(root / name)  # "": none, or a name too long for one
        if at not in {"file", "folder"}:
            yield name
            continue
        found = [path] if at == "file" else sorted(path.rglob("*.py"))
        for file in found:
            hidden = any(part.startswith(".") for part in file.relative_to(root).parts[:-1])
            if file not in seen and file.suffix == ".py" and not hidden:
                seen.add(file)
                yield file


def _aliases(nodes: list[ast.stmt]) -> tuple[set[str], set[str]]:
    """The names `claim` is imported as, and the names `docpact` itself is imported as.

    Args:
        nodes: Every statement of the module (imports are statements).
    """
    functions, modules = set(), set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module == "docpact" and not node.level:
            functions |= {a.asname or a.name for a in node.names if a.name == "claim"}
        elif isinstance(node, ast.Import):
            # `import docpact.sybil` binds `docpact` too; `import docpact.sybil as s` does not.
            modules |= {
                a.asname or "docpact"
                for a in node.names
                if a.name == "docpact" or (a.name.startswith("docpact.") and not a.asname)
            }
    return functions, modules


def _bindings(
    tree: ast.Module,
    where: str,
    text: str,
    shared: Fingerprints | None = None,
    codes: dict[tuple[str, str], str] | None = None,
    blob: str = "",
) -> list[Binding]:
    shared = shared or Fingerprints()
    nodes = shared.statements(tree)  # decorated definitions and imports are statements
    functions, modules = _aliases(nodes)
    if not functions and not modules and MARKER not in text:
        return []
    lines = source_lines(text)
    node_ids = _node_ids(tree)
    found = []
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            found += [
                Binding(
                    where,
                    decorator.lineno,
                    node.name,
                    None,
                    problem=f"the claim decorator decorates class {node.name}: bind the "
                    "test function that checks the claim",
                )
                for decorator in node.decorator_list
                if is_claim(
                    decorator.func if isinstance(decorator, ast.Call) else decorator,
                    functions,
                    modules,
                )
            ]
            continue
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            call = decorator.func if isinstance(decorator, ast.Call) else decorator
            if not is_claim(call, functions, modules):
                continue
            binding = _binding(decorator, node, where, lines)
            found.append(binding)
            node_id = node_ids.get(id(node), node.name)
            if binding.claim is not None:
                try:
                    code = (codes or {}).get((node_id, binding.claim)) or code_fingerprint(
                        tree, node, functions, modules, shared=shared
                    )
                except RecursionError:
                    problem = (
                        f"the code of {node.name} is nested too deeply for docpact to "
                        "fingerprint it: split its longest expression"
                    )
                    found[-1] = Binding(where, decorator.lineno, node.name, None, problem=problem)
                    continue
                found[-1] = Binding(
                    **{
                        **binding.__dict__,
                        "code": code,
                        "node": node_id,
                        "end": node.end_lineno or node.lineno,
                        "start": min(d.lineno for d in node.decorator_list),
                        "blob": blob,
                    }
                )
    return sorted(found, key=lambda b: b.line)


def _node_ids(tree: ast.Module) -> dict[int, str]:
    """The pytest node id, after the path, of each function of a module or its classes."""
    ids: dict[int, str] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for item in body:
            if isinstance(item, ast.ClassDef):
                visit(item.body, f"{prefix}{item.name}::")
            elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                ids[id(item)] = prefix + item.name

    visit(tree.body, "")
    return ids


def _binding(
    decorator: ast.expr, node: ast.FunctionDef | ast.AsyncFunctionDef, where: str, lines: list[str]
) -> Binding:
    def bad(problem: str) -> Binding:
        return Binding(where, decorator.lineno, node.name, None, problem=problem)

    usage = 'write @claim("ID") with string literals, and reviewed= and session= by keyword'
    if not isinstance(decorator, ast.Call) or len(decorator.args) != 1:
        return bad(f"the claim decorator of {node.name} takes the claim ID alone: {usage}")
    values: dict[str, ast.Constant] = {}
    for name, value in [(None, decorator.args[0])] + [(k.arg, k.value) for k in decorator.keywords]:
        if name not in {None, "reviewed", "session"}:
            return bad(f"the claim decorator of {node.name} has no argument {name}: {usage}")
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            return bad(f"the claim decorator of {node.name} needs string literals: {usage}")
        values[name or "id"] = value
    claim_id = values["id"].value
    if CLAIM_ID.fullmatch(claim_id) is None:
        return bad(f"the claim decorator of {node.name} names {claim_id!r}, not a valid claim ID")
    session = values["session"].value if "session" in values else ""
    if session and SESSION.fullmatch(session) is None:
        return bad(f"the claim decorator of {node.name} names session {session!r}, not a name")
    reviewed = values.get("reviewed")
    if reviewed is not None:  # its string is rewritten in place
        span = (
            reviewed.lineno,
            _column(lines, reviewed.lineno, reviewed.col_offset),
            reviewed.end_lineno or reviewed.lineno,
            _column(lines, reviewed.end_lineno or reviewed.lineno, reviewed.end_col_offset or 0),
        )
    else:  # nothing for --migrate to remove
        span = (0, 0, 0, 0)
    return Binding(
        where,
        decorator.lineno,
        node.name,
        claim_id,
        reviewed=reviewed.value if reviewed else "",
        session=session,
        span=span,
        has_reviewed=reviewed is not None,
    )


def source_lines(text: str) -> list[str]:
    """A Python file's lines as its syntax tree numbers them, each with its line break.

    Args:
        text: The file's text.

    Returns:
        The lines, split at line feeds only (`str.splitlines` also splits at a form
        feed, which Python reads as white space).
    """
    return io.StringIO(text, newline="\n").readlines()


def _column(lines: list[str], line: int, offset: int) -> int:
    """A character column from ast's UTF-8 byte offset."""
    return len(lines[line - 1].encode("utf-8")[:offset].decode("utf-8", "replace"))


def sessions(root: Path) -> set[str] | None:
    """The sessions that the project's `noxfile.py` defines, or `None` without one.

    A session is a function decorated with `nox.session` (or `session` imported from nox),
    named by the decorator's `name=` when it gives one.

    Args:
        root: The project root.

    Returns:
        The session names; `None` when there is no readable, parsable `noxfile.py`.
    """
    try:
        tree = read_python(root / "noxfile.py")
    except Unreadable:
        return None
    names = set()
    for node in statements(tree):  # a definition is a statement: no expression is visited
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            call = decorator.func if isinstance(decorator, ast.Call) else decorator
            is_session = (isinstance(call, ast.Attribute) and call.attr == "session") or (
                isinstance(call, ast.Name) and call.id == "session"
            )
            if not is_session:
                continue
            name = node.name
            for keyword in decorator.keywords if isinstance(decorator, ast.Call) else []:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    name = str(keyword.value.value)
            names.add(name)
    return names
