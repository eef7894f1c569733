# SPDX-License-Identifier: MIT
"""The docs pages' examples: every Python fence is collected, and drift fails at its line."""

from __future__ import annotations

import re
import shutil
import unittest
from pathlib import Path

import pytest
from sybil import Document
from sybil.example import SybilFailure
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer

from docpact.sybil import docs_sybil

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
PYTHON_INFO = re.compile(r"(?:python3?|py|pycon)\b", re.IGNORECASE)
NUMBER = re.compile(r"\d+")

# Python fences per page: a page that gains or loses an example updates this on purpose.
PYTHON_FENCES = {
    "index.md": 2,
    "reference/docpact.md": 0,
    "reference/rolloutnorm.md": 0,
    "trainer-configuration.md": 16,
    "verification.md": 0,
}


def _python_fences(page: Path) -> list[tuple[int, int, str]]:
    """Every fenced block whose info string starts like Python, as (start, end, info)."""
    document = Document(page.read_text("utf-8"), str(page))
    lexer = FencedCodeBlockLexer(language=r".+")
    return [
        (region.start, region.end, region.lexemes["language"])
        for region in lexer(document)
        if PYTHON_INFO.match(region.lexemes["language"])
    ]


def _run_page(root: Path, page: str) -> list[str]:
    """Evaluate every example of a page under `root` in order; return the failure messages."""
    document = docs_sybil("docs", root=root).parse(root / "docs" / page)
    failures = []
    for example in document.examples():
        try:
            example.evaluate()
        except unittest.SkipTest:
            continue
        except SybilFailure as failure:
            failures.append(str(failure))
    return failures


def _copy_project(tmp_path: Path) -> Path:
    """The docs and the packaged config, where the Sybil of the docs looks for them."""
    shutil.copytree(DOCS, tmp_path / "docs")
    config = tmp_path / "src" / "rolloutnorm" / "config.yaml"
    config.parent.mkdir(parents=True)
    shutil.copy(ROOT / "src" / "rolloutnorm" / "config.yaml", config)
    return tmp_path


def test_pinned_pages_are_the_pages_on_disk():
    """Every page under docs/ has a pinned fence count, and every pinned page exists."""
    assert sorted(PYTHON_FENCES) == PAGES


@pytest.mark.parametrize("page", PAGES)
def test_every_python_fence_is_collected(page):
    """Each Python fence of a page holds at least one example Sybil collects (or skips)."""
    path = DOCS / page
    fences = _python_fences(path)
    assert len(fences) == PYTHON_FENCES[page]
    starts = [example.region.start for example in docs_sybil("docs", root=ROOT).parse(path)]
    for start, end, info in fences:
        line = path.read_text("utf-8").count("\n", 0, start) + 1
        assert any(start <= s < end for s in starts), (
            f"docs/{page}:{line}: the ```{info} fence is not collected: write it as ```python"
        )


def test_a_titled_python_fence_is_reported(tmp_path):
    """A fence written as python title="x.py", which Sybil ignores, fails the coverage check."""
    root = _copy_project(tmp_path)
    page = root / "docs" / "index.md"
    page.write_text(page.read_text("utf-8") + '\n```python title="x.py"\nassert False\n```\n')
    fences = _python_fences(page)
    starts = [example.region.start for example in docs_sybil("docs", root=root).parse(page)]
    uncollected = [info for start, end, info in fences if not any(start <= s < end for s in starts)]
    assert uncollected == ['python title="x.py"']


def test_every_page_passes_as_written():
    """The pages as committed run without a failure."""
    for page in PAGES:
        assert _run_page(ROOT, page) == []


def _printed_numbers(page: str) -> list[tuple[int, str]]:
    """(line number, line) of every doctest output line that prints a number."""
    lines = (DOCS / page).read_text("utf-8").splitlines()
    found, in_python, in_output = [], False, False
    for number, line in enumerate(lines, start=1):
        if line.startswith("```"):
            in_python, in_output = line == "```python", False
            continue
        if not in_python:
            continue
        if line.startswith((">>> ", "... ")):
            in_output = True
        elif in_output and line.strip() and NUMBER.search(line) and "Traceback" not in line:
            found.append((number, line))
    return found


@pytest.mark.parametrize(
    ("page", "line_number", "line"),
    [
        (page, *printed)
        for page in ("index.md", "trainer-configuration.md")
        for printed in _printed_numbers(page)
    ],
)
def test_changing_a_printed_number_fails_at_its_example(tmp_path, page, line_number, line):
    """Bumping any number a page prints fails that page's example, naming path and line."""
    root = _copy_project(tmp_path)
    path = root / "docs" / page
    lines = path.read_text("utf-8").splitlines(keepends=True)
    match = NUMBER.search(line)
    digit = str((int(line[match.end() - 1]) + 1) % 10)
    lines[line_number - 1] = line[: match.end() - 1] + digit + line[match.end() :] + "\n"
    path.write_text("".join(lines))
    failures = _run_page(root, page)
    assert len(failures) == 1
    assert f"{path}, line " in failures[0]
    assert "did not evaluate as expected" in failures[0] or "Expected" in failures[0]


def test_changing_a_packaged_default_fails_the_docs_block(tmp_path):
    """A default changed in config.yaml only fails the page's config-defaults block."""
    root = _copy_project(tmp_path)
    config = root / "src" / "rolloutnorm" / "config.yaml"
    config.write_text(config.read_text("utf-8").replace("ppo_epochs: 1", "ppo_epochs: 2"))
    failures = _run_page(root, "trainer-configuration.md")
    assert len(failures) == 1
    assert f"{root / 'docs' / 'trainer-configuration.md'}, line " in failures[0]
    assert "actor_rollout_ref.actor.ppo_epochs" in failures[0]


def test_changing_a_default_in_the_docs_block_fails_it(tmp_path):
    """A default changed in the page's YAML block only fails that block."""
    root = _copy_project(tmp_path)
    page = root / "docs" / "trainer-configuration.md"
    page.write_text(page.read_text("utf-8").replace("retention_seed: 0", "retention_seed: 1", 1))
    failures = _run_page(root, "trainer-configuration.md")
    assert len(failures) == 1
    assert "rolloutnorm.retention_seed" in failures[0]
