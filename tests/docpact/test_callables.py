# SPDX-License-Identifier: MIT
"""Any callable as a contract's object: methods, properties, class and static methods."""

from __future__ import annotations

from pathlib import Path

import pytest

from docpact import check_project, load_config

# Each callable as member `share` of class `Table`: its decorator, signature and operand.
CALLABLES = {
    "a method": ("# a plain method", "(self, hits, lookups)", "lookups"),
    "a property": ("@property", "(self)", "self.lookups"),
    "a functools.cached_property": ("@functools.cached_property", "(self)", "self.lookups"),
    "a cached_property from functools": ("@cached_property", "(self)", "self.lookups"),
    "a classmethod": ("@classmethod", "(cls, hits, lookups)", "lookups"),
    "a staticmethod": ("@staticmethod", "(hits, lookups)", "lookups"),
}
SOURCE = '''"""A package."""
import functools
from functools import cached_property


class Table:
    """A table."""

    {decorator}
    def share{signature}:
        {docstring}
        return {value}
'''
DEF_LINE, RETURN_LINE = 10, 12
# The rules that read the object; the others' findings are left out.
CODES = frozenset({"DP001", "DP002", "DP003", "DP006"})


def check(
    root: Path,
    callable_: tuple[str, str, str],
    *,
    value: str = "hits / {operand}",
    docstring: str = '"""The share of hits over `lookups`: `hits / lookups`."""',
    contract: str = 'operands = ["lookups"]',
) -> list[str]:
    """Check a contract on `pkg.Table.share`, whose body returns `value`: `CODES`' findings."""
    decorator, signature, operand = callable_
    hits = "self.hits" if operand.startswith("self.") else "hits"
    body = value.format(operand=operand).replace("hits", hits)
    source = SOURCE.format(
        decorator=decorator, signature=signature, docstring=docstring, value=body
    )
    package = root / "src/pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(source, "utf-8")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        f'[[tool.docpact.contract]]\nobject = "pkg.Table.share"\n{contract}\n', "utf-8"
    )
    findings = check_project(load_config(pyproject))
    return [str(finding) for finding in findings if finding.code in CODES]


@pytest.mark.parametrize("callable_", CALLABLES.values(), ids=CALLABLES.keys())
def test_every_callable_that_divides_by_its_operand_keeps_its_divisor_contract(
    tmp_path: Path, callable_: tuple[str, str, str]
) -> None:
    """A method, property, cached property, class or static method is read as a function."""
    assert check(tmp_path, callable_) == []


@pytest.mark.parametrize("callable_", CALLABLES.values(), ids=CALLABLES.keys())
def test_every_callable_whose_divisor_lost_its_operand_is_reported_at_the_division(
    tmp_path: Path, callable_: tuple[str, str, str]
) -> None:
    """DP003 reads the body of each callable; `self.lookups` counts as operand `lookups`."""
    assert check(tmp_path, callable_, value="hits / 2") == [
        f"src/pkg/__init__.py:{RETURN_LINE}: DP003 no division in pkg.Table.share computes "
        "its divisor from operand `lookups`"
    ]


@pytest.mark.parametrize("callable_", CALLABLES.values(), ids=CALLABLES.keys())
def test_every_callable_without_a_division_is_reported_at_its_def(
    tmp_path: Path, callable_: tuple[str, str, str]
) -> None:
    """DP006 points at the def line of a property as of a method, never at its decorator."""
    [finding] = check(tmp_path, callable_, value="hits * {operand}")
    assert finding.startswith(
        f"src/pkg/__init__.py:{DEF_LINE}: DP006 pkg.Table.share has no division; its divisor "
        "must use `lookups` ("
    )


@pytest.mark.parametrize("callable_", CALLABLES.values(), ids=CALLABLES.keys())
def test_every_callable_whose_docstring_drops_its_operand_is_reported_at_the_docstring(
    tmp_path: Path, callable_: tuple[str, str, str]
) -> None:
    docstring = '"""The share of hits."""'
    assert check(tmp_path, callable_, docstring=docstring) == [
        f"src/pkg/__init__.py:{DEF_LINE + 1}: DP002 docstring of pkg.Table.share does not "
        "name operand `lookups` as inline code"
    ]


def test_a_property_without_a_docstring_is_reported_at_its_def(tmp_path: Path) -> None:
    assert check(tmp_path, CALLABLES["a property"], docstring="pass") == [
        f"src/pkg/__init__.py:{DEF_LINE}: DP001 pkg.Table.share has no docstring"
    ]


def test_a_property_documenting_its_operand_as_an_argument_is_no_renamed_parameter(
    tmp_path: Path,
) -> None:
    """A property has no parameters, so an `Args:` entry for the operand is not read as one."""
    docstring = (
        '"""The share of hits over `lookups`: `hits / lookups`.\n\n'
        '        Args:\n            lookups: The lookups.\n        """'
    )
    assert check(tmp_path, CALLABLES["a property"], docstring=docstring) == []


def test_a_property_is_an_object_of_a_names_contract(tmp_path: Path) -> None:
    contract = 'kind = "names"\nnames = ["lookups", "misses"]'
    assert check(tmp_path, CALLABLES["a property"], contract=contract) == [
        f"src/pkg/__init__.py:{DEF_LINE + 1}: DP002 docstring of pkg.Table.share does not "
        "name identifier `misses` as inline code"
    ]


def test_a_plain_attribute_is_still_no_function(tmp_path: Path) -> None:
    """A class attribute has no body to read: DP001 names what it is, and what it needs."""
    package = tmp_path / "src/pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""A package."""\n\nlimit = 3\n"""The limit."""\n')
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[[tool.docpact.contract]]\nobject = "pkg.limit"\noperands = ["x"]\n')
    assert [str(finding) for finding in check_project(load_config(pyproject))] == [
        "src/pkg/__init__.py:3: DP001 pkg.limit is an attribute, not a function, method or property"
    ]
