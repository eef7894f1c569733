#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run the claims' bound properties and tell a failed assertion from an error, per property.

A property checks its claim only when it fails an assertion (`assert`, pytest's `fail`,
`pytest.raises` not raising, or a Hypothesis counterexample of one): a property that fails
on an error (a `TypeError`, a fixture's failed assertion) did not check the claim, and
neither did one that ran out of time. The drift runner's `properties` check
(`scripts/drift.py`) counts a claim caught by this rule. Run with `-p properties` inside
pytest, this module is also the probe that classifies each failure.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPORT = "CLAIM_PROPERTIES_REPORT"  # where the probe writes each test's outcome
PROBE = "properties"
_OUTCOMES: dict[str, str] = {}  # the probe's: each test's outcome in this pytest run


class PropertiesError(Exception):
    """A usage error: the message is printed on one line and the script exits 2."""


@dataclass(frozen=True)
class Property:
    """A claim's property: its claim, pytest node id and nox session (empty for any)."""

    claim: str
    node: str
    session: str


# --- the probe, loaded in the pytest run as `-p properties` --------------------------------


def _is_assertion(error: BaseException) -> bool:
    """Whether a test's failure is a failed check of its own rather than an error."""
    import pytest

    if isinstance(error, BaseExceptionGroup):  # Hypothesis reports several bugs as a group
        return all(_is_assertion(inner) for inner in error.exceptions)
    return isinstance(error, AssertionError | pytest.fail.Exception)


def pytest_configure(config) -> None:
    """Each property runs its examples once, derandomized, unshrunk, with no deadline."""
    del config
    try:
        from hypothesis import Phase, settings
    except ImportError:
        return
    settings.register_profile(
        PROBE,
        phases=(Phase.explicit, Phase.generate),
        database=None,
        deadline=None,
        derandomize=True,
    )
    settings.load_profile(PROBE)


def _hookwrapper(function):
    import pytest

    return pytest.hookimpl(wrapper=True)(function)


@_hookwrapper
def pytest_runtest_makereport(item, call):
    """Tag a failed report with the kind of its failure, in the process that ran it.

    Only the test's own call can fail an assertion: a fixture's failure is an error.
    """
    report = yield
    if report.failed and call.excinfo is not None:
        error = call.excinfo.value
        own = call.when == "call" and _is_assertion(error)
        kind = "assertion" if own else f"error {type(error).__name__} in {call.when}"
        report.user_properties.append((PROBE, kind))
    return report


def pytest_runtest_logreport(report) -> None:
    """Keep each test's worst outcome: an error over an assertion over a pass."""
    if report.failed:
        kind = dict(report.user_properties).get(PROBE, f"error in {report.when}")
    elif report.skipped:
        kind = "skipped"
    else:
        kind = "passed"
    rank = ("passed", "skipped", "assertion")
    old = _OUTCOMES.get(report.nodeid)
    if old is None or (old in rank and (kind not in rank or rank.index(kind) > rank.index(old))):
        _OUTCOMES[report.nodeid] = kind


def pytest_collectreport(report) -> None:
    """A module that fails to collect is an error of every property in it."""
    if report.failed:
        _OUTCOMES[report.nodeid or "<collection>"] = "error in collection"


def pytest_sessionfinish(session) -> None:
    """Write the outcomes where the runner asked for them."""
    if path := os.environ.get(REPORT):
        Path(path).write_text(json.dumps(_OUTCOMES), "utf-8")


# --- the runner ----------------------------------------------------------------------------


def read_properties(project: Path, session: str) -> tuple[list[Property], list[str]]:
    """The claims' properties that `session` (or plain pytest) runs, and the others, by node.

    Raises:
        PropertiesError: If the project's claims contracts cannot be read.
    """
    from docpact import DocpactError, load_config
    from docpact.claims._analysis import analyse

    try:
        config = load_config(project / "pyproject.toml")
    except DocpactError as error:
        msg = f"cannot read the claims contracts: {error}"
        raise PropertiesError(msg) from None
    found, other = [], []
    for contract in config.contracts:
        if contract.kind != "claims":
            continue
        analysis = analyse(contract, config)
        for binding in analysis.bindings:
            if binding.claim is None:
                continue
            node = f"{binding.path}::{binding.node}"
            runs = analysis.session(binding) or ""
            if runs not in {session, ""}:
                other.append(f"{binding.claim}: {node} (session {runs})")
                continue
            found.append(Property(binding.claim, node, runs))
    return found, other


def run_properties(
    project: Path, nodes: list[str], paths: list[str], timeout: float | None
) -> tuple[dict[str, str], str]:
    """Run the nodes in the project: each node's outcome, and the end of pytest's output.

    Every node runs to its end whatever the project's `addopts` (`-x`, a collection error),
    with pytest's root at the project, so node ids are the bindings'. An outcome is
    `passed`, `skipped`, `assertion`, `error ...` or, for a run past `timeout`, `timeout`
    for every node, its process group killed.

    Args:
        project: The project's root.
        nodes: The properties' pytest node ids.
        paths: Folders of the project, relative to it, put first on the import path.
        timeout: Seconds the run may take; `None` for no limit.

    Raises:
        ValueError: If no node is given, which would run the whole suite.
    """
    if not nodes:
        msg = "run_properties needs at least one node"
        raise ValueError(msg)
    report = project / ".claim-properties.json"
    report.unlink(missing_ok=True)
    python_path = [str(Path(__file__).parent), *(str(project / p) for p in paths)]
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join([*python_path, os.environ.get("PYTHONPATH", "")]),
        REPORT: str(report),
    }
    command = [
        *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", PROBE),
        *(f"--rootdir={project}", "--maxfail=0", "--continue-on-collection-errors"),
    ]
    process = subprocess.Popen(
        [*command, *nodes],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own group: a timeout kills xdist's workers too
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return dict.fromkeys(nodes, "timeout"), ""
    tail = "\n".join(output.decode("utf-8", "replace").splitlines()[-15:])
    outcomes = json.loads(report.read_text("utf-8")) if report.exists() else {}
    report.unlink(missing_ok=True)
    verdicts = {}
    for node in nodes:
        found = [kind for key, kind in outcomes.items() if key.split("[")[0] == node]
        if not found:
            found = [k for k in outcomes.values() if k.startswith("error in collection")]
        verdicts[node] = _worst(found) if found else "error: not run"
    return verdicts, tail


def _worst(kinds: list[str]) -> str:
    """A property's outcome over its parametrized cases: any error, else any assertion, else."""
    errors = [k for k in kinds if k not in {"passed", "skipped", "assertion"}]
    if errors:
        return errors[0]
    return "assertion" if "assertion" in kinds else ("passed" if "passed" in kinds else "skipped")


def main(argv: list[str] | None = None) -> int:
    """Print each bound property's outcome; exit 1 when one did not pass, 2 on a usage error."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=Path(), help="the project's root")
    parser.add_argument(
        "--session",
        default="tests",
        help="run the properties of this nox session and of plain pytest (default: tests)",
    )
    args = parser.parse_args(argv)
    project = args.project.resolve()
    try:
        properties, other = read_properties(project, args.session)
        if not properties:
            msg = f"no claim has a property that session {args.session} or plain pytest runs"
            raise PropertiesError(msg)
    except PropertiesError as error:
        print(f"properties: error: {error}", file=sys.stderr)
        return 2
    from docpact import load_config

    paths = list(load_config(project / "pyproject.toml").paths)
    verdicts, _ = run_properties(project, [p.node for p in properties], paths, None)
    for prop in properties:
        print(f"{prop.claim}: {prop.node}: {verdicts[prop.node]}")
    for line in other:
        print(f"not run here: {line}")
    return int(any(verdict not in {"passed", "skipped"} for verdict in verdicts.values()))


if __name__ == "__main__":
    sys.exit(main())
