# SPDX-License-Identifier: MIT
"""Contracts that keep a project's docs, docstrings and code in agreement.

A contract, declared in `pyproject.toml`, names a function and the operands its division
is computed from. docpact checks, on griffe's static view of the code (the checked package
is never imported), that the docstring and each listed docs section name every operand as
inline code and that the function body still divides by them. The checks run from the
command line (`docpact check`), inside `mkdocs build` as a griffe extension, and in pytest
through `check_project`.

Each broken rule is one finding, printed as `path:line: CODE message`:

| Code  | Rule broken                                                     | Reported at            |
| ----- | --------------------------------------------------------------- | ---------------------- |
| DP001 | the object exists, parses, is a function and has a docstring    | contract, error or def |
| DP002 | the docstring names every operand as inline code                | docstring              |
| DP003 | a division in the body computes its divisor from every operand  | division               |
| DP004 | every listed docs section names every operand as inline code    | heading                |
| DP005 | every listed docs page and heading anchor exists                | contract               |
| DP006 | the body divides at all                                         | def                    |

Bad configuration (a malformed `[tool.docpact]` table, an empty operand list...) is not a
finding: it raises `DocpactError`, and `docpact check` exits with status 2.
"""

from __future__ import annotations

from docpact._check import check_project
from docpact._config import Config, Contract, find_pyproject, load_config
from docpact._errors import DocpactError
from docpact._extension import ContractExtension
from docpact._findings import CODES, Finding

__all__ = [
    "CODES",
    "Config",
    "Contract",
    "ContractExtension",
    "DocpactError",
    "Finding",
    "check_project",
    "find_pyproject",
    "load_config",
]
