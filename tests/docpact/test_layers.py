# SPDX-License-Identifier: MIT
"""import-linter's contracts: docpact's layers, the two wings apart, explain above the core."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _lint_imports(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter with the repository's contracts on the packages under `src`."""
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


LAYERS = "docpact's layers import downward only"
WINGS = "docpact reads rolloutnorm only through griffe, and never imports torch"
UNAWARE = "rolloutnorm knows nothing of its verification"
CORE = "rolloutnorm's core never imports the explain tooling"
EXPLAIN = "rolloutnorm's explain tooling imports downward only"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "upward", "contract"),
    [
        # A data type that imports a reader, at the top of its module.
        ("docpact/_model/findings.py", "from docpact._readers.data import differences\n", LAYERS),
        # A reader that imports the registry under TYPE_CHECKING only.
        (
            "docpact/_readers/markdown/prose.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import docpact._registry\n",
            LAYERS,
        ),
        # A kind that imports configuration loading inside a function.
        (
            "docpact/_kinds/names.py",
            "def _load():\n    from docpact._pyproject import load_config\n",
            LAYERS,
        ),
        ("docpact/_readers/data.py", "def _tensor():\n    import torch\n", WINGS),
        ("docpact/_cli.py", "import rolloutnorm._step\n", WINGS),
        ("rolloutnorm/_step.py", "def _claim():\n    from docpact import claim\n", UNAWARE),
        ("rolloutnorm/_report.py", "from rolloutnorm._explain import batch\n", CORE),
        ("rolloutnorm/_explain/rows.py", "from rolloutnorm._explain import read\n", EXPLAIN),
        # A new docpact module given no layer: the layers are exhaustive.
        ("docpact/_stray.py", '"""A module in no layer."""\n', LAYERS),
        # The MkDocs plugin reaching into the claims extension, lazily: only the package's
        # `docpact.claim` may import it.
        ("docpact/_plugin.py", "def _boxes():\n    import docpact.claims._boxes\n", LAYERS),
        # The registry importing the extension's kind rather than reading its entry point.
        ("docpact/_registry.py", "from docpact.claims import CLAIMS\n", LAYERS),
    ],
    ids=[
        "module level",
        "type checking",
        "in a function",
        "docpact imports torch",
        "docpact imports rolloutnorm",
        "rolloutnorm imports docpact",
        "the core imports explain",
        "explain's rows import its reader",
        "a docpact module in no layer",
        "the plugin imports the claims extension",
        "the registry imports the claims extension",
    ],
)
def test_an_import_against_the_grain_breaks_its_contract(
    tmp_path: Path, module: str, upward: str, contract: str
) -> None:
    """The contracts hold on both packages as they are, and one breaks on a wrong import.

    Or on a module that no layer of docpact's exhaustive layers names.
    """
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__")
    for package in (ROOT / "src" / "docpact", ROOT / "rolloutnorm" / "src" / "rolloutnorm"):
        shutil.copytree(package, src / package.name, ignore=ignore)
    kept = _lint_imports(src, tmp_path)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "5 kept, 0 broken" in kept.stdout
    path = src / module
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(before + "\n" + upward, encoding="utf-8")
    broken = _lint_imports(src, tmp_path)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert f"{contract} BROKEN" in broken.stdout
    assert "4 kept, 1 broken" in broken.stdout
