# SPDX-License-Identifier: MIT
"""The rules of a contract, checked against griffe's static view of a package.

Nothing here imports the checked package: the function comes from griffe's tree and its
body from the syntax tree griffe parsed.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from griffe import AliasResolutionError, CyclicAliasError, DocstringSectionKind

from docpact._docs import check_docs
from docpact._findings import Finding, relative
from docpact._markdown import inline_code_names
from docpact._sources import missing_object
from docpact._trace import chains, divisions

if TYPE_CHECKING:
    from griffe import Function, Module

    from docpact._config import Config, Contract

__all__ = ["check_contract"]


def check_contract(contract: Contract, *, package: Module, config: Config) -> list[Finding]:
    """Check every rule of one contract whose object lives in a loaded package.

    Args:
        contract: The contract.
        package: The contract's top-level package, completely loaded by griffe.
        config: The project's contracts, for its root and `pyproject.toml`.

    Returns:
        The findings, possibly none.
    """
    obj = _lookup(package, contract.object)
    if obj is None:
        findings = [missing_object(contract, package=package, config=config)]
    elif not obj.is_function:
        kind = obj.kind.value
        article = "an" if kind[0] in "aeiou" else "a"
        message = f"{contract.object} is {article} {kind}, not a function"
        # A namespace package's filepath is the list of its folders.
        filepath = obj.filepath[0] if isinstance(obj.filepath, list) else obj.filepath
        findings = [Finding(relative(filepath, config.root), obj.lineno or 1, "DP001", message)]
    else:
        findings = _check_function(contract, obj, node=_function_node(obj), config=config)
    return [*findings, *check_docs(contract, config)]


def _check_function(
    contract: Contract, obj: Function, *, node: ast.AST | None, config: Config
) -> list[Finding]:
    path = relative(obj.filepath, config.root)  # a function's file is one path
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
    # A renamed parameter is reported once, as renamed, even if the divisor lost it too.
    renamed = _renamed_parameters(contract, obj, config.docstring_style)
    findings.extend(
        Finding(
            path,
            line,
            "DP003",
            f"operand `{operand}` is documented as a parameter of {contract.object} "
            "but the signature has none (renamed?)",
        )
        for operand in renamed
    )
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        message = f"{contract.object} has no source that docpact can read"
        return [*findings, Finding(path, line, "DP001", message)]
    found = divisions(node)
    if not found:
        operands = ", ".join(f"`{operand}`" for operand in contract.operands)
        message = f"{contract.object} has no division; its divisor must use {operands}"
        return [*findings, Finding(path, line, "DP006", message)]
    best = max(chains(found), key=lambda chain: len(chain.names & set(contract.operands)))
    findings.extend(
        Finding(
            path,
            best.line,
            "DP003",
            f"no division in {contract.object} computes its divisor from operand `{operand}`",
        )
        for operand in contract.operands
        if operand not in best.names and operand not in renamed
    )
    return findings


def _function_node(obj: Function) -> ast.AST | None:
    """The function's syntax tree, parsed from its module's source (a stub's `.py` beside it).

    One parse per contract, rather than a tree kept for every function griffe visits.
    """
    path = obj.filepath
    if path.suffix == ".pyi":
        path = path.with_suffix(".py")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8-sig"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None  # reported as a function without readable source
    defs = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == obj.name
    ]
    # griffe gives a decorated function the line of its first decorator.
    return next(
        (node for node in defs if obj.lineno in {node.lineno, *_decorator_lines(node)}), None
    )


def _decorator_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[int]:
    return [decorator.lineno for decorator in node.decorator_list]


def _renamed_parameters(contract: Contract, obj: Function, style: str) -> list[str]:
    """The operands that the docstring's parameters section lists but the signature lacks."""
    sections = obj.docstring.parse(style, warnings=False)  # type: ignore[union-attr]
    documented = {
        parameter.name
        for section in sections
        if section.kind is DocstringSectionKind.parameters
        for parameter in section.value
    }
    return [
        operand
        for operand in contract.operands
        if operand in documented and operand not in obj.parameters
    ]


def _lookup(package: Module, dotted: str) -> Any:
    parts = dotted.split(".")[1:]
    try:
        obj = package[parts] if parts else package
        return obj.final_target if obj.is_alias else obj
    except (KeyError, AliasResolutionError, CyclicAliasError):
        return None
