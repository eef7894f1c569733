# SPDX-License-Identifier: MIT
"""docpact's public surface: exported, sorted, documented, and light to import."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import pytest

PACKAGES = ["docpact", "docpact.claims", "docpact.sybil"]


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_name_is_exported_sorted_and_documented(name: str) -> None:
    package = importlib.import_module(name)
    assert package.__doc__
    assert package.__all__ == sorted(package.__all__)
    for public in package.__all__:
        obj = getattr(package, public)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), f"{name}.{public} has no docstring"
            # docpact.claim is the claims extension's, re-exported: its module is private too.
            private = obj.__module__.startswith((f"{name}._", "docpact.claims._"))
            assert private, f"{name}.{public} is not private-backed"


def test_importing_docpact_leaves_sybil_markdown_and_torch_out() -> None:
    """The command line needs neither the test tools nor the checked package's imports."""
    code = (
        "import sys, docpact, docpact.__main__; "
        "print(sorted({'sybil', 'markdown', 'torch', 'rolloutnorm'} & set(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
