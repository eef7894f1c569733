# SPDX-License-Identifier: MIT
"""Test helpers that run the project's own tools: scripts loaded by path, strict site builds."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType


def load_module(name: str, path: Path) -> ModuleType:
    """Import a script or an MkDocs hook from its path, under `name`."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it executes
    spec.loader.exec_module(module)
    return module


def run_module(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m ARGS` in its own process in `cwd`, as a user would, output merged."""
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=cwd,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )


def mkdocs_build(cwd: Path, *args: str, strict: bool = True) -> subprocess.CompletedProcess[str]:
    """Run `mkdocs build --strict` in its own process, as a user would, output merged.

    With `strict=False` the build runs without `--strict`, strict only if mkdocs.yml says so.
    """
    return run_module(cwd, "mkdocs", "build", *(["--strict"] if strict else []), *args)
