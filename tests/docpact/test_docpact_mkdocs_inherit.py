# SPDX-License-Identifier: MIT
"""mkdocs.yml read as MkDocs reads it: INHERIT's parents merged beneath it, !ENV typed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from mkdocs.utils.yaml import yaml_load

from docpact import DocpactError
from docpact.__main__ import main
from docpact._model.config import Headings
from docpact._readers.mkdocs_load import read_mkdocs
from docpact._readers.mkdocs_yml import docstring_style, headings
from samples.drift import copy_project

BASE = """\
site_name: base
theme:
  name: material
  features: [navigation.tabs]
markdown_extensions:
  - admonition
  - attr_list
  - toc:
      permalink: true
      separator: _
plugins:
  - search
  - mkdocstrings:
      handlers:
        python:
          options:
            docstring_style: numpy
            show_source: false
"""

# Each layout: its files (the first is the project's mkdocs.yml), then the anchors and
# docstring style docpact reads from them.
LAYOUTS = {
    "the parent holds the toc settings": (
        {"mkdocs.yml": "INHERIT: base.yml\nsite_name: child\n", "base.yml": BASE},
        Headings(("toc", "attr_list"), (("separator", "_"),), blocks=True),
        "numpy",
    ),
    "the child replaces a list and merges mappings": (
        {
            "mkdocs.yml": (
                "site_name: child\n"
                "INHERIT: base.yml\n"
                "theme:\n  palette: {scheme: slate}\n  features: [search.highlight]\n"
                "markdown_extensions:\n  - toc:\n      separator: '~'\n"
                "plugins:\n  - mkdocstrings:\n      handlers:\n        python:\n"
                "          options: {docstring_style: sphinx}\n"
                "extra: {version: 2}\n"
            ),
            "base.yml": BASE,
        },
        Headings(("toc",), (("separator", "~"),), blocks=False),
        "sphinx",
    ),
    "a chain of two parents": (
        {
            "mkdocs.yml": "INHERIT: mid.yml\nsite_name: child\n",
            "mid.yml": "INHERIT: base.yml\ntheme: {name: readthedocs}\nextra: {a: 1}\n",
            "base.yml": BASE,
        },
        Headings(("toc", "attr_list"), (("separator", "_"),), blocks=True),
        "numpy",
    ),
    "parents in other folders, each relative to the file naming it": (
        {
            "mkdocs.yml": "INHERIT: config/site.yml\n",
            "config/site.yml": "INHERIT: ../shared/base.yml\nsite_name: site\n",
            "shared/base.yml": BASE,
        },
        Headings(("toc", "attr_list"), (("separator", "_"),), blocks=True),
        "numpy",
    ),
    "an empty parent gives no settings": (
        {"mkdocs.yml": "INHERIT: empty.yml\nsite_name: child\n", "empty.yml": ""},
        Headings(("toc",), (), blocks=False),
        None,
    ),
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")


def _mkdocs_reads(root: Path) -> dict[str, object]:
    with (root / "mkdocs.yml").open("rb") as file:
        return yaml_load(file)


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_inherited_settings_are_merged_as_mkdocs_merges_them(
    tmp_path: Path, layout: tuple[dict[str, str], Headings, str | None]
) -> None:
    """What docpact reads equals MkDocs' own yaml_load, key order included."""
    files, anchors, style = layout
    _write(tmp_path, files)
    settings = read_mkdocs(tmp_path)
    assert settings == _mkdocs_reads(tmp_path)
    assert repr(settings) == repr(_mkdocs_reads(tmp_path))
    assert headings(tmp_path) == anchors
    assert docstring_style(tmp_path) == style


def test_a_list_of_the_child_replaces_the_parents_and_mappings_merge(tmp_path: Path) -> None:
    """As mergedeep's replace strategy: the theme merges key by key, the lists are the child's."""
    _write(tmp_path, LAYOUTS["the child replaces a list and merges mappings"][0])
    settings = read_mkdocs(tmp_path)
    assert settings["theme"] == {
        "name": "material",
        "features": ["search.highlight"],
        "palette": {"scheme": "slate"},
    }
    assert settings["markdown_extensions"] == [{"toc": {"separator": "~"}}]
    assert settings["plugins"] == [
        {"mkdocstrings": {"handlers": {"python": {"options": {"docstring_style": "sphinx"}}}}}
    ]
    assert "INHERIT" not in settings


def test_an_edited_parent_is_read_beneath_an_unchanged_child(tmp_path: Path) -> None:
    """Each file is cached by its own text: the child's cache never serves the old parent."""
    _write(tmp_path, {"mkdocs.yml": "INHERIT: base.yml\n", "base.yml": BASE})
    assert headings(tmp_path).toc == (("separator", "_"),)
    (tmp_path / "base.yml").write_text(BASE.replace("separator: _", "separator: '~'"), "utf-8")
    assert headings(tmp_path).toc == (("separator", "~"),)


# `!ENV` values, with the environment set: each converted as MkDocs converts it.
ENV_CASES = [
    ("!ENV [DOCPACT_TEST_UNSET, 5]", {}, 5),
    ("!ENV [DOCPACT_TEST_UNSET, '5']", {}, "5"),
    ("!ENV [DOCPACT_TEST_UNSET, [a, b]]", {}, ["a", "b"]),
    ("!ENV [DOCPACT_TEST_VAR, 5]", {"DOCPACT_TEST_VAR": "7"}, 7),
    ("!ENV [DOCPACT_TEST_VAR, 5]", {"DOCPACT_TEST_VAR": "text"}, "text"),
    ("!ENV DOCPACT_TEST_VAR", {"DOCPACT_TEST_VAR": "true"}, True),
    ("!ENV [DOCPACT_TEST_VAR, true]", {"DOCPACT_TEST_VAR": "off"}, False),
    ("!ENV [DOCPACT_TEST_UNSET, DOCPACT_TEST_VAR, 0]", {"DOCPACT_TEST_VAR": "2.5"}, 2.5),
    ("!ENV [DOCPACT_TEST_VAR]", {"DOCPACT_TEST_VAR": "~"}, None),
]


@pytest.mark.parametrize(("value", "environment", "expected"), ENV_CASES)
def test_env_values_are_typed_as_mkdocs_types_them(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    value: str,
    environment: dict[str, str],
    expected: object,
) -> None:
    """A variable's value and a default are YAML values: `!ENV [X, 5]` is the int 5."""
    for name in ("DOCPACT_TEST_UNSET", "DOCPACT_TEST_VAR"):
        monkeypatch.delenv(name, raising=False)
    for name, text in environment.items():
        monkeypatch.setenv(name, text)
    _write(tmp_path, {"mkdocs.yml": "INHERIT: base.yml\n", "base.yml": f"extra: {value}\n"})
    settings = read_mkdocs(tmp_path)
    assert settings == _mkdocs_reads(tmp_path)
    assert settings["extra"] == expected
    # A list or mapping of mkdocs.yml is a subclass of its type that knows its items' lines.
    assert type(expected) in type(settings["extra"]).__mro__[:2]
    assert not isinstance(settings["extra"], bool) or isinstance(expected, bool)


CHECKED = "site_name: ratio\n"
# Each broken INHERIT: the files it writes over the fixture project's, and the one line
# `docpact check` prints.
BROKEN = {
    "a file inheriting itself": (
        {"mkdocs.yml": f"{CHECKED}INHERIT: mkdocs.yml\n"},
        "mkdocs.yml:2: error: INHERIT loops back to mkdocs.yml: mkdocs.yml -> mkdocs.yml",
    ),
    "a loop through another file": (
        {
            "mkdocs.yml": f"{CHECKED}INHERIT: config/b.yml\n",
            "config/b.yml": "theme: {name: material}\n\nINHERIT: ../mkdocs.yml\n",
        },
        "config/b.yml:3: error: INHERIT loops back to mkdocs.yml: "
        "mkdocs.yml -> config/b.yml -> mkdocs.yml",
    ),
    "a loop between two parents": (
        {
            "mkdocs.yml": f"{CHECKED}INHERIT: a.yml\n",
            "a.yml": "INHERIT: b.yml\n",
            "b.yml": "INHERIT: ./a.yml\n",
        },
        "b.yml:1: error: INHERIT loops back to a.yml: mkdocs.yml -> a.yml -> b.yml -> a.yml",
    ),
    "a missing parent": (
        {"mkdocs.yml": f"{CHECKED}INHERIT: base.yml\n"},
        "mkdocs.yml:2: error: INHERIT names base.yml, which does not exist",
    ),
    "a missing grandparent, relative to its parent": (
        {"mkdocs.yml": f"{CHECKED}INHERIT: config/a.yml\n", "config/a.yml": "INHERIT: b.yml\n"},
        "config/a.yml:1: error: INHERIT names config/b.yml, which does not exist",
    ),
    "a folder": (
        {"mkdocs.yml": f"{CHECKED}INHERIT: docs\n"},
        "mkdocs.yml:2: error: INHERIT names docs, which is a folder, not a file",
    ),
    "a parent that is a list": (
        {"mkdocs.yml": f"{CHECKED}INHERIT: base.yml\n", "base.yml": "- site_name: a\n"},
        "mkdocs.yml:2: error: INHERIT names base.yml, which is not a mapping of settings",
    ),
    "a parent that is text": (
        {"mkdocs.yml": f"INHERIT: base.yml\n{CHECKED}", "base.yml": "site_name\n"},
        "mkdocs.yml:1: error: INHERIT names base.yml, which is not a mapping of settings",
    ),
    "a list of paths": (
        {"mkdocs.yml": f"{CHECKED}INHERIT: [a.yml, b.yml]\n"},
        "mkdocs.yml:2: error: INHERIT must be the path of a file, got ['a.yml', 'b.yml']",
    ),
    "a number": (
        {"mkdocs.yml": f"{CHECKED}INHERIT: 3\n"},
        "mkdocs.yml:2: error: INHERIT must be the path of a file, got 3",
    ),
    "no value": (
        {"mkdocs.yml": f"{CHECKED}INHERIT:\n"},
        "mkdocs.yml:2: error: INHERIT must be the path of a file, got None",
    ),
    "a parent that is not UTF-8": (
        {"mkdocs.yml": f"{CHECKED}INHERIT: base.yml\n", "base.yml": "site_name: \udcff\n"},
        "base.yml: error: cannot be read: not UTF-8 at line 1 (invalid start byte)",
    ),
}


@pytest.mark.parametrize(("files", "message"), BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_inherit_is_a_configuration_error_naming_its_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    message: str,
) -> None:
    """`docpact check` exits 2 with one line: the file and line of the INHERIT, the problem."""
    project = copy_project("contract_project", tmp_path)
    monkeypatch.chdir(project)
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_bytes(text.encode("utf-8", "surrogateescape"))
    assert main(["check"]) == 2
    assert capsys.readouterr() == ("", f"{message}\n")


def test_an_inherit_key_given_by_env_is_named_at_the_first_line_of_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key that no line spells `INHERIT` (`!ENV` gives it) is named where the mapping starts."""
    monkeypatch.delenv("DOCPACT_TEST_UNSET", raising=False)
    monkeypatch.chdir(tmp_path)
    text = "# The site.\nsite_name: a\n? !ENV [DOCPACT_TEST_UNSET, INHERIT]\n: base.yml\n"
    (tmp_path / "mkdocs.yml").write_text(text, "utf-8")
    with pytest.raises(DocpactError) as raised:
        read_mkdocs(tmp_path)
    assert str(raised.value) == "mkdocs.yml:2: error: INHERIT names base.yml, which does not exist"


def test_docpact_check_takes_the_anchors_from_a_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A separator set in the parent renames the site's anchors: the contract's section is gone."""
    project = copy_project("contract_project", tmp_path)
    monkeypatch.chdir(project)
    base = "markdown_extensions:\n  - toc:\n      separator: _\n"
    (project / "base.yml").write_text(base, "utf-8")
    with (project / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write("INHERIT: base.yml\n")
    assert main(["check"]) == 1
    assert capsys.readouterr() == (
        "pyproject.toml:5: DP005 docs/guide.md has no heading with anchor "
        "#per-rollout-mean-loss, listed for ratio._divide.scale_by_rollout "
        "(closest: #per-rollout_mean_loss)\n",
        "",
    )


def test_a_parent_that_is_not_yaml_is_named_at_its_line_with_yamls_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The parent's own file and line, and PyYAML's reason on one line."""
    project = copy_project("contract_project", tmp_path)
    monkeypatch.chdir(project)
    (project / "base.yml").write_text("site_name: [a\n", "utf-8")
    with (project / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write("INHERIT: base.yml\n")
    with pytest.raises(yaml.YAMLError) as error:
        yaml.load("site_name: [a\n", Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    reason = " ".join(str(error.value).split())
    assert main(["check"]) == 2
    assert capsys.readouterr() == ("", f"base.yml:2: error: is not valid YAML: {reason}\n")


def test_an_env_value_is_read_anew_when_the_environment_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text with `!ENV` is cached with the environment; one without, by its text alone."""
    from docpact._readers.mkdocs_load import _environment

    _write(tmp_path, {"mkdocs.yml": "site_name: !ENV [SITE, first]\n"})
    monkeypatch.delenv("SITE", raising=False)
    assert read_mkdocs(tmp_path) == {"site_name": "first"}
    monkeypatch.setenv("SITE", "second")
    assert read_mkdocs(tmp_path) == {"site_name": "second"}
    assert _environment("site_name: !ENV SITE\n") == tuple(sorted(os.environ.items()))
    assert _environment("site_name: plain\n") == ()
