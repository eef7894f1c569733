# SPDX-License-Identifier: MIT
"""Tests for scripts/check_headers.py: the SPDX header check over tracked or given files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers import load_module

REPO = Path(__file__).resolve().parent.parent
HEADER = "# SPDX-License-Identifier: MIT"
MISSING = f"HDR001 missing {HEADER!r} header"

check_headers = load_module("check_headers", REPO / "scripts/check_headers.py")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh git repository in tmp_path, isolated from any git state of the caller."""
    # Under a git hook these point git at the outer repository instead of the temporary one.
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(
        ["git", "config", "user.email", "test@example.invalid"], cwd=tmp_path, check=True
    )
    subprocess.run(["git", "config", "user.name", "Test"], cwd=tmp_path, check=True)
    return tmp_path


def write(root: Path, name: str, content: str | bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return path


def track(root: Path, *names: str) -> None:
    subprocess.run(["git", "add", "--", *names], cwd=root, check=True)


def test_clean_repo(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A repository whose tracked files all have the header exits 0 and prints nothing."""
    write(repo, "a.py", f"{HEADER}\nx = 1\n")
    write(repo, "pkg/__init__.py", f"{HEADER}\n")
    track(repo, "a.py", "pkg/__init__.py")
    assert check_headers.main(["--root", str(repo)]) == 0
    assert capsys.readouterr() == ("", "")


def test_verbose_summary(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With -v a clean run prints one summary line to stderr and nothing to stdout."""
    write(repo, "a.py", f"{HEADER}\n")
    track(repo, "a.py")
    assert check_headers.main(["--root", str(repo), "-v"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "check_headers: 1 files checked, 0 without the header\n"


def test_missing_header(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tracked file without the header exits 1 with one `path:1: HDR001` line."""
    write(repo, "pkg/mod.py", '"""Docstring first."""\n')
    track(repo, "pkg/mod.py")
    assert check_headers.main(["--root", str(repo)]) == 1
    assert capsys.readouterr().out == f"pkg/mod.py:1: {MISSING}\n"


def test_empty_init_is_not_exempt(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty `__init__.py` is reported like any other file without the header."""
    write(repo, "pkg/__init__.py", "")
    track(repo, "pkg/__init__.py")
    assert check_headers.main(["--root", str(repo)]) == 1
    assert capsys.readouterr().out == f"pkg/__init__.py:1: {MISSING}\n"


def test_shebang_then_header(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The header on line 2 after a shebang is accepted."""
    write(repo, "tool.py", f"#!/usr/bin/env python3\n{HEADER}\n")
    track(repo, "tool.py")
    assert check_headers.main(["--root", str(repo)]) == 0
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("body", ["", "import os\n", f"\n{HEADER}\n"])
def test_shebang_without_header(repo: Path, capsys: pytest.CaptureFixture[str], body: str) -> None:
    """A shebang not followed directly by the header is reported at line 2."""
    write(repo, "tool.py", f"#!/usr/bin/env python3\n{body}")
    track(repo, "tool.py")
    assert check_headers.main(["--root", str(repo)]) == 1
    assert capsys.readouterr().out == f"tool.py:2: {MISSING}\n"


def test_header_not_first(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The header below line 1 without a shebang above it does not count."""
    write(repo, "a.py", f'"""Doc."""\n{HEADER}\n')
    track(repo, "a.py")
    assert check_headers.main(["--root", str(repo)]) == 1
    assert capsys.readouterr().out == f"a.py:1: {MISSING}\n"


def test_only_tracked_files(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Untracked and non-Python files are ignored while tracked .py files are checked."""
    write(repo, "tracked.py", "x = 1\n")
    write(repo, "untracked.py", "x = 1\n")
    write(repo, "notes.txt", "no header\n")
    track(repo, "tracked.py", "notes.txt")
    assert check_headers.main(["--root", str(repo)]) == 1
    assert capsys.readouterr().out == f"tracked.py:1: {MISSING}\n"


def test_tracked_but_deleted_is_skipped(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tracked file deleted from the work tree is skipped rather than failing the run."""
    write(repo, "gone.py", "x = 1\n")
    track(repo, "gone.py")
    (repo / "gone.py").unlink()
    assert check_headers.main(["--root", str(repo)]) == 0
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(
    "content",
    [
        f"\ufeff{HEADER}\nx = 1\n".encode(),
        f"{HEADER}\r\nx = 1\r\n".encode(),
        f"\ufeff#!/usr/bin/env python3\r\n{HEADER}\r\n".encode(),
    ],
    ids=["bom", "crlf", "bom-shebang-crlf"],
)
def test_bom_and_crlf_accepted(
    repo: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    """A UTF-8 BOM before the first line and CRLF line endings still match the header."""
    write(repo, "a.py", content)
    track(repo, "a.py")
    assert check_headers.main(["--root", str(repo)]) == 0
    assert capsys.readouterr() == ("", "")


def test_invalid_utf8(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file that is not valid UTF-8 is reported as HDR002 at the line of the first bad byte."""
    write(repo, "latin.py", f"{HEADER}\nname = '".encode() + b"caf\xe9'\n")
    track(repo, "latin.py")
    assert check_headers.main(["--root", str(repo)]) == 1
    assert capsys.readouterr().out == "latin.py:2: HDR002 not valid UTF-8\n"


def test_output_sorted(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Offenders are printed sorted by path, whatever order they were given in."""
    names = ["z.py", "a/b.py", "m.py", "a.py"]
    for name in names:
        write(repo, name, "x = 1\n")
    track(repo, *names)
    assert check_headers.main(["--root", str(repo), *(str(repo / n) for n in names)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{name}:1: {MISSING}" for name in sorted(names)]


def test_given_paths_replace_tracked_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Paths given on the command line are checked instead of git's list, with no git needed."""
    good = write(tmp_path, "good.py", f"{HEADER}\n")
    bad = write(tmp_path, "sub/bad.py", "")
    write(tmp_path, "ignored.py", "")
    assert check_headers.main(["--root", str(tmp_path), str(good), str(bad)]) == 1
    assert capsys.readouterr().out == f"sub/bad.py:1: {MISSING}\n"


def test_non_git_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A root outside any git repository exits 2 with one error line and no traceback."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.delenv("GIT_DIR", raising=False)
    assert check_headers.main(["--root", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"check_headers: error: --root {tmp_path.resolve()} is not a git repository\n"


def test_root_not_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A root that does not exist exits 2 with one error line."""
    missing = tmp_path / "nowhere"
    assert check_headers.main(["--root", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == f"check_headers: error: --root {missing.resolve()} is not a directory\n"


def test_git_missing(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without git on PATH the check exits 2 with one error line."""
    monkeypatch.setenv("PATH", str(repo / "no-bin"))
    assert check_headers.main(["--root", str(repo)]) == 2
    assert capsys.readouterr().err == "check_headers: error: git is not installed or not on PATH\n"


def test_nonexistent_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A given path that does not exist exits 2 with one error line and no output."""
    missing = tmp_path / "missing.py"
    assert check_headers.main(["--root", str(tmp_path), str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"check_headers: error: {missing} does not exist or is not a file\n"


def test_project_files_have_header(capsys: pytest.CaptureFixture[str]) -> None:
    """Every .py file tracked in this repository starts with the SPDX header."""
    if not (REPO / ".git").exists():
        pytest.skip("not running from a git checkout")
    assert check_headers.main(["--root", str(REPO)]) == 0, capsys.readouterr().out
