# SPDX-License-Identifier: MIT
"""`mkdocs build --strict` fails on a broken contract and passes once it is mended."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import mkdocs_build
from samples.drift import DISTINCT_ROLLOUTS, DIVIDE, copy_project, drift, line_of

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mkdocstrings_handlers") is None,
    reason="needs the docs extra (mkdocs, mkdocstrings-python)",
)


def build(project: Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Build the fixture site in strict mode, in its own process as a user would.

    From another folder than the project's, the build names the project's `mkdocs.yml`.
    """
    config = [] if cwd is None else ["-f", str(project / "mkdocs.yml")]
    return mkdocs_build(cwd or project, *config)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project("contract_project", tmp_path)


def test_the_strict_build_fails_on_drift_and_passes_once_mended(project: Path) -> None:
    original = (project / DIVIDE).read_text(encoding="utf-8")
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)

    broken = build(project)
    assert broken.returncode == 1
    assert "Aborted with 2 errors in strict mode!" in broken.stdout
    # The divisor lost an operand (DP003), and so differs from the stated formula (DP023).
    formula, error = [line for line in broken.stdout.splitlines() if line.startswith("ERROR")]
    assert "docpact: src/ratio/_divide.py:" in formula
    assert "DP023 ratio._divide.scale_by_rollout divides by" in formula
    assert "docpact: src/ratio/_divide.py:" in error
    assert "DP003 no division in ratio._divide.scale_by_rollout computes its divisor" in error

    (project / DIVIDE).write_text(original, encoding="utf-8")
    mended = build(project)
    assert mended.returncode == 0, mended.stdout
    assert "WARNING" not in mended.stdout
    assert "ERROR" not in mended.stdout


def test_the_build_finds_the_contracts_from_any_current_folder(
    project: Path, tmp_path: Path
) -> None:
    """`pyproject: !relative $config_dir/pyproject.toml` is read next to mkdocs.yml."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert build(project, cwd=elsewhere).returncode == 0
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    broken = build(project, cwd=elsewhere)
    assert broken.returncode == 1
    line = line_of(project / DIVIDE, "scaled = advantages")
    assert f"docpact: {DIVIDE}:{line}: DP003 no division" in broken.stdout


def test_contract_anchors_are_the_ids_on_the_built_page(project: Path) -> None:
    result = build(project)
    assert result.returncode == 0, result.stdout
    page = (project / "site" / "guide" / "index.html").read_text(encoding="utf-8")
    assert 'id="per-rollout-mean-loss"' in page


def test_a_malformed_config_fails_the_strict_build(project: Path) -> None:
    operands = 'operands = ["rollout_token_count", "num_trained_rows"]'
    drift(project / "pyproject.toml", operands, "operands = []")
    result = build(project)
    assert result.returncode == 1
    line = line_of(project / "pyproject.toml", "operands = []")
    assert f"docpact: pyproject.toml:{line}: error: tool.docpact.contract[0].operands" in (
        result.stdout
    )


def test_anchors_under_the_sites_own_toc_settings_are_the_built_ids(project: Path) -> None:
    """With the site's toc separator and an admonition's heading, docpact's anchor is the id."""
    with (project / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write('markdown_extensions:\n  - admonition\n  - toc:\n      separator: "_"\n')
    drift(
        project / "docs/guide.md",
        "## Per-rollout mean loss\n",
        '!!! note "Note"\n\n    ## Per-rollout mean loss\n',
    )
    guide = (project / "docs/guide.md").read_text(encoding="utf-8")
    body = guide[guide.index("Each row is divided") : guide.index("\n\n## Other settings")]
    drift(project / "docs/guide.md", body, "    " + body.replace("\n", "\n    "))
    drift(project / "pyproject.toml", "#per-rollout-mean-loss", "#per-rollout_mean_loss")
    result = build(project)
    assert result.returncode == 0, result.stdout
    page = (project / "site" / "guide" / "index.html").read_text(encoding="utf-8")
    assert 'id="per-rollout_mean_loss"' in page
    checked = subprocess.run(
        [sys.executable, "-m", "docpact", "check"], cwd=project, capture_output=True, text=True
    )
    assert (checked.returncode, checked.stdout) == (0, "")


def test_a_config_defaults_finding_is_reported_once_per_build(project: Path) -> None:
    """Mkdocstrings loads each rendered package with its own extension; the finding is one."""
    with (project / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write(
            '\n[[tool.docpact.contract]]\nkind = "config-defaults"\n'
            'file = "conf/defaults.yaml"\ndocs = ["docs/guide.md#other-settings"]\n'
        )
    (project / "conf").mkdir()
    (project / "conf" / "defaults.yaml").write_text("epochs: 2\n", encoding="utf-8")
    drift(
        project / "docs" / "guide.md",
        "Nothing about the divisor here.",
        "<!-- docpact: config-defaults conf/defaults.yaml -->\n```yaml\nepochs: 1\n```",
    )
    (project / "src" / "other").mkdir()
    (project / "src" / "other" / "__init__.py").write_text('"""Another package."""\n', "utf-8")
    with (project / "docs" / "index.md").open("a", encoding="utf-8") as file:
        file.write("\n::: other\n")
    result = build(project)
    assert result.returncode == 1
    warnings = [line for line in result.stdout.splitlines() if "DP007" in line]
    assert len(warnings) == 1, result.stdout
    assert "the yaml block differs from conf/defaults.yaml: epochs" in warnings[0]


@pytest.mark.parametrize(
    "spelling", ["docpact", "docpact._extension", "docpact._extension:ContractExtension"]
)
def test_with_the_plugin_each_finding_of_every_kind_is_reported_once(
    project: Path, spelling: str
) -> None:
    """The plugin owns the checking: the extensions defer to its checker, nothing twice.

    The extension is deferred under each name griffe loads it by, `module:Class` too.
    """
    config = project / "mkdocs.yml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("- docpact:", f"- {spelling}:"), "utf-8"
    )
    with (project / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write(
            '\n[[tool.docpact.contract]]\nkind = "config-defaults"\n'
            'file = "conf/defaults.yaml"\ndocs = ["docs/guide.md#other-settings"]\n'
            '\n[[tool.docpact.contract]]\nkind = "claims"\n'
            'pages = ["docs/index.md"]\nproperties = ["tests"]\n'
        )
    (project / "conf").mkdir()
    (project / "conf" / "defaults.yaml").write_text("epochs: 2\n", encoding="utf-8")
    (project / "tests").mkdir()
    drift(
        project / "docs" / "guide.md",
        "Nothing about the divisor here.",
        "<!-- docpact: config-defaults conf/defaults.yaml -->\n```yaml\nepochs: 1\n```",
    )
    with (project / "docs" / "index.md").open("a", encoding="utf-8") as file:
        file.write("\n<!-- docpact: claim one-row -->\nA rollout carries 1.\n")
    with (project / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write("  - docpact\nmarkdown_extensions:\n  - admonition\n")
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    result = build(project)
    assert result.returncode == 1
    warnings = [line for line in result.stdout.splitlines() if line.startswith("ERROR")]
    codes = sorted(
        code for line in warnings for code in ("DP003", "DP007", "DP013", "DP023") if code in line
    )
    assert codes == ["DP003", "DP007", "DP013", "DP023"], result.stdout
    # Checked before the pages: the build stops there, each finding logged once.
    assert "docpact: 4 errors; the strict build stops before any page is built" in result.stdout
    assert "Aborted with a BuildError!" in result.stdout
