# SPDX-License-Identifier: MIT
"""scripts/properties.py: the claims' properties run to their end, each failure judged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import load_module

ROOT = Path(__file__).resolve().parents[1]
runner = load_module("properties", ROOT / "scripts" / "properties.py")
SAMPLE = ROOT / "tests" / "samples" / "properties_project"
PROPS = "tests/test_props.py"
# One property per outcome the drift runner tells apart.
OUTCOMES = """\
# SPDX-License-Identifier: MIT
import docpact
import pytest

from shares import share


@pytest.fixture
def checked():
    assert share(2, 3) == 1


@docpact.claim("share-sums")
def test_share_sums():
    assert share(2, 3) == 1 / 6


@docpact.claim("a")
def test_wrong():
    assert share(2, 3) == 1


@docpact.claim("b")
def test_not_raised():
    with pytest.raises(ValueError):
        share(2, 3)


@docpact.claim("c")
def test_error():
    share("2", 3)


@docpact.claim("d")
def test_fixture_asserts(checked):
    share(2, 3)


@docpact.claim("e")
@pytest.mark.parametrize("rows", [1, 0, 3])
def test_parametrized(rows):
    assert share(1, rows) == 1 / rows


@docpact.claim("f", session="verl")
def test_elsewhere():
    pass
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the fixture project: package at the root, plain pytest, no git, no noxfile."""
    shutil.copytree(SAMPLE, tmp_path / "project")
    return tmp_path / "project"


def test_the_properties_are_read_by_node_those_of_another_session_apart(project: Path) -> None:
    """A property of another nox session is listed apart, with its session."""
    assert runner.read_properties(project, "tests") == (
        [runner.Property("share-sums", f"{PROPS}::test_share_sums", "")],
        [],
    )
    (project / PROPS).write_text(OUTCOMES, encoding="utf-8")
    properties, other = runner.read_properties(project, "tests")
    assert [p.claim for p in properties] == ["share-sums", "a", "b", "c", "d", "e"]
    assert other == [f"f: {PROPS}::test_elsewhere (session verl)"]


def test_unreadable_claims_contracts_are_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.docpact\n", encoding="utf-8")
    with pytest.raises(runner.PropertiesError, match=r"^cannot read the claims contracts: "):
        runner.read_properties(tmp_path, "tests")


@pytest.mark.slow
def test_only_a_failed_assertion_of_the_propertys_own_call_is_an_assertion(
    project: Path,
) -> None:
    """An error, a fixture's failed assertion and any errored case are errors, not checks."""
    (project / PROPS).write_text(OUTCOMES, encoding="utf-8")
    properties, _ = runner.read_properties(project, "tests")
    verdicts, tail = runner.run_properties(project, [p.node for p in properties], ["."], None)
    assert {node.split("::")[1]: kind for node, kind in verdicts.items()} == {
        "test_share_sums": "passed",
        "test_wrong": "assertion",
        "test_not_raised": "assertion",
        "test_error": "error TypeError in call",
        "test_fixture_asserts": "error AssertionError in setup",
        "test_parametrized": "error ValueError in call",
    }
    assert "4 failed, 3 passed, 1 error" in tail
    assert not (project / ".claim-properties.json").exists()


@pytest.mark.slow
def test_a_run_past_its_timeout_is_a_timeout_of_every_node(project: Path) -> None:
    (project / PROPS).write_text(
        "import time\n\n\ndef test_slow():\n    time.sleep(60)\n\n\ndef test_quick():\n    pass\n",
        encoding="utf-8",
    )
    nodes = [f"{PROPS}::test_slow", f"{PROPS}::test_quick"]
    assert runner.run_properties(project, nodes, ["."], 3) == (
        dict.fromkeys(nodes, "timeout"),
        "",
    )


@pytest.mark.slow
def test_a_module_that_fails_to_collect_is_an_error_of_its_properties(project: Path) -> None:
    (project / PROPS).write_text("import missing_module\n", encoding="utf-8")
    node = f"{PROPS}::test_share_sums"
    verdicts, _ = runner.run_properties(project, [node], ["."], None)
    assert verdicts == {node: "error in collection"}


def test_no_node_is_refused_rather_than_running_the_whole_suite(project: Path) -> None:
    with pytest.raises(ValueError, match=r"^run_properties needs at least one node$"):
        runner.run_properties(project, [], ["."], None)


@pytest.mark.slow
def test_the_command_prints_each_propertys_outcome_and_fails_on_any_but_a_pass(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert runner.main(["--project", str(project)]) == 0
    assert capsys.readouterr().out == f"share-sums: {PROPS}::test_share_sums: passed\n"
    props = project / PROPS
    props.write_text(props.read_text("utf-8").replace("1 / rows", "2 / rows"), "utf-8")
    assert runner.main(["--project", str(project)]) == 1
    assert capsys.readouterr().out == f"share-sums: {PROPS}::test_share_sums: assertion\n"


def test_a_project_without_properties_exits_2_with_one_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / PROPS).unlink()
    assert runner.main(["--project", str(project)]) == 2
    assert capsys.readouterr().err == (
        "properties: error: no claim has a property that session tests or plain pytest runs\n"
    )


@pytest.mark.parametrize(
    ("error", "assertion"),
    [
        (AssertionError("x"), True),
        (pytest.fail.Exception("DID NOT RAISE"), True),
        (ExceptionGroup("two", [AssertionError(), AssertionError()]), True),
        (ExceptionGroup("two", [AssertionError(), TypeError()]), False),
        (TypeError("x"), False),
        (ZeroDivisionError(), False),
    ],
)
def test_only_a_failed_check_is_an_assertion(error: BaseException, assertion: bool) -> None:
    """A failed assert, pytest's fail and a group of only those count; any other error not."""
    assert runner._is_assertion(error) is assertion


@pytest.mark.parametrize(
    ("kinds", "worst"),
    [
        (["passed", "passed"], "passed"),
        (["passed", "assertion"], "assertion"),
        (["assertion", "error TypeError"], "error TypeError"),
        (["skipped"], "skipped"),
        (["skipped", "passed"], "passed"),
    ],
)
def test_a_parametrized_property_takes_its_worst_case(kinds: list[str], worst: str) -> None:
    """Any case's error over any assertion over a pass over a skip."""
    assert runner._worst(kinds) == worst
