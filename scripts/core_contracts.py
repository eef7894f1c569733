#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a project's pyproject.toml without its claims contracts, for `docpact check` alone.

`docpact check` has no option to leave a kind of contract out, so the drift runner's
`docpact-core` check and the check budget (`bench_checks.py`) give it `--pyproject` with
this copy instead. It lies beside the original, since docpact reads every path relative
to the folder of the file it is given, and each `kind = "claims"` table is blanked line for
line, so that every other contract keeps the line its findings name.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

# The name of the copy, beside the project's pyproject.toml.
CORE_PYPROJECT = "pyproject.docpact-core.toml"
# A table header alone on its line: `[tool.x]`, `[[tool.docpact.contract]]`, with a comment.
_HEADER = re.compile(r"""^\s*\[\[?\s*[\w"'.\- ]+\]\]?\s*(?:#.*)?$""")
_CONTRACT = re.compile(r"^\s*\[\[\s*tool\s*\.\s*docpact\s*\.\s*contract\s*\]\]")


class CoreError(Exception):
    """The pyproject.toml cannot be read, or its claims contracts cannot be left out."""


def without_claims(text: str) -> str:
    """The text of a pyproject.toml with each claims contract's table blanked, line for line.

    Args:
        text: The pyproject.toml's text.

    Returns:
        The same text, the lines of every `kind = "claims"` contract (from its header to the
        next header) made empty, so the remaining contracts keep their lines.

    Raises:
        CoreError: If the text is not TOML, or the blanked text does not hold exactly the
            other contracts and the rest of the original's data.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        msg = f"is not valid TOML: {error}"
        raise CoreError(msg) from None
    contracts = data.get("tool", {}).get("docpact", {}).get("contract", [])
    lines = text.split("\n")
    headers = [index for index, line in enumerate(lines) if _HEADER.match(line)]
    starts = [index for index in headers if _CONTRACT.match(lines[index])]
    if len(starts) != len(contracts):
        msg = f"found {len(starts)} [[tool.docpact.contract]] headers for {len(contracts)} tables"
        raise CoreError(msg)
    for start, contract in zip(starts, contracts, strict=True):
        if contract.get("kind") != "claims":
            continue
        end = next((index for index in headers if index > start), len(lines))
        lines[start:end] = [""] * (end - start)
    core = "\n".join(lines)
    want = {**data, "tool": {**data.get("tool", {})}}
    want["tool"]["docpact"] = {**data.get("tool", {}).get("docpact", {})}
    if kept := [contract for contract in contracts if contract.get("kind") != "claims"]:
        want["tool"]["docpact"]["contract"] = kept
    else:
        want["tool"]["docpact"].pop("contract", None)
    try:
        left = tomllib.loads(core)
    except tomllib.TOMLDecodeError:
        left = None
    if left is None or _pruned(left) != _pruned(want):
        msg = "blanking its claims tables changed more than the claims contracts"
        raise CoreError(msg)
    return core


def _pruned(data: object) -> object:
    """TOML data without its empty tables, which blanking a table's only child may leave."""
    if isinstance(data, dict):
        pruned = {key: _pruned(value) for key, value in data.items()}
        return {key: value for key, value in pruned.items() if value != {}}
    return data


def write_core_pyproject(pyproject: Path) -> Path:
    """Write `CORE_PYPROJECT` beside `pyproject`, with its claims contracts left out.

    Args:
        pyproject: The project's pyproject.toml.

    Returns:
        The path written, to pass to `docpact check --pyproject`.

    Raises:
        CoreError: If the file cannot be read, or its claims contracts cannot be left out.
    """
    try:
        text = pyproject.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        msg = f"{pyproject}: cannot read: {error}"
        raise CoreError(msg) from None
    try:
        core = without_claims(text)
    except CoreError as error:
        msg = f"{pyproject}: {error}"
        raise CoreError(msg) from None
    target = pyproject.with_name(CORE_PYPROJECT)
    target.write_text(core, "utf-8")
    return target


def get_parser() -> argparse.ArgumentParser:
    """The command line: the pyproject.toml to copy."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pyproject", type=Path, help="the project's pyproject.toml")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Write the copy beside the pyproject.toml named and print its path; 2 if it cannot."""
    args = get_parser().parse_args(argv)
    try:
        print(write_core_pyproject(args.pyproject))
    except CoreError as error:
        print(f"core_contracts: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
