# SPDX-License-Identifier: MIT
"""src/ and scripts/ import from other packages only the names those packages document.

Every import is read from the syntax tree, those inside functions and under
`TYPE_CHECKING` included. An imported name is `module.name` (`griffe.GriffeLoader`, or
`pyarrow.compute` for `import pyarrow.compute`); the attributes read off an imported
package or name (`coverage.Coverage`) need only be public, since the package's reference
documents its members with it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROOTS = ("src", "scripts")
FIRST_PARTY = {"docpact", "rolloutnorm"}

# Each imported name, with where its package documents it.
DOCUMENTED = {
    # coverage.py's API docs (coverage.readthedocs.io, "Coverage.py API").
    "coverage": "coverage.py API: coverage.Coverage, coverage.CoverageData",
    # griffe's API reference (mkdocstrings.github.io/griffe/reference/api/).
    "griffe": "griffe API reference: its top-level names",
    "griffe.AliasResolutionError": "griffe API reference: Exceptions",
    "griffe.CyclicAliasError": "griffe API reference: Exceptions",
    "griffe.Docstring": "griffe API reference: Docstrings, models",
    "griffe.DocstringSectionKind": "griffe API reference: Docstrings, models",
    "griffe.Extension": "griffe API reference: Extensions",
    "griffe.GriffeLoader": "griffe API reference: Loaders",
    "griffe.LoadingError": "griffe API reference: Exceptions",
    "griffe.Module": "griffe API reference: Models",
    "griffe.get_logger": "griffe API reference: Loggers",
    "griffe.load_extensions": "griffe API reference: Extensions",
    # Hypothesis's API reference (hypothesis.readthedocs.io, "Settings").
    "hypothesis.Phase": "Hypothesis API reference: settings, phases",
    "hypothesis.settings": "Hypothesis API reference: settings",
    # Python-Markdown's library and API reference (python-markdown.github.io/reference/).
    "markdown": "Python-Markdown library reference: markdown.Markdown",
    "markdown.blockprocessors.HRProcessor": "Python-Markdown reference: markdown.blockprocessors",
    "markdown.blockprocessors.HashHeaderProcessor": (
        "Python-Markdown reference: markdown.blockprocessors"
    ),
    "markdown.extensions.attr_list.AttrListExtension": (
        "Python-Markdown reference: markdown.extensions.attr_list"
    ),
    "markdown.extensions.toc.TocExtension": "Python-Markdown: Table of Contents extension",
    # Python-Markdown's extension API ("Writing Extensions for Python-Markdown").
    "markdown.Markdown": "Python-Markdown extension API: the md instance extendMarkdown gets",
    "markdown.extensions.Extension": "Python-Markdown extension API: markdown.extensions",
    "markdown.preprocessors.Preprocessor": "Python-Markdown extension API: Preprocessors",
    # MkDocs' plugin guide and API reference (mkdocs.org/dev-guide/plugins/, /dev-guide/api/).
    "mkdocs.config.base": "MkDocs plugin guide: config_scheme, base.Config",
    "mkdocs.config.config_options": "MkDocs plugin guide: config_scheme, config_options",
    "mkdocs.config.defaults.MkDocsConfig": "MkDocs plugin guide: the events' config",
    "mkdocs.exceptions.PluginError": "MkDocs plugin guide: handling errors",
    "mkdocs.livereload.LiveReloadServer": "MkDocs API reference: on_serve's server",
    "mkdocs.plugins.BasePlugin": "MkDocs plugin guide: BasePlugin",
    "mkdocs.structure.files.File": "MkDocs API reference: File",
    "mkdocs.structure.files.Files": "MkDocs API reference: Files",
    "mkdocs.structure.pages.Page": "MkDocs plugin guide: the page events' page",
    # pytest's API reference (docs.pytest.org/en/stable/reference/reference.html).
    "pytest": "pytest API reference",
    # PyTorch's API reference (docs.pytorch.org/docs/stable/), for the benchmarks.
    "torch": "PyTorch API reference",
    # Sybil's API reference (sybil.readthedocs.io/en/latest/api.html).
    "sybil.Document": "Sybil API reference: Documents",
    "sybil.Example": "Sybil API reference: Evaluation",
    "sybil.Region": "Sybil API reference: Regions",
    "sybil.Sybil": "Sybil API reference: Sybils",
    "sybil.evaluators.doctest.DocTestEvaluator": "Sybil API reference: Evaluation",
    "sybil.evaluators.python.PythonEvaluator": "Sybil API reference: Evaluation",
    "sybil.parsers.abstract.doctest.DocTestStringParser": "Sybil API reference: Parsing",
    "sybil.parsers.abstract.lexers.LexingException": "Sybil API reference: Lexing",
    "sybil.parsers.markdown.ClearNamespaceParser": "Sybil API reference: Markdown",
    "sybil.parsers.markdown.SkipParser": "Sybil API reference: Markdown",
    "sybil.parsers.markdown.lexers.DirectiveInHTMLCommentLexer": "Sybil API reference: Markdown",
    "sybil.parsers.markdown.lexers.FencedCodeBlockLexer": "Sybil API reference: Markdown",
    "sybil.parsers.rest.DocTestParser": "Sybil API reference: ReST",
    # pylatexenc's latexwalker and macrospec reference (pylatexenc.readthedocs.io).
    "pylatexenc.latexwalker.LatexWalker": "pylatexenc latexwalker: LatexWalker.get_token",
    "pylatexenc.latexwalker.LatexWalkerEndOfStream": "pylatexenc latexwalker: exceptions",
    "pylatexenc.latexwalker.LatexWalkerError": "pylatexenc latexwalker: exceptions",
    "pylatexenc.macrospec.LatexContextDb": "pylatexenc macrospec: LatexContextDb",
    # PyYAML's documentation (pyyaml.org/wiki/PyYAMLDocumentation).
    "yaml": "PyYAML documentation: yaml.load, loaders and constructors",
    # yaml-env-tag's README (pypi.org/project/pyyaml_env_tag): construct_env_tag.
    "yaml_env_tag": "pyyaml_env_tag README: construct_env_tag",
}

# Imports of names their package does not document, each to be replaced: the test lists
# them so that none is added unseen and each is deleted here once it goes.
UNDOCUMENTED: dict[str, str] = {}


@dataclass(frozen=True)
class Use:
    """A name of another package that a file imports, or an attribute it reads off one."""

    path: str
    line: int
    name: str
    imported: bool


def uses(tree: ast.Module, path: str, local: set[str]) -> list[Use]:
    """Every third-party name a module imports, and every attribute read off one."""
    found, bound = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _local(alias.name, local):
                    found.append(Use(path, node.lineno, alias.name, imported=True))
                    bound[alias.asname or alias.name.partition(".")[0]] = (
                        alias.name if alias.asname else alias.name.partition(".")[0]
                    )
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if _local(node.module, local):
                continue
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                found.append(Use(path, node.lineno, name, imported=True))
                bound[alias.asname or alias.name] = name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(node.value, ast.Attribute):
            root = node.value
            if isinstance(root, ast.Name) and root.id in bound:
                name = f"{bound[root.id]}.{node.attr}"
                found.append(Use(path, node.lineno, name, imported=False))
    return found


def _local(module: str, local: set[str]) -> bool:
    top = module.partition(".")[0]
    return top in sys.stdlib_module_names or top == "__future__" or top in local


def is_private(name: str) -> bool:
    """Whether a part of a dotted name has a leading underscore (a dunder is public)."""
    return any(
        part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
        for part in name.split(".")
    )


def _project_uses() -> list[Use]:
    files = subprocess.run(
        ["git", "ls-files", "-z", "--", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    # The scripts' and tests' modules, which scripts import by their bare name
    # (core_contracts, and oracle from tests/rolloutnorm).
    local = FIRST_PARTY | {
        Path(name).stem for name in files if name.startswith(("scripts/", "tests/"))
    }
    return [
        use
        for name in sorted(files)
        if name.startswith(tuple(f"{root}/" for root in ROOTS))
        for use in uses(ast.parse((ROOT / name).read_text("utf-8")), name, local)
    ]


@pytest.fixture(scope="module")
def project_uses() -> list[Use]:
    if not (ROOT / ".git").exists():
        pytest.skip("the files are listed with git")
    return _project_uses()


def test_every_imported_name_of_another_package_is_documented(project_uses: list[Use]) -> None:
    """An import that is private or that no package's reference names fails, at its line."""
    wrong = [
        f"{use.path}:{use.line}: {use.name} is private"
        if is_private(use.name)
        else f"{use.path}:{use.line}: {use.name} is not documented by its package"
        for use in project_uses
        if is_private(use.name)
        or (use.imported and use.name not in DOCUMENTED and use.name not in UNDOCUMENTED)
    ]
    assert wrong == []


def test_every_allowed_name_is_still_imported(project_uses: list[Use]) -> None:
    """An entry of either list whose import went is deleted, so that the lists stay true."""
    imported = {use.name for use in project_uses if use.imported}
    assert sorted(set(DOCUMENTED) - imported) == []
    assert {name: path for name, path in UNDOCUMENTED.items() if name in imported} == (UNDOCUMENTED)
    assert all(not is_private(name) for name in DOCUMENTED)


SOURCE = """\
from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pkg.sub as alias
from core_contracts import CORE_PYPROJECT

from . import sibling

if TYPE_CHECKING:
    from other import Thing


def late():
    import third
    from fourth._impl import helper

    return third._hidden, alias.value, Thing.__name__, os.sep
"""


def test_imports_in_functions_and_under_type_checking_are_read() -> None:
    """Local, standard-library and relative imports are left out; attributes are read."""
    found = uses(ast.parse(SOURCE), "m.py", {"core_contracts"})
    assert [(use.line, use.name, use.imported) for use in found] == [
        (6, "pkg.sub", True),
        (12, "other.Thing", True),
        (16, "third", True),
        (17, "fourth._impl.helper", True),
        (19, "third._hidden", False),
        (19, "pkg.sub.value", False),
        (19, "other.Thing.__name__", False),
    ]
    assert [use.name for use in found if is_private(use.name)] == [
        "fourth._impl.helper",
        "third._hidden",
    ]
