#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Apply each catalogued drift to a copy of the repository and show which checks catch it.

A drift whose `expect` names `docpact` or `docpact-core` must give `at = "path:line"`, the
finding the edit makes (a path relative to the drift's `root` where it has one): those
checks count as catching it only if their output holds a finding at that line, so a drift
caught by accident elsewhere fails the run. Every check runs on the clean copy but the
test suites, of which it runs each test (each page of examples) that failed on a drift,
which must pass there (`BASELINED`). On a drift's
copy run the checks it expects, the quick ones (`QUICK`) whatever it expects, and the long
ones it does not expect only with `--all-checks`: a run's verdict needs the expected
checks alone, and the long ones are most of its time. Each check of each copy is one task;
the longest run first, `--jobs` at a time.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "scripts" / "drift_catalogue.toml"
VERIFICATION_PAGE = ROOT / "docs" / "verification.md"
KILL_SENTENCE = re.compile(r"<!-- drift-count -->.*?<!-- /drift-count -->", re.DOTALL)

# A failing property stops at its first counterexample, unshrunk (tests/conftest.py).
DRIFT_PROFILE = "--hypothesis-profile=drift"
PYTEST = ["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", DRIFT_PROFILE]
# The tests that run the pages or build the site belong to those checks, and the catalogue's
# own test fails in every drifted copy by design, so unit-tests leaves them out.
PAGE_TESTS = "tests/test_docs_pages.py"
SOURCES = ("src", "rolloutnorm/src")  # the packages' folders in a copy
SCRIPTS = Path(__file__).resolve().parent
if str(SCRIPTS) not in sys.path:  # run as a script it is; loaded by path, not yet
    sys.path.insert(0, str(SCRIPTS))
from core_contracts import CORE_PYPROJECT, CoreError, write_core_pyproject  # noqa: E402
from properties import PropertiesError, read_properties  # noqa: E402
from properties import run_properties as run_nodes  # noqa: E402

NOT_UNIT = (PAGE_TESTS, "tests/test_site.py", "tests/test_drift_catalogue.py")

# Each check, run in the copy's own tree with the interpreter running this script. They overlap
# where one runs another's code (docs/verification.md says where), so a drift caught by several
# is guarded several times over.
CHECKS = {
    "docpact": ["-m", "docpact", "check"],
    # The core contract judged alone: every contract but the claims ones (core_contracts.py).
    "docpact-core": ["-m", "docpact", "check", "--pyproject", CORE_PYPROJECT],
    "docs-examples": [*PYTEST, "docs", PAGE_TESTS],
    "unit-tests": [
        *PYTEST,
        *("-m", "not slow", "tests", "src", "rolloutnorm/src"),
        *(f"--ignore={path}" for path in NOT_UNIT),
    ],
    "mkdocs": ["-m", "mkdocs", "build", "--strict", "--site-dir", "_drift_site"],
    # The strict build as CI scripts often run it, quiet: a finding must fail it all the same.
    "mkdocs-quiet": ["-m", "mkdocs", "build", "--strict", "-q", "--site-dir", "_drift_quiet"],
    # The properties bound to the pages' claims (@docpact.claim), each run to its end, so
    # that the table shows every claim whose property a drift breaks.
    "properties": [],
    # verl's own actor update on 2 ranks (the per-rollout masses), with the interpreter of
    # the verl session's environment: `nox -s verl` builds it.
    "verl": [
        *PYTEST,
        *(
            f"tests/rolloutnorm/verl_session/test_actor_loop.py::"
            f"test_every_kept_rollout_carries_one_over_the_trained_rows[2-{name}]"
            for name in ("floor", "rollout-n", "v1-padding")
        ),
    ],
}
# Checks that run only on the clean copy and on the drifts that expect them: each repeats
# tests another check runs, or needs an environment of its own, and takes long.
ON_REQUEST = ("properties", "verl", "mkdocs-quiet")
# The test suites, which stop at their first failure: the clean copy does not run them
# whole. Each test (each page, for the examples, which share a page's namespace) that
# failed on a drift runs again on the clean copy, and must pass there: else what failed
# was the copy, not the drift.
BASELINED = ("unit-tests", "docs-examples", "verl")
# A failed test in pytest's short summary: its id, up to the ` - ` before the reason.
FAILED_TEST = re.compile(r"^FAILED (?P<node>.+?)(?: - .*)?$")
SUMMARY = "short test summary info"
# The checks of a drift with a `root`, a fixture project: run inside it, with the copy's docpact.
ROOT_CHECKS = ("docpact", "docpact-core", "mkdocs", "mkdocs-quiet")
# The checks whose finding a drift's `at` names.
AT_CHECKS = ("docpact", "docpact-core")
# Checks of a few seconds, run on every drift's copy, expected or not, for the table.
QUICK = ("docpact", "docpact-core", "mkdocs")
# Seconds a check takes on the clean copy (2 cores; verl's a guess): the longest start first.
COST = {"unit-tests": 60, "verl": 60, "docs-examples": 35, "properties": 10}
FINDING = re.compile(r"(?P<at>\S[^:]*:\d+): DP\d+ ")
AT = re.compile(r"^[^:\s][^:]*:[1-9]\d*$")
VERL_PYTHON = ROOT / ".nox" / "verl" / ("Scripts" if sys.platform == "win32" else "bin") / "python"


class DriftError(Exception):
    """A catalogue entry that cannot be applied: exit status 2."""


@dataclass(frozen=True)
class Drift:
    """One catalogued drift: its name, the checks and properties that must catch it, its edits.

    A drift with a `root` is made in that fixture project of the repository, whose files its
    edits name relative to it (they are stored relative to the repository), and is checked
    there by the `ROOT_CHECKS`. `at` is the `path:line` of the finding that the `AT_CHECKS`
    it expects must report, relative to the root.
    """

    name: str
    expect: tuple[str, ...]
    edits: tuple[dict[str, str], ...]
    properties: tuple[str, ...] = ()
    root: str = ""
    at: str = ""


@dataclass(frozen=True)
class Copy:
    """A tree to check: its drift (None for the clean copy), fixture root and checks."""

    tree: Path
    drift: Drift | None
    root: str
    checks: tuple[str, ...]

    def at(self, check: str) -> str:
        """The `path:line` that `check` must report a finding at here, or "" for none."""
        if self.drift is None or check not in self.drift.expect or check not in AT_CHECKS:
            return ""
        return self.drift.at


@dataclass(frozen=True)
class Outcome:
    """One check run in one copy: whether it failed there, the line saying so, its seconds.

    `claims` are the claims whose property failed an assertion (the `properties` check);
    `failed` is the id of the first test that failed, as pytest's summary names it.
    """

    check: str
    caught: bool
    evidence: str
    seconds: float
    claims: frozenset[str] = frozenset()
    failed: str = ""


def get_parser() -> argparse.ArgumentParser:
    """The command line: which catalogue, and whether to rewrite the docs' kill count."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--catalogue", type=Path, default=CATALOGUE, help="the TOML catalogue")
    parser.add_argument(
        "--update-docs", action="store_true", help="write the kill count into docs/verification.md"
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="run only the drift of this name (repeatable); the clean copy is not run",
    )
    parser.add_argument(
        "--all-checks",
        action="store_true",
        help="run every check on every drift, the long ones it does not expect included",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="checks run at once, each in its copy's tree (default: the CPU count)",
    )
    return parser


def load_catalogue(path: Path) -> list[Drift]:
    """Read and validate the catalogue.

    Raises:
        DriftError: If the file is not TOML or an entry is malformed.
    """
    try:
        entries = tomllib.loads(path.read_text("utf-8"))["drift"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as error:
        msg = f"{path}: cannot read [[drift]] entries: {error}"
        raise DriftError(msg) from None
    drifts = []
    for index, entry in enumerate(entries, start=1):
        unknown = sorted(set(entry.get("expect", [])) - set(CHECKS))
        if not entry.get("name") or not entry.get("expect") or not entry.get("edits") or unknown:
            msg = f"{path}: drift {index} needs a name, edits and known checks in expect {unknown}"
            raise DriftError(msg)
        properties = entry.get("properties", [])
        if properties and "properties" not in entry["expect"]:
            msg = f"{path}: drift {index} lists properties but does not expect 'properties'"
            raise DriftError(msg)
        root = entry.get("root", "")
        if root and (not isinstance(root, str) or not set(entry["expect"]) <= set(ROOT_CHECKS)):
            msg = f"{path}: drift {index} in root {root!r} can expect only {list(ROOT_CHECKS)}"
            raise DriftError(msg)
        at = entry.get("at", "")
        located = [check for check in entry["expect"] if check in AT_CHECKS]
        if located and not (isinstance(at, str) and AT.match(at)):
            msg = (
                f"{path}: drift {index} expects {', '.join(located)} and needs "
                f'at = "path:line", the finding it makes, got {at!r}'
            )
            raise DriftError(msg)
        if at and not located:
            msg = f"{path}: drift {index} has an `at` but expects none of {list(AT_CHECKS)}"
            raise DriftError(msg)
        edits = tuple(
            {**edit, "file": f"{root}/{edit['file']}"} if root else edit for edit in entry["edits"]
        )
        drifts.append(
            Drift(entry["name"], tuple(entry["expect"]), edits, tuple(properties), root, at)
        )
    return drifts


def copy_repository(destination: Path) -> None:
    """Copy the tracked and untracked, not ignored files of the repository.

    Raises:
        DriftError: If git is missing or the repository is not a git checkout.
    """
    from docpact._readers.files import copy_files, git_files

    names = git_files(ROOT)
    if names is None:
        msg = "the drift runner copies a git checkout and cannot list its files (git ls-files)"
        raise DriftError(msg)
    copy_files(ROOT, names, destination)


def apply(drift: Drift, tree: Path) -> None:
    """Apply a drift's edits in place: each `find` replaced, or a file of `create`'s text made.

    Raises:
        DriftError: If a `find` text does not occur exactly once in its file, or the file
            to create is there already.
    """
    for edit in drift.edits:
        path = tree / edit["file"]
        if "create" in edit:
            if path.exists():
                msg = f"{drift.name}: {edit['file']} exists, so it cannot be created"
                raise DriftError(msg)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(edit["create"], "utf-8")
            continue
        text = path.read_text("utf-8")
        copies = text.count(edit["find"])
        if copies != 1:
            msg = f"{drift.name}: {edit['file']} holds {copies} copies of {edit['find']!r}"
            raise DriftError(msg)
        path.write_text(text.replace(edit["find"], edit["replace"]), "utf-8")


def bound_properties(tree: Path) -> dict[str, str]:
    """The claims' properties that the `tests` session runs, as pytest node id to claim ID.

    docpact reads the bindings from the tree's test files without importing them, each
    with its node id (`Class::name` for a method), as `scripts/properties.py` reads them.

    Raises:
        DriftError: If the tree's claims contracts cannot be read.
    """
    try:
        properties, _ = read_properties(tree, "tests")
    except PropertiesError as error:
        raise DriftError(str(error)) from None
    return {prop.node: prop.claim for prop in properties}


def run_properties(tree: Path) -> tuple[str | None, set[str]]:
    """Run the bound properties to their end; the evidence of a failure, and the claims failed.

    A claim counts as failed only when its property fails an assertion, as
    `scripts/properties.py` judges it: a property that errors did not check its claim.
    """
    properties = bound_properties(tree)
    if not properties:
        return "no property is bound to a claim", set()
    verdicts, _ = run_nodes(tree, list(properties), list(SOURCES), None)
    failed = {properties[node] for node, kind in verdicts.items() if kind == "assertion"}
    errors = sorted(
        f"{properties[node]} ({kind})"
        for node, kind in verdicts.items()
        if kind not in {"passed", "skipped", "assertion"}
    )
    found = []
    if failed:
        found.append("claims whose property failed an assertion: " + ", ".join(sorted(failed)))
    if errors:
        found.append("claims whose property errored: " + ", ".join(errors))
    return "; ".join(found) or None, failed


def plan(drift: Drift | None, wanted: tuple[str, ...], all_checks: bool = False) -> list[str]:
    """The checks to run on a drift's copy, or on the clean copy (`drift` None, `wanted`).

    The clean copy runs every check but the `BASELINED` test suites (`baselines` runs
    what of them failed on a drift), of the `ON_REQUEST` ones those some drift `wanted`.
    A drift's copy runs the checks it expects and the `QUICK` ones; the other long ones
    only with `all_checks`. A drift with a `root` runs the `ROOT_CHECKS` in it.
    """
    if drift is not None and drift.root:
        return list(ROOT_CHECKS)
    if drift is None:
        return [
            name
            for name in CHECKS
            if name not in BASELINED and (name not in ON_REQUEST or name in wanted)
        ]
    return [
        name
        for name in CHECKS
        if name in drift.expect or (name not in ON_REQUEST and (name in QUICK or all_checks))
    ]


def baselines(outcomes: list[Outcome]) -> list[tuple[str, tuple[str, ...]]]:
    """What the clean copy runs of the test suites that caught drifts: each check's targets.

    A test id (`FAILED tests/x.py::test_y`) is its own target; a docs example's is its page,
    whose examples share a namespace. A suite that failed without naming a test (a module
    that does not collect) is run whole.
    """
    targets: dict[str, set[str]] = {}
    whole: set[str] = set()
    for outcome in outcomes:
        if outcome.check not in BASELINED or not outcome.caught:
            continue
        node = outcome.failed
        if not node:
            whole.add(outcome.check)
            continue
        targets.setdefault(outcome.check, set()).add(
            node.partition("::")[0] if outcome.check == "docs-examples" else node
        )
    found = [(check, ()) for check in BASELINED if check in whole]
    found += [(c, tuple(sorted(t))) for c, t in sorted(targets.items()) if c not in whole]
    return found


def run_check(
    tree: Path, name: str, root: str = "", at: str = "", only: tuple[str, ...] = ()
) -> Outcome:
    """Run one check in `tree` (in its fixture project `root`, if any).

    With `at`, a failing docpact check counts as catching only if it reports a finding at
    that `path:line`; its evidence is then that finding.

    Raises:
        DriftError: If the copy's claims contracts cannot be left out for `docpact-core`.
    """
    start = time.perf_counter()
    if name == "properties":
        found, claims = run_properties(tree)
        return Outcome(
            name, found is not None, found or "", time.perf_counter() - start, frozenset(claims)
        )
    if name == "docpact-core" and not (tree / root / CORE_PYPROJECT).exists():
        write_core(tree / root)
    # The copy's own sources, both packages, before the installed ones.
    sources = os.pathsep.join(str(tree / path) for path in SOURCES)
    env = os.environ | {"PYTHONPATH": sources, "NO_MKDOCS_2_WARNING": "1"}
    python = str(VERL_PYTHON) if name == "verl" else sys.executable
    # A baseline runs some tests of a suite by id: its options, not its paths, `-m` or
    # `--ignore`s, which an id needs none of. A page alone loads no tests/conftest.py,
    # which registers the drift profile: its examples run with Hypothesis's default.
    options = PYTEST if name != "docs-examples" else [o for o in PYTEST if o != DRIFT_PROFILE]
    command = [*options, *only] if only else CHECKS[name]
    result = subprocess.run(
        [python, *command], cwd=tree / root, env=env, capture_output=True, check=False
    )
    seconds = time.perf_counter() - start
    output = result.stdout.decode(errors="replace") + result.stderr.decode(errors="replace")
    if not result.returncode:
        return Outcome(name, False, "", seconds)
    if not at:
        failed = _first_failed(output)
        return Outcome(name, True, evidence(output), seconds, failed=failed)
    # docpact-core names the pyproject it was given: its findings there are pyproject.toml's.
    lines = output.replace(f"{CORE_PYPROJECT}:", "pyproject.toml:").splitlines()
    found = [line for line in lines if (match := FINDING.match(line)) and match["at"] == at]
    if found:
        return Outcome(name, True, found[0][:160], seconds)
    return Outcome(name, False, f"NO FINDING AT {at}; it reported: {evidence(output)}", seconds)


def _first_failed(output: str) -> str:
    """The first test pytest's short summary names as failed.

    The summary comes last: what a test printed before it (a pytest run of its own) is not
    read. An id whose parameters hold a space (or ` - `, which also ends the id on the
    line) is cut at its brackets: the parametrized test runs again whole.
    """
    summary = output.rpartition(SUMMARY)[2] if SUMMARY in output else ""
    for line in summary.splitlines():
        if match := FAILED_TEST.match(line.strip()):
            node = match["node"]
            whole = node.endswith("]") and " " not in node  # its parameters read unbroken
            return node if "[" not in node or whole else node.partition("[")[0]
    return ""


def write_core(folder: Path) -> None:
    """Write the pyproject.toml without claims contracts that `docpact-core` reads, in `folder`.

    Raises:
        DriftError: If the folder's claims contracts cannot be left out.
    """
    try:
        write_core_pyproject(folder / "pyproject.toml")
    except CoreError as error:
        raise DriftError(str(error)) from None


def evidence(output: str) -> str:
    """The line of a check's output that says what failed: a test id, a finding or a warning.

    pytest's summary line of a failed test comes first: the findings a test logs on its
    way are not what failed it.
    """
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if failed := [line for line in lines if line.startswith("FAILED ")]:
        return failed[0][:160]
    for marker in (": DP0", "FAILED ", "ERROR ", "WARNING ", "Error"):
        for line in lines:
            if marker in line:
                return line[:160]
    return lines[-1][:160] if lines else "(no output)"


def main(argv: list[str] | None = None) -> int:
    """Run the clean copy and every drift; print the table; 0 only if all drifts are caught."""
    args = get_parser().parse_args(argv)
    try:
        return run(args)
    except DriftError as error:
        print(f"drift: error: {error}", file=sys.stderr)
        return 2


def select(drifts: list[Drift], only: list[str] | None) -> list[Drift]:
    """The drifts named by `--only`, all of them without it.

    Raises:
        DriftError: If `--only` names a drift the catalogue does not hold.
    """
    if not only:
        return drifts
    if unknown := sorted(set(only) - {drift.name for drift in drifts}):
        msg = f"--only names no drift of the catalogue: {', '.join(map(repr, unknown))}"
        raise DriftError(msg)
    return [drift for drift in drifts if drift.name in only]


def run(args: argparse.Namespace) -> int:
    """Run the clean copy and every drift, print the results, and return the exit status.

    Raises:
        DriftError: If the catalogue is malformed, an edit does not apply, or the
            repository cannot be copied.
    """
    if args.jobs < 1:
        msg = f"--jobs must be 1 or more, got {args.jobs}"
        raise DriftError(msg)
    if args.only and args.update_docs:
        msg = "--update-docs writes the whole catalogue's count: it cannot go with --only"
        raise DriftError(msg)
    catalogue = load_catalogue(args.catalogue)
    drifts = select(catalogue, args.only)
    if any("verl" in drift.expect for drift in drifts) and not VERL_PYTHON.exists():
        msg = f"the verl check runs with {VERL_PYTHON}, which is missing: run nox -s verl first"
        raise DriftError(msg)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rolloutnorm-drift-") as scratch:
        pristine = Path(scratch) / "pristine"
        copy_repository(pristine)
        wanted = tuple(name for name in ON_REQUEST if any(name in d.expect for d in drifts))
        clean = []
        if not args.only:
            roots = sorted({drift.root for drift in drifts if drift.root})
            clean.append(Copy(pristine, None, "", tuple(plan(None, wanted))))
            clean += [Copy(pristine, None, root, ROOT_CHECKS) for root in roots]
        copies = []
        for index, drift in enumerate(drifts):
            tree = Path(scratch) / f"drift-{index}"
            shutil.copytree(pristine, tree)
            apply(drift, tree)
            copies.append(
                Copy(tree, drift, drift.root, tuple(plan(drift, wanted, args.all_checks)))
            )
        # Written before any check starts, so the tests running beside see it from the start.
        for copy in [*clean, *copies]:
            if "docpact-core" in copy.checks:
                write_core(copy.tree / copy.root)
        outcomes = run_all([*clean, *copies], args.jobs)
        if clean:  # the tests that caught drifts, again on the clean copy
            wanted_baselines = baselines([o for found in outcomes[len(clean) :] for o in found])
            outcomes[0] += run_baselines(pristine, wanted_baselines, args.jobs)
    seconds = time.perf_counter() - began
    rows, details, ok = [], [], True
    if clean:
        failed = {
            (f"{o.check} in {copy.root}" if copy.root else o.check): o.evidence
            for copy, found in zip(clean, outcomes, strict=False)
            for o in found
            if o.caught
        }
        spent = sum(o.seconds for found in outcomes[: len(clean)] for o in found)
        rows.append(("(no drift)", "-", ", ".join(failed) or "nothing (clean)", spent))
        details += [f"(no drift) {check}: {line}" for check, line in failed.items()]
        ok = not failed
        verdict = "FAILS: " + ", ".join(failed) if failed else "passes every check"
    else:
        verdict = "not run (--only)"
    killed = 0
    for drift, found in zip(drifts, outcomes[len(clean) :], strict=True):
        caught = [outcome.check for outcome in found if outcome.caught]
        claims = set().union(*(outcome.claims for outcome in found))
        missed = [check for check in drift.expect if check not in caught]
        missed += [f"property of {claim}" for claim in drift.properties if claim not in claims]
        ok &= bool(caught) and not missed
        killed += bool(caught)
        said = ", ".join(caught) or "NOTHING"
        if missed:
            said += f"  (MISSED by expected {', '.join(missed)})"
        rows.append((drift.name, ", ".join(drift.expect), said, sum(o.seconds for o in found)))
        details += [f"{drift.name} / {o.check}: {o.evidence}" for o in found if o.evidence]
    print_table(rows)
    print("\nWhat each check reported first:")
    print("\n".join(f"  {line}" for line in details))
    print(f"\n{spent_per_check(outcomes)}; {seconds:.0f}s in all, {args.jobs} at a time")
    print(f"\n{killed} of {len(drifts)} drifts caught; the clean copy {verdict}")
    if args.update_docs:
        update_docs(killed, len(catalogue))
    return 0 if ok else 1


def run_baselines(
    tree: Path, wanted: list[tuple[str, tuple[str, ...]]], jobs: int
) -> list[Outcome]:
    """Run each baseline on the clean copy: the targets of a suite, or the suite whole."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(run_check, tree, check, "", "", targets) for check, targets in wanted
        ]
        return [future.result() for future in futures]


def run_all(copies: list[Copy], jobs: int) -> list[list[Outcome]]:
    """Run every check of every copy as its own task, the longest first; each copy's outcomes.

    Each check runs in its own processes and writes only in its own places (each build
    its own site folder), so the checks of one copy run at once as well as those of two.
    """
    tasks = [(index, name) for index, copy in enumerate(copies) for name in copy.checks]
    # The clean copy's checks take longest of all: its builds and properties start first.
    tasks.sort(key=lambda task: -COST.get(task[1], 5) * (2 if copies[task[0]].drift else 3))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [
            (index, pool.submit(run_check, copy.tree, name, copy.root, copy.at(name)))
            for index, name in tasks
            for copy in [copies[index]]
        ]
        outcomes: list[list[Outcome]] = [[] for _ in copies]
        for index, future in futures:
            outcomes[index].append(future.result())
    order = list(CHECKS)
    return [sorted(found, key=lambda outcome: order.index(outcome.check)) for found in outcomes]


def spent_per_check(outcomes: list[list[Outcome]]) -> str:
    """The seconds each check took, summed over the copies, as one line."""
    totals: dict[str, float] = dict.fromkeys(CHECKS, 0.0)
    for found in outcomes:
        for outcome in found:
            totals[outcome.check] += outcome.seconds
    spent = ", ".join(f"{check} {seconds:.0f}s" for check, seconds in totals.items() if seconds)
    return f"Seconds per check over all copies: {spent}"


def print_table(rows: list[tuple[str, str, str, float]]) -> None:
    """Print drift, expected catchers, every check that caught it, and the time, aligned."""
    header = ("drift", "expected catcher", "caught by", "time")
    widths = [max(len(str(row[i])) for row in [*rows, header]) for i in range(3)]
    print(
        "  ".join(title.ljust(width) for title, width in zip(header, widths, strict=False))
        + "  time"
    )
    for name, expect, caught, seconds in rows:
        cells = (name.ljust(widths[0]), expect.ljust(widths[1]), caught.ljust(widths[2]))
        print("  ".join(cells) + f"  {seconds:5.1f}s")


def update_docs(killed: int, total: int) -> None:
    """Rewrite the kill-count sentence of docs/verification.md."""
    sentence = (
        f"<!-- drift-count -->The drift catalogue holds {total} drifts; the last run of "
        f"`python3 -m nox -s drift` caught {killed} of them.<!-- /drift-count -->"
    )
    text = VERIFICATION_PAGE.read_text("utf-8")
    VERIFICATION_PAGE.write_text(KILL_SENTENCE.sub(sentence, text), "utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
