# SPDX-License-Identifier: MIT
"""The griffe extension: its hook fires on the griffe docpact requires, and it finds its config."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest
from griffe import GriffeLoader, load_extensions

from docpact import ContractExtension, DocpactError, check_project, load_config
from samples.drift import DISTINCT_ROLLOUTS, DIVIDE, copy_project, drift, line_of

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project("contract_project", tmp_path)


class ConfigDirPath(os.PathLike[str]):
    """A path known only once asked for, like the `!relative $config_dir/...` of mkdocs.yml."""

    def __init__(self, folder: Path, name: str) -> None:
        self.folder, self.name = folder, name

    def __fspath__(self) -> str:
        return os.path.join(self.folder, self.name)


def test_the_hook_checks_each_contract_when_griffe_loads_its_package(project: Path) -> None:
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    config = load_config(project / "pyproject.toml")
    extension = ContractExtension(config=config, log=False)
    loader = GriffeLoader(extensions=load_extensions(extension), search_paths=[project / "src"])
    loader.load("ratio")
    assert extension.checked == list(config.contracts)
    line = line_of(project / DIVIDE, "scaled = advantages")
    assert [(f.code, f.path, f.line) for f in extension.findings] == [("DP003", DIVIDE, line)]


def test_a_griffe_that_never_calls_the_hook_is_an_error_not_a_pass(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before griffe 1.14 `on_package` is never called; docpact says so instead of passing."""
    monkeypatch.setattr(ContractExtension, "on_package", lambda self, **kwargs: None)
    with pytest.raises(DocpactError, match=r"never called docpact's on_package hook"):
        check_project(load_config(project / "pyproject.toml"))


def test_the_project_requires_a_griffe_with_the_hook() -> None:
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    [griffe] = [d for d in dependencies["project"]["dependencies"] if d.startswith("griffe")]
    lower = re.fullmatch(r"griffe>=(\d+)\.(\d+)", griffe)
    assert lower is not None
    assert (int(lower[1]), int(lower[2])) >= (1, 14)


def test_a_path_like_pyproject_is_read_from_any_current_folder(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    extension = ContractExtension(pyproject=ConfigDirPath(project, "pyproject.toml"))
    assert extension.config is not None
    assert extension.config.pyproject == project / "pyproject.toml"
