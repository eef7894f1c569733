# SPDX-License-Identifier: MIT
"""docpact's layers import downward only: import-linter's contract holds, and catches a breach."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _lint_imports(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter with the repository's contracts on the docpact package under `src`."""
    lint_imports = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [str(lint_imports), str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "upward"),
    [
        # A data type that imports a reader, at the top of its module.
        ("_model/findings.py", "from docpact._readers.data import differences\n"),
        # A reader that imports the registry under TYPE_CHECKING only.
        (
            "_readers/markdown/prose.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import docpact._registry\n",
        ),
        # A kind that imports configuration loading inside a function.
        ("_kinds/names.py", "def _load():\n    from docpact._pyproject import load_config\n"),
    ],
    ids=["module level", "type checking", "in a function"],
)
def test_an_upward_import_breaks_the_layers_contract(
    tmp_path: Path, module: str, upward: str
) -> None:
    """The contract holds on docpact as it is, and fails once a lower layer imports upward."""
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "src" / "docpact", src / "docpact", ignore=shutil.ignore_patterns("__pycache__")
    )
    kept = _lint_imports(src, tmp_path)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "1 kept, 0 broken" in kept.stdout
    path = src / "docpact" / module
    path.write_text(path.read_text(encoding="utf-8") + "\n" + upward, encoding="utf-8")
    broken = _lint_imports(src, tmp_path)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "docpact's layers import downward only BROKEN" in broken.stdout
