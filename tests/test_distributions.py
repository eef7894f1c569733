# SPDX-License-Identifier: MIT
"""The two wheels, each alone in a fresh venv: docpact without torch, rolloutnorm without griffe."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds wheels and installs them in fresh environments

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "constraints" / "cpu.txt"


def _run(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(arg) for arg in args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The wheels of the repository root (docpact) and of rolloutnorm/, built by pip."""
    out = tmp_path_factory.mktemp("wheels")
    for project in (ROOT, ROOT / "rolloutnorm"):
        result = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, project)
        assert result.returncode == 0, result.stderr
    return {path.name.split("-")[0]: path for path in out.glob("*.whl")}


def _fresh_env(folder: Path, wheel: Path) -> Path:
    """A new venv with one wheel and its dependencies (torch from the CPU constraints)."""
    venv.create(folder, with_pip=True)
    python = folder / "bin" / "python"
    result = _run(python, "-m", "pip", "install", "-q", "-c", CONSTRAINTS, wheel)
    assert result.returncode == 0, result.stderr
    return python


def _importable(python: Path, *modules: str) -> dict[str, bool]:
    code = (
        "import importlib.util, json, sys; "
        "print(json.dumps([importlib.util.find_spec(m) is not None for m in sys.argv[1:]]))"
    )
    result = _run(python, "-c", code, *modules, cwd=Path("/"))
    assert result.returncode == 0, result.stderr
    return dict(zip(modules, json.loads(result.stdout), strict=True))


def test_the_wheels_hold_one_package_each(wheels: dict[str, Path]) -> None:
    """Docpact's wheel holds docpact and the console script; rolloutnorm's holds rolloutnorm."""
    assert sorted(wheels) == ["docpact", "rolloutnorm"]
    for name, wheel in wheels.items():
        files = zipfile.ZipFile(wheel).namelist()
        tops = {path.split("/")[0] for path in files}
        packages = {top for top in tops if not top.endswith(".dist-info")}
        assert packages == {name}
        assert f"{name}/py.typed" in files
        scripts = [path for path in files if path.endswith("entry_points.txt")]
        entry_points = "".join(zipfile.ZipFile(wheel).read(path).decode() for path in scripts)
        assert ("docpact = docpact.__main__:main" in entry_points) is (name == "docpact")


def test_docpact_alone_has_no_torch_and_checks_this_repository(
    wheels: dict[str, Path], tmp_path: Path
) -> None:
    """With docpact's wheel only, neither torch nor numpy is there, and `docpact check` passes."""
    python = _fresh_env(tmp_path / "docpact", wheels["docpact"])
    assert _importable(python, "docpact", "torch", "numpy", "rolloutnorm", "sybil") == {
        "docpact": True,
        "torch": False,
        "numpy": False,
        "rolloutnorm": False,
        "sybil": False,
    }
    result = _run(tmp_path / "docpact" / "bin" / "docpact", "check")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_rolloutnorm_alone_has_no_docpact_griffe_or_markdown(
    wheels: dict[str, Path], tmp_path: Path
) -> None:
    """With rolloutnorm's wheel only, the checker and what it needs are absent."""
    python = _fresh_env(tmp_path / "rolloutnorm", wheels["rolloutnorm"])
    assert _importable(python, "rolloutnorm", "torch", "docpact", "griffe", "markdown") == {
        "rolloutnorm": True,
        "torch": True,
        "docpact": False,
        "griffe": False,
        "markdown": False,
    }
    assert not (tmp_path / "rolloutnorm" / "bin" / "docpact").exists()
    code = "import importlib.metadata as m, rolloutnorm as r; print(m.version('rolloutnorm'))"
    code += "; print(r.__version__)"
    result = _run(python, "-c", code, cwd=Path("/"))
    installed, own = result.stdout.split()
    assert installed == own, result.stderr


def test_rolloutnorm_ships_the_repositorys_license() -> None:
    """rolloutnorm/LICENSE is a copy (a link would dangle in its sdist) of the root's."""
    copy = ROOT / "rolloutnorm" / "LICENSE"
    assert not copy.is_symlink()
    assert copy.read_bytes() == (ROOT / "LICENSE").read_bytes()


def test_the_docpact_sdist_holds_docpact_alone(tmp_path: Path) -> None:
    """The docpact sdist has its package, its tests and its license, and none of rolloutnorm."""
    result = _run(sys.executable, "-m", "build", "--sdist", "--outdir", tmp_path, ROOT)
    assert result.returncode == 0, result.stderr
    [archive] = tmp_path.glob("docpact-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    files = {name.partition("/")[2] for name in names}
    assert {
        "src/docpact/__init__.py",
        "LICENSE",
        "pyproject.toml",
        "tests/docpact/test_cli.py",
    } <= files
    assert not [name for name in files if name.startswith(("rolloutnorm/", "tests/rolloutnorm/"))]
