# SPDX-License-Identifier: MIT
"""mkdocs.yml read as data: MkDocs' tags understood, nothing it names imported."""

from __future__ import annotations

from pathlib import Path

import pytest

from docpact._mkdocs import docstring_style, read_mkdocs

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
    assert emoji == "tag:yaml.org,2002:python/name:material.extensions.emoji.twemoji"
    assert docstring_style(tmp_path) == "sphinx"


def test_no_mkdocs_yml_means_no_settings(tmp_path: Path) -> None:
    """A project without MkDocs has no settings and no configured docstring style."""
    assert read_mkdocs(tmp_path) is None
    assert docstring_style(tmp_path) is None


def test_mkdocs_yaml_is_read_too(tmp_path: Path) -> None:
    """MkDocs also accepts mkdocs.yaml."""
    (tmp_path / "mkdocs.yaml").write_text(CONFIG.replace("sphinx", "numpy"), "utf-8")
    assert docstring_style(tmp_path) == "numpy"
