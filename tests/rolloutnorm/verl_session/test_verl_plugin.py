# SPDX-License-Identifier: MIT
"""A module that calls register(), named in VERL_USE_EXTERNAL_MODULES, registers on import verl."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a fresh interpreter importing verl

CHECK = (
    "import verl\n"
    "from verl.trainer.ppo.core_algos import get_policy_loss_fn\n"
    "from rolloutnorm import compute_policy_loss_per_rollout_mean as loss\n"
    "print(get_policy_loss_fn('per_rollout_mean') is loss)\n"
)


def _run(tmp_path, modules: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "my_losses.py").write_text("from rolloutnorm.verl import register\n\nregister()\n")
    env = {**os.environ, "VERL_USE_EXTERNAL_MODULES": modules}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, timeout=120
    )


def test_a_fresh_process_that_imports_verl_finds_the_loss(tmp_path) -> None:
    """A process importing verl imports the named module, so a worker gets the loss registered."""
    result = _run(tmp_path, "my_losses")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_without_the_module_a_fresh_process_lacks_the_loss(tmp_path) -> None:
    """Registering is per process: a fresh interpreter without the module has no such mode."""
    result = _run(tmp_path, "")
    assert result.returncode != 0
    assert "Unsupported loss mode: per_rollout_mean" in result.stderr


PAGE = Path(__file__).parents[3] / "docs" / "verl.md"
TRAINER_CHECK = (
    "import verl\n"
    "from verl.trainer.ppo.v1 import PPOTrainerSync, get_trainer_cls\n"
    "from verl.trainer.ppo.core_algos import get_policy_loss_fn\n"
    "trainer = get_trainer_cls('per_rollout_mean_sync')\n"
    "print(trainer.__name__, issubclass(trainer, PPOTrainerSync))\n"
    "print(get_policy_loss_fn('per_rollout_mean').__name__)\n"
)


def test_the_pages_v1_trainer_module_registers_the_trainer_and_the_loss(tmp_path) -> None:
    """The page's V1 trainer module, named in VERL_USE_EXTERNAL_MODULES, is found by its mode."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text("utf-8"), re.DOTALL)
    (module,) = [block for block in blocks if "@register_trainer(" in block]
    (tmp_path / "my_trainer.py").write_text(module)
    env = {**os.environ, "VERL_USE_EXTERNAL_MODULES": "my_trainer"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", TRAINER_CHECK],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "PerRolloutMeanTrainer",
        "True",
        "compute_policy_loss_per_rollout_mean",
    ]
