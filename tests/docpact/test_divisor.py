# SPDX-License-Identifier: MIT
"""The divisor rules on small functions: the messages of DP003 and DP006 and where they point."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

import pytest
from griffe import GriffeLoader, load_extensions

from docpact import ContractExtension, check_project, load_config

HELPER = (
    " (docpact follows `/`, `//`, `torch.div` and `.div()` in this body, through its "
    "local assignments; a division inside a helper function is not followed)"
)


def write(root: Path, source: str, *, stub: bool = False) -> Path:
    """Write a project whose contract on `pkg.f`, with operands `a` and `b`, `source` defines."""
    package = root / "src/pkg"
    package.mkdir(parents=True)
    (package / ("__init__.pyi" if stub else "__init__.py")).write_text(
        textwrap.dedent(source), "utf-8"
    )
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        '[[tool.docpact.contract]]\nobject = "pkg.f"\noperands = ["a", "b"]\n', "utf-8"
    )
    return pyproject


def check(root: Path, source: str, *, stub: bool = False) -> list[str]:
    return [str(finding) for finding in check_project(load_config(write(root, source, stub=stub)))]


def test_a_body_without_division_is_reported_at_its_def(tmp_path: Path) -> None:
    """DP006 names every operand and points at the `def`, not at the decorator griffe gives."""
    source = '''
    def keep(function):
        return function
    @keep
    def f(x, a, b):
        """Scale by `a` and `b`."""
        return x * a * b
    '''
    assert check(tmp_path, source) == [
        "src/pkg/__init__.py:5: DP006 pkg.f has no division; its divisor must use `a`, `b`" + HELPER
    ]


RECIPROCALS = {
    "a reciprocal function": "rsqrt(a * b)",
    "a power of minus one": "(a * b) ** -1.0",
}


@pytest.mark.parametrize("factor", RECIPROCALS.values(), ids=RECIPROCALS.keys())
def test_a_multiplication_by_a_reciprocal_is_named_with_its_line(
    tmp_path: Path, factor: str
) -> None:
    source = f'def f(x, a, b):\n    """Scale by `a` and `b`."""\n    return x * {factor}\n'
    assert check(tmp_path, source) == [
        "src/pkg/__init__.py:1: DP006 pkg.f has no division; its divisor must use `a`, `b` "
        "(line 3 multiplies by a reciprocal, which docpact does not follow: write "
        "`x / divisor` or `torch.div(x, divisor)`)"
    ]


def test_a_dead_division_is_reported_at_the_division(tmp_path: Path) -> None:
    source = 'def f(x, a, b):\n    """Scale by `a` and `b`."""\n    y = x / (a * b)\n    return x\n'
    assert check(tmp_path, source) == [
        "src/pkg/__init__.py:3: DP003 no division in pkg.f reaches the value it returns (its "
        "result is unused, or overwritten before the return): return what the division computes"
    ]


def test_a_function_without_source_is_still_checked_for_renamed_parameters(
    tmp_path: Path,
) -> None:
    """A stub without its module has no body to read; a renamed parameter is still reported."""
    source = '''
    def f(x, c):
        """Scale by `a` and `b`.

        Args:
            x: The values.
            a: The first operand.
        """
    '''
    assert check(tmp_path, source, stub=True) == [
        "src/pkg/__init__.pyi:2: DP001 pkg.f has no source that docpact can read",
        "src/pkg/__init__.pyi:2: DP003 operand `a` is documented as a parameter of pkg.f but "
        "the signature has none (renamed?)",
    ]


def test_reading_the_parameters_of_a_renamed_operand_logs_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Under mkdocs, griffe's warnings on the docstring's parameters do not reach the build."""
    source = '''
    def f(x, c, b):
        """Scale by `a` and `b`.

        Args:
            x: The values.
            a: The first operand.
            b: The second operand.
        """
        return x / (c * b)
    '''
    extension = ContractExtension(config=load_config(write(tmp_path, source)), log=False)
    loader = GriffeLoader(extensions=load_extensions(extension), search_paths=[tmp_path / "src"])
    caplog.set_level(logging.DEBUG)
    loader.load("pkg")
    assert [str(finding) for finding in extension.findings] == [
        "src/pkg/__init__.py:2: DP003 operand `a` is documented as a parameter of pkg.f but "
        "the signature has none (renamed?)"
    ]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
