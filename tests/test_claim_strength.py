# SPDX-License-Identifier: MIT
"""scripts/claim_strength.py: each claim's properties against mutants of their code under test."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import load_module

ROOT = Path(__file__).resolve().parents[1]
strength = load_module("claim_strength", ROOT / "scripts" / "claim_strength.py")
SAMPLE = ROOT / "tests" / "samples" / "strength_project"
PROPS = "tests/test_props.py"
# The fixture's one function: its guard, its message and its share.
MUTANTS = [
    ("shares.share#1", 7, "if tokens < 1 and rows < 1:"),
    ("shares.share#2", 7, "if tokens <= 1 or rows < 1:"),
    ("shares.share#3", 7, "if tokens < 2 or rows < 1:"),
    ("shares.share#4", 7, "if tokens < 1 or rows <= 1:"),
    ("shares.share#5", 7, "if tokens < 1 or rows < 2:"),
    ("shares.share#6", 8, "msg = None"),
    ("shares.share#7", 9, "raise ValueError(None)"),
    ("shares.share#8", 10, "return 1 * (tokens * rows)"),
    ("shares.share#9", 10, "return 2 / (tokens * rows)"),
    ("shares.share#10", 10, "return 1 / (tokens / rows)"),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the fixture project: package at the root, plain pytest, no git, no noxfile."""
    shutil.copytree(SAMPLE, tmp_path / "project")
    return tmp_path / "project"


def _run(project: Path, *options: str) -> subprocess.CompletedProcess[str]:
    script = ROOT / "scripts" / "claim_strength.py"
    command = [sys.executable, str(script), "--project", str(project), "--jobs", "1", *options]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)


def test_the_mutants_are_those_of_the_code_under_test_named_by_unit(project: Path) -> None:
    """The mutmut mutations of the reached function, one per mutant, named `unit#k` in order."""
    properties, other = strength.read_properties(project, "tests")
    assert other == []
    assert [(p.claim, p.node) for p in properties] == [("share-sums", f"{PROPS}::test_share_sums")]
    mutants = strength.mutants_of(project, properties)
    assert [(m.name, m.line, m.after) for m in mutants] == MUTANTS
    original = (project / "shares" / "__init__.py").read_text("utf-8")
    for mutant in mutants:  # each changes exactly its one line
        diff = [
            a != b for a, b in zip(original.splitlines(), mutant.text.splitlines(), strict=True)
        ]
        assert diff.count(True) == 1
        assert diff.index(True) == mutant.line - 1


@pytest.mark.slow
def test_a_property_that_checks_the_claim_kills_mutants_by_assertion_only(project: Path) -> None:
    """The share's mutants fail its assertion; the guard's raise an error, which is no kill."""
    result = _run(project, "--floor", "60")
    assert result.returncode == 1, result.stderr  # 3 of 6 is below a 60% floor
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "share-sums: killed 3 of the 6 mutants its properties ran to an end (50.0%, floor "
        "60%) BELOW THE FLOOR; 4 more raised an error or timed out, listed apart; "
        f"properties {PROPS}::test_share_sums"
    )
    survived = [line.split(": ")[1] for line in lines if line.startswith("  survived ")]
    errors = [
        line.split(": ")[2] for line in lines if line.startswith("  error ValueError in call: ")
    ]
    assert survived == ["shares.share#1", "shares.share#6", "shares.share#7"]
    assert errors == ["shares.share#2", "shares.share#3", "shares.share#4", "shares.share#5"]
    assert _run(project).returncode == 0


@pytest.mark.slow
def test_a_property_weakened_to_assert_nothing_has_a_strength_of_0(project: Path) -> None:
    """A property that calls the code but checks nothing kills none of its mutants."""
    props = project / PROPS
    text = props.read_text("utf-8")
    weak = "            share(tokens, rows)\n"
    props.write_text(text.replace(text.splitlines(keepends=True)[-1], weak), "utf-8")
    result = _run(project)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0].startswith(
        "share-sums: killed 0 of the 6 mutants its properties ran to an end (0.0%, floor 50%) "
        "BELOW THE FLOOR; 4 more raised an error or timed out"
    )


@pytest.mark.slow
def test_a_reviewed_survivor_is_shown_with_its_reason(project: Path, tmp_path: Path) -> None:
    """`--reviewed` gives a survivor its reason; `--claim` of no property exits 2 naming it."""
    reviewed = tmp_path / "survivors.toml"
    reviewed.write_text('[survivors]\n"share-sums shares.share#6" = "the message only"\n')
    result = _run(project, "--reviewed", str(reviewed), "--claim", "share-sums")
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if "shares.share#6" in x)
    assert line.endswith("(reviewed: the message only)")
    sampled = _run(project, "--sample", "4", "--seed", "1").stdout.splitlines()[0]
    assert re.match(r"share-sums: killed [0-4] of the [0-4] mutants ", sampled)
    missing = _run(project, "--claim", "nope")
    assert (missing.returncode, missing.stderr) == (
        2,
        "claim-strength: error: no property of session tests is bound to nope\n",
    )


@pytest.mark.slow
def test_a_property_that_fails_unmutated_is_not_measured(project: Path) -> None:
    """A property already failing says so, is left out of the counts and fails the run."""
    props = project / PROPS
    props.write_text(props.read_text("utf-8").replace("1 / rows", "2 / rows"), "utf-8")
    result = _run(project)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == (
        f"share-sums: not measured: its property {PROPS}::test_share_sums fails before any "
        "mutation (assertion)"
    )
    assert "    | FAILED tests/test_props.py::test_share_sums" in result.stdout


@pytest.mark.slow
def test_a_fixture_that_asserts_for_a_property_that_does_not_is_no_kill(project: Path) -> None:
    """A failed assertion in a fixture is an error: only the property's own call can kill."""
    props = project / PROPS
    props.write_text(
        "import docpact\nimport pytest\n\nfrom shares import share\n\n\n"
        "@pytest.fixture\ndef checked():\n    assert share(2, 3) == 1 / 6\n\n\n"
        '@docpact.claim("share-sums")\ndef test_share_sums(checked):\n    share(2, 3)\n',
        "utf-8",
    )
    lines = _run(project).stdout.splitlines()
    assert lines[0].startswith("share-sums: killed 0 of the 7 mutants its properties ran ")
    assert sum(line.startswith("  error AssertionError in setup: ") for line in lines) == 3


def test_a_decorated_function_is_mutated_too(tmp_path: Path) -> None:
    """A property's method under `@property` gets mutants, as a plain function does."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "pyproject.toml").write_text((SAMPLE / "pyproject.toml").read_text())
    (tmp_path / "docs" / "page.md").write_text((SAMPLE / "docs" / "page.md").read_text())
    (tmp_path / "pkg" / "__init__.py").write_text(
        "class Box:\n    def __init__(self, x):\n        self.x = x\n\n"
        "    @property\n    def half(self):\n        return self.x / 2\n"
    )
    (tmp_path / "tests" / "test_props.py").write_text(
        "import docpact\n\nfrom pkg import Box\n\n\n"
        '@docpact.claim("share-sums")\ndef test_half():\n    assert Box(4).half == 2\n'
    )
    properties, _ = strength.read_properties(tmp_path, "tests")
    mutants = strength.mutants_of(tmp_path, properties)
    assert ("pkg.Box.half#1", 7) in [(m.name, m.line) for m in mutants]


def test_an_assertion_inside_the_code_under_test_is_an_error() -> None:
    """An `assert` of the mutated code failing is the code's error, not the property's check."""
    namespace: dict = {}
    exec(compile("def guard():\n    assert False\n", "pkg/code.py", "exec"), namespace)
    with pytest.raises(AssertionError) as raised:
        namespace["guard"]()
    assert strength._is_assertion(raised.value, frozenset({"other.py"}))
    assert not strength._is_assertion(raised.value, frozenset({"pkg/code.py"}))


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
    """A failed assert, pytest's fail and a group of only those kill; any other error does not."""
    assert strength._is_assertion(error) is assertion


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
    assert strength._worst(kinds) == worst


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[survivors]\n'a b' = ''\n", "[survivors] must map 'CLAIM MUTANT' to a reason"),
        ("survivors = 3\n", "[survivors] must map 'CLAIM MUTANT' to a reason"),
        ("[survivors\n", "cannot read the reviewed survivors"),
    ],
)
def test_a_malformed_reviewed_file_is_a_usage_error(
    tmp_path: Path, text: str, message: str
) -> None:
    """A reviewed-survivors file that is no table of reasons is refused naming the file."""
    path = tmp_path / "survivors.toml"
    path.write_text(text)
    with pytest.raises(strength.StrengthError, match=f"^{re.escape(f'{path}: {message}')}"):
        strength.load_reviewed(path)


@pytest.mark.parametrize(
    "option", [["--jobs", "0"], ["--sample", "-1"], ["--floor", "101"], ["--timeout", "-1"]]
)
def test_bad_options_exit_2_with_one_line(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad count or floor exits 2 with one error line, before any copy is made."""
    assert strength.main(option) == 2
    err = capsys.readouterr().err
    assert err.startswith("claim-strength: error: ")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("path", "wanted", "within"),
    [
        ("pkg/a.py", [], True),
        ("pkg/a.py", ["pkg"], True),
        ("pkg/a.py", ["pkg/"], True),
        ("pkg/a.py", ["pkg/a.py"], True),
        ("pkg/ab.py", ["pkg/a"], False),
        ("pkgs/a.py", ["pkg"], False),
    ],
)
def test_path_narrows_the_mutants_to_files_and_folders(
    path: str, wanted: list[str], within: bool
) -> None:
    """`--path` takes a file or a folder, never a name's prefix; none takes every file."""
    assert strength._within(path, wanted) is within
