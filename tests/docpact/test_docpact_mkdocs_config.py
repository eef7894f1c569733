# SPDX-License-Identifier: MIT
"""mkdocs.yml read as data: MkDocs' tags understood, nothing it names imported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docpact import DocpactError
from docpact._model.config import Headings
from docpact._readers.markdown.sections import sections
from docpact._readers.mkdocs_load import PythonTag, read_mkdocs
from docpact._readers.mkdocs_yml import docstring_style, headings

CONFIG = """\
site_name: !ENV [DOCPACT_TEST_SITE, DOCPACT_TEST_UNSET, "fallback"]
site_url: !ENV DOCPACT_TEST_UNSET
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
  - toc:
      slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}
plugins:
  - search
  - mkdocstrings:
      handlers:
        python:
          options:
            docstring_style: sphinx
            extensions:
              - docpact:
                  pyproject: !relative $config_dir/pyproject.toml
"""


def test_mkdocs_tags_are_read_without_importing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """!ENV takes the first set variable or the default; Python tags stay text."""
    monkeypatch.setenv("DOCPACT_TEST_SITE", "from the environment")
    monkeypatch.delenv("DOCPACT_TEST_UNSET", raising=False)
    (tmp_path / "mkdocs.yml").write_text(CONFIG, "utf-8")
    settings = read_mkdocs(tmp_path)
    assert settings["site_name"] == "from the environment"
    assert settings["site_url"] is None
    emoji = settings["markdown_extensions"][0]["pymdownx.emoji"]["emoji_index"]
    assert emoji == PythonTag("tag:yaml.org,2002:python/name:material.extensions.emoji.twemoji")
    slugify = settings["markdown_extensions"][1]["toc"]["slugify"]
    assert slugify.value == {"kwds": {"case": "lower"}}
    assert docstring_style(tmp_path) == "sphinx"


def test_no_mkdocs_yml_means_no_settings(tmp_path: Path) -> None:
    """A project without MkDocs has no settings and no configured docstring style."""
    assert read_mkdocs(tmp_path) is None
    assert docstring_style(tmp_path) is None


def test_mkdocs_yaml_is_read_too(tmp_path: Path) -> None:
    """MkDocs also accepts mkdocs.yaml."""
    (tmp_path / "mkdocs.yaml").write_text(CONFIG.replace("sphinx", "numpy"), "utf-8")
    assert docstring_style(tmp_path) == "numpy"


ANCHORS = """\
markdown_extensions:
  - admonition
  - toc:
      permalink: true
      separator: "_"
      slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}
"""
PAGE = """\
# Größe der Batches

!!! note "A note"

    ## Inside the Note

    Text.

## After
"""


def test_anchors_follow_the_sites_toc_settings_and_admonitions(tmp_path: Path) -> None:
    """A custom slugify and separator, and a heading inside an admonition, as the site has them."""
    (tmp_path / "mkdocs.yml").write_text(ANCHORS, "utf-8")
    style = headings(tmp_path)
    assert style.extensions == ("toc",)
    assert style.blocks
    assert [(s.anchor, s.line) for s in sections(PAGE, style)] == [
        ("größe_der_batches", 1),
        ("inside_the_note", 5),
        ("after", 9),
    ]


def test_without_mkdocs_settings_the_defaults_apply(tmp_path: Path) -> None:
    """MkDocs' default toc: ASCII slugs, hyphens, no heading inside an admonition."""
    assert headings(tmp_path) == Headings()
    assert [s.anchor for s in sections(PAGE)] == ["groe-der-batches", "after"]


def test_a_slugify_that_cannot_be_imported_is_a_usage_error(tmp_path: Path) -> None:
    """The toc slugify decides anchors: if it cannot be imported, a DocpactError names it."""
    config = "markdown_extensions:\n  - toc:\n      slugify: !!python/name:no_such.slugify\n"
    (tmp_path / "mkdocs.yml").write_text(config, "utf-8")
    with pytest.raises(DocpactError, match="markdown_extensions toc slugify cannot be imported"):
        headings(tmp_path)


def test_extensions_that_do_not_shape_anchors_are_not_loaded(tmp_path: Path) -> None:
    """A site extension docpact's environment lacks (a pre-commit hook's) changes nothing."""
    config = "markdown_extensions:\n  - no_such.extension\n  - toc:\n      separator: _\n"
    (tmp_path / "mkdocs.yml").write_text(config, "utf-8")
    assert headings(tmp_path) == Headings(("toc",), (("separator", "_"),), blocks=False)
    assert [s.anchor for s in sections("# A b\n", headings(tmp_path))] == ["a_b"]


def test_anchors_are_recomputed_when_the_toc_settings_change(tmp_path: Path) -> None:
    """The cache of sections is keyed by the toc settings too: a new separator, new anchors."""
    page = "# Hello World\n"
    (tmp_path / "mkdocs.yml").write_text("markdown_extensions:\n  - toc\n", "utf-8")
    assert [s.anchor for s in sections(page, headings(tmp_path))] == ["hello-world"]
    (tmp_path / "mkdocs.yml").write_text(
        "markdown_extensions:\n  - toc:\n      separator: _\n", "utf-8"
    )
    assert [s.anchor for s in sections(page, headings(tmp_path))] == ["hello_world"]


def test_the_settings_read_are_a_copy(tmp_path: Path) -> None:
    """Changing what read_mkdocs returns, nested values too, leaves the next reader's alone."""
    (tmp_path / "mkdocs.yml").write_text("site_name: a\nplugins: [search]\n", "utf-8")
    settings = read_mkdocs(tmp_path)
    settings["site_name"] = "changed"
    settings["plugins"].append("changed")
    assert read_mkdocs(tmp_path) == {"site_name": "a", "plugins": ["search"]}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("!ENV [DOCPACT_TEST_UNSET, DOCPACT_TEST_UNSET_TOO, fallback]", "fallback"),
        ("!ENV [DOCPACT_TEST_UNSET, fallback]", "fallback"),
        ("!ENV [DOCPACT_TEST_SITE, fallback]", "from the environment"),
        ("!ENV [DOCPACT_TEST_UNSET]", None),
    ],
)
def test_env_takes_the_first_set_variable_else_its_last_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, expected: str | None
) -> None:
    """As in MkDocs: `!ENV [A, B, default]`, and no default after a single name."""
    monkeypatch.setenv("DOCPACT_TEST_SITE", "from the environment")
    monkeypatch.delenv("DOCPACT_TEST_UNSET", raising=False)
    monkeypatch.delenv("DOCPACT_TEST_UNSET_TOO", raising=False)
    (tmp_path / "mkdocs.yml").write_text(f"site_name: {value}\n", "utf-8")
    assert read_mkdocs(tmp_path) == {"site_name": expected}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("!!python/object/apply:builtins.divmod [7, 2]", (3, 1)),
        ("!!python/object/apply:builtins.int {args: [ff], kwds: {base: 16}}", 255),
        ("!!python/object/apply:builtins.dict {kwds: {a: [1]}}", {"a": [1]}),
        ("!!python/object/apply:builtins.dict", {}),
        ("!!python/name:os.path.join", os.path.join),
    ],
)
def test_python_tags_resolve_as_pyyaml_would_build_them(
    tmp_path: Path, value: str, expected: object
) -> None:
    """`python/object/apply` calls with its arguments (a list, or `args` and `kwds`)."""
    (tmp_path / "mkdocs.yml").write_text(f"tag: {value}\n", "utf-8")
    assert read_mkdocs(tmp_path)["tag"].resolve() == expected


@pytest.mark.parametrize(
    ("tag", "value", "expected"),
    [
        ("python/name:os.path.join", None, os.path.join),
        ("python/object/apply:builtins.divmod", [7, 2], (3, 1)),
        ("python/object/apply:builtins.int", {"args": ["ff"], "kwds": {"base": 16}}, 255),
        ("python/object/apply:builtins.list", None, []),
    ],
)
def test_a_python_tag_imports_what_it_names_and_applies_its_arguments(
    tag: str, value: object, expected: object
) -> None:
    """`python/name` is the object itself; `python/object/apply` calls it with its value."""
    assert PythonTag(f"tag:yaml.org,2002:{tag}", value).resolve() == expected


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ("python/name:no_such_module.slugify", "No module named 'no_such_module'"),
        ("python/name:os.no_such_slugify", "module 'os' has no attribute 'no_such_slugify'"),
        ("python/object/apply:os.path.no_such", "module 'posixpath' has no attribute 'no_such'"),
    ],
)
def test_a_python_tag_that_cannot_be_imported_raises_import_error_saying_why(
    tag: str, message: str
) -> None:
    """A missing module, or a module without the attribute, is an ImportError with the reason."""
    with pytest.raises(ImportError) as raised:
        PythonTag(f"tag:yaml.org,2002:{tag}").resolve()
    assert str(raised.value) == message


@pytest.mark.parametrize("text", ["", "- site_name: a\n", "site_name\n"])
def test_an_mkdocs_yml_that_is_not_a_mapping_gives_no_settings(tmp_path: Path, text: str) -> None:
    """Empty, a list or a word: no settings, so MkDocs' own toc alone and no docstring style."""
    (tmp_path / "mkdocs.yml").write_text(text, "utf-8")
    assert read_mkdocs(tmp_path) == {}
    assert headings(tmp_path) == Headings(("toc",), (), blocks=False)
    assert docstring_style(tmp_path) is None


def test_a_slugify_that_is_not_in_its_module_is_a_usage_error_naming_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = "markdown_extensions:\n  - toc:\n      slugify: !!python/name:os.no_such_slugify\n"
    (tmp_path / "mkdocs.yml").write_text(config, "utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DocpactError) as raised:
        headings(tmp_path)
    assert str(raised.value) == (
        "mkdocs.yml:3: error: markdown_extensions toc slugify cannot be imported: "
        "module 'os' has no attribute 'no_such_slugify'"
    )


def test_an_mkdocs_yml_that_is_not_utf8_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mkdocs.yml").write_bytes(b"site_name: \xff\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DocpactError) as raised:
        read_mkdocs(tmp_path)
    assert (
        str(raised.value)
        == "mkdocs.yml: error: cannot be read: not UTF-8 at line 1 (invalid start byte)"
    )


def test_an_unknown_docstring_style_is_a_usage_error_listing_the_known_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mkdocs.yml").write_text(CONFIG.replace("sphinx", "rest"), "utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DocpactError) as raised:
        docstring_style(tmp_path)
    assert str(raised.value) == (
        "mkdocs.yml:14: error: mkdocstrings' docstring_style is 'rest'; "
        "docpact reads google, numpy, sphinx"
    )


def test_extensions_may_be_listed_by_their_full_names(tmp_path: Path) -> None:
    """`markdown.extensions.toc` is `toc`, and a listed `attr_list` renders custom ids."""
    config = (
        "markdown_extensions:\n  - markdown.extensions.attr_list\n"
        "  - markdown.extensions.toc:\n      separator: _\n"
    )
    (tmp_path / "mkdocs.yml").write_text(config, "utf-8")
    style = headings(tmp_path)
    assert style == Headings(("toc", "attr_list"), (("separator", "_"),), blocks=False)
    assert [s.anchor for s in sections("# A b {#c}\n\n# D e\n", style)] == ["c", "d_e"]
