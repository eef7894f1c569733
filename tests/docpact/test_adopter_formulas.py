# SPDX-License-Identifier: MIT
"""The formula statements on the adopter's layout: each drift fails its check and strict builds.

tests/samples/adopter_project states two formulas: `per_rollout_mean`'s, whose docs name
`rollout_token_count` the code spells `rollout_token_counts` (`code-names`), as a code span in
its docstring and as `$$` math on a numbered page; and `StepCounts.kept_share`'s, a ratio in
a `@property`, as a code span and as inline math. A drift of any one of them fails
`docpact check` and both strict builds, with the finding at the drifted line.
"""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from helpers import run_module
from samples.drift import copy_project, drift, line_of

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("mkdocstrings_handlers") is None,
        reason="needs the docs extra (mkdocs, mkdocstrings-python)",
    ),
]

LOSS = "agentrl/loss.py"
METRICS = "agentrl/metrics.py"
PAGE = "docs/20-trainer-configuration.md"
EXAMPLES = "docs/30-examples.md"

# Each drift: the file, the text replaced and its replacement, and the finding it must give,
# at the line of the file that holds the text `at` once drifted.
DRIFTS = {
    "docstring: a product turned into a sum": (
        (
            LOSS,
            "``rollout_token_count(r) * num_trained_rows``",
            "``rollout_token_count(r) + num_trained_rows``",
        ),
        (LOSS, "``rollout_token_count(r) + num_trained_rows``", "DP023"),
    ),
    "page math: the product turned into a sum": (
        (PAGE, r"(r) \times \mathrm{num", r"(r) + \mathrm{num"),
        (PAGE, r"\hat{A}_i = \frac", "DP023"),
    ),
    "code: the product turned into a sum": (
        (
            LOSS,
            "rollout_token_counts[rid] * num_trained_rows",
            "rollout_token_counts[rid] + num_trained_rows",
        ),
        (LOSS, "rollout_token_counts[rid] + num_trained_rows", "DP023"),
    ),
    "property docstring: the guard dropped": (
        (METRICS, "``kept_rows / max(1, total_rows)``", "``kept_rows / total_rows``"),
        (METRICS, "rows kept: ``kept_rows / total_rows``", "DP023"),
    ),
    "property code: the guard dropped": (
        (METRICS, "self.kept_rows / max(1, self.total_rows)", "self.kept_rows / self.total_rows"),
        (METRICS, "return self.kept_rows / self.total_rows", "DP023"),
    ),
    "page inline math: no formula left": (
        (
            EXAMPLES,
            r"$\mathrm{kept\_rows} / \max(1, \mathrm{total\_rows})$",
            "the kept rows over them",
        ),
        (EXAMPLES, "## Kept share", "DP022"),
    ),
}
RUNS = {
    "docpact check": ("docpact", "check"),
    "mkdocs build --strict": ("mkdocs", "build", "--strict"),
    "mkdocs build --strict -q": ("mkdocs", "build", "--strict", "-q"),
}


def run(project: Path, command: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    site = ("--site-dir", str(project.parent / "site")) if command[0] == "mkdocs" else ()
    return run_module(project, *command, *site)


@pytest.mark.parametrize("edit", DRIFTS.values(), ids=DRIFTS.keys())
def test_each_formula_drift_fails_the_check_and_both_strict_builds(
    tmp_path: Path, edit: tuple[tuple[str, str, str], tuple[str, str, str]]
) -> None:
    (path, old, new), (at_path, at_text, code) = edit
    project = copy_project("adopter_project", tmp_path)
    drift(project / path, old, new)
    where = f"{at_path}:{line_of(project / at_path, at_text)}: {code} "
    for command in RUNS.values():
        result = run(project, command)
        assert result.returncode == 1, (command, result.stdout)
        assert where in result.stdout, (command, result.stdout)
