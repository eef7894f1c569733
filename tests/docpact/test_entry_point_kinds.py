# SPDX-License-Identifier: MIT
"""A kind of another distribution, registered under `docpact.kinds`, is docpact's like its own.

The kind lives in a module outside docpact, in a temporary folder with a `*.dist-info` that
declares the entry point, on `sys.path`: as a distribution installed beside docpact would.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from docpact.__main__ import main
from docpact._registry import all_kinds, codes
from helpers import mkdocs_build
from samples.drift import copy_project

# The codes installed before a test registers its kind: docpact's and the claims extension's.
CODES = codes(all_kinds())

KIND_MODULE = """
from __future__ import annotations

from dataclasses import dataclass

from docpact import Contract, Kind, Rule



@dataclass(frozen=True, kw_only=True)
class TodoContract(Contract):
    kind: str = "todo"
    pages: tuple[str, ...] = ()


def parse(entry, key):
    pages = entry.get("pages")
    if not isinstance(pages, list) or not pages:
        msg = f"{key}.pages must be a non-empty list of pages, got {pages!r}"
        raise ValueError(msg)
    return TodoContract(pages=tuple(pages))


def no_todo(subject):
    for page in subject.contract.pages:
        text = (subject.config.root / page).read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            if "TODO" in line:
                yield page, number, f"{page} still says TODO"


def add_todos(commands, kind):
    todos = commands.add_parser("todos", help="count the pages of the todo contracts")
    todos.add_argument("--pyproject")

    def run(options, config):
        print(sum(len(c.pages) for c in config.contracts if c.kind == kind.name))
        return 0

    return run


TODO = Kind(
    name="todo",
    summary="no listed page says TODO",
    required=frozenset({"pages"}),
    optional=frozenset(),
    noun="page",
    rules=(Rule("XT001", "no listed page says TODO", "the line", no_todo),),
    parse=parse,
    commands=(add_todos,),
)
CLASH = Kind(
    name="clash",
    summary="reuses a code of docpact's",
    required=frozenset(),
    optional=frozenset(),
    noun="thing",
    rules=(Rule("DP001", "another rule under DP001", "nowhere", no_todo),),
)
AGAIN = Kind(
    name="again",
    summary="reuses the code of todo's rule",
    required=frozenset({"pages"}),
    optional=frozenset(),
    noun="page",
    rules=(Rule("XT001", "another rule under XT001", "the line", no_todo),),
    parse=parse,
)
ALSO = Kind(
    name="also",
    summary="shares todo's rule itself",
    required=frozenset({"pages"}),
    optional=frozenset(),
    noun="page",
    rules=TODO.rules,
    parse=parse,
)
"""
PYPROJECT = """
[[tool.docpact.contract]]
kind = "{kind}"
pages = ["docs/guide.md"]
"""


def _install(site: Path, distribution: str, entry_points: str) -> None:
    """Make `distribution` look installed on `site`, with these `docpact.kinds` entry points."""
    info = site / f"{distribution.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[docpact.kinds]\n{textwrap.dedent(entry_points)}", encoding="utf-8"
    )


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder on `sys.path` holding the kind's module, out of docpact's package."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "todo_kind.py").write_text(KIND_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    sys.modules.pop("todo_kind", None)


def _project(tmp_path: Path, kind: str = "todo") -> Path:
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "guide.md").write_text("# Guide\n\nTODO: write it.\n", encoding="utf-8")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(PYPROJECT.format(kind=kind), encoding="utf-8")
    return pyproject


def test_a_registered_kind_is_checked_selected_and_listed_in_the_help(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`docpact check`, `--select`, `--ignore` and the epilog's codes all know the new kind."""
    _install(site, "todo-kind", "todo = todo_kind:TODO\n")
    pyproject = str(_project(tmp_path))
    finding = "docs/guide.md:3: XT001 docs/guide.md still says TODO"
    assert main(["check", "--pyproject", pyproject]) == 1
    assert capsys.readouterr().out.splitlines() == [finding]
    assert main(["check", "--pyproject", pyproject, "--select", "XT001"]) == 1
    assert capsys.readouterr().out.splitlines() == [finding]
    assert main(["check", "--pyproject", pyproject, "--select", "DP001"]) == 0
    assert main(["check", "--pyproject", pyproject, "--ignore", "xt001"]) == 0
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "  XT001  no listed page says TODO\n" in out
    assert out.index("DP016") < out.index("XT001") < out.index("exit status:")


def test_a_kind_installed_where_the_kinds_were_read_is_found_next_time(site: Path) -> None:
    """The registered kinds are read once per sys.path and its folders' times: no stale list."""
    assert "todo" not in all_kinds()
    time.sleep(0.01)  # a later modification time of the folder, on any file system's clock
    _install(site, "todo-kind", "todo = todo_kind:TODO\n")
    os.utime(site)
    assert "todo" in all_kinds()
    assert all_kinds() is not all_kinds()  # a copy: callers may change it


def test_an_unknown_kind_lists_the_registered_ones(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The error for an unknown `kind` names every kind, the registered ones included."""
    _install(site, "todo-kind", "todo = todo_kind:TODO\n")
    assert main(["check", "--pyproject", str(_project(tmp_path, kind="todos"))]) == 2
    err = capsys.readouterr().err
    kinds = "kind must be one of ['claims', 'codes', 'config-defaults',"
    assert f"tool.docpact.contract[0].{kinds}" in err
    assert "'names', 'todo'], got 'todos'" in err


def test_a_registered_kind_parses_its_own_keys(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its parser's `ValueError` is a configuration error at the key's line, exit 2."""
    _install(site, "todo-kind", "todo = todo_kind:TODO\n")
    pyproject = _project(tmp_path)
    pyproject.write_text(PYPROJECT.format(kind="todo").replace('["docs/guide.md"]', "[]"))
    assert main(["check", "--pyproject", str(pyproject)]) == 2
    assert capsys.readouterr().err.endswith(
        "pyproject.toml:4: error: tool.docpact.contract[0].pages must be a non-empty list of "
        "pages, got []\n"
    )


@pytest.mark.parametrize(
    ("entry_points", "error"),
    [
        (
            "clash = todo_kind:CLASH\n",
            "error: docpact kind entry point clash (todo_kind:CLASH) of distribution "
            "broken-kind defines code DP001, which docpact already defines: give the rule a "
            "code of its own",
        ),
        (
            "todo = no_such_module:TODO\n",
            "error: docpact kind entry point todo (no_such_module:TODO) of distribution "
            "broken-kind cannot be imported: ModuleNotFoundError: No module named "
            "'no_such_module'",
        ),
        (
            "todo = todo_kind:parse\n",
            "error: docpact kind entry point todo (todo_kind:parse) of distribution "
            "broken-kind is a function, not a docpact Kind",
        ),
        (
            "names = todo_kind:TODO\nagain = todo_kind:TODO\n",
            "error: docpact kind entry point again (todo_kind:TODO) of distribution "
            "broken-kind is named 'todo', which another kind is",
        ),
        (
            "todo = todo_kind:TODO\nagain = todo_kind:AGAIN\n",
            "error: docpact kind entry point again (todo_kind:AGAIN) of distribution "
            "broken-kind defines code XT001, which distribution broken-kind already defines: "
            "give the rule a code of its own",
        ),
    ],
    ids=["code collision", "import fails", "not a kind", "name collision", "registered code"],
)
def test_a_broken_registered_kind_exits_2_naming_its_distribution(
    site: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    entry_points: str,
    error: str,
) -> None:
    """A kind that cannot be imported, or takes another's code or name, is a usage error.

    So it is where the help's table of codes, or `--select` of a code not docpact's own,
    reads the registered kinds: one line, no traceback.
    """
    _install(site, "broken-kind", entry_points)
    pyproject = str(_project(tmp_path))
    assert main(["check", "--pyproject", pyproject]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"{error}\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--help"])
    assert exit_info.value.code == 2
    assert capsys.readouterr() == ("", f"{error}\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--pyproject", pyproject, "--select", "XT001"])
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith(f"error: argument --select: {error.removeprefix('error: ')}\n")
    assert err.count("error:") == 1


def test_registered_kinds_may_share_one_rule(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two kinds holding the same `Rule` define its code once: no collision, one help line."""
    _install(site, "todo-kind", "todo = todo_kind:TODO\nalso = todo_kind:ALSO\n")
    assert main(["check", "--pyproject", str(_project(tmp_path))]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "docs/guide.md:3: XT001 docs/guide.md still says TODO"
    ]
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.count("XT001") == 1


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_a_registered_kinds_rules_are_in_the_documents(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """JSON gives a registered rule's finding its summary; SARIF lists the rule after docpact's."""
    _install(site, "todo-kind", "todo = todo_kind:TODO\n")
    pyproject = str(_project(tmp_path))
    assert main(["check", "--pyproject", pyproject, "--format", form]) == 1
    document = json.loads(capsys.readouterr().out)
    if form == "json":
        assert document["findings"] == [
            {
                "code": "XT001",
                "path": "docs/guide.md",
                "line": 3,
                "message": "docs/guide.md still says TODO",
                "severity": "error",
                "rule": "no listed page says TODO",
            }
        ]
        return
    driver = document["runs"][0]["tool"]["driver"]
    assert [rule["id"] for rule in driver["rules"]] == [*CODES, "XT001"]
    [result] = document["runs"][0]["results"]
    assert (result["ruleId"], result["ruleIndex"]) == ("XT001", len(CODES))


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_a_broken_registered_kind_fails_a_document_even_of_docpacts_own_kinds(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """Text needs only the kinds of the contracts; a document names every rule, so it exits 2."""
    _install(site, "broken-kind", "todo = todo_kind:parse\n")
    pyproject = str(copy_project("contract_project", tmp_path) / "pyproject.toml")
    assert main(["check", "--pyproject", pyproject]) == 0
    assert main(["check", "--pyproject", pyproject, "--format", form]) == 2
    assert capsys.readouterr() == (
        "",
        "error: docpact kind entry point todo (todo_kind:parse) of distribution broken-kind "
        "is a function, not a docpact Kind\n",
    )


KINDS_PROJECT = """
[[tool.docpact.contract]]
kind = "kinds"
object = "plugins"
docs = ["docs/kinds.md#kinds"]
"""
NAMED = "`divisor`, `names`, `config-defaults`, `claims`, `codes` and `kinds`"


def _kinds_project(tmp_path: Path) -> Path:
    """A project whose module docstring and docs section name docpact's own kinds."""
    project = tmp_path / "kinds-project"
    (project / "src").mkdir(parents=True)
    (project / "docs").mkdir()
    (project / "src" / "plugins.py").write_text(f'"""The kinds: {NAMED}."""\n', "utf-8")
    (project / "docs" / "kinds.md").write_text(f"# Kinds\n\nThey are {NAMED}.\n", "utf-8")
    (project / "pyproject.toml").write_text(KINDS_PROJECT, encoding="utf-8")
    return project / "pyproject.toml"


def test_a_kinds_contract_holds_while_every_kind_is_named(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Naming each of docpact's kinds as inline code keeps a kinds contract."""
    assert main(["check", "--pyproject", str(_kinds_project(tmp_path))]) == 0
    assert capsys.readouterr() == ("", "")


def test_a_kinds_contract_names_a_registered_kind_the_docs_leave_out(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Once another distribution registers `todo`, the docstring and section must name it."""
    _install(site, "todo-kind", "todo = todo_kind:TODO\n")
    assert main(["check", "--pyproject", str(_kinds_project(tmp_path))]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "docs/kinds.md:1: DP017 section #kinds does not name kind `todo` as inline code",
        "src/plugins.py:1: DP017 docstring of plugins does not name kind `todo` as inline code",
    ]


def test_a_kind_named_in_one_code_span_with_more_is_not_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A kind is named by a code span of its own: `config-defaults` is not `config`."""
    pyproject = _kinds_project(tmp_path)
    page = pyproject.parent / "docs" / "kinds.md"
    page.write_text(page.read_text("utf-8").replace("`claims`", "`claims, kinds`"), "utf-8")
    assert main(["check", "--pyproject", str(pyproject)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "docs/kinds.md:1: DP017 section #kinds does not name kind `claims` as inline code",
    ]


KINDS_SITE = """site_name: kinds
docs_dir: docs
nav:
  - kinds.md
plugins:
  - mkdocstrings:
      handlers:
        python:
          paths: [src]
          options:
            extensions:
              - docpact:
                  pyproject: !relative $config_dir/pyproject.toml
"""


@pytest.mark.slow
def test_a_broken_registered_kind_fails_the_strict_build_in_one_line(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under MkDocs a `kinds` contract reads the registered kinds: one error, no traceback."""
    _install(site, "broken-kind", "todo = no_such_module:TODO\n")
    monkeypatch.setenv("PYTHONPATH", str(site))
    project = _kinds_project(tmp_path).parent
    (project / "mkdocs.yml").write_text(KINDS_SITE, encoding="utf-8")
    with (project / "docs" / "kinds.md").open("a", encoding="utf-8") as file:
        file.write("\n::: plugins\n")
    result = mkdocs_build(project)
    assert result.returncode == 1, result.stdout
    assert "Traceback" not in result.stdout
    errors = [line for line in result.stdout.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1, result.stdout
    assert errors[0].endswith(
        "error: docpact kind entry point todo (no_such_module:TODO) of distribution "
        "broken-kind cannot be imported: ModuleNotFoundError: No module named 'no_such_module'"
    ), result.stdout


def test_a_registered_kind_adds_its_command(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A registered kind's `commands` run as docpact's do, and the top help lists them."""
    _install(site, "todo-kind", "todo = todo_kind:TODO\n")
    assert main(["todos", "--pyproject", str(_project(tmp_path))]) == 0
    assert capsys.readouterr() == ("1\n", "")
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert "todos" in capsys.readouterr().out


def test_a_command_not_docpacts_own_with_a_broken_kind_exits_2(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command none of docpact's kinds adds reads the entry points: a broken one is exit 2."""
    _install(site, "broken-kind", "todo = no_such_module:TODO\n")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.docpact]\n", encoding="utf-8")
    assert main(["todos", "--pyproject", str(pyproject)]) == 2
    assert capsys.readouterr().err.startswith("error: docpact kind entry point todo")
