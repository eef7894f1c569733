# SPDX-License-Identifier: MIT
"""The divisor rules on small functions: the messages of DP003 and DP006 and where they point."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

import pytest
from griffe import GriffeLoader, load_extensions

from docpact import ContractExtension, check_project, load_config

# The hint of a body that does not use torch: plain Python's divisions only.
HELPER = (
    " (docpact follows `/`, `//` and `operator.truediv` in this body, through its "
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
        """Divide by `a * b`."""
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
    source = f'def f(x, a, b):\n    """Divide by `a * b`."""\n    return x * {factor}\n'
    assert check(tmp_path, source) == [
        "src/pkg/__init__.py:1: DP006 pkg.f has no division; its divisor must use `a`, `b` "
        "(line 3 multiplies by a reciprocal, which docpact does not follow: write "
        "`x / divisor`)"
    ]


def test_a_dead_division_is_reported_at_the_division(tmp_path: Path) -> None:
    source = 'def f(x, a, b):\n    """Divide by `a * b`."""\n    y = x / (a * b)\n    return x\n'
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
        """Divide by `a * b`.

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
        """Divide by `a * b`.

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
        "the signature has none (renamed?)",
        "src/pkg/__init__.py:3: DP023 `a * b` is stated, but pkg.f divides by `b * c`",
    ]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def check_mapped(root: Path, source: str, code_names: str) -> list[str]:
    """Check `pkg.f` with operands `a` and `b`, and `code-names` as written in the TOML."""
    pyproject = write(root, source)
    with pyproject.open("a", encoding="utf-8") as file:
        file.write(f"code-names = {code_names}\n")
    return [str(finding) for finding in check_project(load_config(pyproject))]


# The forms in which the code's name of an operand counts as that operand.
CODE_FORMS = {
    "a name": "def f(x, counts, b):\n    return x / (counts * b)\n",
    "a subscript": "def f(x, counts, rid, b):\n    return x / (counts[rid] * b)\n",
    "an attribute": "def f(self, x, b):\n    return x / (self.counts * b)\n",
    "a method": "def f(x, counts, rid, b):\n    return x / (counts.get(rid, 1) * b)\n",
    "an assignment": "def f(x, counts, rid, b):\n    d = counts[rid] * b\n    return x / d\n",
}


@pytest.mark.parametrize("body", CODE_FORMS.values(), ids=CODE_FORMS.keys())
def test_an_operand_the_code_spells_otherwise_counts_in_every_form(
    tmp_path: Path, body: str
) -> None:
    """`code-names` maps the docs' `a` to the code's `counts`; the docstring names `a`."""
    source = body.replace(":\n", ':\n    """Divide by `a * b`."""\n', 1)
    assert check_mapped(tmp_path, source, '{ a = "counts" }') == []


def test_a_mapped_operand_the_divisor_lost_is_reported_with_both_names(tmp_path: Path) -> None:
    source = 'def f(x, counts, b):\n    """Divide by `a * b`."""\n    return x / b\n'
    assert check_mapped(tmp_path, source, '{ a = "counts" }') == [
        "src/pkg/__init__.py:2: DP023 `a * b` is stated, but pkg.f divides by `b`",
        "src/pkg/__init__.py:3: DP003 no division in pkg.f computes its divisor from operand "
        "`a` (`counts` in the code)",
    ]


def test_without_the_mapping_the_code_name_is_no_operand(tmp_path: Path) -> None:
    """The docs' name is not the code's: the finding says which spelling is close."""
    source = 'def f(x, as_, b):\n    """Divide by `a * b`."""\n    return x / (as_ * b)\n'
    assert check(tmp_path, source) == [
        "src/pkg/__init__.py:2: DP023 `a * b` is stated, but pkg.f divides by `b * as_`",
        "src/pkg/__init__.py:3: DP003 no division in pkg.f computes its divisor from operand `a`",
    ]


def test_a_missing_operand_with_a_near_miss_in_the_body_asks_did_you_mean(
    tmp_path: Path,
) -> None:
    pyproject = tmp_path / "src/pkg"
    pyproject.mkdir(parents=True)
    (pyproject / "__init__.py").write_text(
        "def f(x, rollout_token_counts, b):\n"
        '    """Divide by `rollout_token_count * b`."""\n'
        "    return x / (rollout_token_counts * b)\n",
        "utf-8",
    )
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.docpact.contract]]\nobject = "pkg.f"\noperands = ["rollout_token_count", "b"]\n',
        "utf-8",
    )
    found = check_project(load_config(tmp_path / "pyproject.toml"))
    assert [str(finding) for finding in found] == [
        "src/pkg/__init__.py:2: DP023 `rollout_token_count * b` is stated, "
        "but pkg.f divides by `b * rollout_token_counts`",
        "src/pkg/__init__.py:3: DP003 no division in pkg.f computes its divisor from operand "
        "`rollout_token_count` (did you mean `rollout_token_counts`? if the code spells the "
        'operand so, map it: code-names = { rollout_token_count = "rollout_token_counts" })',
    ]


def test_a_renamed_parameter_of_a_mapped_operand_is_named_as_the_code_spells_it(
    tmp_path: Path,
) -> None:
    source = (
        "def f(x, total, b):\n"
        '    """Divide by `a * b`.\n\n    Args:\n        counts: The `a`.\n    """\n'
        "    return x / (total * b)\n"
    )
    assert check_mapped(tmp_path, source, '{ a = "counts" }') == [
        "src/pkg/__init__.py:1: DP003 operand `a` (`counts` in the code) is documented as a "
        "parameter of pkg.f but the signature has none (renamed?)",
        "src/pkg/__init__.py:2: DP023 `a * b` is stated, but pkg.f divides by `b * total`",
    ]


BAD_CODE_NAMES = {
    "not a table": ('"counts"', 'must be a table of operand = "the code\'s name"'),
    "not a name": ('{ a = "1x" }', 'must be a table of operand = "the code\'s name"'),
    "no such operand": (
        '{ c = "counts" }',
        "maps ['c'], which operands does not list; it lists ['a', 'b']",
    ),
    "one name twice": (
        '{ a = "n", b = "n" }',
        "gives operands `a` and `b` the one name `n` in the code",
    ),
    "another operand's name": (
        '{ a = "b" }',
        "gives operands `a` and `b` the one name `b` in the code",
    ),
}


@pytest.mark.parametrize(("value", "message"), BAD_CODE_NAMES.values(), ids=BAD_CODE_NAMES.keys())
def test_a_bad_code_names_table_is_a_configuration_error_at_its_line(
    tmp_path: Path, value: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docpact import DocpactError

    monkeypatch.chdir(tmp_path)
    pyproject = write(tmp_path, "def f(x, a, b):\n    return x / (a * b)\n")
    with pyproject.open("a", encoding="utf-8") as file:
        file.write(f"code-names = {value}\n")
    with pytest.raises(DocpactError) as raised:
        load_config(pyproject)
    assert str(raised.value).startswith(
        f"pyproject.toml:4: error: tool.docpact.contract[0].code-names {message}"
    )


def test_a_divisor_contract_without_an_object_is_an_error_at_its_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docpact import DocpactError

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.docpact.contract]]\noperands = ["a", "b"]\n', "utf-8"
    )
    with pytest.raises(DocpactError) as raised:
        load_config(tmp_path / "pyproject.toml")
    assert str(raised.value) == (
        "pyproject.toml:1: error: tool.docpact.contract[0] needs object for a divisor contract"
    )


def test_a_spelling_less_close_than_four_fifths_is_no_near_miss(tmp_path: Path) -> None:
    """`aa` is two thirds like `a`: the finding asks no did-you-mean."""
    source = 'def f(x, aa, b):\n    """Divide by `a * b`."""\n    return x / (aa * b)\n'
    assert check(tmp_path, source) == [
        "src/pkg/__init__.py:2: DP023 `a * b` is stated, but pkg.f divides by `b * aa`",
        "src/pkg/__init__.py:3: DP003 no division in pkg.f computes its divisor from operand `a`",
    ]
