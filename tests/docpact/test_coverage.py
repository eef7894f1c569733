# SPDX-License-Identifier: MIT
"""`docpact coverage`: public objects without an executed example, and fences in docstrings."""

from __future__ import annotations

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
