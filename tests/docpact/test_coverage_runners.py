# SPDX-License-Identifier: MIT
"""`docpact coverage` with `[tool.docpact] examples`: what each runner counts, and exits."""

from __future__ import annotations

from pathlib import Path

import pytest

from docpact import DocpactError, load_config
from docpact.__main__ import main
from docpact._coverage import check_coverage
from docpact._readers.examples import pytest_examples
from samples.drift import copy_project, drift

PACKAGE = '''\
"""A package to cover."""

__all__ = ["first", "second"]


def first():
    """The first."""


def second():
    """The second."""
'''


def write(project: Path, examples: str | None, page: str = "", package: str = PACKAGE) -> None:
    """The project: its pyproject (with `examples = ...` where given), package and one page."""
    line = f"examples = {examples}\n" if examples is not None else ""
    pyproject = f'[tool.docpact]\ncoverage = ["pkg"]\n{line}'
    (project / "pyproject.toml").write_text(pyproject, "utf-8")
    (project / "src" / "pkg").mkdir(parents=True, exist_ok=True)
    (project / "src" / "pkg" / "__init__.py").write_text(package, "utf-8")
    (project / "docs").mkdir(exist_ok=True)
    (project / "docs" / "guide.md").write_text(page, "utf-8")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def uncovered(project: Path) -> list[str]:
    result = check_coverage(load_config(project / "pyproject.toml", contracts=False), ["pkg"])
    return [f.message.split(" ")[0] for f in result.findings if f.code == "DP010"]


def fences(project: Path) -> list[str]:
    result = check_coverage(load_config(project / "pyproject.toml", contracts=False), ["pkg"])
    return [f.message for f in result.findings if f.code == "DP011"]


USES_FIRST = "from pkg import first\nfirst()\n"


@pytest.mark.parametrize(
    "info",
    [
        "python",
        'python title="example.py"',
        'python {title="example.py"}',
        "{.python}",
        '{ .python title="example.py" }',
        'python linenums="1" hl_lines="2"',
        "py",
    ],
)
def test_sybil_counts_a_python_fence_whatever_its_attributes(project: Path, info: str) -> None:
    write(project, None, f"```{info}\n{USES_FIRST}```\n")
    assert uncovered(project) == ["pkg.second"]


def test_sybil_counts_a_pycon_fence_by_its_prompts(project: Path) -> None:
    write(project, None, "```pycon\n>>> from pkg import first\n>>> first()\n```\n")
    assert uncovered(project) == ["pkg.second"]


@pytest.mark.parametrize("info", ["py3", '{title="example.py"}', "text"])
def test_sybil_counts_no_fence_of_another_language(project: Path, info: str) -> None:
    write(project, '["sybil"]', f"```{info}\n{USES_FIRST}```\n")
    assert uncovered(project) == ["pkg.first", "pkg.second"]


def test_without_the_key_the_runners_are_sybil_and_doctest(project: Path) -> None:
    write(project, None)
    assert load_config(project / "pyproject.toml", contracts=False).examples == ("sybil", "doctest")


def test_a_runner_not_declared_counts_nothing(project: Path) -> None:
    """Declared alone, doctest ignores the page; sybil alone ignores the docstring's doctest."""
    doctested = PACKAGE.replace('"""The second."""', '"""The second.\n\n    >>> 1\n    1\n    """')
    write(project, '["doctest"]', f"```python\n{USES_FIRST}```\n", doctested)
    assert uncovered(project) == ["pkg.first"]
    write(project, '["sybil"]', f"```python\n{USES_FIRST}```\n", doctested)
    assert uncovered(project) == ["pkg.second"]


def test_a_gap_names_what_each_declared_runner_would_have_run(project: Path) -> None:
    write(project, '["pytest-examples", "markdown-exec", "doctest"]')
    result = check_coverage(load_config(project / "pyproject.toml", contracts=False), ["pkg"])
    assert result.findings[0].message == (
        "pkg.first has no executed example: no doctest in its docstring, no example that "
        "pytest-examples collects refers to it, and no fence that markdown-exec runs "
        '(exec="on") refers to it'
    )


FENCED = PACKAGE.replace(
    '"""The first."""',
    '"""The first.\n\n    ```python\n    from pkg import first\n    first()\n    ```\n    """',
)


def test_pytest_examples_runs_a_docstrings_fence_so_dp011_is_silent(project: Path) -> None:
    """The fence in first's docstring covers first, and is run: no DP011."""
    write(project, '["pytest-examples"]', package=FENCED)
    assert (uncovered(project), fences(project)) == (["pkg.second"], [])


def test_a_docstring_fence_pytest_examples_does_not_collect_is_dp011(project: Path) -> None:
    """A ''' docstring is not one pytest-examples reads; the message says so."""
    write(project, '["pytest-examples"]', package=FENCED.replace('"""The first.', "'''The first."))
    init = project / "src" / "pkg" / "__init__.py"
    init.write_text(init.read_text("utf-8").replace('```\n    """', "```\n    '''"), "utf-8")
    assert fences(project) == [
        "a python fence in the docstring of pkg.first is not run as code: pytest-examples "
        'collects ``` fences in """ docstrings only, closed at the opening\'s indent: fence it '
        "as text, or declare the runner that runs it in [tool.docpact] examples"
    ]
    assert uncovered(project) == ["pkg.first", "pkg.second"]


def test_pytest_examples_collects_any_prefix_that_starts_with_py(project: Path) -> None:
    """Its rule, not a language: `py3` counts, `text` does not."""
    page = f"```py3\n{USES_FIRST}```\n\n```text\n{USES_FIRST.replace('first', 'second')}```\n"
    write(project, '["pytest-examples"]', page)
    assert uncovered(project) == ["pkg.second"]


def test_pytest_examples_runs_a_pages_fences_each_alone(project: Path) -> None:
    """An import in one example does not carry to the next, and a tilde fence is not read."""
    page = "```py\nfrom pkg import first, second\n```\n\n```py\nfirst()\n```\n"
    page += f"~~~python\n{USES_FIRST.replace('first', 'second')}~~~\n"
    write(project, '["pytest-examples"]', page)
    assert uncovered(project) == ["pkg.first", "pkg.second"]


@pytest.mark.parametrize(
    ("attributes", "runs"),
    [
        ('exec="on"', True),
        ('exec="1"', True),
        ("exec=true", True),
        ('exec="off"', False),
        ("", False),
    ],
)
def test_markdown_exec_runs_a_fence_whose_exec_is_true(
    project: Path, attributes: str, runs: bool
) -> None:
    write(project, '["markdown-exec"]', f"```python {attributes}\n{USES_FIRST}```\n")
    assert ("pkg.first" not in uncovered(project)) is runs


def test_markdown_exec_fences_of_one_session_share_their_imports(project: Path) -> None:
    page = '```python exec="on" session="s"\nfrom pkg import first, second\n```\n\n'
    page += '```python exec="on" session="s"\nfirst()\n```\n\n```python exec="on"\nsecond()\n```\n'
    write(project, '["markdown-exec"]', page)
    assert uncovered(project) == ["pkg.second"]


def test_markdown_exec_runs_a_docstrings_exec_fence_so_dp011_is_silent(project: Path) -> None:
    write(project, '["markdown-exec"]', package=FENCED.replace("```python", '```python exec="on"'))
    assert (uncovered(project), fences(project)) == (["pkg.second"], [])
    write(project, '["markdown-exec"]', package=FENCED)
    assert fences(project) == [
        "a python fence in the docstring of pkg.first is not run as code: markdown-exec runs "
        'a fence marked exec="on" only: fence it as text, or declare the runner that runs it '
        "in [tool.docpact] examples"
    ]


def test_doctest_runs_a_pycon_fence_in_a_docstring_so_dp011_is_silent(project: Path) -> None:
    pycon = PACKAGE.replace(
        '"""The first."""', '"""The first.\n\n    ```pycon\n    >>> 1\n    1\n    ```\n    """'
    )
    write(project, '["doctest"]', package=pycon)
    assert (uncovered(project), fences(project)) == (["pkg.second"], [])


def test_pytest_examples_rules_match_its_own_find_examples(tmp_path: Path) -> None:
    """The lines docpact reads pytest-examples' examples at are those find_examples gives."""
    find_examples = pytest.importorskip("pytest_examples").find_examples
    module = tmp_path / "mod.py"
    module.write_text(
        FENCED + "\n\ndef third():\n    '''\n    ```python\n    x = 1\n    ```\n    '''\n"
        '\n\nX = 1\n"""\n```{.py title="x"}\nX\n```\n"""\n',
        "utf-8",
    )
    page = tmp_path / "page.md"
    page.write_text("# P\n\n```pycon\n>>> 1\n```\n\n~~~py\nx\n~~~\n\n```text\nx\n```\n", "utf-8")
    for path, python_file in ((module, True), (page, False)):
        theirs = [(e.start_line, e.prefix, e.source) for e in find_examples(path)]
        ours = pytest_examples(path.read_text("utf-8"), python_file=python_file)
        assert [(f.line, f.info, f.source) for f in ours] == theirs


def test_an_unknown_runner_is_a_configuration_error_at_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project, '["sybil", "nose"]')
    assert main(["coverage"]) == 2
    assert capsys.readouterr() == (
        "",
        "pyproject.toml:3: error: tool.docpact.examples names unknown runner 'nose'; the "
        "known runners are doctest, markdown-exec, pytest-examples, sybil\n",
    )


@pytest.mark.parametrize("value", ['"sybil"', "[]", '["sybil", "sybil"]', "[1]"])
def test_examples_that_are_no_list_of_runners_once_each_are_refused(
    project: Path, value: str
) -> None:
    write(project, value)
    with pytest.raises(DocpactError, match=r"^pyproject\.toml:3: error: tool\.docpact\.examples "):
        load_config(project / "pyproject.toml", contracts=False)


def test_fail_under_0_exits_0_whatever_the_share(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project, None)
    assert main(["coverage", "--fail-under", "0"]) == 0
    assert main(["coverage", "--fail-under", "1"]) == 1
    assert "coverage: 0 of 2 public objects" in capsys.readouterr().out


def test_a_reported_dp011_exits_1_and_an_ignored_one_does_not(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project, None, package=FENCED)
    assert main(["coverage", "--fail-under", "0"]) == 1
    assert main(["coverage", "--fail-under", "0", "--ignore", "DP011"]) == 0
    capsys.readouterr()
    assert main(["coverage", "--select", "DP011"]) == 1
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines()[:-1]] == ["DP011"]
    assert main(["coverage", "--select", "dp010,DP011", "--ignore", "DP011"]) == 0
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines()[:-1]] == [
        "DP010",
        "DP010",
    ]


def test_dp001_is_always_shown_and_exits_1(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project, None, package='"""Doc."""\n__all__ = []\ndef f(:\n')
    assert main(["coverage", "--ignore", "DP010,DP011"]) == 1
    assert capsys.readouterr().out.split()[1] == "DP001"


def test_an_unreadable_page_exits_2_under_every_runner(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project, '["pytest-examples"]')
    (project / "docs" / "other.md").mkdir()
    assert main(["coverage", "--fail-under", "0"]) == 2
    assert "docs/other.md:1: error: docs/other.md cannot be read" in capsys.readouterr().err


@pytest.mark.parametrize("codes", ["DP002", "DP001", "nope"])
def test_select_and_ignore_take_coverages_codes_only(
    project: Path, capsys: pytest.CaptureFixture[str], codes: str
) -> None:
    write(project, None)
    for option in ("--select", "--ignore"):
        with pytest.raises(SystemExit) as exit_info:
            main(["coverage", option, codes])
        assert exit_info.value.code == 2
        assert f"argument {option}: " in capsys.readouterr().err


def test_the_adopters_titled_page_fence_and_pytest_examples_docstring_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The adopter's titled page fence and pytest-examples docstring fence cover, no DP011.

    Without pytest-examples declared, the docstring's fence is a DP011.
    """
    project = copy_project("adopter_project", tmp_path)
    monkeypatch.chdir(project)
    config = load_config(project / "pyproject.toml")
    assert config.examples == ("sybil", "doctest", "pytest-examples")
    result = check_coverage(config, ["agentrl", "agentrl.metrics"])
    assert (result.findings, result.percent) == ([], 100.0)
    drift(project / "pyproject.toml", ', "pytest-examples"]', "]")
    result = check_coverage(load_config(project / "pyproject.toml"), ["agentrl.metrics"])
    assert [(f.path, f.code) for f in result.findings] == [("agentrl/metrics.py", "DP011")]
    assert result.percent == 100.0  # the page's titled fence, which Sybil runs


PROPERTY = '''\
"""A package to cover."""

__all__ = ["Box"]


class Box:
    """A box."""

    @property
    def size(self):
        """The size.

        >>> Box().size
        3
        """
        return 3
'''


def test_a_doctest_in_a_propertys_docstring_covers_its_class(project: Path) -> None:
    """The doctest runner runs a property's docstring, its getter's: the class is covered."""
    write(project, '["doctest"]', package=PROPERTY)
    result = check_coverage(load_config(project / "pyproject.toml", contracts=False), ["pkg"])
    assert [f.code for f in result.findings] == []


def test_a_submodule_that_does_not_parse_is_dp001_not_only_an_uncovered_name(
    project: Path,
) -> None:
    """A package griffe loads without its broken module: coverage names the syntax error."""
    write(project, None, package='"""P."""\nfrom pkg._m import first\n\n__all__ = ["first"]\n')
    (project / "src/pkg/_m.py").write_text("def first():\n    pass\n\n\ndef broken(:\n", "utf-8")
    result = check_coverage(load_config(project / "pyproject.toml", contracts=False), ["pkg"])
    assert [(f.code, f.path, f.line) for f in result.findings if f.code == "DP001"] == [
        ("DP001", "src/pkg/_m.py", 5)
    ]
    assert main(["coverage", "--pyproject", str(project / "pyproject.toml")]) == 1
