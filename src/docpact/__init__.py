# SPDX-License-Identifier: MIT
"""Contracts that keep a project's docs, docstrings and code in agreement.

A contract, declared in `pyproject.toml`, names a function and the operands its division
is computed from. docpact checks, on griffe's static view of the code (the checked package
is never imported), that the docstring and each listed docs section name every operand as
inline code and that the function body still divides by them. The checks run from the
command line (`docpact check`), inside `mkdocs build` as a griffe extension, and in pytest
through `check_project`.

Each broken rule is one finding, printed as `path:line: CODE message`:

| Code  | Rule broken                                                   | Reported at           |
| ----- | ------------------------------------------------------------- | --------------------- |
| DP001 | the object exists, parses, is a function with a docstring     | contract, file or def |
| DP002 | the docstring names every operand as inline code              | docstring             |
| DP003 | a division, or a chain of divisions, divides by every operand | division or def       |
| DP004 | every listed docs section names every operand as inline code  | heading               |
| DP005 | every listed docs page and heading anchor exists              | contract              |
| DP006 | the body divides at all                                       | def                   |

A file that cannot be read (not UTF-8, a NUL byte, a syntax error) is a DP001 at the line at
fault. Divisions form a chain when one divides the result of another (`y = x / a`, then
`y / b`). DP003 also reports, at the def, an operand that the docstring's `Args:` section
lists but the signature lacks: a renamed parameter. A docs section includes its
subsections; HTML comments do not count as naming an operand.

Bad configuration (a malformed `[tool.docpact]` table, an empty operand list, a keyword or
a repeated operand...) is not a finding: it raises `DocpactError`, and `docpact check` exits
with status 2. So does a griffe older than 1.14, which never calls the extension's hook.
"""

from __future__ import annotations

from docpact._check import check_project
from docpact._config import Config, Contract, find_pyproject, load_config
from docpact._errors import DocpactError
from docpact._extension import ContractExtension
from docpact._findings import CODES, Finding

__version__ = "0.1.0"

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
