# SPDX-License-Identifier: MIT
"""The griffe extension: its hook fires on the griffe docpact requires, and it finds its config."""

from __future__ import annotations

import logging
import os
import re
import tomllib
from pathlib import Path

import pytest
from griffe import GriffeLoader, ModulesCollection, load_extensions

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
    divisor = line_of(project / DIVIDE, "divisor = torch.clamp(")
    assert [(f.code, f.path, f.line) for f in extension.findings] == [
        ("DP023", DIVIDE, divisor),
        ("DP003", DIVIDE, line),
    ]


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


def test_each_finding_is_logged_as_a_docpact_error_by_default(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Without `log=False`, every finding is an error of the `docpact` logger, as printed."""
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    extension = ContractExtension(config=load_config(project / "pyproject.toml"))
    loader = GriffeLoader(extensions=load_extensions(extension), search_paths=[project / "src"])
    with caplog.at_level(logging.WARNING, logger="docpact"):
        loader.load("ratio")
    assert [finding.code for finding in extension.findings] == ["DP023", "DP003"]
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("docpact", logging.ERROR, str(finding)) for finding in extension.findings
    ]


def test_without_a_pyproject_the_nearest_one_above_the_current_folder_is_read(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "src" / "ratio")
    extension = ContractExtension()
    assert extension.config is not None
    assert extension.config.pyproject == project / "pyproject.toml"


def test_contracts_that_cannot_be_read_are_an_error_and_check_nothing(
    project: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An unreadable pyproject.toml is logged as the `DocpactError` it raised; no hook checks."""
    gone = tmp_path / "gone.toml"
    with pytest.raises(DocpactError) as error:
        load_config(gone)
    with caplog.at_level(logging.WARNING, logger="docpact"):
        extension = ContractExtension(pyproject=gone)
        loader = GriffeLoader(extensions=load_extensions(extension), search_paths=[project / "src"])
        loader.load("ratio")
        extension.check_unpackaged()
    assert extension.config is None
    assert (extension.checked, extension.findings) == ([], [])
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("docpact", logging.ERROR, str(error.value))
    ]


DEFAULTS = """
[[tool.docpact.contract]]
kind = "config-defaults"
file = "conf/defaults.yaml"
docs = ["docs/guide.md#defaults"]
"""
BLOCK = """
## Defaults

<!-- docpact: config-defaults conf/defaults.yaml -->
```yaml
epochs: 1
```
"""


def test_contracts_on_no_package_are_checked_once_per_modules_collection(project: Path) -> None:
    """The loaders of one mkdocs build share modules: the config-defaults one is checked once."""
    with (project / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write(DEFAULTS)
    with (project / "docs/guide.md").open("a", encoding="utf-8") as file:
        file.write(BLOCK)
    (project / "conf").mkdir()
    (project / "conf/defaults.yaml").write_text("epochs: 1\n", "utf-8")
    (project / "src/other.py").write_text('"""Another package."""\n', "utf-8")
    config = load_config(project / "pyproject.toml")
    collection = ModulesCollection()
    extensions = {}
    for package in ("ratio", "other"):
        extensions[package] = ContractExtension(config=config, log=False)
        GriffeLoader(
            extensions=load_extensions(extensions[package]),
            search_paths=[project / "src"],
            modules_collection=collection,
        ).load(package)
    assert [c.kind for c in extensions["ratio"].checked] == ["config-defaults", "divisor"]
    assert extensions["other"].checked == []
    assert extensions["ratio"].findings == extensions["other"].findings == []


ELSEWHERE = """
[[tool.docpact.contract]]
object = "zeta.scale"
operands = ["a"]

[[tool.docpact.contract]]
object = "alpha.scale"
operands = ["a"]

[[tool.docpact.contract]]
object = "alpha.shift"
operands = ["a"]
"""


def test_the_first_package_warns_of_the_contracts_on_packages_no_page_renders(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Without the plugin, the first package loaded names the packages no page renders."""
    with (project / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write(ELSEWHERE)
    extension = ContractExtension(config=load_config(project / "pyproject.toml"))
    loader = GriffeLoader(extensions=load_extensions(extension), search_paths=[project / "src"])
    with caplog.at_level(logging.INFO, logger="docpact"):
        loader.load("ratio")
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            "docpact",
            logging.WARNING,
            "3 of 4 docpact contracts are on packages that no page renders (alpha, zeta), so "
            "this build leaves them unchecked: add `- docpact` under `plugins:` in mkdocs.yml, "
            "and the docpact plugin checks every contract in every build",
        )
    ]


def test_an_extension_that_defers_checks_through_its_owner(project: Path) -> None:
    """`defer_to`: the owner's contracts, checked and found by the owner; none by this one."""
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    owner = ContractExtension(config=load_config(project / "pyproject.toml"), log=False)
    deferring = ContractExtension(pyproject=project / "gone.toml", defer_to=owner)
    assert deferring.config is owner.config
    loader = GriffeLoader(extensions=load_extensions(deferring), search_paths=[project / "src"])
    loader.load("ratio")
    assert owner.checked == list(owner.config.contracts)
    line = line_of(project / DIVIDE, "scaled = advantages")
    divisor = line_of(project / DIVIDE, "divisor = torch.clamp(")
    assert [(f.code, f.path, f.line) for f in owner.findings] == [
        ("DP023", DIVIDE, divisor),
        ("DP003", DIVIDE, line),
    ]
    assert (deferring.checked, deferring.findings) == ([], [])


BROKEN_KIND = (
    "error: docpact kind entry point todo (no_such_module:TODO) of distribution broken-kind "
    "cannot be imported: ModuleNotFoundError: No module named 'no_such_module'"
)
KINDS = """
[[tool.docpact.contract]]
kind = "kinds"
object = "ratio"
"""


def test_a_check_that_reads_a_broken_kind_logs_one_error_and_finds_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A `kinds` contract reads the registered kinds: a broken one is one docpact error.

    The contracts it stopped count as checked, so no one reports them as never reached.
    """

    def broken() -> None:
        raise DocpactError(BROKEN_KIND)

    with (project / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write(KINDS)
    monkeypatch.setattr("docpact._registry.all_kinds", broken)
    extension = ContractExtension(config=load_config(project / "pyproject.toml"))
    loader = GriffeLoader(extensions=load_extensions(extension), search_paths=[project / "src"])
    with caplog.at_level(logging.INFO, logger="docpact"):
        loader.load("ratio")
    assert (extension.checked, extension.findings) == (list(extension.config.contracts), [])
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("docpact", logging.ERROR, BROKEN_KIND)
    ]


def test_docpact_check_stops_on_a_broken_kind_with_that_one_error(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The error that stopped a contract's check is the one line printed, exit 2."""
    from docpact.__main__ import main

    def broken() -> None:
        raise DocpactError(BROKEN_KIND)

    with (project / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write(KINDS)
    monkeypatch.setattr("docpact._registry.all_kinds", broken)
    monkeypatch.chdir(project)
    assert main(["check"]) == 2
    assert capsys.readouterr() == ("", f"{BROKEN_KIND}\n")
    with pytest.raises(DocpactError, match=re.escape(BROKEN_KIND)):
        check_project(load_config(project / "pyproject.toml"))


def test_the_packages_a_site_renders_are_those_its_pages_name_with_the_directive(
    tmp_path: Path,
) -> None:
    """`::: package.object` at a line's start, indented or not, in any page of docs_dir."""
    from docpact._extension import _rendered_packages

    (tmp_path / "pages" / "deep").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: s\ndocs_dir: pages\n", encoding="utf-8")
    (tmp_path / "pages" / "a.md").write_text(
        "# A\n\n::: alpha.scale\n\n  :::\tbeta\n\ntext ::: gamma\n:::delta\n", encoding="utf-8"
    )
    (tmp_path / "pages" / "deep" / "b.md").write_text("\ufeff::: zeta.f\n", encoding="utf-8")
    (tmp_path / "pages" / "c.md").write_bytes(b"::: eta\n\xff\n")  # not UTF-8: not read
    (tmp_path / "pages" / "d.txt").write_text("::: theta\n", encoding="utf-8")
    assert _rendered_packages(tmp_path) == {"alpha", "beta", "zeta"}
    (tmp_path / "mkdocs.yml").write_text("site_name: s\ndocs_dir: [pages]\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text("::: iota\n", encoding="utf-8")
    assert _rendered_packages(tmp_path) == {"iota"}  # a docs_dir that is no path: docs/
    (tmp_path / "mkdocs.yml").write_text("site_name: [\n", encoding="utf-8")
    assert _rendered_packages(tmp_path) == {"iota"}  # the build reports the broken file
    (tmp_path / "mkdocs.yml").unlink()
    assert _rendered_packages(tmp_path) == {"iota"}
    (tmp_path / "docs" / "x.md").unlink()
    (tmp_path / "docs").rmdir()
    assert _rendered_packages(tmp_path) == set()


def test_a_contract_on_a_package_a_page_renders_is_not_warned_of(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with (project / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write(ELSEWHERE)
    (project / "docs" / "alpha.md").write_text("::: alpha\n", encoding="utf-8")
    extension = ContractExtension(config=load_config(project / "pyproject.toml"))
    loader = GriffeLoader(extensions=load_extensions(extension), search_paths=[project / "src"])
    with caplog.at_level(logging.INFO, logger="docpact"):
        loader.load("ratio")
    assert [r.getMessage() for r in caplog.records] == [
        "1 of 4 docpact contracts are on packages that no page renders (zeta), so this build "
        "leaves them unchecked: add `- docpact` under `plugins:` in mkdocs.yml, and the "
        "docpact plugin checks every contract in every build"
    ]


def test_an_option_the_extension_does_not_take_is_one_error_naming_it(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="docpact"):
        extension = ContractExtension(
            config=load_config(project / "pyproject.toml"), pyprojekt="x", log_level=1
        )
    assert extension.config is not None
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            logging.ERROR,
            "docpact's griffe extension has no option log_level, pyprojekt; it takes pyproject",
        )
    ]


def test_without_logging_an_error_that_stops_a_check_is_kept_for_the_caller(
    project: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> None:
        raise DocpactError(BROKEN_KIND)

    with (project / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write(KINDS)
    monkeypatch.setattr("docpact._registry.all_kinds", broken)
    extension = ContractExtension(config=load_config(project / "pyproject.toml"), log=False)
    loader = GriffeLoader(extensions=load_extensions(extension), search_paths=[project / "src"])
    with caplog.at_level(logging.INFO, logger="docpact"):
        loader.load("ratio")
    assert [str(error) for error in extension.errors] == [BROKEN_KIND]
    assert caplog.records == []
