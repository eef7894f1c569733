# SPDX-License-Identifier: MIT
"""The code under test: what a property reaches, its review, and the suspect claim (DP019).

The fixture is laid out as an adopter's project, unlike this repository: the package at the
root, plain pytest with the registered marker, no noxfile, a conftest.py fixture.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from docpact.__main__ import main
from docpact.claims._bindings import read_bindings
from docpact.claims._ledger import DEFAULT_REVIEWS, blob_id

PYPROJECT = """\
[project]
name = "agentrl"

[tool.pytest.ini_options]
markers = ["docpact_claim(id, reviewed): the docs claim that this test checks"]

[tool.docpact]
paths = ["."]

[[tool.docpact.contract]]
kind = "claims"
pages = ["docs/loss.md"]
properties = ["tests"]
"""
PAGE = """\
# Loss

<!-- docpact: claim mass "Mass" -->
Each rollout always carries one share of the trained rows.

<!-- docpact: claim units "Units" -->
A plan always takes one update per mini-batch.
"""
INIT = '''\
"""agentrl."""

from agentrl.loss import per_rollout_mean

__all__ = ["per_rollout_mean"]
'''
LOSS = '''\
"""The loss."""

from __future__ import annotations

SCALE = 1.0


def _divisors(rollout_ids, token_counts, num_trained_rows):
    totals = {}
    for rid, count in zip(rollout_ids, token_counts):
        totals[rid] = totals.get(rid, 0) + count
    return [totals[rid] * num_trained_rows for rid in rollout_ids]


def per_rollout_mean(advantages, rollout_ids, token_counts, *, num_trained_rows):
    """Divide each row's advantage by its rollout's tokens times the trained rows."""
    divisors = _divisors(rollout_ids, token_counts, num_trained_rows)
    return [SCALE * a / d for a, d in zip(advantages, divisors)]


def unrelated():
    return 0
'''
PLAN = '''\
"""Plans."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    rows: int
    mini_batch_size: int

    @property
    def update_units(self) -> int:
        return self.rows // self.mini_batch_size

    def unused(self) -> int:
        return 0


def make_plan(rows: int) -> Plan:
    return Plan(rows, 4)
'''
CONFTEST = """\
import pytest

from agentrl.plan import make_plan


@pytest.fixture
def plan():
    return make_plan(8)
"""
PROPS = """\
import pytest

from agentrl import per_rollout_mean


def _units(p):
    return p.update_units


@pytest.mark.docpact_claim("mass", reviewed="000000000000/000000000000/000000000000")
def test_mass():
    scaled = per_rollout_mean([1.0, 1.0], ["a", "b"], [1, 1], num_trained_rows=2)
    assert sum(scaled) == 1.0


@pytest.mark.docpact_claim("units", reviewed="000000000000/000000000000/000000000000")
def test_units(plan):
    assert plan.update_units == 2
    assert _units(plan) == 2
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The adopter's project, its claims reviewed, as the current folder."""
    root = tmp_path / "agentrl-repo"
    for path, text in {
        "pyproject.toml": PYPROJECT,
        "docs/loss.md": PAGE,
        "agentrl/__init__.py": INIT,
        "agentrl/loss.py": LOSS,
        "agentrl/plan.py": PLAN,
        "tests/conftest.py": CONFTEST,
        "tests/test_loss.py": PROPS,
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    monkeypatch.chdir(root)
    assert main(["claims", "--update"]) == 0
    return root


def _reach(root: Path) -> dict[str, tuple[list[str], tuple[str, ...]]]:
    bindings, problems = read_bindings(root, ("tests",), (".",))
    assert problems == []
    return {b.claim: ([u.name for u in b.reach.units], b.reach.unresolved) for b in bindings}


def _check(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = main(["check"])
    return status, capsys.readouterr().out.splitlines()


def test_a_reexported_function_is_reached_with_what_it_calls(project: Path) -> None:
    """`from agentrl import f` reaches f where it is defined, its helper and its constant."""
    units, unresolved = _reach(project)["mass"]
    assert units == [
        "agentrl.loss.SCALE",
        "agentrl.loss._divisors",
        "agentrl.loss.per_rollout_mean",
    ]
    assert unresolved == ()


def test_a_method_reached_only_through_a_returned_object_is_code_under_test(
    project: Path,
) -> None:
    """A fixture's `make_plan()` is annotated to return Plan: `plan.update_units` is reached."""
    units, unresolved = _reach(project)["units"]
    assert units == [
        "agentrl.plan.Plan",
        "agentrl.plan.Plan.mini_batch_size",
        "agentrl.plan.Plan.rows",
        "agentrl.plan.Plan.update_units",
        "agentrl.plan.make_plan",
    ]
    # A parameter of no known class: listed, not dropped, since Plan has that method.
    assert unresolved == ("tests/test_loss.py:7: p.update_units (an object of unknown class)",)


def test_the_reviewed_project_checks_clean_and_its_record_holds_the_blob_ids(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _check(capsys) == (0, [])
    record = json.loads((project / DEFAULT_REVIEWS).read_text(encoding="utf-8"))["reviews"]
    assert sorted(record) == ["mass", "units"]
    mass = record["mass"]
    assert mass["property"] == "tests/test_loss.py::test_mass"
    assert sorted(mass["files"]) == ["agentrl/loss.py", "docs/loss.md", "tests/test_loss.py"]
    assert mass["files"]["agentrl/loss.py"] == blob_id((project / "agentrl/loss.py").read_bytes())
    assert mass["stamp"].count("/") == 2
    if shutil.which("git"):  # the id is git's own
        given = subprocess.run(
            ["git", "hash-object", "agentrl/loss.py"], capture_output=True, text=True, check=True
        ).stdout.strip()
        assert mass["files"]["agentrl/loss.py"] == given


def test_a_refactor_of_the_code_under_test_makes_the_claim_suspect_naming_the_function(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Renaming a helper's local changes no result, but the claim is suspect, at its line."""
    loss = project / "agentrl/loss.py"
    loss.write_text(LOSS.replace("totals", "sums"), encoding="utf-8")
    status, lines = _check(capsys)
    assert status == 1
    assert lines == [
        "docs/loss.md:3: DP019 claim mass is suspect, whatever its property test_mass "
        "(tests/test_loss.py:10) gives: the code under test changed since the review: "
        "agentrl.loss._divisors (agentrl/loss.py:8); read the claim against it, then run "
        "docpact claims --update mass"
    ]
    assert main(["claims", "--update", "mass"]) == 0
    assert _check(capsys) == (0, [])


def test_code_the_property_does_not_reach_changes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loss = project / "agentrl/loss.py"
    loss.write_text(LOSS.replace("return 0", "return 1"), encoding="utf-8")
    assert _check(capsys) == (0, [])


def test_a_stamp_from_before_the_code_under_test_was_reviewed_is_suspect(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A two-part stamp still reads: its text and code match, the code under test is unreviewed."""
    props = project / "tests/test_loss.py"
    text = props.read_text(encoding="utf-8")
    stamp = next(part for part in text.split('"') if part.count("/") == 2)
    props.write_text(text.replace(stamp, stamp.rpartition("/")[0]), encoding="utf-8")
    status, lines = _check(capsys)
    assert status == 1
    assert len(lines) == 1
    assert lines[0].startswith("docs/loss.md:3: DP019 claim mass is suspect")
    assert "its code under test was not part of its review" in lines[0]


def test_without_the_record_a_suspect_claim_says_it_cannot_name_the_units(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / DEFAULT_REVIEWS).unlink()
    plan = project / "agentrl/plan.py"
    plan.write_text(PLAN.replace("// self.mini_batch_size", "// (self.mini_batch_size)"))
    status, lines = _check(capsys)
    # Parentheses alone do not change the syntax tree: nothing is suspect.
    assert (status, lines) == (0, [])
    plan.write_text(PLAN.replace("return Plan(rows, 4)", "return Plan(rows, 2 * 2)"))
    status, lines = _check(capsys)
    assert status == 1
    assert lines[0].startswith("docs/loss.md:6: DP019 claim units is suspect")
    assert f"{DEFAULT_REVIEWS} has no record of that review" in lines[0]


def test_the_listing_says_what_changed(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "agentrl/loss.py").write_text(LOSS.replace("SCALE = 1.0", "SCALE = 2.0"))
    capsys.readouterr()
    assert main(["claims"]) == 1
    out = capsys.readouterr().out
    assert "docs/loss.md:3: mass: code under test changed: tests/test_loss.py:10 test_mass" in out
    assert "agentrl.loss.SCALE (agentrl/loss.py:5)" in out


def test_this_repositorys_claims_reach_what_they_are_about() -> None:
    """Through re-exports, a returned object and a fixture that starts processes."""
    root = Path(__file__).resolve().parents[2]
    bindings, _ = read_bindings(root, ("tests/rolloutnorm",), ("src", "rolloutnorm/src"))
    units = {b.claim: {u.name for u in b.reach.units} for b in bindings}
    assert "rolloutnorm._normalize.normalize_advantages_by_rollout" in units["mass-per-rollout"]
    assert "rolloutnorm._retention.RetentionPlan.update_units" in units["real-loop-steps"]
    assert "rolloutnorm.verl.register" in units["real-loop-mass"]


def test_a_property_that_reaches_no_project_code_cannot_fail_for_its_claim(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Reviewed and passing, but no change to the project could fail it: DP021."""
    props = project / "tests/test_loss.py"
    text = props.read_text(encoding="utf-8")
    body = '    scaled = per_rollout_mean([1.0, 1.0], ["a", "b"], [1, 1], num_trained_rows=2)\n'
    props.write_text(text.replace(body, "    scaled = [0.5, 0.5]\n"), encoding="utf-8")
    assert main(["claims", "--update", "mass"]) == 1  # reviewed, and still a finding
    status, lines = _check(capsys)
    assert status == 1
    assert lines == [
        "docs/loss.md:3: DP021 claim mass: its property test_mass (tests/test_loss.py:10) "
        "reaches none of the project's own code (in .), so no change there can make it "
        "fail: test the code the claim is about"
    ]


def test_a_claim_in_a_contracts_section_must_reach_the_contracts_object(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The section's contract names the loss, through its re-export; `units` never calls it."""
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        PYPROJECT
        + '\n[[tool.docpact.contract]]\nkind = "names"\nobject = "agentrl.per_rollout_mean"\n'
        'names = ["num_trained_rows"]\ndocs = ["docs/loss.md#loss"]\n',
        encoding="utf-8",
    )
    status, lines = _check(capsys)
    assert status == 1
    assert [line for line in lines if "DP021" in line] == [
        "docs/loss.md:6: DP021 claim units: its property test_units (tests/test_loss.py:16) "
        "reaches none of the code the claim is about, the objects of the contracts of its "
        "section: agentrl.per_rollout_mean (pyproject.toml:15); bind it to a property that "
        "calls them"
    ]


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="the reviewed copies are git's")
def test_diff_shows_the_text_the_property_and_the_code_under_test_since_the_review(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "reviewed")
    page, props, loss = (
        project / p for p in ("docs/loss.md", "tests/test_loss.py", "agentrl/loss.py")
    )
    page.write_text(PAGE.replace("one share of", "a share of"), encoding="utf-8")
    props.write_text(
        props.read_text(encoding="utf-8").replace(
            "== 1.0\n", "== 1.0\n    assert len(scaled) == 2\n"
        ),
        encoding="utf-8",
    )
    loss.write_text(LOSS.replace("totals", "sums"), encoding="utf-8")
    (project / "agentrl/plan.py").write_text(PLAN + "\n# unrelated\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["claims", "--diff", "mass"]) == 0
    out = capsys.readouterr().out
    head = out.split("\n")[0]
    # Reviewed before the first commit: no commit to name, the files' blob ids all the same.
    assert head == "claim mass (docs/loss.md:3): since its review"
    assert "agentrl/loss.py: code under test agentrl.loss._divisors" in out
    assert "-    totals = {}\n+    sums = {}\n" in out
    assert "docs/loss.md: claim text\n" in out
    assert "-Each rollout always carries one share of the trained rows.\n" in out
    assert "+Each rollout always carries a share of the trained rows.\n" in out
    assert "tests/test_loss.py: property test_mass" in out
    assert "+    assert len(scaled) == 2\n" in out
    assert "plan.py" not in out  # the claim does not depend on it
    # Without the review record, it says so and prints what is there now.
    (project / DEFAULT_REVIEWS).unlink()
    assert main(["claims", "--diff", "mass"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"claim mass (docs/loss.md:3): {DEFAULT_REVIEWS} has no record of its review; "
        "as it is now:\n"
        "docs/loss.md:3: claim text\n"
    )
    assert "    8 | def _divisors(rollout_ids, token_counts, num_trained_rows):\n" in out


def test_diff_without_git_prints_the_current_text(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "agentrl/loss.py").write_text(LOSS.replace("totals", "sums"), encoding="utf-8")
    monkeypatch.setenv("PATH", "")
    capsys.readouterr()
    assert main(["claims", "--diff", "mass"]) == 0
    out = capsys.readouterr().out
    assert "agentrl/loss.py: without git, no reviewed copy (blob " in out
    assert "    9 |     sums = {}\n" in out


def test_diff_counts_lines_at_line_breaks_only(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A form feed, which PEP 8 allows between functions, starts no line of its own."""
    text = LOSS.replace("totals", "sums")
    blank = text.index("\n\n") + 1
    (project / "agentrl/loss.py").write_text(text[:blank] + "\f" + text[blank:], encoding="utf-8")
    monkeypatch.setenv("PATH", "")
    capsys.readouterr()
    assert main(["claims", "--diff", "mass"]) == 0
    assert "    9 |     sums = {}\n" in capsys.readouterr().out


def test_diff_of_an_unknown_claim_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["claims", "--diff", "nope"]) == 2
    assert capsys.readouterr().err == (
        "error: --diff nope: no such claim on the claims pages (claims: mass, units)\n"
    )


def test_a_suspect_claim_as_a_warning_is_reported_and_fails_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`suspect = "warning"`: printed as a warning, exit 0; github and sarif say warning."""
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        PYPROJECT.replace('properties = ["tests"]', 'properties = ["tests"]\nsuspect = "warning"'),
        encoding="utf-8",
    )
    (project / "agentrl/loss.py").write_text(LOSS.replace("totals", "sums"), encoding="utf-8")
    status, lines = _check(capsys)
    assert status == 0
    assert len(lines) == 1
    assert lines[0].startswith("docs/loss.md:3: warning: DP019 claim mass is suspect")
    assert main(["check", "--format", "github"]) == 0
    assert capsys.readouterr().out.startswith("::warning file=docs/loss.md,line=3,title=DP019::")
    assert main(["check", "--format", "sarif"]) == 0
    sarif = json.loads(capsys.readouterr().out)
    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["warning"]


def test_suspect_takes_error_or_warning_only(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(PYPROJECT + 'suspect = "ignore"\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["check"]) == 2
    err = capsys.readouterr().err
    assert "suspect must be one of error, warning, got 'ignore'" in err
    assert err.count("\n") == 1


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def test_a_class_of_methods_only_is_a_unit_with_an_empty_body(tmp_path: Path) -> None:
    """A class holding nothing but methods, no docstring, is reached without a crash."""
    box = (
        "class Box:\n    def __init__(self, x):\n        self.x = x\n\n"
        "    @property\n    def half(self):\n        return self.x / 2\n"
    )
    props = (
        'import docpact\n\nfrom pkg import Box\n\n\n@docpact.claim("half")\n'
        "def test_half():\n    assert Box(4).half == 2\n"
    )
    _write(tmp_path, {"pkg/__init__.py": box, "tests/test_props.py": props})
    units, unresolved = _reach(tmp_path)["half"]
    assert units == ["pkg.Box", "pkg.Box.__init__", "pkg.Box.half"]
    assert unresolved == ()


RECURSIVE = """\
class Node:
    def size(self):
        return 1


def parse(text):
    node = Node()
    if text:
        parse_rest(text[1:])
    return node


def parse_rest(text):
    node = parse(text)
    node.size()
    return node
"""


def test_what_a_property_reaches_does_not_depend_on_the_other_properties(
    tmp_path: Path,
) -> None:
    """A recursive call's half-made scan is never kept: another test file changes nothing."""
    test_b = (
        'import docpact\nfrom pkg.m import parse_rest\n\n\n@docpact.claim("b")\n'
        'def test_b():\n    assert parse_rest("ab").size() == 1\n'
    )
    root = _write(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": RECURSIVE})
    _write(root, {"tests/test_b.py": test_b})
    alone = _reach(root)["b"]
    test_a = (
        'import docpact\nfrom pkg.m import parse\n\n\n@docpact.claim("a")\n'
        'def test_a():\n    assert parse("ab")\n'
    )
    _write(root, {"tests/test_a.py": test_a})
    assert _reach(root)["b"] == alone
    assert alone[0] == ["pkg.m.Node", "pkg.m.Node.size", "pkg.m.parse", "pkg.m.parse_rest"]


def test_an_empty_tuple_annotation_is_no_crash(tmp_path: Path) -> None:
    """`tuple[()]` and `Optional[()]` name no class: nothing reached through them, no error."""
    code = (
        "from typing import Optional\n\n\ndef f(x: tuple[()] = (), y: Optional[()] = None,"
        ' z: "\\0" = 1) -> int:\n    items: tuple[()] = ()\n    return len(items)\n'
    )
    props = (
        'import docpact\nfrom pkg import f\n\n\n@docpact.claim("f")\n'
        "def test_f():\n    assert f() == 0\n"
    )
    root = _write(tmp_path, {"pkg/__init__.py": code, "tests/test_props.py": props})
    assert _reach(root)["f"] == (["pkg.f"], ())


def test_a_getter_and_setter_of_one_name_are_one_unit_whose_change_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Units sharing a name share a fingerprint: a change to the getter names that unit."""
    plan = (
        "class Plan:\n    def __init__(self):\n        self._x = 1\n\n    @property\n"
        "    def x(self):\n        return self._x * 2\n\n    @x.setter\n"
        "    def x(self, v):\n        self._x = v\n"
    )
    props = (
        'import docpact\nfrom pkg.m import Plan\n\n\n@docpact.claim("c")\n'
        "def test_c():\n    assert Plan().x == 2\n"
    )
    pyproject = (
        '[project]\nname = "p"\n\n[tool.docpact]\npaths = ["."]\n\n[[tool.docpact.contract]]\n'
        'kind = "claims"\npages = ["docs/c.md"]\nproperties = ["tests"]\n'
    )
    root = _write(
        tmp_path,
        {
            "pyproject.toml": pyproject,
            "docs/c.md": "# C\n\n<!-- docpact: claim c -->\nIt holds.\n",
            "pkg/__init__.py": "",
            "pkg/m.py": plan,
            "tests/test_c.py": props,
        },
    )
    monkeypatch.chdir(root)
    assert main(["claims", "--update"]) == 0
    code = root / "pkg/m.py"
    code.write_text(plan.replace("self._x * 2", "self._x * 3"), encoding="utf-8")
    status, lines = _check(capsys)
    assert status == 1
    assert "the code under test changed since the review: pkg.m.Plan.x (pkg/m.py:" in lines[0]


def test_a_fixture_built_from_another_fixture_reaches_what_it_returns(tmp_path: Path) -> None:
    """`plan(config)` returning `config.build()`: the property reaches `Plan.run` through it."""
    code = (
        "class Plan:\n    def run(self):\n        return 1\n\n\n"
        "class Config:\n    def build(self) -> Plan:\n        return Plan()\n"
    )
    conftest = (
        "import pytest\n\nfrom pkg.m import Config\n\n\n@pytest.fixture\ndef config():\n"
        "    return Config()\n\n\n@pytest.fixture\ndef plan(config):\n    return config.build()\n"
    )
    props = (
        'import docpact\n\n\n@docpact.claim("c")\ndef test_c(plan):\n    assert plan.run() == 1\n'
    )
    root = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/m.py": code,
            "tests/conftest.py": conftest,
            "tests/test_props.py": props,
        },
    )
    assert _reach(root)["c"] == (
        ["pkg.m.Config", "pkg.m.Config.build", "pkg.m.Plan", "pkg.m.Plan.run"],
        (),
    )


def test_a_property_the_rule_cannot_find_is_listed_as_unresolved(tmp_path: Path) -> None:
    """A property in a class nested in a class reaches nothing known: it says so."""
    props = (
        "import docpact\nfrom pkg import f\n\n\nclass TestOuter:\n    class TestInner:\n"
        '        @docpact.claim("f")\n        def test_f(self):\n            assert f() == 0\n'
    )
    root = _write(
        tmp_path, {"pkg/__init__.py": "def f():\n    return 0\n", "tests/test_props.py": props}
    )
    units, unresolved = _reach(root)["f"]
    assert units == []
    assert len(unresolved) == 1
    assert unresolved[0].startswith("tests/test_props.py:7: ")
    assert unresolved[0].endswith("(not at the module's top or in one of its classes)")
