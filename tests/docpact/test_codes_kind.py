# SPDX-License-Identifier: MIT
"""The `codes` kind (DP025): a docstring and docs that list some kinds' codes stay complete."""

from __future__ import annotations

from pathlib import Path

import pytest

from docpact import DocpactError, check_project, load_config
from docpact._registry import all_kinds

# The codes of the kind the tests list, read from the registry: the test follows its rules.
CODES = sorted({rule.code for rule in all_kinds()["config-defaults"].rules})

CONTRACT = """\
[tool.docpact]
paths = ["."]

[[tool.docpact.contract]]
kind = "codes"
object = "pkg"
kinds = {kinds}
docs = ["docs/rules.md#rules"]
"""


def _project(tmp_path: Path, docstring: str, page: str = "", kinds: str = '["config-defaults"]'):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(f'"""{docstring}"""\n', encoding="utf-8")
    (tmp_path / "docs").mkdir()
    text = page or f"# Rules\n\n{', '.join(CODES)}.\n"
    (tmp_path / "docs" / "rules.md").write_text(text, encoding="utf-8")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(CONTRACT.format(kinds=kinds), encoding="utf-8")
    return pyproject


def _found(pyproject: Path) -> list[tuple[str, int, str, str]]:
    return [(f.path, f.line, f.code, f.message) for f in check_project(load_config(pyproject))]


def test_a_docstring_and_section_naming_every_code_pass(tmp_path: Path) -> None:
    """Every code of the kind's rules, in any prose, and no other code of the prefix."""
    assert _found(_project(tmp_path, f"The rules: {', '.join(CODES)}.")) == []


def test_a_code_missing_from_the_docstring_is_a_finding_at_it(tmp_path: Path) -> None:
    """A rule added to the kind, or dropped from the list, is named with its kind."""
    named = ", ".join(CODES[1:])
    assert _found(_project(tmp_path, f"The rules: {named}.")) == [
        (
            "pkg/__init__.py",
            1,
            "DP025",
            f"docstring of pkg does not name code {CODES[0]}, a rule of kind config-defaults",
        )
    ]


def test_a_code_no_rule_has_is_a_finding_in_the_section(tmp_path: Path) -> None:
    """A rule removed while the docs still list it; other prefixes (XT001) are not read."""
    page = f"# Rules\n\n{', '.join(CODES)}, DP099 and XT001.\n"
    found = _found(_project(tmp_path, f"The rules: {', '.join(CODES)}.", page))
    assert found == [
        (
            "docs/rules.md",
            1,
            "DP025",
            "section #rules names code DP099, which no installed rule has",
        )
    ]


def test_a_kind_that_is_not_installed_is_a_finding_at_the_contract(tmp_path: Path) -> None:
    """A misspelt kind is named with the installed ones, not silently read as no codes."""
    found = _found(_project(tmp_path, "Nothing.", "# Rules\n", '["claimz"]'))
    assert [(path, line, code) for path, line, code, _ in found] == [("pyproject.toml", 4, "DP025")]
    assert "kinds lists claimz, which no installed kind is (installed: " in found[0][3]


@pytest.mark.parametrize("kinds", ["[]", '"claims"', '["claims", "claims"]', '["Claims!"]'])
def test_a_malformed_kinds_list_is_a_configuration_error(tmp_path: Path, kinds: str) -> None:
    """`kinds` must be a non-empty list of kind names, each once."""
    with pytest.raises(DocpactError, match=r"tool\.docpact\.contract\[0\]\.kinds must be"):
        load_config(_project(tmp_path, "Nothing.", kinds=kinds))


def test_this_repository_holds_the_claims_extensions_docstring_so() -> None:
    """This repository keeps docpact.claims naming every claims code."""
    root = Path(__file__).resolve().parents[2]
    config = load_config(root / "pyproject.toml")
    [contract] = [c for c in config.contracts if c.kind == "codes"]
    assert (contract.object, contract.kinds) == ("docpact.claims", ("claims",))
