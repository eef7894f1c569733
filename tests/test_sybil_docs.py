# SPDX-License-Identifier: MIT
"""docpact's Sybil parsers on sample pages: examples collected, run, skipped and compared."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from unittest import SkipTest

import pytest
from sybil import Document
from sybil.example import SybilFailure

from docpact.sybil import docs_sybil

REPO = Path(__file__).resolve().parent.parent
SAMPLE = Path(__file__).resolve().parent / "samples" / "sybil_project"


def parse(page: str) -> Document:
    return docs_sybil(root=SAMPLE).parse(SAMPLE / "docs" / page)


def run(document: Document) -> list[str]:
    outcomes = []
    for example in document:
        try:
            example.evaluate()
        except SkipTest as skip:
            outcomes.append(f"skipped: {skip}")
        except SybilFailure as failure:
            outcomes.append(f"failed: {failure.result}")
        else:
            outcomes.append("passed")
    return outcomes


def test_every_example_of_a_page_is_collected_and_run() -> None:
    """Doctest lines, plain blocks, the skip, the namespace clearing and the yaml block."""
    assert run(parse("examples.md")) == [
        "passed",  # >>> total = 1 + 2
        "passed",  # >>> total
        "passed",  # the plain block
        "passed",  # skip: next
        "skipped: needs a GPU",
        "passed",  # clear-namespace
        "passed",  # the block that needs a clear namespace
        "passed",  # config-defaults
    ]


def test_a_drifted_yaml_block_names_its_line_and_every_differing_key() -> None:
    [outcome] = run(parse("drifted.md"))
    assert outcome == (
        "failed: docs/drifted.md:3: the yaml block differs from conf/defaults.yaml:\n"
        "  retention.enabled: the docs have 1, conf/defaults.yaml has True\n"
        "  trainer.epochs: the docs have 2, conf/defaults.yaml has 1\n"
        "  trainer.seed: missing from the docs (conf/defaults.yaml has None)\n"
        "  trainer.warmup: not in conf/defaults.yaml (the docs have 10)"
    )


def test_a_skip_without_a_reason_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"unreasoned_skip\.md:3: skip: next needs a reason"):
        parse("unreasoned_skip.md")


def test_a_config_defaults_comment_needs_its_yaml_block() -> None:
    with pytest.raises(ValueError, match=r"lonely_directive\.md:3: docpact: config-defaults must"):
        parse("lonely_directive.md")


def test_the_root_defaults_to_the_callers_project() -> None:
    assert docs_sybil().path == REPO / "docs"


def test_pages_run_under_pytest_with_reasons_and_differences_reported(tmp_path: Path) -> None:
    project = Path(shutil.copytree(SAMPLE, tmp_path / "project"))
    for page in ("unreasoned_skip.md", "lonely_directive.md"):
        (project / "docs" / page).unlink()
    (project / "conftest.py").write_text(
        "from docpact.sybil import docs_sybil\n\npytest_collect_file = docs_sybil().pytest()\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "docs"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stdout
    assert "1 failed, 7 passed, 1 skipped" in result.stdout
    assert "needs a GPU" in result.stdout
    assert "trainer.warmup: not in conf/defaults.yaml (the docs have 10)" in result.stdout
