# SPDX-License-Identifier: MIT
"""docpact's gate under Zensical, without Zensical: its command line read, its output.

tests/builders runs the real builds in `nox -s builders`. These tests run everywhere: how
`zensical build`'s command line is read (which decides a strict build and the project's
folder), how findings are printed once and end a strict build, and the Markdown
extension's check, page matching and boxes, in a process that poses as Zensical's.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import markdown
import pytest

from docpact import _builders, _markdown
from docpact._model.findings import Finding
from samples.drift import copy_project, drift

PAGE = "docs/20-trainer-configuration.md"


@pytest.mark.parametrize(
    ("argv", "command", "config", "strict"),
    [
        (["zensical", "build", "--strict"], "build", "", True),
        (["zensical", "build", "-s"], "build", "", True),
        (["zensical", "build", "-cs"], "build", "", True),
        (["zensical", "build", "-sfdocs/mkdocs.yml"], "build", "docs/mkdocs.yml", True),
        (["zensical", "build", "-fs"], "build", "s", False),  # -f takes `s` as its file
        (["zensical", "build", "-cf", "a.yml"], "build", "a.yml", False),
        (["zensical", "build", "--config-file=a.yml", "--clean"], "build", "a.yml", False),
        (["zensical", "build", "--config-file", "-s"], "build", "-s", False),
        (["zensical", "serve", "-f", "build", "-s"], "serve", "build", True),
        (["zensical", "serve", "-adev.fqdn:8000"], "serve", "", False),
        (["zensical", "serve", "-a", "-s", "-of", "x.yml"], "serve", "x.yml", False),
        (["zensical", "--version"], "", "", False),
    ],
)
def test_zensicals_command_line_is_read_as_click_reads_it(
    argv: list[str], command: str, config: str, strict: bool
) -> None:
    assert _builders.zensical_command(argv) == (command, config, strict)


def test_a_strict_build_is_zensicals_build_command_with_strict_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Importing zensical (a test run) makes no build; serve's -s is no strict build."""
    monkeypatch.delitem(sys.modules, "zensical", raising=False)
    assert not _builders.strict_zensical_build(["zensical", "build", "-s"])
    monkeypatch.setitem(sys.modules, "zensical", types.ModuleType("zensical"))
    assert _builders.strict_zensical_build(["/venv/bin/zensical", "build", "-s"])
    assert _builders.strict_zensical_build(["/site/zensical/__main__.py", "build", "-s"])
    assert _builders.strict_zensical_build(["/nix/bin/.zensical-wrapped", "build", "-s"])
    assert not _builders.strict_zensical_build(["/venv/bin/pytest", "build", "-s"])
    assert not _builders.strict_zensical_build(["/venv/bin/zensical", "serve", "-s"])
    assert not _builders.strict_zensical_build(["/venv/bin/zensical", "build"])


@pytest.fixture
def zensical(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A copy of the fixture adopter, and a process posing as `zensical build` in it."""
    project = copy_project("adopter_project", tmp_path)
    monkeypatch.chdir(project)
    monkeypatch.setitem(sys.modules, "zensical", types.ModuleType("zensical"))
    monkeypatch.setattr(sys, "argv", ["/venv/bin/zensical", "build"])
    monkeypatch.setattr(_builders, "_PRINTED", set())
    monkeypatch.setattr(_builders, "_STATE", {"key": None})
    monkeypatch.setattr(_markdown, "_GATES", {})
    return project


def _render(project: Path, page: str = PAGE) -> str:
    """A page rendered as Zensical renders it: a new Markdown per page, front matter out."""
    text = (project / page).read_text("utf-8")
    renderer = markdown.Markdown(extensions=["admonition", "docpact"])
    return renderer.convert(text)


def test_the_first_page_checks_each_later_one_reuses_it_and_an_edit_checks_again(
    zensical: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = []
    check = _markdown.check_project
    monkeypatch.setattr(_markdown, "check_project", lambda c: checks.append(1) or check(c))
    html = _render(zensical)
    _render(zensical, "docs/00-index.md")
    assert (len(checks), capsys.readouterr().err) == (1, "")  # clean: nothing printed
    assert 'class="admonition docpact-claim docpact-unknown"' in html
    assert html.count("<style>") == 1
    drift(zensical / "agentrl" / "loss.py", "rollout_token_counts[rid] * num_trained_rows", "1")
    _render(zensical, "docs/00-index.md")
    _render(zensical, "docs/00-index.md")
    printed = capsys.readouterr().err.splitlines()
    assert len(checks) == 2
    assert printed
    assert all(line.startswith("docpact: ") for line in printed)
    assert len(printed) == len(set(printed))  # each finding once, whatever renders it
    assert any(line.startswith("docpact: agentrl/loss.py:") for line in printed)


def test_a_new_file_under_the_paths_is_read_by_the_next_check(
    zensical: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = []
    check = _markdown.check_project
    monkeypatch.setattr(_markdown, "check_project", lambda c: checks.append(1) or check(c))
    _render(zensical)
    (zensical / "agentrl" / "extra.py").write_text("X = 1\n", "utf-8")
    _render(zensical)
    (zensical / "agentrl" / "extra.py").unlink()
    _render(zensical)
    assert len(checks) == 3


def test_a_strict_build_ends_at_the_first_error_with_its_findings_and_status_1(
    zensical: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["/venv/bin/zensical", "build", "--strict"])
    exits = []
    monkeypatch.setattr(os, "_exit", lambda status: exits.append(status) or _stop())
    drift(zensical / "agentrl" / "loss.py", "rollout_token_counts[rid] * num_trained_rows", "1")
    with pytest.raises(_Stopped):
        _render(zensical)
    err = capsys.readouterr().err
    assert exits == [1]
    assert "docpact: agentrl/loss.py:" in err
    assert err.splitlines()[-1].endswith("the strict build stops before this page is written")
    assert "Traceback" not in err


def test_a_warning_ends_no_strict_build(
    zensical: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["/venv/bin/zensical", "build", "-s"])
    monkeypatch.setattr(os, "_exit", lambda status: pytest.fail(f"exited {status}"))
    _builders.report([Finding("a.py", 3, "DP019", "suspect", severity="warning")], key="k")
    assert capsys.readouterr().err == "docpact: a.py:3: warning: DP019 suspect\n"


def test_a_page_is_found_by_its_text_with_yaml_or_multimarkdown_metadata(zensical: Path) -> None:
    """Zensical leaves YAML front matter out of what it renders, and MultiMarkdown's in."""
    page = zensical / PAGE
    body = page.read_text("utf-8")
    gate = _markdown._gate("")
    assert gate is not None
    for metadata in ("---\ntitle: Trainer\n---\n", "Status: draft\n\n"):
        page.write_text(metadata + body, "utf-8")
        gate.bodies.clear()
        shown = body if metadata.startswith("---") else page.read_text("utf-8")
        assert gate.page_of(shown) == PAGE
        assert gate.page_of(shown + "\nmore") is None


def test_outside_zensical_the_extension_does_nothing(
    zensical: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MkDocs makes the listed extensions while it reads mkdocs.yml: the plugin checks."""
    monkeypatch.setattr(sys, "argv", ["/venv/bin/mkdocs", "build", "--strict"])
    monkeypatch.setattr(_markdown, "check_project", lambda config: pytest.fail("checked"))
    html = _render(zensical)
    assert "docpact-claim" not in html


def test_a_pyproject_is_found_from_the_configurations_folder(
    zensical: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`zensical build -f project/mkdocs.yml` from another folder checks that project."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(
        sys, "argv", ["/venv/bin/zensical", "build", "-f", str(zensical / "mkdocs.yml")]
    )
    gate = _markdown._gate("")
    assert gate is not None
    assert gate.pyproject == zensical / "pyproject.toml"
    assert _markdown._gate("pyproject.toml").pyproject == zensical / "pyproject.toml"


class _Stopped(Exception):
    """What the fake `os._exit` raises: the process would have ended there."""


def _stop() -> None:
    raise _Stopped
