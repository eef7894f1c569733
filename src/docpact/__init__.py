# SPDX-License-Identifier: MIT
"""Contracts that keep a project's docs, docstrings and code in agreement.

A contract, declared in `pyproject.toml`, is of one kind. A `divisor` contract (the default)
names a function and the operands its division is computed from: the docstring and each
listed docs section must name every operand as inline code and state the divisor's formula,
which must be the formula the body divides by. A `names` contract names an object whose
docstring and docs must name a list of identifiers. A `config-defaults` contract holds a
YAML block on the docs equal to a file as data. A `claims` contract binds each claim of its
pages to one reviewed property test. A `kinds` contract keeps an object's docstring and docs
naming every kind, as this docstring does; a `codes` contract, every code of some kinds'
rules. Other distributions add kinds (a `Kind`, under
the `docpact.kinds` entry point group). docpact reads the code through griffe's static view
(the checked package is never imported). The checks run from the command line (`docpact
check`), inside `mkdocs build` as a griffe extension and the docpact plugin, and in pytest
through `check_project`.

Each broken rule is one finding, printed as `path:line: CODE message`. `CODES` maps every
code to the rule it breaks; the rules, with where each reports, are listed on the docs page
"How the docs are verified", generated from the same registry.

Bad configuration (a malformed `[tool.docpact]` table, an unknown kind, an empty operand
list...) is not a finding: it raises `DocpactError`, naming `pyproject.toml:LINE` and the key,
and `docpact check` exits with status 2. So does a griffe older than 1.14, which never calls
the extension's hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docpact._check import check_project
from docpact._extension import ContractExtension
from docpact._model.config import Config, Contract
from docpact._model.errors import DocpactError
from docpact._model.findings import Finding
from docpact._model.rules import Kind, Rule
from docpact._pyproject import find_pyproject, load_config
from docpact._registry import CODES

if TYPE_CHECKING:  # imported on first use (`__getattr__`): a check never needs it
    from docpact.claims import claim

__version__ = "0.1.0"

__all__ = [
    "CODES",
    "Config",
    "Contract",
    "ContractExtension",
    "DocpactError",
    "Finding",
    "Kind",
    "Rule",
    "check_project",
    "claim",
    "find_pyproject",
    "load_config",
]


def __dir__() -> list[str]:
    """The module's names, `claim` among them though it is imported on first use."""
    return sorted({*globals(), "claim"})


def __getattr__(name: str) -> Any:
    """`claim`, the claims extension's, imported when a test module first asks for it."""
    if name == "claim":
        from docpact.claims import claim

        return claim
    msg = f"module 'docpact' has no attribute {name!r}"
    raise AttributeError(msg)
