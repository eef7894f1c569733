# SPDX-License-Identifier: MIT
"""mkdocs.yml settings docpact reads, checked for the types MkDocs takes, in both its forms."""

from __future__ import annotations

from pathlib import Path

import pytest

from docpact import DocpactError
from docpact._readers.markdown.sections import sections
from docpact._readers.mkdocs_load import read_mkdocs
from docpact._readers.mkdocs_yml import docstring_style, headings

MKDOCSTRINGS = "plugins:\n  - mkdocstrings:\n      handlers:\n"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder, made the current one so that messages name `mkdocs.yml` plainly."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def read_both(folder: Path) -> None:
    """Read what docpact takes from `mkdocs.yml`: the anchors and the docstring style."""
    headings(folder)
    docstring_style(folder)


def refusal(folder: Path, text: str) -> str:
    """The message of the usage error that reading a `mkdocs.yml` of `text` raises."""
    (folder / "mkdocs.yml").write_text(f"site_name: x\n{text}", "utf-8")
    with pytest.raises(DocpactError) as raised:
        read_both(folder)
    return str(raised.value)


LIST_FORM = "markdown_extensions:\n  - toc:\n      separator: _\n  - attr_list\n  - admonition\n"
MAPPING_FORM = "markdown_extensions:\n  toc:\n    separator: _\n  attr_list: null\n  admonition:\n"


def test_the_mapping_form_of_markdown_extensions_reads_as_the_list_form(here: Path) -> None:
    """`{toc: {separator: _}, attr_list: null}` gives the anchors the list form gives."""
    (here / "mkdocs.yml").write_text(LIST_FORM, "utf-8")
    listed = headings(here)
    (here / "mkdocs.yml").write_text(MAPPING_FORM, "utf-8")
    mapped = headings(here)
    assert mapped == listed
    assert mapped.extensions == ("toc", "attr_list")
    assert mapped.blocks
    assert [s.anchor for s in sections("# Two words\n", mapped)] == ["two_words"]


def test_the_mapping_form_of_plugins_gives_mkdocstrings_docstring_style(here: Path) -> None:
    """`plugins: {mkdocstrings: ...}`, a form MkDocs takes, sets the docstring style too."""
    (here / "mkdocs.yml").write_text(
        "plugins:\n  search:\n  mkdocstrings:\n    handlers:\n      python:\n"
        "        options:\n          docstring_style: numpy\n",
        "utf-8",
    )
    assert docstring_style(here) == "numpy"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "markdown_extensions: 5\n",
            "2: error: markdown_extensions must be a list of names or a mapping of names to "
            "their settings, got 5",
        ),
        (
            "markdown_extensions:\n  - 5: {}\n",
            "3: error: markdown_extensions names must be str, got 5",
        ),
        (
            "markdown_extensions:\n  - [toc]\n",
            "3: error: markdown_extensions entries must be names or mappings of one name to its "
            "settings, got ['toc']",
        ),
        (
            "markdown_extensions:\n  - toc: {}\n    admonition: {}\n",
            "3: error: markdown_extensions entries must be names or mappings of one name to its "
            "settings, got {'toc': {}, 'admonition': {}}",
        ),
        (
            "markdown_extensions:\n  - toc: 5\n",
            "3: error: markdown_extensions toc settings must be a mapping, got 5",
        ),
        (
            "markdown_extensions:\n  - !!python/name:os.sep : {}\n",
            "3: error: is not valid YAML: while constructing a mapping found a Python tag as a "
            "key (!!python/name:os.sep)",
        ),
        (
            "markdown_extensions:\n  - toc:\n      separator: 5\n",
            "4: error: markdown_extensions toc separator must be a str, got 5",
        ),
        (
            "markdown_extensions:\n  - toc:\n      slugify: 5\n",
            "4: error: markdown_extensions toc slugify must be a function (a !!python/name: tag), "
            "got 5",
        ),
        (
            "markdown_extensions:\n  - toc:\n      slugify: !!python/name:os.sep\n",
            "4: error: markdown_extensions toc slugify must be a function (a !!python/name: tag), "
            "got '/'",
        ),
        (
            "markdown_extensions:\n  - toc:\n      slugify: !!python/name:nosuchmodule.f\n",
            "4: error: markdown_extensions toc slugify cannot be imported: "
            "No module named 'nosuchmodule'",
        ),
        (
            "markdown_extensions:\n  - toc:\n      slugify: !!python/name:markdown.nosuch\n",
            "4: error: markdown_extensions toc slugify cannot be imported: "
            "module 'markdown' has no attribute 'nosuch'",
        ),
        (
            "plugins: 5\n",
            "2: error: plugins must be a list of names or a mapping of names to their settings, "
            "got 5",
        ),
        (
            "plugins:\n  - mkdocstrings: 5\n",
            "3: error: plugins mkdocstrings settings must be a mapping, got 5",
        ),
        (
            "plugins:\n  - mkdocstrings:\n      handlers: [python]\n",
            "4: error: mkdocstrings handlers must be a mapping, got ['python']",
        ),
        (
            f"{MKDOCSTRINGS}        python: [options]\n",
            "5: error: mkdocstrings handlers python must be a mapping, got ['options']",
        ),
        (
            f"{MKDOCSTRINGS}        python:\n          options: 5\n",
            "6: error: mkdocstrings handlers python options must be a mapping, got 5",
        ),
        (
            f"{MKDOCSTRINGS}        python:\n          options:\n            docstring_style: 5\n",
            "7: error: mkdocstrings' docstring_style must be a str, got 5",
        ),
        (
            "markdown_extensions:\n  - toc:\n      separator: !ENV {a: 1}\n",
            "4: error: is not valid YAML: expected a scalar or sequence node, but found mapping",
        ),
        # Found by fuzzing: a Python tag as a key was a TypeError (its value unhashable).
        (
            '? !!python/object/apply:os.system ["echo"]\n: 1\n',
            "2: error: is not valid YAML: while constructing a mapping in ",
        ),
        (
            "plugins:\n  - search:\n      !!python/name:os.sep : 1\n",
            "4: error: is not valid YAML: while constructing a mapping found a Python tag as a "
            "key (!!python/name:os.sep)",
        ),
        # A tag neither docpact nor MkDocs knows, as a key or a value.
        ("? !unknown a\n: 1\n", "2: error: is not valid YAML: could not determine a constructor"),
        ("nav: !unknown [a]\n", "2: error: is not valid YAML: could not determine a constructor"),
    ],
)
def test_a_setting_of_a_type_mkdocs_refuses_is_a_usage_error_at_its_line(
    here: Path, text: str, message: str
) -> None:
    """Each wrong type is `mkdocs.yml:LINE: error: KEY must be ..., got ...`, no traceback."""
    assert refusal(here, text).startswith(f"mkdocs.yml:{message}")


def test_env_with_a_variable_that_is_not_a_name_gives_its_default_as_mkdocs_does(
    here: Path,
) -> None:
    """`!ENV [1, x]` is `x` to MkDocs (no variable `1` is set), and so to docpact."""
    (here / "mkdocs.yml").write_text(
        "markdown_extensions:\n  - toc:\n      separator: !ENV [1, x]\n", "utf-8"
    )
    assert dict(headings(here).toc) == {"separator": "x"}


def test_the_line_of_an_inherited_setting_is_in_the_file_that_sets_it(here: Path) -> None:
    """A wrong type in an `INHERIT` parent is named at the parent's line."""
    (here / "base.yml").write_text("site_name: x\nmarkdown_extensions: 5\n", "utf-8")
    (here / "mkdocs.yml").write_text("INHERIT: base.yml\nsite_url: y\n", "utf-8")
    with pytest.raises(DocpactError) as raised:
        headings(here)
    assert str(raised.value).startswith("base.yml:2: error: markdown_extensions must be")


def test_an_inherit_name_too_long_for_the_file_system_is_refused_at_its_line(here: Path) -> None:
    """A 300-character `INHERIT` is a usage error at its line, not an OSError."""
    name = "a" * 300 + ".yml"
    (here / "mkdocs.yml").write_text(f"site_name: x\nINHERIT: {name}\n", "utf-8")
    with pytest.raises(DocpactError) as raised:
        read_mkdocs(here)
    assert str(raised.value) == (
        f"mkdocs.yml:2: error: INHERIT names {name!r}, which cannot be read: File name too long"
    )


@pytest.mark.parametrize(
    "text",
    [
        "markdown_extensions: 5\n",
        "markdown_extensions:\n  - [toc]\n",
        "markdown_extensions:\n  - toc: {}\n    admonition: {}\n",
        "markdown_extensions:\n  - toc: 5\n",
        "plugins: 5\n",
        "plugins:\n  - mkdocstrings:\n      handlers: [python]\n",
    ],
)
def test_mkdocs_refuses_the_settings_docpact_refuses(here: Path, text: str) -> None:
    """MkDocs' own `load_config` refuses each of these as docpact does."""
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    (here / "docs").mkdir()
    (here / "mkdocs.yml").write_text(f"site_name: x\n{text}", "utf-8")
    with pytest.raises(Abort):
        load_config(str(here / "mkdocs.yml"))
    with pytest.raises(DocpactError):
        read_both(here)


def test_mkdocs_reads_the_mapping_form_as_docpact_does(here: Path) -> None:
    """MkDocs' own `load_config` reads the mapping form's extensions and toc settings alike."""
    from mkdocs.config import load_config

    (here / "docs").mkdir()
    (here / "mkdocs.yml").write_text(f"site_name: x\n{MAPPING_FORM}", "utf-8")
    config = load_config(str(here / "mkdocs.yml"))
    assert {"toc", "attr_list", "admonition"} <= set(config["markdown_extensions"])
    assert dict(headings(here).toc) == config["mdx_configs"]["toc"] == {"separator": "_"}


@pytest.mark.parametrize(
    "toc",
    [
        "title: null",
        "permalink: null",
        "anchorlink: 'true'",
        "permalink_leading: 'yes'",
        "baselevel: 2.0",
    ],
)
def test_a_toc_setting_that_decides_no_anchor_is_left_to_python_markdown(
    here: Path, toc: str
) -> None:
    """MkDocs builds `title: null`, `anchorlink: 'true'`: docpact checks no such setting.

    Only slugify and separator decide an anchor; docpact reads and checks those alone.
    """
    from mkdocs.config import load_config

    (here / "docs").mkdir()
    (here / "mkdocs.yml").write_text(f"site_name: x\nmarkdown_extensions:\n  - toc:\n      {toc}\n")
    load_config(str(here / "mkdocs.yml"))
    assert headings(here).configs == {"toc": {}}


def test_a_falsy_setting_is_no_setting_as_mkdocs_reads_it(here: Path) -> None:
    """`admonition: []`, `toc: false`, `search: []`: MkDocs loads them as no settings."""
    from mkdocs.config import load_config

    (here / "docs").mkdir()
    text = "site_name: x\nmarkdown_extensions:\n  - admonition: []\n  - toc: false\n"
    (here / "mkdocs.yml").write_text(text + "plugins:\n  - search: []\n", "utf-8")
    load_config(str(here / "mkdocs.yml"))
    read_both(here)
    assert headings(here).blocks
