# SPDX-License-Identifier: MIT
"""scripts/core_contracts.py: a project's pyproject.toml without its claims contracts."""

from __future__ import annotations

from pathlib import Path

import pytest

from docpact import load_config
from helpers import load_module
from samples.drift import copy_project

ROOT = Path(__file__).resolve().parents[1]
core = load_module("core_contracts", ROOT / "scripts" / "core_contracts.py")


def test_the_other_contracts_keep_their_lines(tmp_path: Path) -> None:
    """This repository's claims contract is left out; every other one keeps its kind and line."""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text((ROOT / "pyproject.toml").read_text("utf-8"), "utf-8")
    written = core.write_core_pyproject(pyproject)
    assert written == tmp_path / core.CORE_PYPROJECT
    full, left = pyproject.read_text("utf-8"), written.read_text("utf-8")
    assert len(left.split("\n")) == len(full.split("\n"))
    before = [(c.kind, c.line) for c in load_config(pyproject).contracts]
    after = [(c.kind, c.line) for c in load_config(written).contracts]
    assert "claims" in dict(before)
    assert after == [(kind, line) for kind, line in before if kind != "claims"]


def test_a_claims_table_last_in_the_file_is_left_out_to_the_end() -> None:
    text = (
        '[project]\nname = "p"\n\n[[tool.docpact.contract]]\nobject = "p.f"\n'
        'operands = ["a"]\n\n[[tool.docpact.contract]]\nkind = "claims"\n'
        'pages = ["docs/a.md"]\nproperties = ["tests"]\n'
    )
    assert core.without_claims(text) == (
        '[project]\nname = "p"\n\n[[tool.docpact.contract]]\nobject = "p.f"\n'
        'operands = ["a"]\n\n\n\n\n\n'
    )


def test_a_table_it_cannot_blank_whole_is_refused() -> None:
    """An array line that reads like a header would end the table early: refused, not guessed."""
    text = (
        '[[tool.docpact.contract]]\nkind = "claims"\npages = [\n["a.md"]\n]\n'
        'properties = ["tests"]\n'
    )
    with pytest.raises(core.CoreError, match="changed more than the claims contracts"):
        core.without_claims(text)


def test_the_command_writes_the_copy_beside_and_prints_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    adopter = copy_project("adopter_project", tmp_path)
    assert core.main([str(adopter / "pyproject.toml")]) == 0
    written = adopter / core.CORE_PYPROJECT
    assert capsys.readouterr().out == f"{written}\n"
    kinds = [c.kind for c in load_config(adopter / "pyproject.toml").contracts]
    assert "claims" in kinds
    assert [c.kind for c in load_config(written).contracts] == [k for k in kinds if k != "claims"]


def test_a_file_that_is_not_toml_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "pyproject.toml"
    bad.write_text("[tool\n", "utf-8")
    assert core.main([str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"core_contracts: error: {bad}: is not valid TOML: ")
    assert not (tmp_path / core.CORE_PYPROJECT).exists()
