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
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

from docpact.sybil import docs_sybil, importable
from docpact.sybil._console import ConsoleParser, copy_tree

ROOT = Path(__file__).resolve().parents[1]
CONFIG = "rolloutnorm/src/rolloutnorm/config.yaml"
DOCS = ROOT / "docs"
PAGES = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
NUMBER = re.compile(r"\d+")
# Fences in these languages are data or shell, never run; any other fence must be collected.
NOT_RUN = frozenset({"yaml", "toml", "text", "console", "bash", "shell", "json", "markdown"})
FENCE_INFO = re.compile(r"(?P<info>[^`\n]*)$\n", re.MULTILINE)

# Per page: the fences and the examples Sybil collects (a doctest block holds several). A page
# that gains or loses an example updates this on purpose; a parser change that silently
# collects less fails here.
COLLECTED = {
    "adopt.md": (0, 0),
    "explain.md": (13, 9),
    "index.md": (2, 3),
    "reference/claims.md": (7, 37),
    "reference/contracts.md": (15, 52),
    "reference/docpact.md": (0, 0),
    "reference/rolloutnorm.md": (0, 0),
    "trainer-configuration.md": (22, 94),
    "verification.md": (2, 1),
    "verl-actor-update.md": (0, 0),
    "verl.md": (11, 49),
}
# Per page: the console blocks that show commands and their output, each run by the tests.
CONSOLE = {"explain.md": 9, "reference/contracts.md": 1, "verification.md": 1}
# The examples that need verl: skipped with this reason, and this many of them, unless verl
# is installed (in the `verl` session, where every one of them runs).
NEEDS_VERL = {
    "trainer-configuration.md": ("needs verl, which only the verl session installs", 6),
    "verl.md": ("needs verl: python3 -m nox -s verl runs it", 43),
}
# The examples skipped everywhere, because a test runs them another way.
RUN_ELSEWHERE = {
    # tests/rolloutnorm/verl_session/test_verl_plugin.py imports it through verl.
    "verl.md": ["a trainer module: the verl session imports it from this page in a fresh process"],
}


def _fences(page: Path) -> list[tuple[int, int, str]]:
    """Every fenced block of a page, whatever its info string, as (start, end, info)."""
    document = Document(page.read_text("utf-8"), str(page))
    lexer = RawFencedCodeBlockLexer(info_pattern=FENCE_INFO, mapping={"info": "info"})
    return [(region.start, region.end, region.lexemes["info"]) for region in lexer(document)]


def _uncollected(root: Path, page: Path) -> list[tuple[int, str]]:
    """(line, info) of every fence that is neither data nor collected by the docs' Sybil."""
    text = page.read_text("utf-8")
    starts = [example.region.start for example in docs_sybil("docs", root=root).parse(page)]
    return [
        (text.count("\n", 0, start) + 1, info)
        for start, end, info in _fences(page)
        if info.strip().lower() not in NOT_RUN and not any(start <= s < end for s in starts)
    ]


def _run_page(root: Path, page: str, skipped: list[str] | None = None) -> list[str]:
    """Evaluate every example of a page under `root` in order; return the failure messages.

    The reasons of skipped examples are appended to ``skipped``, if given.
    """
    sybil = docs_sybil("docs", root=root)
    document = sybil.parse(root / "docs" / page)
    sybil.setup(document.namespace)  # as Sybil's pytest plugin does
    failures = []
    for example in document.examples():
        try:
            example.evaluate()
        except unittest.SkipTest as skip:
            if skipped is not None:
                skipped.append(str(skip))
        except SybilFailure as failure:
            failures.append(str(failure))
    return failures


def _copy_project(tmp_path: Path) -> Path:
    """The docs and the packaged config, where the Sybil of the docs looks for them."""
    shutil.copytree(DOCS, tmp_path / "docs")
    config = tmp_path / CONFIG
    config.parent.mkdir(parents=True)
    shutil.copy(ROOT / CONFIG, config)
    return tmp_path


def test_pinned_pages_are_the_pages_on_disk():
    """Every page under docs/ has pinned counts, and every pinned page exists."""
    assert sorted(COLLECTED) == PAGES


@pytest.mark.parametrize("page", PAGES)
def test_every_fence_is_collected_or_data(page):
    """Each fence of a page is data (yaml, toml...) or holds an example Sybil collects."""
    path = DOCS / page
    examples = list(docs_sybil("docs", root=ROOT).parse(path))
    assert (len(_fences(path)), len(examples)) == COLLECTED[page]
    assert _uncollected(ROOT, path) == []


@pytest.mark.parametrize("info", ["py3", "pyhton", "", '{title="x.py"}', "pycon"])
def test_a_fence_sybil_ignores_is_reported(tmp_path, info):
    """A fence Sybil does not collect (another spelling, no language, no `>>>` in pycon) fails."""
    root = _copy_project(tmp_path)
    page = root / "docs" / "index.md"
    page.write_text(page.read_text("utf-8") + f"\n```{info}\nassert False\n```\n")
    line = page.read_text("utf-8").count("\n") - 2
    assert _uncollected(root, page) == [(line, info)]


RUN = ConsoleParser.evaluate


@pytest.mark.parametrize("page", PAGES)
def test_every_console_block_with_output_is_run(page):
    """Each page's console blocks that show a `$ ` command are collected, to be run."""
    examples = list(docs_sybil("docs", root=ROOT).parse(DOCS / page))
    ran = [e for e in examples if getattr(e.region.evaluator, "__func__", None) is RUN]
    shown = [
        (start, end)
        for start, end, info in _fences(DOCS / page)
        if info.strip() == "console" and "\n$ " in (DOCS / page).read_text("utf-8")[start:end]
    ]
    assert len(ran) == len(shown) == CONSOLE.get(page, 0)


@pytest.mark.slow
def test_a_stale_count_in_a_console_block_fails_at_its_line(tmp_path):
    """The coverage count of verification.md, made stale on a copy, fails at the block's line.

    The page once printed 27 of 27 while `docpact coverage` printed 29 of 29.
    """
    copy_tree(ROOT, tmp_path / "repo")
    page = tmp_path / "repo" / "docs" / "verification.md"
    text = page.read_text("utf-8")
    stale = re.sub(r"coverage: (\d+) of \1 ", "coverage: 27 of 27 ", text)
    assert stale != text
    page.write_text(stale, "utf-8")
    fence = stale[: stale.index("coverage: 27 of 27")].rindex("```console")
    line = stale.count("\n", 0, fence) + 1
    failures = _run_page(tmp_path / "repo", "verification.md")
    assert len(failures) == 1
    assert f"{page}, line {line}, column 1 did not evaluate as expected" in failures[0]
    assert f"line {line + 1}: $ python3 -m docpact coverage" in failures[0]
    assert "coverage: 27 of 27 public objects" in failures[0]


def test_every_page_passes_as_written():
    """The pages as committed run without a failure."""
    for page in PAGES:
        assert _run_page(ROOT, page) == []


@pytest.mark.parametrize("page", PAGES)
def test_only_the_verl_examples_are_skipped_and_only_without_verl(page):
    """Without verl exactly the verl examples are skipped, with their reasons; with it, none.

    The examples that a test runs another way are skipped in both cases.
    """
    skipped: list[str] = []
    _run_page(ROOT, page, skipped)
    reason, count = NEEDS_VERL.get(page, ("", 0))
    expected = RUN_ELSEWHERE.get(page, []) + ([] if importable("verl") else [reason] * count)
    assert sorted(skipped) == sorted(expected)


def _printed_numbers(page: str) -> list[tuple[int, str]]:
    """(line number, line) of every doctest output line that prints a number.

    Where verl is not installed, the lines of the examples that need it are left out: they
    run, and their numbers are checked, in the verl session.
    """
    lines = (DOCS / page).read_text("utf-8").splitlines()
    found, in_python, in_output, needs_verl = [], False, False, False
    for number, line in enumerate(lines, start=1):
        if line.startswith("<!-- skip: start") and 'importable("verl")' in line:
            needs_verl = not importable("verl")
        elif line.startswith("<!-- skip: end"):
            needs_verl = False
        if needs_verl:
            continue
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
    config = root / CONFIG
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


# A page a reader finishes: at most this many words of prose (outside code, comments and
# math), with the snippets it includes (`--8<-- "FILE:SECTION"`) counted where they land.
MOST_WORDS = 2_500
SNIPPET = re.compile(r'[ \t]*--8<-- "(?P<file>[^":]+)(?::(?P<section>[\w-]+))?"[ \t]*')
WORD = re.compile(r"[A-Za-z0-9][\w'.-]*")


def _included(text: str) -> str:
    """A page's Markdown with each snippet line replaced by what it includes."""
    lines = []
    for line in text.split("\n"):
        match = SNIPPET.fullmatch(line)
        if match is None:
            lines.append(line)
            continue
        included = (ROOT / match["file"]).read_text(encoding="utf-8")
        if section := match["section"]:
            start = included.index(f"--8<-- [start:{section}]")
            included = included[included.index("\n", start) : included.index(f"[end:{section}]")]
        lines += included.split("\n")
    return "\n".join(lines)


def prose_words(page: Path) -> int:
    """The words of a page's prose: what a reader reads outside code blocks and comments."""
    from docpact._readers.markdown.prose import visible_prose

    prose = visible_prose(_included(page.read_text(encoding="utf-8")))
    return sum(len(WORD.findall(line)) for line in prose.values())


@pytest.mark.parametrize("page", PAGES)
def test_no_page_is_longer_than_a_reader_finishes(page: str) -> None:
    words = prose_words(DOCS / page)
    assert words <= MOST_WORDS, f"docs/{page} has {words} words of prose, over {MOST_WORDS}"


def test_the_word_count_leaves_code_comments_and_math_out(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "# Two words\n\nOne two three.\n\n```python\nnot = counted\n```\n\n<!-- hidden -->\n"
        "\n$$\nx = y\n$$\n",
        encoding="utf-8",
    )
    assert prose_words(page) == 5


@pytest.mark.parametrize("page", PAGES)
def test_a_shown_traceback_names_public_error_classes(page: str) -> None:
    """An exception a page shows is named where users import it, not by a private module."""
    text = (DOCS / page).read_text(encoding="utf-8")
    private = re.findall(r"^(?:\w+\.)*_\w+\.\w+(?:Error|Exception):", text, re.MULTILINE)
    assert private == [], f"docs/{page} shows {private}"


def test_the_public_error_is_named_by_its_public_module() -> None:
    from rolloutnorm import RolloutNormError

    assert f"{RolloutNormError.__module__}.{RolloutNormError.__qualname__}" == (
        "rolloutnorm.RolloutNormError"
    )
