# SPDX-License-Identifier: MIT
"""docpact's Sybil parsers on sample pages: examples collected, run, skipped and compared."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from unittest import SkipTest

import pytest
from sybil import Document
from sybil.example import SybilFailure

from docpact import DocpactError
from docpact.sybil import docs_sybil
from samples.drift import copy_project, drift, line_of

REPO = Path(__file__).resolve().parents[2]
SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "sybil_project"


def parse(page: str, root: Path = SAMPLE) -> Document:
    """The page as Sybil's pytest plugin prepares it: parsed, then its namespace set up."""
    sybil = docs_sybil(root=root)
    document = sybil.parse(root / "docs" / page)
    sybil.setup(document.namespace)
    return document


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


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project("sybil_project", tmp_path)


DIRECTIVE = "<!-- docpact: config-defaults conf/defaults.yaml -->"
BAD_DIRECTIVES = {
    "no path": (
        "<!-- docpact: config-defaults -->",
        r"examples\.md:31: docpact: config-defaults needs a file path, for example",
    ),
    "two paths": (
        "<!-- docpact: config-defaults a.yaml b.yaml -->",
        r"examples\.md:31: docpact: config-defaults takes one file path, got a\.yaml b\.yaml",
    ),
    "misspelt": (
        "<!-- docpact: config-default conf/defaults.yaml -->",
        r"examples\.md:31: unknown docpact directive 'config-default'; "
        r"known directives: claim, config-defaults, console, not-a-claim",
    ),
    "empty": ("<!-- docpact: -->", r"examples\.md:31: unknown docpact directive ''"),
}


@pytest.mark.parametrize(("comment", "error"), BAD_DIRECTIVES.values(), ids=BAD_DIRECTIVES.keys())
def test_a_malformed_docpact_directive_is_an_error_naming_page_and_line(
    project: Path, comment: str, error: str
) -> None:
    drift(project / "docs" / "examples.md", DIRECTIVE, comment)
    assert line_of(project / "docs" / "examples.md", comment) == 31
    with pytest.raises(ValueError, match=error):
        parse("examples.md", root=project)


BAD_FILES = {
    "invalid YAML": (
        b"trainer: [1,\n",
        "conf/defaults.yaml is not valid YAML: while parsing a flow node",
    ),
    "not UTF-8": (
        b"trainer: \xff\n",
        "conf/defaults.yaml cannot be read: not UTF-8 at line 1 (invalid start byte)",
    ),
    "integer too long": (
        b"trainer:\n  epochs: " + b"9" * 5000 + b"\n",
        "conf/defaults.yaml, line 2, has an integer of 5000 digits, over Python's limit of 4300",
    ),
    "nested too deep": (
        b"trainer: " + b"[" * 150 + b"]" * 150 + b"\n",
        "conf/defaults.yaml, line 1, nests deeper than 100 levels, its aliases expanded",
    ),
}


@pytest.mark.parametrize(("data", "message"), BAD_FILES.values(), ids=BAD_FILES.keys())
def test_an_unreadable_defaults_file_fails_its_example_naming_the_file(
    project: Path, data: bytes, message: str
) -> None:
    (project / "conf" / "defaults.yaml").write_bytes(data)
    outcome = run(parse("examples.md", root=project))[-1]
    assert outcome.startswith(f"failed: docs/examples.md:31: {message}")


def test_the_root_defaults_to_the_project_of_the_current_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without a root, the nearest pyproject.toml from the current folder up names it."""
    monkeypatch.chdir(SAMPLE / "docs")
    assert docs_sybil().path == SAMPLE / "docs"
    monkeypatch.chdir(REPO)
    assert docs_sybil().path == REPO / "docs"


def test_pages_run_under_pytest_with_reasons_and_differences_reported(project: Path) -> None:
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
    assert "1 failed, 13 passed, 3 skipped" in result.stdout
    assert "needs a GPU" in result.stdout
    assert "trainer.warmup: not in conf/defaults.yaml (the docs have 10)" in result.stdout


def test_skip_conditions_can_ask_whether_a_module_is_importable() -> None:
    """`importable` is in every page's namespace, also after a clear-namespace directive."""
    assert run(parse("conditional_skip.md")) == [
        "passed",  # skip: next if(not importable("a_module_that_is_not_there")...
        "skipped: needs a_module_that_is_not_there",
        "passed",  # skip: next if(not importable("json")...
        "passed",
        "passed",
        "passed",  # clear-namespace
        "passed",  # skip: next if(not importable("no_such.submodule")...
        "skipped: needs no_such.submodule",
    ]


def test_a_setup_of_ones_own_runs_after_the_conditions_are_added() -> None:
    """docs_sybil(setup=...) keeps `importable` and runs the caller's setup too."""
    seen = {}
    sybil = docs_sybil(root=SAMPLE, setup=lambda namespace: seen.update(namespace))
    document = sybil.parse(SAMPLE / "docs" / "conditional_skip.md")
    sybil.setup(document.namespace)
    assert seen["importable"]("json") is True
    assert seen["importable"]("no_such.submodule") is False


def test_a_skip_start_without_a_reason_is_an_error_at_its_line(project: Path) -> None:
    """The line counts from a page's first line, even a blank one."""
    (project / "docs" / "page.md").write_text("\n# Page\n\n<!-- skip: start -->\n", "utf-8")
    message = (
        f"{project / 'docs' / 'page.md'}:4: skip: start needs a reason, "
        'for example <!-- skip: start "needs a GPU" -->'
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse("page.md", root=project)


def test_a_lonely_directive_on_a_page_opening_with_a_blank_line_is_at_its_line(
    project: Path,
) -> None:
    (project / "docs" / "page.md").write_text(
        "\n<!-- docpact: config-defaults conf/defaults.yaml -->\n\nNo block.\n", "utf-8"
    )
    with pytest.raises(ValueError, match=r"page\.md:2: docpact: config-defaults must be followed"):
        parse("page.md", root=project)


def test_a_missing_docs_folder_is_an_error_naming_folder_root_and_path(tmp_path: Path) -> None:
    with pytest.raises(DocpactError) as error:
        docs_sybil("pages", root=tmp_path)
    assert str(error.value) == (
        f"docs_sybil: the docs folder {tmp_path / 'pages'} does not exist "
        f"(root {tmp_path}, path pages)"
    )


def test_a_pages_namespace_is_cleared_after_it_unless_told_otherwise() -> None:
    namespace = {"total": 3}
    docs_sybil(root=SAMPLE).teardown(namespace)
    assert namespace == {}
    kept = {"total": 3}
    docs_sybil(root=SAMPLE, teardown=lambda namespace: None).teardown(kept)
    assert kept == {"total": 3}


def test_the_pages_are_the_files_that_match_the_patterns() -> None:
    assert docs_sybil(root=SAMPLE).patterns == ["*.md"]
    assert docs_sybil(root=SAMPLE, patterns=("*.txt", "*.rst")).patterns == ["*.txt", "*.rst"]


FENCE_FORMS = [
    'python title="example.py"',
    'python {title="example.py"}',
    "{.python}",
    '{ .python title="example.py" }',
    'python linenums="1"',
    "py",
]


@pytest.mark.parametrize("info", FENCE_FORMS)
def test_a_python_fence_with_attributes_is_collected_and_run(project: Path, info: str) -> None:
    """Each form runs as code: a failing assertion in it fails its one example."""
    (project / "docs" / "page.md").write_text(f"```{info}\nassert 1 == 2\n```\n", "utf-8")
    [example] = parse("page.md", root=project)
    with pytest.raises(AssertionError):
        example.evaluate()


def test_a_pycon_fence_runs_its_prompts_as_a_doctest(project: Path) -> None:
    """Each `>>>` of a pycon fence is an example whose output is compared."""
    (project / "docs" / "page.md").write_text(
        "```pycon\n>>> total = 1 + 2\n>>> total\n4\n```\n", "utf-8"
    )
    assert run(parse("page.md", root=project)) == [
        "passed",
        "failed: Expected:\n    4\nGot:\n    3\n",
    ]
