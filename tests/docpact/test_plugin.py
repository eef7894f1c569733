# SPDX-License-Identifier: MIT
"""docpact's MkDocs plugin owns the build's checking: its hooks, driven in-process.

Each test loads a project's `mkdocs.yml` with MkDocs' own `load_config` and calls the
plugin's hooks in the order a build does, without building a site.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from griffe import Extension, GriffeLoader, load_extensions
from mkdocs.config import load_config as load_mkdocs_config
from mkdocs.exceptions import PluginError

from docpact import ContractExtension, check_project
from samples.drift import DISTINCT_ROLLOUTS, DIVIDE, copy_project, drift, line_of

# The sample site's extension list, and spellings around docpact's own: the package, the
# module, each with the class; griffe's and other modules' names are no docpact extension.
EXTENSIONS = """\
              - griffe_inherited_docstrings
              - docpact._extension
              - docpact:ContractExtension:
              - docpact._extension:ContractExtension:
                  log: false
              - docpact:Other
              - docpact._plugin
  - docpact
"""
GUIDE = "docs/guide.md"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The contract project, whose site lists docpact's extension under mkdocstrings."""
    return copy_project("contract_project", tmp_path)


def _plugin(project: Path, extra: str = "  - docpact\n") -> tuple[object, object]:
    """The docpact plugin of the project's site, after `on_config`, and the site's config."""
    with (project / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write(extra)
    config = load_mkdocs_config(str(project / "mkdocs.yml"))
    plugin = config.plugins["docpact"]
    plugin.on_config(config)
    return plugin, config


def _extensions(config: object) -> list[object]:
    """The `extensions` option of mkdocstrings' Python handler, as the site declares it."""
    return config.plugins["mkdocstrings"].config.handlers["python"]["options"]["extensions"]


def test_each_docpact_extension_mkdocstrings_lists_checks_through_the_plugin(
    project: Path,
) -> None:
    """Each spelling of docpact's extension gets the plugin's checker; others stay as listed."""
    plugin, config = _plugin(project, EXTENSIONS)
    extensions = _extensions(config)
    other = Extension()  # an extension object another plugin listed
    extensions.append(other)
    pyproject = extensions[0]["docpact"]["pyproject"]
    plugin.on_pre_build(config=config)
    checker = plugin.checker
    assert isinstance(checker, ContractExtension)
    assert extensions == [
        {"docpact": {"pyproject": pyproject, "defer_to": checker}},
        "griffe_inherited_docstrings",
        {"docpact._extension": {"defer_to": checker}},
        {"docpact:ContractExtension": {"defer_to": checker}},
        {"docpact._extension:ContractExtension": {"log": False, "defer_to": checker}},
        "docpact:Other",
        "docpact._plugin",
        other,
    ]


def test_the_extension_mkdocstrings_makes_checks_once_through_the_plugin(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A page's package is checked by the plugin's checker, and its findings logged once."""
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    plugin, config = _plugin(project)
    plugin.on_pre_build(config=config)
    [entry] = _extensions(config)
    # mkdocstrings makes the extensions of its loader from the options, as griffe does here.
    loader = GriffeLoader(extensions=load_extensions(entry), search_paths=[project / "src"])
    with caplog.at_level(logging.INFO):
        loader.load("ratio")
        assert plugin.checker.checked == list(plugin._project.contracts)
        findings = plugin.checker.findings
        plugin.on_post_build(config=config)
    line = line_of(project / DIVIDE, "scaled = advantages")
    divisor = line_of(project / DIVIDE, "divisor = torch.clamp(")
    assert [(finding.path, finding.line, finding.code) for finding in findings] == [
        (DIVIDE, divisor, "DP023"),
        (DIVIDE, line, "DP003"),
    ]
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("mkdocs.plugins.docpact", logging.ERROR, f"docpact: {finding}") for finding in findings
    ]


def test_the_contracts_no_page_loaded_are_checked_by_the_plugins_checker(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """After the pages, the plugin's own checker loads and checks what they left."""
    drift(project / GUIDE, "`max(1, rollout_token_count * num_trained_rows)`", "the token count")
    plugin, config = _plugin(project)
    plugin.on_pre_build(config=config)
    with caplog.at_level(logging.INFO):
        plugin.on_post_build(config=config)
    [finding] = check_project(plugin._project)
    assert finding.code == "DP004"
    assert plugin.checker.checked == list(plugin._project.contracts)
    assert plugin.checker.findings == [finding]
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("mkdocs.plugins.docpact", logging.ERROR, f"docpact: {finding}")
    ]


def test_a_griffe_that_never_calls_the_hook_stops_the_build_saying_so(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin's check fails as `docpact check` does: a PluginError with its message."""
    monkeypatch.setattr(ContractExtension, "on_package", lambda self, **kwargs: None)
    plugin, config = _plugin(project)
    plugin.on_pre_build(config=config)
    with pytest.raises(PluginError) as error:
        plugin.on_post_build(config=config)
    assert str(error.value) == (
        "pyproject.toml: error: griffe loaded package ratio but never called docpact's "
        "on_package hook, so ['ratio._divide.scale_by_rollout'] went unchecked; docpact "
        "needs griffe>=1.14"
    )


class _Server:
    """A stand-in for MkDocs' LiveReloadServer that records what it is asked to watch."""

    def __init__(self) -> None:
        self.watched: list[str] = []

    def watch(self, path: str) -> None:
        self.watched.append(path)


def test_a_project_without_claims_needs_no_admonition_and_serve_watches_its_pyproject(
    project: Path,
) -> None:
    """With no claims contract, no boxes: no admonition, no style sheet, no property watched."""
    plugin, config = _plugin(project)
    assert "admonition" not in config.markdown_extensions
    assert config.extra_css == []
    server = _Server()
    assert plugin.on_serve(server, config=config, builder=lambda: None) is server
    assert server.watched == [str(project / "pyproject.toml")]


def test_each_build_starts_with_a_checker_that_has_checked_nothing(project: Path) -> None:
    """No checker before the first build; each `on_pre_build` makes a new, empty one."""
    plugin, config = _plugin(project)
    assert plugin.checker is None
    plugin.on_pre_build(config=config)
    first = plugin.checker
    plugin.on_post_build(config=config)
    assert first.checked == list(plugin._project.contracts)
    plugin.on_pre_build(config=config)
    assert plugin.checker is not first
    assert (plugin.checker.checked, plugin.checker.findings) == ([], [])
    assert plugin.checker.config is plugin._project
