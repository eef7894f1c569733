# SPDX-License-Identifier: MIT
"""`docpact coverage`: public objects without an executed example, and fences in docstrings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from docpact import DocpactError, Finding, load_config
from docpact.__main__ import main
from docpact._coverage import check_coverage
from samples.drift import drift, line_of

PYPROJECT = """\
[project]
name = "pkg"

[tool.docpact]
coverage = ["pkg"]

[[tool.docpact.contract]]
kind = "names"
object = "pkg.documented"
names = ["documented"]
"""
PACKAGE = '''\
"""A package to cover."""

__all__ = ["Skipped", "documented", "in_a_comment", "imported_only", "on_a_page", "verl_only"]


def documented():
    """Named here: `documented`.

    >>> documented()
    1
    """
    return 1


def on_a_page():
    """Used by a page."""


def in_a_comment():
    """Only mentioned in a comment and a string on the page."""


def imported_only():
    """Imported by a page, never used."""


def verl_only():
    """Used by an example that a condition skips where verl is missing."""


class Skipped:
    """Used only by an example that an unconditional skip keeps from running."""
'''
PAGE = """\
# Guide

```python
>>> from pkg import on_a_page, in_a_comment, imported_only
>>> on_a_page()  # in_a_comment is only named here
>>> print("in_a_comment")
in_a_comment
```

<!-- skip: next "never runs" -->
```python
import pkg
pkg.Skipped()
```

<!-- skip: next if(not importable("verl"), reason="needs verl") -->
```python
import pkg
pkg.verl_only()
```
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, "utf-8")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text(PACKAGE, "utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(PAGE, "utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def gaps(project: Path) -> list[str]:
    result = check_coverage(load_config(project / "pyproject.toml"), ["pkg"])
    return [finding.message.split(" ")[0] for finding in result.findings]


def test_what_counts_as_an_executed_example(project: Path) -> None:
    """A doctest, a used name and a conditional skip count; a comment, an import, a skip do not."""
    result = check_coverage(load_config(project / "pyproject.toml"), ["pkg"])
    assert sorted(finding.message.split(" ")[0] for finding in result.findings) == [
        "pkg.Skipped",
        "pkg.imported_only",
        "pkg.in_a_comment",
    ]
    assert {finding.code for finding in result.findings} == {"DP010"}
    assert (result.covered, result.total) == (3, 6)
    assert result.percent == pytest.approx(50.0)


def test_a_gap_is_reported_at_the_objects_definition(project: Path) -> None:
    result = check_coverage(load_config(project / "pyproject.toml"), ["pkg"])
    skipped = next(f for f in result.findings if f.message.startswith("pkg.Skipped "))
    line = line_of(project / "src" / "pkg" / "__init__.py", "class Skipped:")
    assert (skipped.path, skipped.line) == ("src/pkg/__init__.py", line)


def test_skip_next_skips_only_the_first_example_of_a_doctest_block(project: Path) -> None:
    """Under `skip: next`, the rest of a doctest block runs and its names count."""
    page = project / "docs" / "guide.md"
    page.write_text(
        page.read_text("utf-8").replace(
            '<!-- skip: next "never runs" -->\n```python\nimport pkg\npkg.Skipped()\n```',
            '<!-- skip: next "never runs" -->\n```python\n>>> print(1)\n'
            ">>> import pkg\n>>> pkg.Skipped()\n```",
        ),
        "utf-8",
    )
    assert "pkg.Skipped" not in gaps(project)


def test_skip_start_to_end_skips_every_block_between(project: Path) -> None:
    page = project / "docs" / "guide.md"
    text = page.read_text("utf-8").replace(
        "```python\n>>> from pkg", '<!-- skip: start "all" -->\n```python\n>>> from pkg'
    )
    page.write_text(text + "\n<!-- skip: end -->\n", "utf-8")
    assert "pkg.on_a_page" in gaps(project)


def fence_finding(project: Path, docstring: str) -> tuple[Finding, int]:
    """The DP011 finding once on_a_page's docstring is this, and the fence's line in the file."""
    init = project / "src" / "pkg" / "__init__.py"
    drift(init, '"""Used by a page."""', docstring)
    result = check_coverage(load_config(project / "pyproject.toml"), ["pkg"])
    [fence] = [f for f in result.findings if f.code == "DP011"]
    return fence, line_of(init, "```python")


def test_a_python_fence_in_a_docstring_is_reported(project: Path) -> None:
    fence, line = fence_finding(
        project, '"""Used by a page.\n\n    ```python\n    on_a_page()\n    ```\n    """'
    )
    assert (fence.path, fence.line) == ("src/pkg/__init__.py", line)
    assert "write it as a doctest, or fence it as text" in fence.message


def test_the_command_prints_gaps_and_the_share_and_fails_under(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Gaps and the summary; --fail-under decides the exit status."""
    assert main(["coverage"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "coverage: 3 of 6 public objects have an executed example (50.0%)"
    assert out[0].startswith("src/pkg/__init__.py:")
    assert " DP010 pkg." in out[0]
    assert main(["coverage", "--fail-under", "50"]) == 0
    assert main(["coverage", "--fail-under", "50.1"]) == 1
    assert main(["coverage", "pkg", "--fail-under", "100"]) == 1


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["coverage", "nosuch"], "coverage cannot load package nosuch"),
        (["coverage", "--fail-under", "101"], None),
        (["coverage", "--fail-under", "x"], None),
    ],
)
def test_bad_arguments_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str], error: str | None
) -> None:
    if error is None:
        with pytest.raises(SystemExit) as exit_info:
            main(args)
        assert exit_info.value.code == 2
        assert "expected a percentage from 0 to 100" in capsys.readouterr().err
    else:
        assert main(args) == 2
        assert error in capsys.readouterr().err


def test_a_package_without_all_is_a_usage_error(project: Path) -> None:
    init = project / "src" / "pkg" / "__init__.py"
    init.write_text(init.read_text("utf-8").replace("__all__ =", "_all ="), "utf-8")
    with pytest.raises(DocpactError, match="package pkg has no __all__ to cover"):
        check_coverage(load_config(project / "pyproject.toml"), ["pkg"])


def test_this_repository_is_covered_completely() -> None:
    """Every public object of rolloutnorm, docpact and docpact.sybil has an executed example."""
    root = Path(__file__).resolve().parents[2]
    config = load_config(root / "pyproject.toml")
    result = check_coverage(config, list(config.coverage))
    assert result.findings == []
    assert result.percent == 100.0


def test_names_count_by_what_the_page_imported_them_as(project: Path) -> None:
    """An alias of the package's object counts; a page's own function of the same name does not."""
    page = project / "docs" / "guide.md"
    page.write_text(
        page.read_text("utf-8")
        + "\n```python\n>>> from pkg import imported_only as alias\n>>> alias()\n"
        + ">>> def in_a_comment():\n...     return 2\n>>> in_a_comment()\n2\n```\n",
        "utf-8",
    )
    missing = gaps(project)
    assert "pkg.imported_only" not in missing
    assert "pkg.in_a_comment" in missing


def test_a_namespace_clear_forgets_the_imports(project: Path) -> None:
    """After `<!-- clear-namespace -->`, a name imported before it no longer counts."""
    page = project / "docs" / "guide.md"
    page.write_text(
        page.read_text("utf-8") + "\n<!-- clear-namespace -->\n\n```python\nimported_only()\n```\n",
        "utf-8",
    )
    assert "pkg.imported_only" in gaps(project)


def test_a_fence_in_a_docstring_that_opens_with_a_newline_is_at_its_line(project: Path) -> None:
    fence, line = fence_finding(
        project, '"""\n    Used by a page.\n\n    ```python\n    x = 1\n    ```\n    """'
    )
    assert fence.line == line


def test_coverage_needs_no_contract(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A project with only `[tool.docpact] coverage`, or none at all, can be covered."""
    (project / "pyproject.toml").write_text('[tool.docpact]\ncoverage = ["pkg"]\n', "utf-8")
    assert main(["coverage"]) == 0
    (project / "pyproject.toml").write_text('[project]\nname = "pkg"\n', "utf-8")
    assert main(["coverage", "pkg"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("coverage: 3 of 6")


def add_to_package(project: Path, source: str, *names: str) -> None:
    """Append code to the package's `__init__.py`, and names to its `__all__`."""
    init = project / "src" / "pkg" / "__init__.py"
    drift(init, '"verl_only"]', '"verl_only", ' + ", ".join(f'"{n}"' for n in names) + "]")
    init.write_text(init.read_text("utf-8") + source, "utf-8")


def add_to_page(project: Path, text: str) -> None:
    page = project / "docs" / "guide.md"
    page.write_text(page.read_text("utf-8") + "\n" + text, "utf-8")


def test_a_gap_says_which_object_lacks_an_example_and_how_to_give_it_one(project: Path) -> None:
    result = check_coverage(load_config(project / "pyproject.toml"), ["pkg"])
    skipped = next(f for f in result.findings if f.message.startswith("pkg.Skipped "))
    assert skipped.message == (
        "pkg.Skipped has no executed example: no doctest in its docstring, "
        "and no docs example that runs refers to it"
    )


def test_a_name_of_all_that_the_package_does_not_define_is_a_gap_at_its_first_line(
    project: Path,
) -> None:
    add_to_package(project, "", "undefined")
    result = check_coverage(load_config(project / "pyproject.toml"), ["pkg"])
    undefined = next(f for f in result.findings if f.message.startswith("pkg.undefined "))
    assert (undefined.path, undefined.line, undefined.code) == ("src/pkg/__init__.py", 1, "DP010")


def test_a_re_exported_object_counts_by_the_path_of_its_definition_too(project: Path) -> None:
    """A page that imports it from where it is defined covers it; else its gap is there."""
    (project / "src" / "pkg" / "_impl.py").write_text('def moved():\n    """Moved."""\n', "utf-8")
    add_to_package(project, "\nfrom pkg._impl import moved\n", "moved")
    result = check_coverage(load_config(project / "pyproject.toml"), ["pkg"])
    moved = next(f for f in result.findings if f.message.startswith("pkg.moved "))
    assert (moved.path, moved.line) == ("src/pkg/_impl.py", 1)
    add_to_page(project, "```python\nfrom pkg._impl import moved\nmoved()\n```\n")
    assert "pkg.moved" not in gaps(project)


def test_a_package_outside_the_search_paths_is_a_load_error_never_imported(
    project: Path,
) -> None:
    """The standard library's json is importable, but not in the project: it is not inspected."""
    with pytest.raises(DocpactError) as error:
        check_coverage(load_config(project / "pyproject.toml"), ["json"])
    assert str(error.value).endswith("error: coverage cannot load package json: json")


def test_a_missing_subpackage_is_a_load_error_naming_it(project: Path) -> None:
    with pytest.raises(DocpactError) as error:
        check_coverage(load_config(project / "pyproject.toml"), ["pkg.nosub"])
    assert str(error.value).endswith("error: coverage cannot load package pkg.nosub: 'nosub'")


def test_coverage_reads_the_projects_package_and_pages_whatever_the_current_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a `pkg` folder nor the project (without docs) of the current folder."""
    elsewhere = project / "elsewhere"
    (elsewhere / "pkg").mkdir(parents=True)
    (elsewhere / "pkg" / "__init__.py").write_text("__all__ = []\n", "utf-8")
    (elsewhere / "pyproject.toml").write_text('[project]\nname = "other"\n', "utf-8")
    monkeypatch.chdir(elsewhere)
    result = check_coverage(load_config(project / "pyproject.toml"), ["pkg"])
    assert (result.covered, result.total) == (3, 6)


def test_without_sybil_coverage_says_how_to_install_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "docpact.sybil", None)
    with pytest.raises(DocpactError) as error:
        check_coverage(load_config(project / "pyproject.toml"), ["pkg"])
    assert str(error.value) == (
        "docpact coverage reads the docs pages with Sybil: pip install 'docpact[sybil]'"
    )


def test_a_submodule_is_covered_by_its_own_doctest_not_by_its_functions(
    project: Path,
) -> None:
    """Sybil runs a module's doctest; one in a function of the module covers only the function."""
    sub = project / "src" / "pkg"
    (sub / "tested.py").write_text('"""Tested.\n\n>>> 1\n1\n"""\n', "utf-8")
    (sub / "untested.py").write_text(
        '"""Untested."""\n\n\ndef f():\n    """\n    >>> 1\n    1\n    """\n', "utf-8"
    )
    add_to_package(project, "\nfrom pkg import tested, untested\n", "tested", "untested")
    missing = gaps(project)
    assert "pkg.tested" not in missing
    assert "pkg.untested" in missing


def test_an_attributes_doctest_covers_nothing_as_sybil_runs_none(project: Path) -> None:
    add_to_package(project, '\nVALUE = 1\n"""A value.\n\n>>> VALUE\n1\n"""\n', "VALUE")
    assert "pkg.VALUE" in gaps(project)


def test_a_class_is_covered_by_a_doctest_of_a_method_not_of_a_nested_class(
    project: Path,
) -> None:
    """A method without a doctest covers nothing either."""
    add_to_package(
        project,
        '\nclass Methods:\n    """Methods."""\n\n    def m(self):\n        """\n'
        '        >>> 1\n        1\n        """\n\n'
        'class Nested:\n    """Nested."""\n\n    class Inner:\n        """\n'
        '        >>> 1\n        1\n        """\n\n'
        '    def m(self):\n        """No doctest."""\n',
        "Methods",
        "Nested",
    )
    missing = gaps(project)
    assert "pkg.Methods" not in missing
    assert "pkg.Nested" in missing


def fences(project: Path) -> list[Finding]:
    result = check_coverage(load_config(project / "pyproject.toml"), ["pkg"])
    return [f for f in result.findings if f.code == "DP011"]


@pytest.mark.parametrize(
    "info", ["py", "pycon", 'python title="example.py"', '{.python title="example.py"}']
)
def test_a_fence_of_any_python_info_string_is_reported(project: Path, info: str) -> None:
    """The language is the info string's first word or first class: py, pycon, titled python.

    The message says why each default runner, docpact.sybil and doctest, leaves it unrun.
    """
    add_to_package(
        project, f'\ndef fenced():\n    """\n    ```{info}\n    x = 1\n    ```\n    """\n'
    )
    [fence] = fences(project)
    assert fence.message == (
        "a python fence in the docstring of pkg.fenced is not run as code: docpact.sybil "
        "runs the docs pages only; doctest runs a fence whose code opens with `>>>` only: "
        "write it as a doctest, or fence it as text"
    )


def test_two_identical_fences_are_each_reported_at_its_own_line(project: Path) -> None:
    fence = '    """\n    ```python\n    x = 1\n    ```\n    """\n'
    add_to_package(project, f"\ndef one():\n{fence}\n\ndef two():\n{fence}")
    init = project / "src" / "pkg" / "__init__.py"
    lines = [
        n for n, line in enumerate(init.read_text("utf-8").splitlines(), 1) if "```python" in line
    ]
    assert [(f.path, f.line) for f in fences(project)] == [
        ("src/pkg/__init__.py", n) for n in lines
    ]


def test_a_fence_after_blank_lines_opening_a_docstring_is_at_its_line(project: Path) -> None:
    fence, line = fence_finding(project, '"""\n\n\n\n    ```python\n    x = 1\n    ```\n    """')
    assert fence.line == line


def test_a_fence_that_the_file_spells_with_an_escape_is_at_its_docstring_line(
    project: Path,
) -> None:
    """The file's line differs from the docstring's; the docstring's numbering is kept."""
    init = project / "src" / "pkg" / "__init__.py"
    init.write_text(
        init.read_text("utf-8")
        + '\n\ndef last():\n    """Last.\n\n    ```python\\x20x\n    ```"""\n',
        "utf-8",
    )
    [fence] = fences(project)
    assert fence.line == line_of(init, "```python")


def test_a_fence_on_the_last_lines_of_the_file_is_at_its_line(project: Path) -> None:
    init = project / "src" / "pkg" / "__init__.py"
    init.write_text(
        init.read_text("utf-8")
        + '\n\ndef last():\n    """\n    Last.\n\n    ```python\n    ```"""',
        "utf-8",
    )
    [fence] = fences(project)
    assert fence.line == line_of(init, "```python")


def test_an_example_after_a_namespace_clear_counts_by_its_own_imports(project: Path) -> None:
    add_to_page(
        project,
        "<!-- clear-namespace -->\n\n"
        "```python\nfrom pkg import imported_only\nimported_only()\n```\n",
    )
    assert "pkg.imported_only" not in gaps(project)


@pytest.mark.parametrize(
    "code",
    ["import pkg as p\np.imported_only()", "import pkg.sub\npkg.imported_only()"],
    ids=["module alias", "submodule import"],
)
def test_an_attribute_of_an_imported_module_counts_by_the_modules_path(
    project: Path, code: str
) -> None:
    """`import pkg as p` binds p to pkg; `import pkg.sub` binds pkg to pkg, not to pkg.sub."""
    (project / "src" / "pkg" / "sub.py").write_text('"""Sub."""\n', "utf-8")
    add_to_page(project, f"<!-- clear-namespace -->\n\n```python\n{code}\n```\n")
    assert "pkg.imported_only" not in gaps(project)


def test_a_name_the_example_assigns_hides_its_import(project: Path) -> None:
    add_to_page(
        project,
        "```python\nfrom pkg import imported_only\nimported_only = print\nimported_only()\n```\n",
    )
    assert "pkg.imported_only" in gaps(project)


def test_a_conditional_skip_start_runs_and_a_skip_end_ends_a_skip(project: Path) -> None:
    """Examples under `skip: start if(...)`, and after `skip: end`, count."""
    add_to_page(
        project,
        '<!-- skip: start if(not importable("verl"), reason="needs verl") -->\n\n'
        "```python\nfrom pkg import imported_only\nimported_only()\n```\n\n<!-- skip: end -->\n\n"
        '<!-- skip: start "never runs" -->\n\n<!-- skip: end -->\n\n'
        "```python\nimport pkg\npkg.Skipped()\n```\n",
    )
    missing = gaps(project)
    assert "pkg.imported_only" not in missing
    assert "pkg.Skipped" not in missing


def test_an_escaped_fence_then_a_plain_one_are_each_at_their_own_line(project: Path) -> None:
    """The shift from the file to the cleaned docstring is found once, for all its lines."""
    add_to_package(
        project,
        '\n\ndef two():\n    """Doc.\n\n    \\x60\\x60\\x60python\n    a = 1\n    ```\n\n'
        '    ```python\n    b = 2\n    ```\n    """\n',
    )
    init = project / "src" / "pkg" / "__init__.py"
    escaped = line_of(init, "\\x60\\x60\\x60python")
    assert [f.line for f in fences(project)] == [escaped, escaped + 4]


def test_a_fence_in_a_stubs_docstring_past_the_files_end_is_at_its_last_line(
    project: Path,
) -> None:
    """A docstring griffe takes from a `.pyi` stub may lie below the module's end: no crash."""
    (project / "src" / "pkg" / "mod.py").write_text("def f():\n    pass\n", "utf-8")
    stub = 'def f():\n    """F.\n\n\n\n\n\n    ```python\n    x = 1\n    ```\n    """\n'
    (project / "src" / "pkg" / "mod.pyi").write_text(stub, "utf-8")
    add_to_package(project, "\nfrom pkg import mod\n", "mod")
    assert [(f.path, f.line) for f in fences(project)] == [("src/pkg/mod.py", 2)]


def test_a_directive_that_the_pages_parser_refuses_is_a_usage_error(project: Path) -> None:
    """A skip without a reason on a page stops coverage with the page's line, never a traceback."""
    add_to_page(project, "\n<!-- skip: next -->\n```python\nimport pkg\n```\n")
    with pytest.raises(DocpactError, match=r"guide\.md:\d+: skip: next needs a reason"):
        check_coverage(load_config(project / "pyproject.toml"), ["pkg"])


def test_a_docstring_whose_first_line_the_file_escapes_keeps_its_own_numbering(
    project: Path,
) -> None:
    """No line of the file holds the cleaned first line: the fence is at the docstring's count."""
    add_to_package(
        project, '\n\ndef cafe():\n    """Caf\\xe9.\n\n    ```python\n    ```\n    """\n'
    )
    init = project / "src" / "pkg" / "__init__.py"
    [fence] = fences(project)
    assert fence.line == line_of(init, "```python")


def test_a_stubs_fence_for_an_empty_module_is_at_line_1(project: Path) -> None:
    """A module with no lines at all still gets its finding at a line that exists: 1."""
    (project / "src" / "pkg" / "mod.py").write_text("", "utf-8")
    stub = 'def f():\n    """F.\n\n    ```python\n    x = 1\n    ```\n    """\n'
    (project / "src" / "pkg" / "mod.pyi").write_text(stub, "utf-8")
    add_to_package(project, "\nfrom pkg import mod\n", "mod")
    assert [(f.path, f.line) for f in fences(project)] == [("src/pkg/mod.py", 1)]


def test_a_fence_on_a_docstrings_second_line_is_found_below_its_quotes(project: Path) -> None:
    """A one-line opening followed by the fence: the shift is 0, the fence one line down."""
    fence, line = fence_finding(project, '"""Used.\n    ```python\n    x = 1\n    ```\n    """')
    assert fence.line == line


def test_a_first_line_said_again_below_does_not_shift_the_docstring(project: Path) -> None:
    """The first line on the quotes' line is the docstring's start, whatever repeats it later."""
    fence, line = fence_finding(
        project, '"""Used.\n\n    Used.\n\n    ```python\n    x = 1\n    ```\n    """'
    )
    assert fence.line == line


@pytest.mark.parametrize(
    ("source", "line", "reason"),
    [
        ('"""Doc."""\n__all__ = []\ndef f(:\n', 3, "has a syntax error (invalid syntax)"),
        ('"""Doc."""\n__all__ = []\nx = ' + "-" * 50000 + "1\n", 3, "nests too deeply"),
    ],
    ids=["syntax error", "nested too deeply"],
)
def test_a_package_that_does_not_parse_is_dp001_at_its_line_as_check_gives_it(
    project: Path, capsys: pytest.CaptureFixture[str], source: str, line: int, reason: str
) -> None:
    """A package that does not parse is DP001 at the line at fault, exit 1, as check gives it.

    No traceback of griffe's reaches stderr.
    """
    (project / "src" / "pkg" / "__init__.py").write_text(source, "utf-8")
    assert main(["coverage"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[0].startswith(
        f"src/pkg/__init__.py:{line}: DP001 pkg cannot be loaded: src/pkg/__init__.py {reason}"
    )
    assert "coverage: 0 of 0" in out
    assert err == ""


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_page_that_is_no_regular_file_is_a_usage_error_at_its_path(
    project: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """A page Sybil would read that is a folder or a FIFO is refused before it is opened."""
    page = project / "docs" / "other.md"
    page.mkdir() if kind == "folder" else os.mkfifo(page)
    assert main(["coverage"]) == 2
    what = "a folder, not a file" if kind == "folder" else "a FIFO, not a regular file"
    assert capsys.readouterr().err == (
        f"docs/other.md:1: error: docs/other.md cannot be read: it is {what}\n"
    )


def test_a_fifo_in_the_package_is_dp001_never_a_wait(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(project / "src" / "pkg" / "_pipe.py")
    assert main(["coverage"]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        "src/pkg/_pipe.py:1: DP001 pkg cannot be loaded: src/pkg/_pipe.py cannot be read: "
        "it is a FIFO, not a regular file"
    )


def test_a_comment_that_nothing_closes_is_a_usage_error_at_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Sybil's lexer finds no end of the comment: one located line, never its traceback."""
    page = project / "docs" / "guide.md"
    page.write_text(PAGE + "\n<!-- docpact: claim open\nNo end.\n", "utf-8")
    line = PAGE.count("\n") + 2
    assert main(["coverage"]) == 2
    assert capsys.readouterr().err == (
        f"docs/guide.md:{line}: error: docs/guide.md opens '<!-- docpact: claim open' "
        "that nothing closes\n"
    )


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        (
            "<!-- docpact: config-defaults src/pkg/defaults.yaml -->\n",
            "docs/guide.md:{line}: docpact: config-defaults must be followed by "
            "a fenced yaml block",
        ),
        (
            "<!-- skip: next -->\n",
            "docs/guide.md:{line}: skip: next needs a reason, "
            'for example <!-- skip: next "needs a GPU" -->',
        ),
        (
            "````python\n<!-- docpact: config-defaults src/pkg/defaults.yaml -->\n```yaml\n```\n",
            "docs/guide.md:{next}: error: the config-defaults block of lines {next}-{end} overlaps "
            "the python example of lines {line}-{end}: Sybil runs neither; "
            "close one before the other opens",
        ),
    ],
    ids=["no block after config-defaults", "a skip with no reason", "examples that overlap"],
)
def test_what_sybil_refuses_on_a_page_is_one_line_at_the_page_relative_path(
    project: Path, capsys: pytest.CaptureFixture[str], tail: str, message: str
) -> None:
    """A directive Sybil's parsers refuse, or two regions that overlap: the page's line."""
    page = project / "docs" / "guide.md"
    page.write_text(PAGE + "\n" + tail, "utf-8")
    line = PAGE.count("\n") + 2
    assert main(["coverage"]) == 2
    expected = message.format(line=line, next=line + 1, end=line + 3)
    assert capsys.readouterr().err == expected + "\n"


def test_a_package_that_is_one_module_and_a_fifo_is_dp001_never_a_wait(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    package = project / "src" / "pkg"
    (package / "__init__.py").unlink()
    package.rmdir()
    os.mkfifo(project / "src" / "pkg.py")
    assert main(["coverage"]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        "src/pkg.py:1: DP001 pkg cannot be loaded: src/pkg.py cannot be read: "
        "it is a FIFO, not a regular file"
    )
