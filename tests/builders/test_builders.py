# SPDX-License-Identifier: MIT
"""docpact's gate under each site builder: MkDocs 1.6, ProperDocs and Zensical 0.0.x.

This repository's site and the fixture adopter's are built, strict, in copies: clean, each
passes every builder; with a drift of a docstring, of a page or of the code, each builder
exits non-zero and names the file at fault (`path:line`). Under Zensical the builds keep
its cache between the drifts, as a developer's do: the code drift fails a `--clean` build
and the build made right after a clean one. Zensical renders nothing again for an edit of
`pyproject.toml` alone, nor for an edit of a Python file of a package at the project root
(it watches the files under mkdocstrings' `paths` but the root): there no check runs, and
the recipe of docs/adopt.md, `docpact check` before the build, fails in its place.

The builders run with `nox -s builders`, whose environment installs them (pinned in
constraints/cpu.txt); elsewhere the module is skipped.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("zensical", reason="the builders run in nox -s builders")
pytest.importorskip("properdocs", reason="the builders run in nox -s builders")

from docpact._readers.files import copy_files, git_files

ROOT = Path(__file__).resolve().parents[2]
ADOPTER = ROOT / "tests" / "samples" / "adopter_project"
README = ROOT / "src" / "docpact" / "README.md"  # docs/adopt.md includes it
BUILDERS = ("mkdocs", "properdocs", "zensical")

# Each project's drifts: the edits, and the finding that names the file at fault.
REPOSITORY_DRIFTS = {
    "docstring": (
        "rolloutnorm/src/rolloutnorm/_normalize.py",
        "``max(1, rollout_token_count(r) * num_trained_rows)``",
        "``max(1, rollout_token_count(r) + num_trained_rows)``",
        "rolloutnorm/src/rolloutnorm/_normalize.py:26",
    ),
    "page": (
        "docs/trainer-configuration.md",
        r"\mathrm{rollout\_token\_count}(r) \cdot \mathrm{num\_trained\_rows}\right)}",
        r"\mathrm{rollout\_token\_count}(r) + \mathrm{num\_trained\_rows}\right)}",
        "docs/trainer-configuration.md:29",
    ),
    "code": (
        "rolloutnorm/src/rolloutnorm/_normalize.py",
        "torch.clamp(rollout_token_count * num_trained_rows, min=1)",
        "torch.clamp(rollout_token_count, min=1)",
        "rolloutnorm/src/rolloutnorm/_normalize.py:95",
    ),
}
ADOPTER_DRIFTS = {
    "docstring": (
        "agentrl/loss.py",
        "``rollout_token_count(r) * num_trained_rows``",
        "``rollout_token_count(r) + num_trained_rows``",
        "agentrl/loss.py:16",
    ),
    "page": (
        "docs/20-trainer-configuration.md",
        "`rollout_token_count * num_trained_rows`",
        "`rollout_token_count + num_trained_rows`",
        "docs/20-trainer-configuration.md:7",
    ),
    "code": (
        "agentrl/loss.py",
        "rollout_token_counts[rid] * num_trained_rows",
        "num_trained_rows",
        "agentrl/loss.py:33",
    ),
}
# Whether Zensical renders the pages again when a Python file of the project changes: it
# watches the files under mkdocstrings' `paths`, except a path that is the project root.
WATCHED = {"repository": True, "adopter": False}
# An edit of the contracts alone: a docs section that no page has.
PYPROJECT_DRIFTS = {
    "repository": (
        'docs = ["docs/trainer-configuration.md#per-rollout-mean-loss"]',
        'docs = ["docs/trainer-configuration.md#no-such-section"]',
    ),
    "adopter": (
        'docs = ["docs/20-trainer-configuration.md#per-rollout_mean_loss"]',
        'docs = ["docs/20-trainer-configuration.md#no-such-section"]',
    ),
}


def _copy(name: str, destination: Path) -> Path:
    """A copy of this repository's tracked files, or of the fixture adopter."""
    if name == "repository":
        names = git_files(ROOT)
        assert names is not None, "the builders test copies a git checkout"
        copy_files(ROOT, names, destination)
    else:
        shutil.copytree(ADOPTER, destination)
    return destination


def _build(
    builder: str, tree: Path, *, clean: bool = False, strict: bool = True
) -> tuple[int, str]:
    """Build the copy's site, strict by default: the exit status, and what was printed."""
    options = [*(["--strict"] if strict else []), *(["--clean"] if clean else [])]
    if builder != "zensical":
        options = [*options, "--site-dir", f"_{builder}"]
    done = subprocess.run(
        [sys.executable, "-m", builder, "build", *options],
        cwd=tree,
        env=_env(tree),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    return done.returncode, output


def _env(tree: Path) -> dict[str, str]:
    """This environment's, with the copy's own docpact and packages before the installed ones."""
    sources = os.pathsep.join(str(tree / path) for path in ("src", "rolloutnorm/src", "."))
    env = os.environ | {"PYTHONPATH": sources, "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"}
    env["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), env.get("PATH", "")))
    return env


def _edit(path: Path, old: str, new: str, whole: str = "") -> None:
    """Replace the one `old` of a file, or write it `whole`, in a later second than before.

    Zensical compares the modification times of the Python files it watches in whole
    seconds: two edits in one second would look like none.
    """
    text = path.read_text("utf-8")
    assert whole or text.count(old) == 1, f"{path}: {old!r} is not there once"
    time.sleep(1.05 - time.time() % 1)
    path.write_text(whole or text.replace(old, new), "utf-8")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("project", "drifts"),
    [("repository", REPOSITORY_DRIFTS), ("adopter", ADOPTER_DRIFTS)],
)
def test_every_builder_passes_the_clean_copy_and_fails_each_drift_naming_its_file(
    tmp_path: Path, project: str, drifts: dict[str, tuple[str, str, str, str]]
) -> None:
    tree = _copy(project, tmp_path / project)
    for builder in BUILDERS:
        status, output = _build(builder, tree, clean=True)
        assert status == 0, f"{builder} fails the clean {project}:\n{output[-3000:]}"
        assert "docpact:" not in output, output
    for name, (path, old, new, at) in drifts.items():
        original = (tree / path).read_text("utf-8")
        _edit(tree / path, old, new)
        for builder in BUILDERS:  # Zensical's build right after a clean one: its cache kept
            status, output = _build(builder, tree)
            if builder == "zensical" and path.endswith(".py") and not WATCHED[project]:
                assert (status, output.count("docpact:")) == (0, 0), output[-3000:]
                status, output = _run_recipe(tree)  # in its place, as docs/adopt.md says
            assert status != 0, f"{builder} passes the {name} drift of the {project}"
            assert f"{at}: DP" in output, f"{builder}, {name} drift: no {at}:\n{output[-3000:]}"
            assert "Traceback" not in output, output
            if builder == "properdocs":  # one plugin, loaded once: each finding once
                findings = [line for line in output.splitlines() if f"docpact: {at}:" in line]
                assert len(findings) == len(set(findings)), findings
        if name == "code":
            status, output = _build("zensical", tree, clean=True)
            assert (status, f"{at}: DP" in output) == (1, True), output[-3000:]
        _edit(tree / path, new, old, whole=original)
    status, output = _build("zensical", tree)
    assert status == 0, f"the cached build after the drifts were undone fails:\n{output[-3000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("project", ["repository", "adopter"])
def test_a_contract_edit_alone_is_caught_by_the_recipe_that_checks_before_the_build(
    tmp_path: Path, project: str
) -> None:
    """Zensical re-renders nothing for `pyproject.toml`: the recipe's check fails instead."""
    tree = _copy(project, tmp_path / project)
    assert _build("zensical", tree, clean=True)[0] == 0
    _edit(tree / "pyproject.toml", *PYPROJECT_DRIFTS[project])
    status, output = _build("zensical", tree)
    assert status == 0, "Zensical re-rendered after a pyproject.toml edit: the recipe may go"
    assert "docpact:" not in output
    status, output = _run_recipe(tree)
    assert status == 1, output
    assert "pyproject.toml:" in output, output
    assert "Build started" not in output  # the build never ran


def _run_recipe(tree: Path) -> tuple[int, str]:
    """Run docs/adopt.md's Zensical recipe in the copy, with this environment's commands."""
    done = subprocess.run(
        ["bash", "-c", _recipe()],
        cwd=tree,
        env=_env(tree),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def _recipe() -> str:
    """The Zensical CI recipe of docs/adopt.md (docpact's README): its console block's line."""
    text = README.read_text("utf-8")
    block = re.search(r"<!-- zensical-recipe -->\s*```console\n(?P<command>.+)\n```", text)
    assert block is not None, "docpact's README has no Zensical recipe block"
    return block["command"]


@pytest.mark.slow
def test_the_griffe_extension_alone_fails_a_strict_zensical_build_and_no_other(
    tmp_path: Path,
) -> None:
    """Without the Markdown extension, mkdocstrings' docpact extension is the gate."""
    tree = _copy("repository", tmp_path / "repository")
    config = tree / "mkdocs.yml"
    text = config.read_text("utf-8")
    markdown = text.index("markdown_extensions:")
    gate = text.index("\n  - docpact\n", markdown)  # the first after it, before the plugins
    assert gate < text.index("\nplugins:"), "mkdocs.yml lists no docpact Markdown extension"
    config.write_text(text[:gate] + text[gate + len("\n  - docpact") :], "utf-8")
    path, old, new, at = REPOSITORY_DRIFTS["code"]
    _edit(tree / path, old, new)
    status, output = _build("zensical", tree, clean=True)
    # It stops at the first package's findings: the claims whose code under test is there.
    assert (status, "Traceback" in output) == (1, False), output[-3000:]
    assert f"changed since the review: {path}::" in output, output[-3000:]
    status, output = _build("zensical", tree, clean=True, strict=False)
    assert status == 0, output  # not strict: printed, built
    assert f"docpact: {at}: DP" in output  # every package's, once built
    assert (tree / "site" / "index.html").is_file()


@pytest.mark.slow
def test_the_zensical_wiring_of_docs_adopt_md_gates_the_build_as_written(tmp_path: Path) -> None:
    """The README's `markdown_extensions` block, put in the adopter's configuration as is."""
    block = re.search(r"```yaml\n(markdown_extensions:\n(?:  .*\n)+)```", README.read_text("utf-8"))
    assert block is not None, "docpact's README shows no markdown_extensions block"
    tree = _copy("adopter", tmp_path / "adopter")
    base = tree / "config" / "base.yml"
    kept = [  # the adopter's other extensions (its toc's separator): without its own two
        line
        for line in base.read_text("utf-8").splitlines(keepends=True)
        if line.strip() not in {"- admonition", "- docpact"}
    ]
    at = kept.index("markdown_extensions:\n") + 1
    base.write_text("".join(kept[:at]) + block[1].partition("\n")[2] + "".join(kept[at:]), "utf-8")
    status, output = _build("zensical", tree, clean=True)
    assert (status, "docpact:" in output) == (0, False), output
    page = (tree / "site" / "20-trainer-configuration" / "index.html").read_text("utf-8")
    assert 'class="admonition docpact-claim docpact-' in page  # the boxes, drawn
    path, old, new, at = ADOPTER_DRIFTS["page"]
    _edit(tree / path, old, new)
    status, output = _build("zensical", tree)
    assert (status, f"docpact: {at}: DP" in output) == (1, True), output
