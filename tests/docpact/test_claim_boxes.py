# SPDX-License-Identifier: MIT
"""docpact's MkDocs plugin: each claim of a claims page becomes a box naming its property."""

from __future__ import annotations

import html
import logging
import re
import textwrap
import types
from pathlib import Path

import pytest
from mkdocs.config import load_config as load_mkdocs_config
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

from docpact._plugin import DocpactPlugin
from docpact.claims._analysis import Analysis, analyse
from docpact.claims._boxes import _CSS

STYLESHEET = "assets/docpact/claims.css"


def _analysis(plugin: DocpactPlugin) -> Analysis:
    """The claims contract of the plugin's project, read as its page hook reads it."""
    project = plugin._project
    assert project is not None
    contract = next(c for c in project.contracts if c.kind == "claims")
    return analyse(contract, project)  # type: ignore[arg-type]


PYPROJECT = """\
[[tool.docpact.contract]]
kind = "claims"
pages = ["docs/index.md"]
properties = ["tests"]
"""
PROPERTY = """\
from docpact import claim


@claim("one-row")
def test_one_row():
    pass
"""
MKDOCS = "site_name: claims\nmarkdown_extensions:\n  - admonition\n"
# The last line of the box of one-row, bound to test_one_row, with no results.
NOT_RUN = (
    '<span class="docpact-claim-check" data-state="not-run">Not run in this build: '
    "`test_one_row` in `tests/test_props.py` checks it; run "
    "`pytest tests/test_props.py::test_one_row` to see its result."
)


def _project(tmp_path: Path, *, properties: str = PROPERTY, mkdocs: str = MKDOCS) -> Path:
    (tmp_path / "docs").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "tests" / "test_props.py").write_text(properties, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(mkdocs, encoding="utf-8")
    return tmp_path


def _plugin(project: Path, **options: str) -> tuple[DocpactPlugin, object]:
    config = load_mkdocs_config(str(project / "mkdocs.yml"))
    plugin = DocpactPlugin()
    errors, warnings = plugin.load_config(options)
    assert (errors, warnings) == ([], [])
    return plugin, plugin.on_config(config)


def _page(path: Path | None) -> object:
    return types.SimpleNamespace(file=types.SimpleNamespace(abs_src_path=path and str(path)))


def _render(project: Path, markdown: str, page: str = "docs/index.md") -> str:
    plugin, _ = _plugin(project)
    return plugin.on_page_markdown(markdown, page=_page(project / page), config=None, files=None)


def test_a_paragraph_claim_becomes_a_box_with_its_property_and_session(tmp_path) -> None:
    """The marker and paragraph become a docpact-claim admonition ending with the property."""
    project = _project(tmp_path)
    markdown = "# Home\n\n<!-- docpact: claim one-row -->\nA rollout\ncarries 1.\n\nAfter.\n"
    assert _render(project, markdown) == (
        "# Home\n\n"
        '!!! docpact-claim docpact-unknown "Claim one-row"\n\n'
        "    A rollout\n"
        "    carries 1.\n\n"
        f"    {NOT_RUN}</span>\n\n"
        "After.\n"
    )


def test_with_a_noxfile_the_box_names_the_nox_command(tmp_path) -> None:
    """A project with a noxfile.py gets `nox -s SESSION`, with the binding's own session."""
    project = _project(tmp_path, properties=PROPERTY.replace('"one-row"', '"one-row", session="b"'))
    (project / "noxfile.py").write_text(
        "import nox\n\n\n@nox.session\ndef b(session):\n    pass\n", encoding="utf-8"
    )
    rendered = _render(project, "<!-- docpact: claim one-row -->\nText.\n")
    assert "run `nox -s b` to see its result.</span>" in rendered


def test_an_indented_claim_keeps_its_indent_and_an_admonition_nests(tmp_path) -> None:
    """A claim in a list item stays in the item; a claimed admonition nests in the box."""
    project = _project(tmp_path)
    markdown = (
        "- item\n\n"
        "    <!-- docpact: claim one-row -->\n"
        '    !!! note "Title"\n'
        "        Body.\n\n"
        "        More.\n"
        "- next\n"
    )
    assert _render(project, markdown) == (
        "- item\n\n"
        '    !!! docpact-claim docpact-unknown "Claim one-row"\n\n'
        '        !!! note "Title"\n'
        "            Body.\n\n"
        "            More.\n\n"
        f"        {NOT_RUN}</span>\n"
        "- next\n"
    )


def test_a_claim_without_a_property_or_with_two_says_so(tmp_path) -> None:
    """The box of an unbound claim, or one bound twice, says so instead of naming one."""
    project = _project(tmp_path, properties=PROPERTY + PROPERTY.replace("test_one_row", "test_2"))
    markdown = "<!-- docpact: claim one-row -->\nA.\n\n<!-- docpact: claim two-rows -->\nB.\n"
    rendered = _render(project, markdown)
    assert "Bound to 2 properties, which docpact check reports." in rendered
    assert "No property checks this claim yet." in rendered
    assert rendered.count("!!! docpact-claim") == 2


def test_pages_that_are_not_claims_pages_are_left_alone(tmp_path) -> None:
    """Another page, or a page without a source file, is returned as it came."""
    project = _project(tmp_path)
    markdown = "<!-- docpact: claim one-row -->\nA.\n"
    (project / "docs" / "other.md").write_text(markdown, encoding="utf-8")
    assert _render(project, markdown, page="docs/other.md") == markdown
    plugin, _ = _plugin(project)
    assert plugin.on_page_markdown(markdown, page=_page(None), config=None, files=None) == markdown


def test_the_style_sheet_is_added_to_the_site_and_its_files(tmp_path) -> None:
    """on_config names the sheet in extra_css; on_files adds it with the boxes' rules."""
    plugin, config = _plugin(_project(tmp_path))
    assert STYLESHEET in config.extra_css
    config.plugins._current_plugin = "docpact"  # set by MkDocs while it runs an event
    files = plugin.on_files(Files([]), config=config)
    sheet = files.get_file_from_path(STYLESHEET)
    assert sheet is not None
    assert sheet.content_string == _CSS
    assert ".admonition.docpact-claim.docpact-passed {" in _CSS
    assert "data:image/svg+xml" in _CSS


def test_a_site_without_the_admonition_extension_is_an_error(tmp_path) -> None:
    """The boxes are admonitions: without the extension the build stops, saying so."""
    project = _project(tmp_path, mkdocs="site_name: claims\n")
    with pytest.raises(
        PluginError,
        match="need the Markdown extensions admonition; add them to markdown_extensions",
    ):
        _plugin(project)


def test_a_broken_pyproject_is_a_plugin_error_naming_it(tmp_path) -> None:
    """A pyproject.toml that docpact cannot read stops the build with docpact's message."""
    project = _project(tmp_path)
    (project / "pyproject.toml").write_text("[tool\n", encoding="utf-8")
    with pytest.raises(PluginError, match=r"pyproject\.toml:1: error: is not valid TOML"):
        _plugin(project)


def test_the_pyproject_option_names_another_file(tmp_path) -> None:
    """`pyproject:` points the plugin at a pyproject.toml other than the one beside mkdocs.yml."""
    project = _project(tmp_path / "site")
    (tmp_path / "elsewhere.toml").write_text(
        PYPROJECT.replace('"docs/index.md"', '"docs/other.md"'), encoding="utf-8"
    )
    plugin, _ = _plugin(project, pyproject=str(tmp_path / "elsewhere.toml"))
    assert _analysis(plugin).contract.pages == ("docs/other.md",)


class _Server:
    """A stand-in for MkDocs' LiveReloadServer that records what it is asked to watch."""

    def __init__(self) -> None:
        self.watched: list[str] = []
        self.recursive: dict[str, bool] = {}

    def watch(self, path: str, *, recursive: bool = True) -> None:
        self.watched.append(path)
        self.recursive[path] = recursive


def test_serve_watches_the_pyproject_and_each_properties_path_there_is(tmp_path) -> None:
    """`mkdocs serve` rebuilds on an edit of a contract or a property; a missing path is left."""
    project = _project(tmp_path)
    properties = 'properties = ["tests", "checks/test_more.py", "missing"]'
    pyproject = PYPROJECT.replace('properties = ["tests"]', properties)
    (project / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (project / "checks").mkdir()
    (project / "checks" / "test_more.py").write_text("", encoding="utf-8")
    plugin, config = _plugin(project)
    server = _Server()
    assert plugin.on_serve(server, config=config, builder=lambda: None) is server
    assert server.watched == [
        str(project / "pyproject.toml"),
        str(project / "tests"),
        str(project / "checks" / "test_more.py"),
    ]


def test_serve_watches_a_results_folder_and_its_subfolders_only_where_searched(tmp_path) -> None:
    """`d/*.json` watches d alone, `d/**/*.json` its tree, `**/*.json` the root's files."""
    project = _project(tmp_path)
    results = 'results = [".docpact/results/*.json", "out/**/*.json", "**/*.json"]'
    (project / "pyproject.toml").write_text(PYPROJECT + results + "\n", encoding="utf-8")
    (project / ".docpact" / "results").mkdir(parents=True)
    (project / "out").mkdir()
    plugin, config = _plugin(project)
    server = _Server()
    plugin.on_serve(server, config=config, builder=lambda: None)
    assert server.watched[2:] == [
        str(project / ".docpact" / "results"),
        str(project / "out"),
        str(project / "."),
    ]
    assert [server.recursive[path] for path in server.watched[2:]] == [False, True, False]


def test_serve_watches_the_named_pyproject_alone_without_its_properties(tmp_path) -> None:
    """With `pyproject:` elsewhere, its properties lie beside it: none there, none watched."""
    project = _project(tmp_path / "site")
    (tmp_path / "elsewhere.toml").write_text(PYPROJECT, encoding="utf-8")
    plugin, config = _plugin(project, pyproject=str(tmp_path / "elsewhere.toml"))
    server = _Server()
    plugin.on_serve(server, config=config, builder=lambda: None)
    assert server.watched == [str(tmp_path / "elsewhere.toml")]


def test_mkdocs_live_reload_server_watches_what_the_plugin_names(tmp_path) -> None:
    """MkDocs' own server, never started, takes the paths: a file and a folder."""
    from mkdocs.livereload import LiveReloadServer

    project = _project(tmp_path)
    plugin, config = _plugin(project)
    server = LiveReloadServer(lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    try:
        plugin.on_serve(server, config=config, builder=server.builder)
        # The server keeps a count of the watchers of each path it watches.
        assert server._watched_paths == {
            str(project / "pyproject.toml"): 1,
            str(project / "tests"): 1,
        }
    finally:
        server.server_close()


def test_a_strict_build_renders_the_box(tmp_path) -> None:
    """Built by MkDocs in-process, the page holds the box, its title and its check line."""
    from mkdocs.commands.build import build

    project = _project(tmp_path, mkdocs=MKDOCS + "plugins:\n  - docpact\n")
    (project / "docs" / "index.md").write_text(
        textwrap.dedent(
            """\
            # Home

            <!-- docpact: claim one-row -->
            A rollout carries `1`.
            """
        ),
        encoding="utf-8",
    )
    config = load_mkdocs_config(str(project / "mkdocs.yml"), site_dir=str(tmp_path / "out"))
    build(config)
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert '<div class="admonition docpact-claim docpact-unknown">' in html
    assert '<p class="admonition-title">Claim one-row</p>' in html
    assert "<code>test_one_row</code>" in html
    assert (tmp_path / "out" / STYLESHEET).read_text(encoding="utf-8") == _CSS


def test_a_build_with_the_plugin_alone_fails_strict_on_claims_findings(tmp_path, caplog) -> None:
    """Without mkdocstrings, the plugin logs the claims findings, and --strict aborts.

    It aborts before any page is built, every finding logged.
    """
    from mkdocs.commands.build import build
    from mkdocs.exceptions import Abort

    project = _project(tmp_path, mkdocs=MKDOCS + "strict: true\nplugins:\n  - docpact\n")
    (project / "docs" / "index.md").write_text(
        "# Home\n\n<!-- docpact: claim two-rows -->\nText.\n", encoding="utf-8"
    )
    config = load_mkdocs_config(str(project / "mkdocs.yml"), site_dir=str(tmp_path / "out"))
    with caplog.at_level(logging.ERROR), pytest.raises(Abort, match="Aborted with a BuildError"):
        build(config)
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert [m for m in logged if m.startswith("docpact: docs/index.md:3: ")], logged
    assert logged[-1] == "docpact: 2 errors; the strict build stops before any page is built"
    assert not (tmp_path / "out" / "index.html").exists()


def test_the_plugin_logs_each_finding_of_a_build_once_as_an_error(tmp_path, caplog) -> None:
    """A contract its checker checked while the pages were built is not checked again."""
    from docpact._registry import check_contract

    plugin, config = _plugin(_project(tmp_path))
    analysis = _analysis(plugin)
    found = check_contract(analysis.contract, config=plugin._project, package=None)
    assert len(found) == 1  # test_one_row was never reviewed
    plugin.on_pre_build(config=config)
    plugin.checker.checked.append(analysis.contract)  # as when a page loaded a package
    plugin.checker.findings.extend(found)
    with caplog.at_level("WARNING", logger="mkdocs.plugins.docpact"):
        plugin.on_post_build(config=config)
    messages = [(record.levelname, record.getMessage()) for record in caplog.records]
    assert messages == [("ERROR", f"docpact: {found[0]}")]
    caplog.clear()
    plugin.on_pre_build(config=config)  # the next build checks it at its end
    with caplog.at_level("WARNING", logger="mkdocs.plugins.docpact"):
        plugin.on_post_build(config=config)
    messages = [(record.levelname, record.getMessage()) for record in caplog.records]
    assert messages == [("ERROR", f"docpact: {found[0]}")]


def test_the_box_of_an_unbound_claim_ends_saying_no_property_checks_it(tmp_path) -> None:
    project = _project(tmp_path)
    assert _render(project, "<!-- docpact: claim two-rows -->\nTwo rows.\n") == (
        '!!! docpact-claim docpact-unknown "Claim two-rows"\n\n'
        "    Two rows.\n\n"
        '    <span class="docpact-claim-check" data-state="unbound">No property checks this claim '
        "yet.</span>\n"
    )


def test_a_less_indented_line_of_an_indented_claim_joins_the_box_at_its_indent(tmp_path) -> None:
    """A lazy continuation line, indented less than the marker, loses its indent in the box."""
    project = _project(tmp_path)
    markdown = "- item\n\n    <!-- docpact: claim one-row -->\n    A rollout\n  carries 1.\n"
    assert _render(project, markdown) == (
        "- item\n\n"
        '    !!! docpact-claim docpact-unknown "Claim one-row"\n\n'
        "        A rollout\n"
        "        carries 1.\n\n"
        f"        {NOT_RUN}</span>\n"
    )


def _html(markdown: str) -> str:
    """The HTML that Markdown, with the admonition extension, makes of a rendered page."""
    import markdown as md

    return md.markdown(markdown, extensions=["admonition"])


def test_a_title_shows_as_written_not_as_markdown_or_html(tmp_path) -> None:
    project = _project(tmp_path)
    title = "A <b>bold</b> *claim* & [a link](x) `code` $x$ _u_ \\ one-row, 1.5"
    rendered = _render(project, f'<!-- docpact: claim one-row "{title}" -->\nText.\n')
    (shown,) = re.findall(r'<p class="admonition-title">(.*?)</p>', _html(rendered))
    assert "<" not in shown
    assert html.unescape(shown) == title


def test_the_check_line_shows_paths_and_names_as_written(tmp_path) -> None:
    """A property file named with HTML and a backtick shows them as text, in code spans."""
    project = _project(tmp_path)
    (project / "tests" / "test_props.py").rename(project / "tests" / "test_<i>`x.py")
    built = _html(_render(project, "<!-- docpact: claim one-row -->\nText.\n"))
    assert "<i>" not in built
    codes = [html.unescape(code) for code in re.findall(r"<code>(.*?)</code>", built)]
    assert codes == [
        "test_one_row",
        "tests/test_<i>`x.py",
        "pytest tests/test_<i>`x.py::test_one_row",
    ]


def test_a_run_with_uncommitted_changes_shows_as_such(tmp_path) -> None:
    from docpact.claims._boxes import _result
    from docpact.claims._results import Run, State

    plugin, _ = _plugin(_project(tmp_path))
    (binding,) = _analysis(plugin).bindings
    run = Run(
        "r.json", "", "1" * 40, True, {(binding.path, binding.node): (binding.code, "passed")}
    )
    line = _result(binding, State("stale", run), _analysis(plugin))
    assert line == (
        "Not run on this commit: `test_one_row` in `tests/test_props.py` checks it; it last ran "
        "in pytest on commit `111111111111` with uncommitted changes."
    )


def _luminance(colour: tuple[float, float, float]) -> float:
    """WCAG's relative luminance of an sRGB colour, each channel 0 to 255."""
    linear = [
        c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4
        for c in colour
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(one: tuple[float, ...], other: tuple[float, ...]) -> float:
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _hex(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


# Material's box backgrounds: white, and slate's hsl(225deg 15% 14%) (--md-hue 225deg).
_BACKGROUNDS = {"default": (255, 255, 255), "slate": (30, 33, 41)}


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_the_failed_red_has_4_5_to_1_contrast_in_both_palettes(scheme: str) -> None:
    """Against the box's background and its title's tint of the red, in either palette."""
    prefix = '[data-md-color-scheme="slate"] ' if scheme == "slate" else ""
    rule = re.escape(f"{prefix}.docpact-claim.docpact-failed > .admonition-title")
    icon = re.search(rf"(?m)^{rule}::before {{\n  background-color: (#\w+);", _CSS)[1]
    border = re.search(
        rf"(?m)^{re.escape(prefix)}\.admonition\.docpact-claim\.docpact-failed {{\n"
        r"  border-color: (#\w+);",
        _CSS,
    )[1]
    tint = re.search(rf"(?m)^{rule} {{\n  background-color: rgb\((\d+) (\d+) (\d+) / 10%\);", _CSS)
    background = _BACKGROUNDS[scheme]
    tinted = tuple(0.1 * int(c) + 0.9 * b for c, b in zip(tint.groups(), background, strict=True))
    assert icon == border
    assert _contrast(_hex(icon), background) >= 4.5
    assert _contrast(_hex(icon), tinted) >= 4.5
