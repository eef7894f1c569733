# SPDX-License-Identifier: MIT
"""docpact's one registry of rules and kinds, and the docs page and help that show it."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

import docpact
from docpact.__main__ import main
from docpact._model.config import Config, Contract
from docpact._registry import CODES, KINDS, RULES, all_kinds, check_contract, codes, rules
from helpers import load_module

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# The reference page of the rules and kinds; this repository's page lists its suppressions.
PAGE = "reference/contracts.md"
VERIFICATION = DOCS / "verification.md"
MARKERS = ("docpact-kinds", "docpact-rules")


@pytest.fixture(scope="module")
def hook() -> ModuleType:
    """docs/hooks/rule_tables.py, imported from its path as MkDocs does."""
    return load_module("rule_tables_hook", DOCS / "hooks" / "rule_tables.py")


def _render(hook: ModuleType, markdown: str, page: str = PAGE) -> str:
    """The Markdown that the hook makes of `markdown`, as the source of `page` under docs/."""
    config = MkDocsConfig()
    file = File(page, src_dir=str(DOCS), dest_dir="site", use_directory_urls=False)
    return hook.on_page_markdown(
        markdown, page=Page(None, file, config), config=config, files=Files([file])
    )


def _table_at(lines: list[str], start: int) -> list[str]:
    """The lines of the Markdown table that starts at `lines[start]`."""
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return lines[start:end]


def _rows(table: list[str]) -> list[list[str]]:
    """The cells of a Markdown table's rows, below its header and rule line."""
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table[2:]]


def _built_tables(hook: ModuleType) -> dict[str, list[str]]:
    """The tables that the built page shows where its source has a marker, by marker.

    Every other line of the source is in the built page unchanged.
    """
    source = (DOCS / PAGE).read_text("utf-8").splitlines()
    built = _render(hook, "\n".join(source)).splitlines()
    tables: dict[str, list[str]] = {}
    at = 0
    for line in source:
        marker = next((m for m in MARKERS if line.startswith(f"<!-- {m}:")), None)
        if marker is None:
            assert built[at] == line
            at += 1
        else:
            tables[marker] = _table_at(built, at)
            at += len(tables[marker])
    assert at == len(built)
    return tables


def _table_after(hook: ModuleType, marker: str) -> list[list[str]]:
    """The rows of the table that the built page shows where its source has the marker."""
    return _rows(_built_tables(hook)[marker])


def _codes(text: str) -> list[str]:
    return [code.strip("` ") for code in text.split(",")]


def test_the_built_page_lists_every_rule_as_the_registry_defines_it(hook: ModuleType) -> None:
    """The table of rules on docs/reference/contracts.md is every installed kind's, row for row.

    The claims extension's rules are in it, as a kind that another distribution registers.
    """
    table = _table_after(hook, "docpact-rules")
    assert table == [
        [f"`{rule.code}`", rule.summary, rule.reported_at] for rule in rules(all_kinds())
    ]
    assert {"DP012", "DP015", "DP101"} <= {row[0].strip("`") for row in table}


def test_the_built_page_lists_every_kind_as_the_registry_defines_it(hook: ModuleType) -> None:
    """The table of kinds shows each kind's summary, keys (required; optional) and rules."""
    rows = _table_after(hook, "docpact-kinds")
    assert [row[0].strip("`") for row in rows] == [*KINDS, "claims"] == list(all_kinds())
    for row, kind in zip(rows, all_kinds().values(), strict=True):
        required, _, optional = row[2].partition("; ")
        assert row[1] == kind.summary
        assert _codes(required) == sorted(kind.required)
        assert (_codes(optional) if optional else []) == sorted(kind.optional)
        assert _codes(row[3]) == [rule.code for rule in kind.rules]


def test_the_page_source_holds_each_marker_once_and_no_table() -> None:
    """The tables are the hook's alone: the source has each marker once and no table row."""
    source = (DOCS / PAGE).read_text("utf-8")
    lines = source.splitlines()
    assert [sum(line.startswith(f"<!-- {m}:") for line in lines) for m in MARKERS] == [1, 1]
    assert not [line for line in lines if line.startswith("| `DP0")]


@pytest.mark.parametrize("marker", MARKERS)
def test_the_reference_page_without_a_marker_fails_the_build(hook: ModuleType, marker: str) -> None:
    """A marker deleted from the reference page is a PluginError naming it, not a lost table."""
    source = (DOCS / PAGE).read_text("utf-8")
    without = "\n".join(
        line for line in source.splitlines() if not line.startswith(f"<!-- {marker}:")
    )
    message = f"{PAGE} has no <!-- {marker}: ... --> line"
    with pytest.raises(PluginError, match=re.escape(message)):
        _render(hook, without)


def test_another_page_may_show_a_table_and_need_not(hook: ModuleType) -> None:
    """Another page's marker becomes its table; a page without markers is left as it is."""
    page = "guide.md"
    assert _render(hook, "# Guide\n", page) == "# Guide\n"
    built = _render(hook, "# Guide\n\n<!-- docpact-rules: here -->\n\nAfter.\n", page)
    lines = built.splitlines()
    assert lines[2] == "| Code | Rule broken | Reported at |"
    assert len(_rows(_table_at(lines, 2))) == len(rules(all_kinds()))
    assert lines[-1] == "After."


def test_codes_are_the_registry_and_each_rule_is_defined_once() -> None:
    """CODES comes from the rules; a code shared by kinds is one Rule object."""
    assert docpact.CODES is CODES
    # CODES is the core's alone: the claims extension's codes come with its entry point.
    assert not {"DP012", "DP015", "DP101", "DP103"} & set(CODES)
    assert set(codes(all_kinds())) - set(CODES) == {
        rule.code for rule in all_kinds()["claims"].rules
    }
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
    from docpact.claims._analysis import analyse

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
