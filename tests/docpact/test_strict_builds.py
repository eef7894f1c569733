# SPDX-License-Identifier: MIT
"""Under MkDocs every contract is checked, and every finding fails a strict build at any level.

The builds run in their own processes, as a user runs them: with the docpact plugin and no
page that renders the checked package, and with mkdocstrings' extension alone.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from helpers import mkdocs_build
from samples.drift import DISTINCT_ROLLOUTS, DIVIDE, copy_project, drift, line_of

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("mkdocstrings_handlers") is None,
        reason="needs the docs extra (mkdocs, mkdocstrings-python)",
    ),
]

# How a build is made strict, and the log levels of MkDocs' command line.
STRICT = {"--strict": ("--strict",), "strict: true": ()}
LEVELS = {"default": (), "-q": ("-q",), "-v": ("-v",)}


def _plugin_without_api_page(tmp_path: Path) -> Path:
    """The contract project with the docpact plugin, and no page that renders `ratio`."""
    project = copy_project("contract_project", tmp_path)
    drift(project / "docs" / "index.md", "::: ratio\n", "The ratio package.\n")
    with (project / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write("  - docpact\n")
    return project


def _extension_alone(tmp_path: Path) -> Path:
    """The contract project as it is: mkdocstrings' extension renders `ratio`, no plugin."""
    return copy_project("contract_project", tmp_path)


LAYOUTS = {"plugin, no API page": _plugin_without_api_page, "extension": _extension_alone}


def _build(project: Path, strict: str, level: str) -> tuple[int, str]:
    if strict == "strict: true":
        with (project / "mkdocs.yml").open("a", encoding="utf-8") as file:
            file.write("strict: true\n")
    result = mkdocs_build(project, *STRICT[strict], *LEVELS[level], strict=False)
    return result.returncode, result.stdout


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("strict", STRICT)
def test_a_finding_fails_a_strict_build_at_every_log_level(
    tmp_path: Path, layout: str, strict: str, level: str
) -> None:
    project = LAYOUTS[layout](tmp_path)
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    status, output = _build(project, strict, level)
    line = line_of(project / DIVIDE, "scaled = advantages")
    divisor = line_of(project / DIVIDE, "divisor = torch.clamp(")
    assert status == 1, output
    # The divisor lost an operand (DP003), and so differs from the stated formula (DP023).
    [formula] = [entry for entry in output.splitlines() if "DP023" in entry]
    [error] = [entry for entry in output.splitlines() if "DP003" in entry]
    assert (formula.startswith("ERROR"), error.startswith("ERROR")) == (True, True)
    assert f"docpact: {DIVIDE}:{divisor}: DP023 ratio._divide.scale_by_rollout divides" in formula
    assert f"docpact: {DIVIDE}:{line}: DP003 no division in ratio._divide.scale_by_rollout" in error
    if layout == "extension":  # MkDocs counts the errors after the pages
        assert "Aborted with 2 errors in strict mode!" in output
        return
    # The plugin checks before the pages, and stops there: no page is built.
    assert "docpact: 2 errors; the strict build stops before any page is built" in output
    assert "Aborted with a BuildError!" in output
    assert not (project / "site" / "index.html").exists()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("level", ["default", "-q"])
def test_the_clean_project_passes_the_strict_build(tmp_path: Path, layout: str, level: str) -> None:
    project = LAYOUTS[layout](tmp_path)
    status, output = _build(project, "--strict", level)
    assert (status, "ERROR" in output, "WARNING" in output) == (0, False, False), output


@pytest.mark.parametrize("level", LEVELS)
def test_a_build_without_strict_prints_the_findings_and_succeeds(
    tmp_path: Path, level: str
) -> None:
    project = _plugin_without_api_page(tmp_path)
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    result = mkdocs_build(project, *LEVELS[level], strict=False)
    assert result.returncode == 0, result.stdout
    assert f"docpact: {DIVIDE}:" in result.stdout
    assert "DP003" in result.stdout
    assert (project / "site" / "index.html").is_file()


def test_the_plugin_reports_a_contract_whose_object_no_package_holds(tmp_path: Path) -> None:
    """An object that cannot be found is a finding of its own, never a skipped contract."""
    project = _plugin_without_api_page(tmp_path)
    drift(project / "pyproject.toml", '"ratio._divide.scale_by_rollout"', '"ratios.scale"')
    result = mkdocs_build(project, "-q")
    line = line_of(project / "pyproject.toml", "[[tool.docpact.contract]]")
    assert result.returncode == 1, result.stdout
    assert (
        f"docpact: pyproject.toml:{line}: DP001 ratios.scale does not exist: no package ratios "
        "under src/, ./"
    ) in result.stdout


def test_the_plugin_needs_neither_mkdocstrings_nor_admonition_without_claims(
    tmp_path: Path,
) -> None:
    project = copy_project("contract_project", tmp_path)
    (project / "mkdocs.yml").write_text(
        "site_name: ratio\ndocs_dir: docs\nnav:\n  - guide.md\nplugins:\n  - docpact\n",
        encoding="utf-8",
    )
    (project / "docs" / "index.md").unlink()
    assert mkdocs_build(project).returncode == 0
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    broken = mkdocs_build(project, "-q")
    assert broken.returncode == 1, broken.stdout
    assert f"docpact: {DIVIDE}:" in broken.stdout


def test_the_extension_without_the_plugin_says_which_contracts_go_unchecked(
    tmp_path: Path,
) -> None:
    """A contract on a package no page renders: the build names the plugin line to add."""
    project = copy_project("contract_project", tmp_path)
    (project / "src" / "other").mkdir()
    (project / "src" / "other" / "__init__.py").write_text(
        'def f(x):\n    """Scale."""\n    return x\n', encoding="utf-8"
    )
    with (project / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write('\n[[tool.docpact.contract]]\nkind = "names"\nobject = "other.f"\n')
        file.write('names = ["x"]\n')
    result = mkdocs_build(project)
    assert result.returncode == 1, result.stdout
    [warning] = [line for line in result.stdout.splitlines() if line.startswith("WARNING")]
    assert "1 of 2 docpact contracts are on packages that no page renders (other)" in warning
    assert "add `- docpact` under `plugins:` in mkdocs.yml" in warning
    (project / "docs" / "other.md").write_text("# Other\n\n::: other\n", encoding="utf-8")
    rendered = mkdocs_build(project)  # a page renders every package: nothing goes unchecked
    assert "WARNING" not in rendered.stdout, rendered.stdout
    assert "docpact: src/other/__init__.py:2: DP002" in rendered.stdout
    (project / "docs" / "other.md").unlink()
    with (project / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write("  - docpact\n")
    plugged = mkdocs_build(project)
    assert plugged.returncode == 1, plugged.stdout  # other.f's docstring never names `x`
    assert "WARNING" not in plugged.stdout
    [error] = [line for line in plugged.stdout.splitlines() if "DP002" in line]
    assert "docpact: src/other/__init__.py:2: DP002" in error
