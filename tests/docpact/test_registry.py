# SPDX-License-Identifier: MIT
"""docpact's one registry of rules and kinds, and the docs page and help that show it."""

from __future__ import annotations

from pathlib import Path

import pytest

import docpact
from docpact.__main__ import main
from docpact._model.config import Config, Contract
from docpact._registry import CODES, KINDS, RULES, check_contract

ROOT = Path(__file__).resolve().parents[2]
# The reference page of the rules and kinds; this repository's page lists its suppressions.
PAGE = ROOT / "docs" / "reference" / "contracts.md"
VERIFICATION = ROOT / "docs" / "verification.md"


def _table_after(marker: str) -> list[list[str]]:
    """The rows of the Markdown table that follows an HTML comment marker on the page."""
    lines = PAGE.read_text("utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"<!-- {marker}:"))
    rows = []
    for line in lines[start + 3 :]:  # the marker, the header, the rule line
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def _codes(text: str) -> list[str]:
    return [code.strip("` ") for code in text.split(",")]


def test_the_page_lists_every_rule_as_the_registry_defines_it() -> None:
    """The table of rules on docs/reference/contracts.md is the registry, row for row."""
    assert _table_after("docpact-rules") == [
        [f"`{rule.code}`", rule.summary, rule.reported_at] for rule in RULES
    ]


def test_the_page_lists_every_kind_as_the_registry_defines_it() -> None:
    """The table of kinds shows each kind's summary, keys (required; optional) and rules."""
    rows = _table_after("docpact-kinds")
    assert [row[0].strip("`") for row in rows] == list(KINDS)
    for row, kind in zip(rows, KINDS.values(), strict=True):
        required, _, optional = row[2].partition("; ")
        assert row[1] == kind.summary
        assert _codes(required) == sorted(kind.required)
        assert (_codes(optional) if optional else []) == sorted(kind.optional)
        assert _codes(row[3]) == [rule.code for rule in kind.rules]


def test_codes_are_the_registry_and_each_rule_is_defined_once() -> None:
    """CODES comes from the rules; a code shared by kinds is one Rule object."""
    assert docpact.CODES is CODES
    assert list(CODES) == sorted(CODES) == [rule.code for rule in RULES]
    by_code: dict[str, object] = {}
    for kind in KINDS.values():
        assert len({rule.code for rule in kind.rules}) == len(kind.rules)
        for rule in kind.rules:
            assert by_code.setdefault(rule.code, rule) is rule


def test_every_rule_has_a_one_line_summary_and_a_place() -> None:
    for rule in RULES:
        assert rule.summary
        assert "\n" not in rule.summary
        assert rule.reported_at


def test_the_help_lists_every_rule_from_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for rule in RULES:
        assert f"{rule.code} {rule.summary}" in out


def _suppressions_listed() -> list[str]:
    lines = VERIFICATION.read_text("utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("<!-- docpact-suppressions:"))
    listed = []
    for line in lines[start + 1 :]:
        if not line.startswith("- "):
            break
        listed.append(line[2:])
    return listed


def test_the_page_lists_every_suppression_of_a_claim_word_with_its_reason() -> None:
    """docs/verification.md lists each not-a-claim of the claims pages, and there are two."""
    from docpact._kinds.claims.analysis import analyse

    config = docpact.load_config(ROOT / "pyproject.toml")
    found = [
        f"`{page}`: {block.argument}"
        for contract in config.contracts
        if contract.kind == "claims"
        for page, read in analyse(contract, config).read.items()
        for block in read.suppressions
    ]
    assert _suppressions_listed() == found
    assert len(found) == 2


def test_a_contract_of_a_kind_no_one_registers_is_an_error_naming_the_kind(
    tmp_path: Path,
) -> None:
    """A kind's parser may name its contract's kind wrongly: checking it names the kind."""
    contract = Contract(kind="unregistered")
    config = Config(pyproject=tmp_path / "pyproject.toml", contracts=(contract,))
    with pytest.raises(docpact.DocpactError) as error:
        check_contract(contract, config=config, package=None)
    assert str(error.value) == "error: no docpact kind 'unregistered'"
