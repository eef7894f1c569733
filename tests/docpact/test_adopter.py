# SPDX-License-Identifier: MIT
"""docpact on an adopter's layout, end to end: its check, its strict builds, quiet or not.

tests/samples/adopter_project is laid out unlike this repository: the package at the root,
numbered pages, an `INHERIT:`ed mkdocs.yml with mkdocstrings but no API page, no noxfile,
plain pytest with a registered marker binding the claim, the code's dict spelled unlike the
docs' operand, and a macros-style hook that rewrites pages.
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
PROPS = "tests/test_loss.py"
# Each way of running docpact an adopter's CI has: its check, and both strict builds.
RUNS = {
    "docpact check": ("docpact", "check"),
    "mkdocs build --strict": ("mkdocs", "build", "--strict"),
    "mkdocs build --strict -q": ("mkdocs", "build", "--strict", "-q"),
}


def run(project: Path, command: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    site = ("--site-dir", str(project.parent / "site")) if command[0] == "mkdocs" else ()
    return run_module(project, *command, *site)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project("adopter_project", tmp_path)


@pytest.mark.parametrize("command", RUNS.values(), ids=RUNS.keys())
def test_the_adopter_passes_as_it_stands(project: Path, command: tuple[str, ...]) -> None:
    result = run(project, command)
    assert result.returncode == 0, result.stdout
    assert "ERROR" not in result.stdout
    assert "WARNING" not in result.stdout


def test_the_adopters_properties_run_under_plain_pytest(project: Path) -> None:
    """The marker is the project's own: its tests import no docpact, and pass strict markers."""
    text = (project / PROPS).read_text(encoding="utf-8")
    assert ("import docpact" in text, "from docpact" in text) == (False, False)
    result = run(project, ("pytest", "-q", "-p", "no:cacheprovider"))
    assert result.returncode == 0, result.stdout
    # The property, and the pages' examples with Sybil; the docstrings' with pytest-examples
    # where it is installed, else their module is skipped.
    examples = importlib.util.find_spec("pytest_examples") is not None
    summary = "6 passed in" if examples else "5 passed, 1 skipped in"
    assert summary in result.stdout


def _docstring_operand(project: Path) -> tuple[str, int, str]:
    drift(project / LOSS, "``rollout_token_count(r) * num", "``tokens(r) * num")
    drift(project / LOSS, "`rollout_token_count` (the", "the token count (the")
    line = line_of(project / LOSS, '"""Divide each row')
    return LOSS, line, "DP002 docstring of agentrl.loss.per_rollout_mean does not name operand"


def _docs_operand(project: Path) -> tuple[str, int, str]:
    drift(project / PAGE, "`rollout_token_count * num_trained_rows`", "the token count times")
    drift(project / PAGE, "`rollout_token_count` counts", "the token count counts")
    line = line_of(project / PAGE, "## Per-rollout mean loss")
    return PAGE, line, "DP004 section #per-rollout_mean_loss does not name operand"


def _division(project: Path) -> tuple[str, int, str]:
    drift(project / LOSS, "rollout_token_counts[rid] * num_trained_rows", "num_trained_rows")
    line = line_of(project / LOSS, "return [advantage / divisor")
    return (
        LOSS,
        line,
        (
            "DP003 no division in agentrl.loss.per_rollout_mean computes its divisor from operand "
            "`rollout_token_count` (`rollout_token_counts` in the code)"
        ),
    )


def _claim_reworded(project: Path) -> tuple[str, int, str]:
    drift(project / PAGE, "a share of 1 / num_trained_rows", "a share of 1 / the rollouts")
    line = line_of(project / PAGE, "<!-- docpact: claim mass-per-rollout -->")
    return PAGE, line, "DP015 claim mass-per-rollout changed since its property"


def _claim_word_unbound(project: Path) -> tuple[str, int, str]:
    """In the section the divisor contract names: the default scope of the claim words."""
    rows = "`num_trained_rows` the rows trained in the step."
    drift(project / PAGE, rows, f"{rows} The loss is always exact.")
    line = line_of(project / PAGE, "The loss is always exact.")
    return PAGE, line, "DP016"


def _macro_operand(project: Path) -> tuple[str, int, str]:
    """A page is read as written: an operand only a macro would write is not named."""
    drift(project / PAGE, "`rollout_token_count` counts", "{{ operand }} counts")
    drift(project / PAGE, "`rollout_token_count * num_trained_rows`", "{{ operand }} times rows")
    line = line_of(project / PAGE, "## Per-rollout mean loss")
    return PAGE, line, "DP004 section #per-rollout_mean_loss does not name operand"


DRIFTS = {
    "docstring operand dropped": _docstring_operand,
    "docs operand dropped": _docs_operand,
    "division changed": _division,
    "claim reworded": _claim_reworded,
    "claim-word sentence unbound": _claim_word_unbound,
    "operand only in a macro": _macro_operand,
}


@pytest.mark.parametrize("make", DRIFTS.values(), ids=DRIFTS.keys())
def test_each_drift_fails_the_check_and_both_strict_builds_at_its_line(
    project: Path, make: object
) -> None:
    path, line, message = make(project)  # type: ignore[operator]
    for name, command in RUNS.items():
        result = run(project, command)
        assert result.returncode == 1, (name, result.stdout)
        assert f"{path}:{line}: {message}" in result.stdout, (name, result.stdout)


# The formulas the adopter states: `per_rollout_mean`'s (its docs name `rollout_token_count`,
# its code `rollout_token_counts`) as a code span in its docstring and `$$` math on a numbered
# page, and `StepCounts.kept_share`'s (a ratio in a `@property`) as a code span and inline math.
# Each formula drift: the file, the text replaced and its replacement, and the finding it must give,
# at the line of the file that holds the text `at` once drifted.
FORMULA_DRIFTS = {
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


@pytest.mark.parametrize("edit", FORMULA_DRIFTS.values(), ids=FORMULA_DRIFTS.keys())
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
