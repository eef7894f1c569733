# SPDX-License-Identifier: MIT
"""Contracts on the fixture project and on drifted copies of it: one drift per finding."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docpact import check_project, load_config
from samples.drift import copy_project, drift, line_of

REPO = Path(__file__).resolve().parent.parent
DIVIDE = "src/ratio/_divide.py"
PYPROJECT = "pyproject.toml"
GUIDE = "docs/guide.md"
OBJECT = 'object = "ratio._divide.scale_by_rollout"'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project("contract_project", tmp_path)


def findings(project: Path) -> list[tuple[str, str, int]]:
    return [(f.code, f.path, f.line) for f in check_project(load_config(project / PYPROJECT))]


def test_the_fixture_project_keeps_its_contract(project: Path) -> None:
    assert findings(project) == []


def test_the_repository_keeps_its_contracts() -> None:
    """The contracts in this repository's pyproject.toml hold on the real tree."""
    config = load_config(REPO / PYPROJECT)
    assert config.contracts
    assert check_project(config) == []


def test_a_contract_may_name_the_public_alias(project: Path) -> None:
    drift(project / PYPROJECT, OBJECT, 'object = "ratio.scale_by_rollout"')
    assert findings(project) == []


# Each drift: the file and text to change, and the one finding it causes, located by a
# text on the finding's line in the drifted file.
DRIFTS = {
    "object renamed": (
        [(PYPROJECT, OBJECT, 'object = "ratio._divide.scale_by_rollouts"')],
        ("DP001", PYPROJECT, "[[tool.docpact.contract]]"),
    ),
    "unknown package": (
        [(PYPROJECT, OBJECT, 'object = "nosuch.scale_by_rollout"')],
        ("DP001", PYPROJECT, "[[tool.docpact.contract]]"),
    ),
    "a class, not a function": (
        [(PYPROJECT, OBJECT, 'object = "ratio._divide.RolloutStats"')],
        ("DP001", DIVIDE, "class RolloutStats"),
    ),
    "no docstring": (
        [(DIVIDE, '    """Divide each row', '    _ = """Divide each row')],
        ("DP001", DIVIDE, "def scale_by_rollout"),
    ),
    "syntax error in the module": (
        [(DIVIDE, "opmath = torch.float32", "opmath = torch.float32 +")],
        ("DP001", DIVIDE, "opmath = torch.float32 +"),
    ),
    "syntax error in the package": (
        [("src/ratio/__init__.py", "__all__ = [", "__all__ = [[")],
        ("DP001", "src/ratio/__init__.py", "__all__ = [["),
    ),
    "docstring lost the inline code": (
        [(DIVIDE, "by `rollout_token_count` times", "by rollout_token_count times")],
        ("DP002", DIVIDE, '"""Divide each row'),
    ),
    "divisor counts distinct rollouts": (
        [(DIVIDE, "clamp(rollout_token_count *", "clamp(codes.unique().numel() *")],
        ("DP003", DIVIDE, "scaled = advantages"),
    ),
    "parameter renamed": (
        [
            (DIVIDE, "    num_trained_rows: int,", "    num_rows: int,"),
            (DIVIDE, "* num_trained_rows, min=1", "* num_rows, min=1"),
        ],
        ("DP003", DIVIDE, "scaled = advantages"),
    ),
    "docs section lost the inline code": (
        [(GUIDE, "`rollout_token_count * num_trained_rows`", "rollout_token_count * rows")],
        ("DP004", GUIDE, "## Per-rollout mean loss"),
    ),
    "docs page missing": (
        [(PYPROJECT, "docs/guide.md#", "docs/gone.md#")],
        ("DP005", PYPROJECT, "[[tool.docpact.contract]]"),
    ),
    "docs heading renamed": (
        [(GUIDE, "## Per-rollout mean loss", "## Per-rollout loss")],
        ("DP005", PYPROJECT, "[[tool.docpact.contract]]"),
    ),
    "division gone": (
        [(DIVIDE, "advantages.to(opmath) / divisor", "advantages.to(opmath) * divisor")],
        ("DP006", DIVIDE, "def scale_by_rollout"),
    ),
}


@pytest.mark.parametrize(("edits", "expected"), DRIFTS.values(), ids=DRIFTS.keys())
def test_each_drift_gives_its_one_finding(
    project: Path, edits: list[tuple[str, str, str]], expected: tuple[str, str, str]
) -> None:
    for file, old, new in edits:
        drift(project / file, old, new)
    code, path, text_on_line = expected
    assert findings(project) == [(code, path, line_of(project / path, text_on_line))]


def test_a_finding_names_the_missing_operand(project: Path) -> None:
    drift(project / DIVIDE, "    num_trained_rows: int,", "    num_rows: int,")
    drift(project / DIVIDE, "* num_trained_rows, min=1", "* num_rows, min=1")
    [finding] = check_project(load_config(project / PYPROJECT))
    assert finding.message == (
        "no division in ratio._divide.scale_by_rollout computes its divisor "
        "from operand `num_trained_rows`"
    )
    assert str(finding) == f"{DIVIDE}:{finding.line}: DP003 {finding.message}"


def test_every_operand_missing_from_the_docs_is_a_finding(project: Path) -> None:
    drift(project / GUIDE, "`rollout_token_count * num_trained_rows`", "the product")
    drift(project / GUIDE, "`num_trained_rows` counts", "it counts")
    line = line_of(project / GUIDE, "## Per-rollout mean loss")
    assert findings(project) == [("DP004", GUIDE, line), ("DP004", GUIDE, line)]


def test_checking_never_imports_torch() -> None:
    """The check runs in-process on the real tree, and torch stays out of sys.modules."""
    code = (
        "import sys; from docpact.__main__ import main; "
        "status = main(['check']); "
        "assert 'torch' not in sys.modules, 'torch was imported'; "
        "assert 'rolloutnorm' not in sys.modules, 'rolloutnorm was imported'; "
        "sys.exit(status)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
