# SPDX-License-Identifier: MIT
"""A claim's state from the results files, its box, its title, and the results' recorder."""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import types
from pathlib import Path

import pytest

from docpact import load_config
from docpact._model.errors import DocpactError
from docpact.claims import _results as results
from docpact.claims._bindings import Binding
from docpact.claims._boxes import _folder
from docpact.claims._page import read_page
from docpact.claims._results import Run, encode, read_runs, state
from helpers import run_module

BINDING = Binding("tests/t.py", 3, "test_p", "c", code="aaaaaaaaaaaa", node="test_p")
KEY = ("tests/t.py", "test_p")
HEAD = "1" * 40


def _run(
    session: str,
    outcome: str,
    *,
    commit: str | None = HEAD,
    code: str = "aaaaaaaaaaaa",
    dirty: bool = False,
    mtime: float = 0.0,
) -> Run:
    name = f"{session}-{outcome}.json"
    return Run(name, session, commit, dirty, {KEY: (code, outcome)}, mtime=mtime)


def test_no_results_leave_the_property_not_run() -> None:
    assert state(BINDING, "tests", [], HEAD).status == "not-run"
    other = Run("x.json", "tests", HEAD, False, {("tests/t.py", "test_q"): ("a" * 12, "passed")})
    assert state(BINDING, "tests", [other], HEAD).status == "not-run"


def test_a_failure_wins_over_a_pass_and_a_pass_over_a_skip() -> None:
    runs = [_run("tests", "skipped"), _run("tests", "passed")]
    assert state(BINDING, "tests", runs, HEAD).status == "passed"
    found = state(BINDING, "tests", [*runs, _run("tests", "failed")], HEAD)
    assert (found.status, found.run.path) == ("failed", "tests-failed.json")


def test_the_propertys_own_session_is_read_first() -> None:
    runs = [_run("other", "skipped"), _run("tests", "skipped"), _run("other", "passed")]
    assert state(BINDING, "tests", runs, HEAD).status == "skipped"
    # With none of its own session's, another session's results say what ran.
    assert state(BINDING, "verl", runs, HEAD).status == "passed"


def test_a_failure_on_this_commit_in_another_session_is_never_hidden() -> None:
    """The own session's pass does not hide another session's failure on the same commit."""
    runs = [_run("other", "failed"), _run("tests", "passed")]
    found = state(BINDING, "tests", runs, HEAD)
    assert (found.status, found.run.session) == ("failed", "other")
    # Its own session's failure is named first.
    runs.append(_run("tests", "failed"))
    assert state(BINDING, "tests", runs, HEAD).run.session == "tests"


def test_a_run_with_uncommitted_changes_is_not_the_commits_result() -> None:
    """A dirty run on the commit is stale, shown as such; it neither passes nor fails it."""
    for outcome in ("passed", "failed"):
        found = state(BINDING, "tests", [_run("tests", outcome, dirty=True)], HEAD)
        assert (found.status, found.run.dirty, found.changed) == ("stale", True, False)
    runs = [_run("tests", "failed", dirty=True), _run("tests", "passed")]
    assert state(BINDING, "tests", runs, HEAD).status == "passed"


def test_a_stale_property_names_its_newest_run_not_the_last_path() -> None:
    newer = _run("tests", "failed", commit="2" * 40, mtime=20.0)
    older = dataclasses.replace(_run("tests", "passed", commit="3" * 40, mtime=10.0), path="z")
    found = state(BINDING, "tests", [newer, older], HEAD)
    assert (found.status, found.run) == ("stale", newer)
    # Its own session's newest, when it has one.
    other = _run("other", "passed", commit="4" * 40, mtime=30.0)
    assert state(BINDING, "tests", [newer, older, other], HEAD).run == newer


def test_results_of_another_commit_or_older_code_are_stale() -> None:
    found = state(BINDING, "tests", [_run("tests", "failed", commit="2" * 40)], HEAD)
    assert (found.status, found.changed) == ("stale", False)
    found = state(BINDING, "tests", [_run("tests", "failed", code="b" * 12)], HEAD)
    assert (found.status, found.changed) == ("stale", True)
    # Without git then and now, the code's fingerprint alone decides.
    assert state(BINDING, "tests", [_run("tests", "passed", commit=None)], None).status == "passed"
    assert state(BINDING, "tests", [_run("tests", "passed")], None).status == "stale"


UNITS = {"src/m.py::f": "b" * 12, "src/m.py::C.g": "c" * 12}


def test_what_encode_writes_read_runs_reads(tmp_path: Path) -> None:
    entry = {"path": KEY[0], "node": KEY[1], "claim": "c", "code": "a" * 12, "outcome": "passed"}
    entry["units"] = UNITS
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "one.json").write_text(encode("tests", HEAD, True, [entry]), "utf-8")
    (tmp_path / "r" / "empty.json").write_text(encode("", None, False, []), "utf-8")
    runs, problems = read_runs(tmp_path, ("r/*.json",))
    assert problems == []
    assert all(run.mtime > 0 for run in runs)  # the files' modification times
    assert [dataclasses.replace(run, mtime=0.0) for run in runs] == [
        Run("r/empty.json", "", None, False, {}),
        Run("r/one.json", "tests", HEAD, True, {KEY: ("a" * 12, "passed")}, units={KEY: UNITS}),
    ]
    written = json.loads((tmp_path / "r" / "one.json").read_text("utf-8"))
    assert list(written["properties"][0]["units"]) == ["src/m.py::C.g", "src/m.py::f"]  # sorted


def test_the_blob_ids_a_run_records_are_read_with_the_entry_they_belong_to(
    tmp_path: Path,
) -> None:
    """A property's blob goes with its own entry's code; a later entry without one drops it."""
    blob, other = "1" * 40, "2" * 64
    entry = {"path": KEY[0], "node": KEY[1], "claim": "c", "outcome": "passed", "units": UNITS}
    first = entry | {"code": "a" * 12, "blob": blob}
    files = {"src/m.py": other}
    (tmp_path / "one.json").write_text(encode("", None, False, [first], files), "utf-8")
    (tmp_path / "two.json").write_text(
        encode("", None, False, [first, entry | {"code": "b" * 12}], files), "utf-8"
    )
    (tmp_path / "three.json").write_text(
        encode("", None, False, [first, entry | {"code": "b" * 12, "blob": other}]), "utf-8"
    )
    runs, problems = read_runs(tmp_path, ("*.json",))
    assert problems == []
    found = {run.path: (run.outcomes[KEY][0], run.blobs, run.files) for run in runs}
    assert found == {
        "one.json": ("a" * 12, {KEY: ("c", blob)}, files),
        "two.json": ("b" * 12, {}, files),
        "three.json": ("b" * 12, {KEY: ("c", other)}, {}),
    }


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "line 1: Expecting property name enclosed in double quotes"),
        ("[" * 100_000 + "]" * 100_000, "its JSON nests too deeply"),
        ('{"docpact_results": 3}', 'it needs "docpact_results": 2'),
        ('["docpact_results", 2]', 'it needs "docpact_results": 2'),
        (
            '{"docpact_results": 1, "session": "", "commit": null, "dirty": false, '
            '"properties": []}',
            "it is a version 1 results file, which records no executed units; run pytest "
            "--docpact-results again",
        ),
        ('{"docpact_results": 2, "session": "", "commit": 5}', "session must be a string"),
        (
            '{"docpact_results": 2, "session": "", "commit": null, "dirty": 0, "properties": []}',
            "dirty must be true or false",
        ),
        (
            '{"docpact_results": 2, "session": "\\ud800", "commit": null}',
            "session must be empty or a nox session name",
        ),
        (
            '{"docpact_results": 2, "session": "<b>x</b>", "commit": null}',
            "session must be empty or a nox session name",
        ),
        (
            '{"docpact_results": 2, "session": "", "commit": "abc<script>"}',
            "commit must be null or a commit's id",
        ),
        (
            f'{{"docpact_results": 2, "session": "", "commit": "{"A" * 40}"}}',
            "commit must be null or a commit's id",
        ),
        (
            '{"docpact_results": 2, "session": "", "commit": null, "dirty": false, '
            '"properties": [{"path": "a", "node": "b", "code": "c", "outcome": "ok"}]}',
            "properties[0] needs the strings path, node, code and an outcome of failed, "
            "passed, skipped",
        ),
        *(
            (
                '{"docpact_results": 2, "session": "", "commit": null, "dirty": false, '
                '"properties": [{"path": "a", "node": "b", "code": "c", "outcome": "passed"'
                f"{units}}}]}}",
                "properties[0].units must map each unit executed, as path::qualname, to its "
                "fingerprint of 12 lowercase hex digits",
            )
            for units in (
                "",
                ', "units": []',
                ', "units": {"m.py::f": 5}',
                ', "units": {"m.py::f": "ABCDEF012345"}',
                ', "units": {"m.py::f": "abc"}',
                ', "units": {"m.py": "abcdef012345"}',
                ', "units": {"::f": "abcdef012345"}',
            )
        ),
        *(
            (
                '{"docpact_results": 2, "session": "", "commit": null, "dirty": false, '
                f'"properties": [], "files": {files}}}',
                "files must be absent or map each path to a git blob id, 40 or 64 lowercase "
                "hex digits",
            )
            for files in ("[]", '{"m.py": "abc"}', f'{{"m.py": "{"A" * 40}"}}', '{"m.py": 5}')
        ),
        *(
            (
                '{"docpact_results": 2, "session": "", "commit": null, "dirty": false, '
                '"properties": [{"path": "a", "node": "b", "code": "c", "outcome": "passed", '
                f'"units": {{}}, "blob": {blob}}}]}}',
                "properties[0].blob must be a git blob id, 40 or 64 lowercase hex digits",
            )
            for blob in ("null", '"abc"', f'"{"0" * 41}"')
        ),
    ],
    ids=[
        "json",
        "deep",
        "format",
        "foreign",
        "version-1",
        "types",
        "dirty",
        "surrogate",
        "html",
        "commit",
        "uppercase",
        "outcome",
        "no-units",
        "units-list",
        "units-number",
        "units-uppercase",
        "units-short",
        "units-no-qualname",
        "units-no-path",
        "files-list",
        "files-short",
        "files-uppercase",
        "files-number",
        "blob-null",
        "blob-short",
        "blob-long",
    ],
)
def test_a_file_that_is_not_a_results_file_says_why(tmp_path: Path, text: str, why: str) -> None:
    (tmp_path / "r.json").write_text(text, encoding="utf-8")
    runs, problems = read_runs(tmp_path, ("*.json",))
    assert runs == []
    assert len(problems) == 1
    assert problems[0][0] == "r.json"
    assert why in problems[0][1]


def test_a_results_path_that_is_a_folder_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "r.json").mkdir()
    assert read_runs(tmp_path, ("*.json",)) == (
        [],
        [("r.json", "cannot be read: it is a folder, not a file")],
    )


@pytest.mark.parametrize(
    ("pattern", "watched"),
    [
        (".docpact/results/*.json", (".docpact/results", False)),
        ("results.json", (".", False)),
        ("out/*/r.json", ("out", True)),
        (".docpact/**/*.json", (".docpact", True)),
        ("a/b/**/c/*.json", ("a/b", True)),
        ("**/*.json", (".", False)),
        ("*/r.json", (".", False)),
        ("a/b/c.json", ("a/b", False)),
    ],
)
def test_serve_watches_the_fixed_prefix_of_a_results_pattern(
    pattern: str, watched: tuple[str, bool]
) -> None:
    """The folder before the first wildcard; its subfolders only where searched, not the root's."""
    assert _folder(pattern) == watched


@pytest.mark.parametrize(
    ("results", "why"),
    [
        ('["."]', "'.', which names the project root, not its results files"),
        ('["./"]', "'.', which names the project root"),
        ('["r/a**.json"]', "'r/a**.json', which has ** inside a name"),
        ('["r/**"]', "'r/**', which ends in **, which matches folders"),
    ],
)
def test_a_results_pattern_that_cannot_name_files_is_a_contract_error(
    tmp_path: Path, results: str, why: str
) -> None:
    """Refused when the contract is read, at the key's line: pathlib would raise on some."""
    pyproject = PROJECT["pyproject.toml"] + f"results = {results}\n"
    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    line = pyproject.splitlines().index(f"results = {results}") + 1
    with pytest.raises(DocpactError) as raised:
        load_config(tmp_path / "pyproject.toml")
    message = str(raised.value)
    assert re.match(
        rf"\S*pyproject\.toml:{line}: error: tool\.docpact\.contract\[0\]\.results ", message
    )
    assert why in message


def test_docpact_check_exits_2_on_a_bad_results_pattern(tmp_path: Path) -> None:
    project = _write(tmp_path, PROJECT)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(PROJECT["pyproject.toml"] + "results = ['.']\n", encoding="utf-8")
    from docpact._cli import main

    assert main(["check", "--pyproject", str(pyproject)]) == 2


@pytest.mark.parametrize("pattern", [".", "r/a**.json", "", "r/**"])
def test_read_runs_reports_a_pattern_it_cannot_search_instead_of_raising(
    tmp_path: Path, pattern: str
) -> None:
    runs, problems = read_runs(tmp_path, (pattern, "*.json"))
    assert runs == []
    ((name, why),) = problems
    assert (name, why.split(":")[0]) == (pattern, "is not a results pattern docpact can search")


def test_the_results_docstring_names_modules_that_exist() -> None:
    names = re.findall(r"`(docpact\.[\w.]+)`", results.__doc__)
    assert "docpact.claims._pytest_plugin" in names
    for name in names:
        importlib.import_module(name)


def test_a_title_is_read_and_reviewed_with_the_claim() -> None:
    (plain,) = read_page("<!-- docpact: claim c -->\nText.\n").claims
    (titled,) = read_page('<!-- docpact: claim c "A   title" -->\nText.\n').claims
    assert (plain.title, titled.title, titled.text) == ("", "A title", "Text.")
    assert plain.fingerprint != titled.fingerprint
    (retitled,) = read_page('<!-- docpact: claim c "Another" -->\nText.\n').claims
    assert retitled.fingerprint != titled.fingerprint


@pytest.mark.parametrize("arguments", ['c ""', "c Title", 'c "A" b', 'c "A'])
def test_a_malformed_title_is_a_problem_at_the_marker(arguments: str) -> None:
    page = read_page(f"Intro.\n\n<!-- docpact: claim {arguments} -->\nText.\n")
    assert page.claims == ()
    ((line, message),) = page.problems
    assert line == 3
    assert message.startswith("a claim marker takes an ID and, optionally, a title in double")


PROJECT = {
    "pyproject.toml": (
        "[tool.pytest.ini_options]\naddopts = ['-p', 'no:cacheprovider']\n\n"
        "[[tool.docpact.contract]]\nkind = 'claims'\npages = ['p.md']\nproperties = ['tests']\n"
    ),
    "p.md": "<!-- docpact: claim c -->\nC.\n\n<!-- docpact: claim d -->\nD.\n",
    "tests/test_p.py": (
        "import pytest\n\n\n"
        "@pytest.mark.docpact_claim('c')\n"
        "@pytest.mark.parametrize('x', [1, 2, 3])\n"
        "def test_c(x):\n    assert x != 2\n\n\n"
        "class TestD:\n"
        "    @pytest.mark.docpact_claim('d')\n"
        "    def test_d(self):\n        pytest.skip('not here')\n\n\n"
        "def test_unbound():\n    pass\n"
    ),
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.slow
def test_the_recorder_gives_a_parametrized_property_one_outcome(tmp_path: Path) -> None:
    """Any failed item fails the property; a method's node is `Class::name`; unbound: none."""
    project = _write(tmp_path, PROJECT)
    result = run_module(project, "pytest", "-q", "--docpact-results", "out/r.json")
    assert result.returncode == 1, result.stdout
    written = json.loads((project / "out" / "r.json").read_text(encoding="utf-8"))
    outcomes = [(e["node"], e["claim"], e["outcome"]) for e in written["properties"]]
    assert outcomes == [("TestD::test_d", "d", "skipped"), ("test_c", "c", "failed")]
    assert (written["commit"], written["dirty"]) == (None, False)  # no git checkout here


@pytest.mark.slow
def test_the_recorder_is_inert_without_its_option_and_refuses_a_project_without_claims(
    tmp_path: Path,
) -> None:
    project = _write(tmp_path, PROJECT)
    assert run_module(project, "pytest", "-q").returncode == 1  # test_c[2] fails
    assert not (project / "out").exists()
    divisor = "object = 'm.f'\noperands = ['a', 'b']\ndocs = ['p.md#x']\n"
    pyproject = PROJECT["pyproject.toml"].split("kind = ")[0] + divisor
    (project / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    result = run_module(project, "pytest", "-q", "--docpact-results", "r.json")
    assert result.returncode == 4, result.stdout  # pytest's usage error
    assert result.stdout.startswith("ERROR: --docpact-results: ")
    assert "pyproject.toml has no claims contract to record" in result.stdout
    (project / "pyproject.toml").write_text("[tool.docpact]\n", encoding="utf-8")
    result = run_module(project, "pytest", "-q", "--docpact-results", "r.json")
    assert result.returncode == 4
    assert result.stdout.startswith("ERROR: --docpact-results: pyproject.toml:1: error: ")
    assert "Traceback" not in result.stdout
    assert not (project / "r.json").exists()


def test_the_marker_is_registered_for_strict_markers() -> None:
    from docpact.claims import _pytest_plugin

    lines: list[tuple[str, str]] = []
    config = types.SimpleNamespace(
        addinivalue_line=lambda name, line: lines.append((name, line)),
        getoption=lambda name: None,
    )
    _pytest_plugin.pytest_configure(config)  # type: ignore[arg-type]
    assert [name for name, _ in lines] == ["markers"]
    assert lines[0][1].startswith("docpact_claim(")
