# SPDX-License-Identifier: MIT
"""The rules of a contract, checked against griffe's static view of a package.

Nothing here imports the checked package: the function comes from griffe's tree and its
body from the syntax tree griffe parsed.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING, Any

from griffe import AliasResolutionError, CyclicAliasError

from docpact._findings import Finding, relative
from docpact._markdown import inline_code_names, sections
from docpact._trace import divisions

if TYPE_CHECKING:
    from griffe import Module, Object

    from docpact._config import Config, Contract

__all__ = ["check_contract", "check_docs", "missing_object"]


def check_contract(
    contract: Contract, *, package: Module, nodes: dict[str, ast.AST], config: Config
) -> list[Finding]:
    """Check every rule of one contract whose object lives in a loaded package.

    Args:
        contract: The contract.
        package: The contract's top-level package, completely loaded by griffe.
        nodes: Function nodes by the function's canonical path, as griffe parsed them.
        config: The project's contracts, for its root and `pyproject.toml`.

    Returns:
        The findings, possibly none.
    """
    obj = _lookup(package, contract.object)
    if obj is None:
        findings = [missing_object(contract, package=package, config=config)]
    else:
        findings = _check_function(contract, obj, nodes=nodes, root=config.root)
    return [*findings, *check_docs(contract, config)]


def missing_object(contract: Contract, *, package: Module | None, config: Config) -> Finding:
    """Report an object that griffe could not find, at its syntax error if it has one.

    Args:
        contract: The contract whose object is missing.
        package: Its top-level package, or `None` when griffe could not load the package.
        config: The project's contracts, for its root and `pyproject.toml`.

    Returns:
        A DP001 finding.
    """
    folder = _package_folder(contract.package, package, config.root)
    if folder and (error := _syntax_error(folder, contract.object)):
        where = relative(Path(error.filename), config.root)
        message = f"{contract.object} cannot be read: {where} has a syntax error ({error.msg})"
        return Finding(where, error.lineno or 1, "DP001", message)
    if package is None:
        message = (
            f"{contract.object} does not exist: "
            f"no package {contract.package} under the project root or src/"
        )
    else:
        message = f"{contract.object} does not exist"
    return Finding(relative(config.pyproject, config.root), contract.line, "DP001", message)


def check_docs(contract: Contract, config: Config) -> list[Finding]:
    """Check that every docs section of a contract exists and names every operand.

    Args:
        contract: The contract.
        config: The project's contracts, for its root and `pyproject.toml`.

    Returns:
        DP004 and DP005 findings, possibly none.
    """
    findings = []
    pyproject = relative(config.pyproject, config.root)
    for section_ref in contract.docs:
        page, _, anchor = section_ref.partition("#")
        try:
            text = (config.root / page).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            why = (
                "does not exist"
                if isinstance(error, FileNotFoundError)
                else f"cannot be read: {error}"
            )
            message = f"docs page {page} of {contract.object} {why}"
            findings.append(Finding(pyproject, contract.line, "DP005", message))
            continue
        section = next((s for s in sections(text) if s.anchor == anchor), None)
        if section is None:
            message = f"{page} has no heading with anchor #{anchor}, listed for {contract.object}"
            findings.append(Finding(pyproject, contract.line, "DP005", message))
            continue
        named = inline_code_names(section.text)
        findings.extend(
            Finding(
                Path(page).as_posix(),
                section.line,
                "DP004",
                f"section #{anchor} does not name operand `{operand}` as inline code",
            )
            for operand in contract.operands
            if operand not in named
        )
    return findings


def _check_function(
    contract: Contract, obj: Object, *, nodes: dict[str, ast.AST], root: Path
) -> list[Finding]:
    path = relative(obj.filepath, root)  # a function's file is one path, never a namespace
    if not obj.is_function:
        message = f"{contract.object} is a {obj.kind.value}, not a function"
        return [Finding(path, obj.lineno or 1, "DP001", message)]
    node = nodes.get(obj.path)
    line = getattr(node, "lineno", obj.lineno) or 1
    if not obj.docstring or not obj.docstring.value.strip():
        return [Finding(path, line, "DP001", f"{contract.object} has no docstring")]
    named = inline_code_names(obj.docstring.value)
    findings = [
        Finding(
            path,
            obj.docstring.lineno or line,
            "DP002",
            f"docstring of {contract.object} does not name operand `{operand}` as inline code",
        )
        for operand in contract.operands
        if operand not in named
    ]
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        message = f"{contract.object} has no source that docpact can read"
        return [*findings, Finding(path, line, "DP001", message)]
    found = divisions(node)
    if not found:
        message = (
            f"{contract.object} has no division; its divisor must use {_names(contract.operands)}"
        )
        return [*findings, Finding(path, line, "DP006", message)]
    best = max(found, key=lambda division: len(division.names & set(contract.operands)))
    findings.extend(
        Finding(
            path,
            best.line,
            "DP003",
            f"no division in {contract.object} computes its divisor from operand `{operand}`",
        )
        for operand in contract.operands
        if operand not in best.names
    )
    return findings


def _lookup(package: Module, dotted: str) -> Any:
    parts = dotted.split(".")[1:]
    try:
        obj = package[parts] if parts else package
        return obj.final_target if obj.is_alias else obj
    except (KeyError, AliasResolutionError, CyclicAliasError):
        return None


def _package_folder(name: str, package: Module | None, root: Path) -> Path | None:
    if package is not None:
        filepath = package.filepath
        return filepath.parent if isinstance(filepath, Path) else None
    return next(
        (f / name for f in (root / "src", root) if (f / name / "__init__.py").is_file()), None
    )


def _syntax_error(folder: Path, dotted: str) -> SyntaxError | None:
    parts = dotted.split(".")[1:]
    candidates = [folder / "__init__.py"]
    for i in range(1, len(parts) + 1):
        base = folder.joinpath(*parts[:i])
        candidates += [base.with_suffix(".py"), base / "__init__.py"]
    for candidate in candidates:
        if candidate.is_file():
            try:
                ast.parse(candidate.read_bytes(), filename=str(candidate))
            except SyntaxError as error:
                return error
    return None


def _names(operands: tuple[str, ...]) -> str:
    return ", ".join(f"`{operand}`" for operand in operands)
