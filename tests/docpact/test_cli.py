# SPDX-License-Identifier: MIT
"""The `docpact` command line, run in-process with `main([...])`."""

from __future__ import annotations

import gc
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

import docpact
from docpact import CODES, ContractExtension, DocpactError, Finding, _registry
from docpact.__main__ import main
from docpact._cli import get_parser
from samples.drift import DISTINCT_ROLLOUTS, DIVIDE, copy_project, drift, line_of

GUIDE = "docs/guide.md"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture project, as the current folder."""
    path = copy_project("contract_project", tmp_path)
    monkeypatch.chdir(path)
    return path


@pytest.fixture
def drifted(project: Path) -> Path:
    """The fixture project with a finding in the docs and two in the code.

    The code's divisor lost an operand (DP003), and so differs from the formula the docstring
    and docs state (DP023).
    """
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    drift(project / GUIDE, "`max(1, rollout_token_count * num_trained_rows)`", "the token count")
    return project


def test_a_clean_project_exits_0_silently(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check"]) == 0
    assert capsys.readouterr() == ("", "")


def test_findings_print_sorted_by_path_and_exit_1(
    drifted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check"]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    division = line_of(drifted / DIVIDE, "scaled = advantages")
    divisor = line_of(drifted / DIVIDE, "divisor = torch.clamp(")
    heading = line_of(drifted / GUIDE, "## Per-rollout mean loss")
    docstring = line_of(drifted / DIVIDE, "``max(1, rollout_token_count")
    math = line_of(drifted / GUIDE, r"\hat{A}_i")
    assert out.splitlines() == [
        f"{GUIDE}:{heading}: DP004 section #per-rollout-mean-loss does not name operand "
        "`rollout_token_count` as inline code",
        f"{DIVIDE}:{divisor}: DP023 ratio._divide.scale_by_rollout divides by "
        "`max(1, num_trained_rows * numel(unique(codes)))`, but its docstring and docs state "
        f"`max(1, rollout_token_count * num_trained_rows)` ({DIVIDE}:{docstring}, {GUIDE}:{math}): "
        "change the code back, or the statements",
        f"{DIVIDE}:{division}: DP003 no division in ratio._divide.scale_by_rollout computes "
        "its divisor from operand `rollout_token_count`",
    ]


def test_github_format_prints_annotations(
    drifted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    division = line_of(drifted / DIVIDE, "scaled = advantages")
    assert len(lines) == 3
    assert lines[2].startswith(f"::error file={DIVIDE},line={division},title=DP003::no division")


def test_the_pyproject_is_found_from_a_subfolder(
    drifted: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(drifted / "src" / "ratio")
    assert main(["check"]) == 1
    assert len(capsys.readouterr().out.splitlines()) == 3


def test_a_pyproject_can_be_named(
    drifted: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--pyproject", str(drifted / "pyproject.toml")]) == 1


CONTRACT = '[[tool.docpact.contract]]\nobject = "ratio._divide.scale_by_rollout"\n'
# Each malformed configuration: the text, the line at fault, and what the message says.
BAD_CONFIGS = {
    "invalid TOML": ("[tool.docpact\n", 1, "is not valid TOML"),
    "no table": ("[project]\nname = 'ratio'\n", 1, "no [[tool.docpact.contract]] table"),
    "not a table": ("[tool]\ndocpact = 1\n", 1, "tool.docpact must be a table"),
    "tool not a table": ("tool = 1\n", 1, "tool must be a table, got 1"),
    "unknown table key": ("[tool.docpact]\ncontracts = []\n", 1, "tool.docpact has unknown keys"),
    "empty contract list": ("[tool.docpact]\ncontract = []\n", 2, "must be a non-empty array"),
    "empty operands": (CONTRACT + "operands = []\n", 3, "operands must be a non-empty list"),
    "operand not a name": (CONTRACT + "operands = ['a b']\n", 3, "operands must be a non-empty"),
    "operand a keyword": (
        CONTRACT + "operands = ['class']\n",
        3,
        "operands must be a non-empty list of Python names, not keywords, got ['class']",
    ),
    "operand listed twice": (
        CONTRACT + "operands = ['a', 'b', 'a']\n",
        3,
        "tool.docpact.contract[0].operands lists ['a'] more than once",
    ),
    "no operands": (CONTRACT, 1, "operands must be a non-empty list"),
    "object not a path": (
        "[[tool.docpact.contract]]\nobject = 3\noperands = ['a']\n",
        2,
        "tool.docpact.contract[0].object must be a dotted Python path, got 3",
    ),
    "unknown contract key": (
        CONTRACT + "operands = ['a']\noperand = 'b'\n",
        1,
        "tool.docpact.contract[0] has unknown keys ['operand']",
    ),
    "docs without anchor": (
        CONTRACT + "operands = ['a']\ndocs = ['docs/guide.md']\n",
        4,
        "docs must be a list of 'page.md#anchor' strings",
    ),
    "the second contract": (
        CONTRACT + "operands = ['a']\n\n" + CONTRACT + "operands = 'b'\n",
        7,
        "tool.docpact.contract[1].operands must be a non-empty list",
    ),
    "paths in the table": (
        "[tool.docpact]\nx = 1\npaths = 'src'\n\n" + CONTRACT + "operands = ['a']\n",
        1,
        "tool.docpact has unknown keys ['x']",
    ),
    "bad paths": (
        "[tool.docpact]\npaths = 'src'\n\n" + CONTRACT + "operands = ['a']\n",
        2,
        "tool.docpact.paths must be a non-empty list",
    ),
}


@pytest.mark.parametrize(("text", "line", "message"), BAD_CONFIGS.values(), ids=BAD_CONFIGS.keys())
def test_a_malformed_config_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, message: str
) -> None:
    """Every malformed key exits 2 with one line: pyproject.toml:LINE, then the key at fault."""
    (project / "pyproject.toml").write_text(text, encoding="utf-8")
    assert main(["check"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith(f"pyproject.toml:{line}: error: ")
    assert message in err


def test_a_griffe_that_never_calls_the_hook_is_exit_2(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(ContractExtension, "on_package", lambda self, **kwargs: None)
    assert main(["check"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("pyproject.toml: error: griffe loaded package ratio but never called")
    assert err.endswith("docpact needs griffe>=1.14\n")


def test_a_missing_pyproject_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--pyproject", "nowhere/pyproject.toml"]) == 2
    assert capsys.readouterr().err == (
        "nowhere/pyproject.toml: error: cannot be read: No such file or directory\n"
    )


@pytest.mark.parametrize("args", [[], ["lint"], ["check", "--format", "xml"]])
def test_usage_errors_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    assert "usage: docpact" in capsys.readouterr().err


def test_help_lists_every_finding_code(capsys: pytest.CaptureFixture[str]) -> None:
    """Each code's summary is in the help, wrapped to 79 columns under its code."""
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = capsys.readouterr().out
    codes = out.split("finding codes:\n")[1].split("\n\n")[0]
    entries = re.split(r"\n(?=  DP\d{3}  )", codes)
    # Every installed kind's codes, the claims extension's among them.
    every = _registry.codes(_registry.all_kinds())
    assert "DP015" in every
    assert [entry[2:7] for entry in entries] == list(every)
    for entry, rule in zip(entries, every.values(), strict=True):
        assert " ".join(entry[9:].split()) == rule
        assert max(len(line) for line in entry.splitlines()) <= 79


def test_python_m_docpact_runs_the_command_line(drifted: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "docpact", "check"],
        cwd=drifted,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert [line.split(": ")[1].split()[0] for line in result.stdout.splitlines()] == [
        "DP004",
        "DP023",
        "DP003",
    ]
    assert result.stderr == ""


def test_version_prints_docpacts_own_version(capsys: pytest.CaptureFixture[str]) -> None:
    """`docpact --version` prints the installed distribution's version, docpact's own."""
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert docpact.__version__ == importlib.metadata.version("docpact")
    assert capsys.readouterr().out == f"docpact {importlib.metadata.version('docpact')}\n"


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        ([], ["DP004", "DP023", "DP003"]),
        (["--select", "DP003"], ["DP003"]),
        (["--select", "dp003, DP004"], ["DP004", "DP003"]),
        (["--ignore", "DP004"], ["DP023", "DP003"]),
        (["--select", "DP003,DP004", "--ignore", "DP003"], ["DP004"]),
        (["--select", "DP001"], []),
    ],
)
def test_select_and_ignore_filter_findings_by_code(
    drifted: Path, capsys: pytest.CaptureFixture[str], args: list[str], codes: list[str]
) -> None:
    """--select keeps only its codes, --ignore drops its codes; none left means exit 0."""
    assert main(["check", *args]) == (1 if codes else 0)
    out = capsys.readouterr().out
    assert [line.split(": ")[1].split()[0] for line in out.splitlines()] == codes


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("DP999", "unknown code DP999; the codes are DP001, DP002"),
        ("DP002,XX", "unknown code XX;"),
        ("XX,DP999", "unknown code DP999, XX; the codes are DP001"),
        (",", "expected comma-separated codes"),
    ],
)
def test_an_unknown_code_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], value: str, error: str
) -> None:
    """A code that is not a finding code exits 2 and names it, for --select and --ignore."""
    for option in ("--select", "--ignore"):
        with pytest.raises(SystemExit) as exit_info:
            main(["check", option, value])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert f"argument {option}: {error}" in err


def test_github_format_escapes_the_file_property() -> None:
    """A path with `:` or `,` is escaped in file=, so GitHub reads the whole path."""
    finding = Finding("docs/a,b:c%\r\n.md", 3, "DP004", "50% of a: b, c\r\nd")
    assert finding.github() == (
        "::error file=docs/a%2Cb%3Ac%25%0D%0A.md,line=3,title=DP004::50%25 of a: b, c%0D%0Ad"
    )


def test_github_format_escapes_the_title_property() -> None:
    """The code is a property too: a `:` or `,` in it is escaped like one in the path."""
    assert (
        Finding("a.py", 1, "X:1,2", "m").github() == "::error file=a.py,line=1,title=X%3A1%2C2::m"
    )


@pytest.mark.parametrize(("value", "percent"), [("0", 0.0), ("0.5", 0.5), ("100", 100.0)])
def test_fail_under_takes_a_percentage_from_0_to_100(value: str, percent: float) -> None:
    """--fail-under accepts both ends of 0 to 100 and what lies between."""
    options = get_parser().parse_args(["coverage", "--fail-under", value])
    assert options.fail_under == percent


@pytest.mark.parametrize("value", ["-0.1", "100.1", "nan", "x"])
def test_fail_under_outside_0_to_100_is_a_usage_error(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A percentage below 0, above 100, or no number at all exits 2 and repeats the value."""
    with pytest.raises(SystemExit) as exit_info:
        main(["coverage", "--fail-under", value])
    assert exit_info.value.code == 2
    error = f"argument --fail-under: expected a percentage from 0 to 100, got {value!r}\n"
    assert capsys.readouterr().err.endswith(error)


def test_coverage_without_a_package_is_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no package named and no `[tool.docpact] coverage`, coverage says how to name one."""
    assert main(["coverage"]) == 2
    assert capsys.readouterr() == (
        "",
        "pyproject.toml: error: no package to cover: name one, or list them in "
        "[tool.docpact] coverage\n",
    )


def test_coverage_exits_1_on_a_python_fence_even_without_fail_under(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Gaps alone exit 0 without --fail-under; a python fence in a docstring exits 1."""
    assert main(["coverage", "ratio"]) == 0
    gaps = capsys.readouterr().out.splitlines()[:-1]
    assert [line.split(": ")[1].split()[0] for line in gaps] == ["DP010", "DP010"]
    fence = '"""Counts kept per rollout.\n\n    ```python\n    RolloutStats()\n    ```\n    """'
    drift(project / DIVIDE, '"""Counts kept per rollout."""', fence)
    assert main(["coverage", "ratio"]) == 1
    line = line_of(project / DIVIDE, "```python")
    assert f"{DIVIDE}:{line}: DP011 " in capsys.readouterr().out


def test_the_parser_defaults_to_every_code_as_text_from_the_nearest_pyproject() -> None:
    """`get_parser()` leaves the pyproject to find, formats as text and filters no code."""
    parser = get_parser()
    assert vars(parser.parse_args(["check"])) == {
        "command": "check",
        "pyproject": None,
        "format": "text",
        "select": None,
        "ignore": frozenset(),
    }
    assert vars(parser.parse_args(["coverage"])) == {
        "command": "coverage",
        "packages": [],
        "pyproject": None,
        "fail_under": None,
        "select": None,
        "ignore": frozenset(),
    }


@pytest.mark.parametrize("command", ["check", "coverage"])
def test_a_named_pyproject_is_read_as_a_path_even_when_empty(
    project: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """`--pyproject ""` names the current folder, which cannot be read, not the nearest file."""
    assert main([command, "--pyproject", ""]) == 2
    assert capsys.readouterr() == ("", ".: error: cannot be read: it is a folder, not a file\n")


BROKEN_KIND = (
    "error: docpact kind entry point todo (no_such_module:TODO) of distribution broken-kind "
    "cannot be imported: ModuleNotFoundError: No module named 'no_such_module'"
)


@pytest.fixture
def broken_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading the registered kinds fails, as with a distribution whose kind cannot import."""

    def all_kinds() -> None:
        raise DocpactError(BROKEN_KIND)

    monkeypatch.setattr("docpact._cli.all_kinds", all_kinds)


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_the_top_help_reads_the_registered_kinds_for_their_commands(
    broken_kind: None, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    """`docpact -h` lists every kind's commands, so a broken kind is exit 2, said in one line."""
    assert main([flag]) == 2
    assert capsys.readouterr() == ("", f"{BROKEN_KIND}\n")


def test_the_version_reads_no_registered_kind(
    broken_kind: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """`docpact --version` names no command and asks no help: the registered kinds stay unread."""
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr() == (f"docpact {docpact.__version__}\n", "")


def test_selecting_every_code_of_docpacts_own_reads_no_registered_kind(
    project: Path, broken_kind: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codes that are all docpact's own, every one of them too, are known without the registry."""
    assert main(["check", "--select", ",".join(CODES)]) == 0
    assert capsys.readouterr() == ("", "")


def test_a_kinds_command_needs_declared_contracts_as_check_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`docpact claims`, which a kind adds, needs declared contracts in pyproject.toml."""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.docpact]\n", encoding="utf-8")
    for command in ("check", "claims"):
        assert main([command, "--pyproject", str(pyproject)]) == 2
        assert capsys.readouterr() == (
            "",
            f"{pyproject}:1: error: tool.docpact.contract must be a non-empty array of tables, "
            "got None\n",
        )


def test_without_arguments_main_reads_the_command_line(
    drifted: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`main()` runs what follows the program name in `sys.argv`."""
    monkeypatch.setattr(sys, "argv", ["docpact", "check", "--format", "github"])
    assert main() == 1
    assert [line.split(",")[0] for line in capsys.readouterr().out.splitlines()] == [
        f"::error file={GUIDE}",
        f"::error file={DIVIDE}",
        f"::error file={DIVIDE}",
    ]


@pytest.mark.parametrize("enabled", [True, False])
def test_the_garbage_collector_is_paused_for_the_command_and_left_as_it_was(
    monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    """The command runs with the cyclic collector off; after it, the collector is as it was."""
    during = []

    def run(args: list[str]) -> int:
        during.append(gc.isenabled())
        return 0

    monkeypatch.setattr("docpact.__main__.run", run)
    (gc.enable if enabled else gc.disable)()
    try:
        assert main(["check"]) == 0
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
    assert during == [False]


def test_the_collector_skips_at_exit_what_the_commands_made(tmp_path: Path) -> None:
    """At exit, every object is frozen before the collector's last pass, once per process.

    The handler registered first runs last: it sees what `gc.freeze` left, and how many
    times docpact's handler ran.
    """
    code = (
        "import atexit, gc\n"
        "calls, freeze = [], gc.freeze\n"
        "gc.freeze = lambda: (calls.append(1), freeze())\n"
        "atexit.register(lambda: print(gc.get_freeze_count() > 0, len(calls)))\n"
        "from docpact.__main__ import main\n"
        "main(['check', '--pyproject', 'missing.toml'])\n"
        "main(['check', '--pyproject', 'missing.toml'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.stdout.splitlines()[-1] == "True 1"
    assert gc.get_freeze_count() == 0  # in this process, nothing was frozen
