# SPDX-License-Identifier: MIT
"""Copy a fixture project into a test's folder, and drift one of its files there."""

from __future__ import annotations

import shutil
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent
# The contract project's divided function, and the drift that divides by distinct rollouts.
DIVIDE = "src/ratio/_divide.py"
DISTINCT_ROLLOUTS = ("clamp(rollout_token_count *", "clamp(codes.unique().numel() *")


def copy_project(name: str, destination: Path) -> Path:
    """Copy the fixture project `tests/samples/<name>` to `destination/<name>`."""
    return Path(shutil.copytree(SAMPLES / name, destination / name))


def drift(path: Path, old: str | bytes, new: str | bytes) -> None:
    """Replace the one occurrence of `old` in a file with `new`, both text or both bytes."""
    if isinstance(old, bytes) and isinstance(new, bytes):
        data = path.read_bytes()
        assert data.count(old) == 1, f"{old!r} occurs {data.count(old)} times in {path}"
        path.write_bytes(data.replace(old, new))
        return
    assert isinstance(old, str)
    assert isinstance(new, str)
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(path: Path, text: str) -> int:
    """Return the 1-based line of the first line of a file that contains `text`."""
    lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)
