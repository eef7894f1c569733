#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutate each claim's code under test and run the claim's properties alone against each mutant.

A claim is as strong as its properties: a property that no change of the code it tests can
fail proves nothing. For every claim of the project's claims contracts, this script takes the
code under test of its properties (docpact's static rule, as `docpact claims` lists it),
mutates it with mutmut's operators, one mutation at a time, and runs only the claim's
properties against each mutant, in a copy of the project.

A mutant is *killed* only when a property fails an assertion (`assert`, pytest's `fail`,
`pytest.raises` not raising, or a Hypothesis counterexample of one): a property that fails
on an error (a `TypeError` the mutant raises, say) did not check the claim, and neither did
one that ran out of time; those are listed apart. A claim's strength is its killed mutants
over the mutants its properties ran to an end (killed or survived); each claim below
`--floor` fails the run. Survivors a person has judged harmless (an equivalent mutant)
are kept with their reason in `--reviewed`, as `nox -s mutate` keeps docpact's. The same
assertion rule judges the drift catalogue's `properties` column (`scripts/drift.py`).

Run with `-p claim_strength` inside pytest, this module is also the probe that classifies
each failure.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REVIEWED = ROOT / "tests" / "claim_survivors.toml"
FLOOR = 50.0
REPORT = "CLAIM_STRENGTH_REPORT"  # where the probe writes each property's outcome
CODE = "CLAIM_STRENGTH_CODE"  # the files of the code under test, for the probe
PROBE = "claim_strength"
_OUTCOMES: dict[str, str] = {}  # the probe's: each test's outcome in this pytest run
SKIPPED = {".git", ".nox", ".venv", "venv", "site", "mutants", "__pycache__", ".docpact"}


class StrengthError(Exception):
    """A usage error: the message is printed on one line and the script exits 2."""


@dataclass(frozen=True)
class Property:
    """A claim's property: its claim, pytest node id, session and code under test.

    `units` are `(path, first line, last line, name)` of the code it reaches.
    """

    claim: str
    node: str
    session: str
    units: tuple[tuple[str, int, int, str], ...]


@dataclass(frozen=True)
class Mutant:
    """One mutation of one file: its name (`unit#k`), place, lines before and after, and text."""

    name: str
    path: str
    line: int
    before: str
    after: str
    text: str


# --- the probe, loaded in the pytest run as `-p claim_strength` ----------------------------


def _is_assertion(error: BaseException, code: frozenset[str] = frozenset()) -> bool:
    """Whether a test's failure is a failed check of its own rather than an error.

    Args:
        error: What the test raised.
        code: The files of the code under test: an `assert` that fails in one of them is
            the code's own check failing, an error of the mutant, not the property's check.
    """
    import pytest

    if isinstance(error, BaseExceptionGroup):  # Hypothesis reports several bugs as a group
        return all(_is_assertion(inner, code) for inner in error.exceptions)
    if not isinstance(error, AssertionError | pytest.fail.Exception):
        return False
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    return trace is None or trace.tb_frame.f_code.co_filename not in code


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
        code = frozenset(filter(None, os.environ.get(CODE, "").split(os.pathsep)))
        own = call.when == "call" and _is_assertion(error, code)
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
    """Write the outcomes where the script asked for them."""
    if path := os.environ.get(REPORT):
        Path(path).write_text(json.dumps(_OUTCOMES), "utf-8")


# --- the script ---------------------------------------------------------------------------


def get_parser() -> argparse.ArgumentParser:
    """The command line: which claims, how many mutants, the floor and the reviewed survivors."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=ROOT, help="the project's root")
    parser.add_argument("--claim", action="append", default=[], help="only this claim (repeat)")
    parser.add_argument(
        "--session",
        default="tests",
        help="run the properties of this nox session and of plain pytest (default: tests)",
    )
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        help="only mutants of this file or folder, relative to the project (repeat)",
    )
    parser.add_argument("--sample", type=int, default=0, help="at most N mutants in all, drawn")
    parser.add_argument("--seed", type=int, default=0, help="the draw's seed")
    parser.add_argument("--floor", type=float, default=FLOOR, help="lowest strength, in %%")
    parser.add_argument("--reviewed", type=Path, default=None, help="the reviewed survivors")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel copies")
    parser.add_argument("--timeout", type=float, default=0, help="seconds per mutant's run")
    return parser


def read_properties(project: Path, session: str) -> tuple[list[Property], list[str]]:
    """The claims' properties that `session` (or plain pytest) runs, and the others, by node.

    Raises:
        StrengthError: If the project's claims contracts cannot be read.
    """
    from docpact import DocpactError, load_config
    from docpact.claims._analysis import analyse

    try:
        config = load_config(project / "pyproject.toml")
    except DocpactError as error:
        msg = f"cannot read the claims contracts: {error}"
        raise StrengthError(msg) from None
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
            units = tuple((u.path, u.line, u.end, u.name) for u in binding.reach.units)
            found.append(Property(binding.claim, node, runs, units))
    return found, other


def mutants_of(project: Path, properties: list[Property]) -> list[Mutant]:
    """Every mutant of the lines the properties reach, file by file, in mutmut's order.

    A mutant is named after the innermost unit holding the mutated line, numbered within it.
    """
    import libcst
    from libcst.metadata import MetadataWrapper
    from mutmut.mutation.mutators import mutation_operators
    from mutmut.mutation.pragma_handling import IgnoredCode

    by_path: dict[str, set[tuple[int, int, str]]] = {}
    for prop in properties:
        for path, first, last, name in prop.units:
            by_path.setdefault(path, set()).add((first, last, name))
    found: list[Mutant] = []
    for path, units in sorted(by_path.items()):
        code = (project / path).read_text("utf-8")
        lines = code.splitlines()
        covered = {n for first, last, _ in units for n in range(first, last + 1)}
        kept = {n for n, text in enumerate(lines, 1) if "pragma: no mutate" in text}
        visitor = _visitor()(mutation_operators, IgnoredCode(kept, set(), set()), covered)
        module = MetadataWrapper(libcst.parse_module(code)).visit(visitor)
        counts: dict[str, int] = {}
        for mutation in visitor.mutations:
            text = module.deep_replace(mutation.original_node, mutation.mutated_node).code
            changed = _changed_line(lines, text.splitlines())
            if changed is None:
                continue
            line, after = changed
            holders = [u for u in units if u[0] <= line <= u[1]]
            unit = min(holders, key=lambda u: u[1] - u[0])[2] if holders else path
            counts[unit] = counts.get(unit, 0) + 1
            found.append(
                Mutant(f"{unit}#{counts[unit]}", path, line, lines[line - 1].strip(), after, text)
            )
    return found


def _visitor() -> type:
    """The mutmut visitor, but into decorated functions too (`@property`, `@lru_cache`).

    mutmut leaves them out for its trampolines, which swap functions in place; a mutant
    written whole, as here, needs none. Decorators themselves stay unmutated.
    """
    import libcst
    from mutmut.mutation.file_mutation import MutationVisitor

    class Visitor(MutationVisitor):
        def _skip_node_and_children(self, node: libcst.CSTNode) -> bool:
            if isinstance(node, libcst.FunctionDef) and node.decorators:
                node = node.with_changes(decorators=())
            return super()._skip_node_and_children(node)

    return Visitor


def _changed_line(before: list[str], after: list[str]) -> tuple[int, str] | None:
    """The first line a mutation changed (1-based) and what it reads now, or None if none."""
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, first, _, new, new_end in matcher.get_opcodes():
        if tag != "equal":
            return first + 1, " ".join(text.strip() for text in after[new:new_end]) or "(removed)"
    return None


def copy_project(project: Path, destination: Path) -> None:
    """Copy the project's files: those git lists, or, without git, all but the usual caches."""
    from docpact._readers.files import copy_files, git_files

    names = git_files(project)
    if names is None:
        shutil.copytree(
            project,
            destination,
            symlinks=True,
            ignore=lambda _, names: [n for n in names if n in SKIPPED],
        )
        return
    copy_files(project, names, destination)


def run_properties(
    copy: Path,
    nodes: list[str],
    paths: list[str],
    timeout: float | None,
    code: tuple[str, ...] = (),
) -> tuple[dict[str, str], str]:
    """Run the nodes in the copy: each node's outcome, and the end of pytest's output.

    Every node runs to its end whatever the project's `addopts` (`-x`, a collection error),
    with pytest's root at the copy, so node ids are the bindings'. A run past `timeout` is
    `timeout` for every node, its process group killed.

    Raises:
        ValueError: If no node is given, which would run the whole suite.
    """
    if not nodes:
        msg = "run_properties needs at least one node"
        raise ValueError(msg)
    report = copy / ".claim-strength.json"
    report.unlink(missing_ok=True)
    python_path = [str(Path(__file__).parent), *(str(copy / p) for p in paths)]
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join([*python_path, os.environ.get("PYTHONPATH", "")]),
        "PYTHONDONTWRITEBYTECODE": "1",  # a mutant of the same size must never reuse a .pyc
        REPORT: str(report),
        CODE: os.pathsep.join(str(copy / path) for path in code),
    }
    command = [
        *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", PROBE),
        *(f"--rootdir={copy}", "--maxfail=0", "--continue-on-collection-errors"),
    ]
    process = subprocess.Popen(
        [*command, *nodes],
        cwd=copy,
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


def load_reviewed(path: Path | None) -> dict[str, str]:
    """The reviewed survivors, `"CLAIM MUTANT" = "reason"`; none without a file.

    Raises:
        StrengthError: If the file is not a table of non-empty reasons.
    """
    if path is None or not path.exists():
        return {}
    try:
        table = tomllib.loads(path.read_text("utf-8")).get("survivors", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        msg = f"{path}: cannot read the reviewed survivors: {error}"
        raise StrengthError(msg) from None
    if not isinstance(table, dict) or not all(
        isinstance(reason, str) and reason.strip() for reason in table.values()
    ):
        msg = f"{path}: [survivors] must map 'CLAIM MUTANT' to a reason"
        raise StrengthError(msg)
    return table


def main(argv: list[str] | None = None) -> int:
    """Measure every claim's strength; exit 1 when one is below the floor, 2 on a usage error."""
    args = get_parser().parse_args(argv)
    try:
        if args.jobs < 1 or args.sample < 0 or args.timeout < 0 or not 0 <= args.floor <= 100:
            msg = (
                "--jobs must be 1 or more, --sample and --timeout 0 or more, "
                "and --floor within 0-100"
            )
            raise StrengthError(msg)
        return measure(args)
    except StrengthError as error:
        print(f"claim-strength: error: {error}", file=sys.stderr)
        return 2


def measure(args: argparse.Namespace) -> int:
    """Run the mutants and print each claim's strength; the exit status."""
    from docpact import load_config

    project = args.project.resolve()
    properties, other = read_properties(project, args.session)
    if args.claim:
        unknown = sorted(set(args.claim) - {p.claim for p in properties})
        if unknown:
            msg = f"no property of session {args.session} is bound to {', '.join(unknown)}"
            raise StrengthError(msg)
        properties = [p for p in properties if p.claim in args.claim]
    if not properties:
        msg = f"no claim has a property that session {args.session} or plain pytest runs"
        raise StrengthError(msg)
    reviewed = load_reviewed(args.reviewed or (REVIEWED if project == ROOT else None))
    paths = list(load_config(project / "pyproject.toml").paths)
    if args.jobs > 1:  # torch and friends would start a thread per core in every copy
        os.environ.setdefault("OMP_NUM_THREADS", "1")

    with tempfile.TemporaryDirectory(prefix="claim-strength-") as work:
        copies = [Path(work) / f"copy{n}" for n in range(args.jobs)]
        for copy in copies:
            copy_project(project, copy)
        start = time.perf_counter()
        code = _code_files(properties)
        nodes = [p.node for p in properties]
        baseline, tail = run_properties(copies[0], nodes, paths, args.timeout or 3600, code)
        timeout = args.timeout or 5 * (time.perf_counter() - start) + 30
        broken = [p for p in properties if baseline[p.node] != "passed"]
        for prop in broken:
            print(
                f"{prop.claim}: not measured: its property {prop.node} "
                f"{'is skipped' if baseline[prop.node] == 'skipped' else 'fails'} "
                f"before any mutation ({baseline[prop.node]})"
            )
            print("\n".join(f"    | {line}" for line in tail.splitlines()))
        properties = [p for p in properties if p not in broken]
        mutants = [m for m in mutants_of(project, properties) if _within(m.path, args.path)]
        sampled = bool(args.sample) and len(mutants) > args.sample
        if sampled:
            mutants = sorted(random.Random(args.seed).sample(mutants, args.sample), key=_place)
        verdicts = _run_all(mutants, properties, copies, paths, timeout)
    for line in other:
        print(f"not run here: {line}")
    status = report(
        properties,
        mutants,
        verdicts,
        reviewed,
        args.floor,
        sampled=sampled,
        paths_wanted=tuple(args.path),
    )
    return status | bool(broken)


def _within(path: str, wanted: list[str]) -> bool:
    """Whether a file is one of the `--path` files or folders; every file without any."""
    return not wanted or any(
        path == (w := want.strip("/")) or path.startswith(f"{w}/") for want in wanted
    )


def _place(mutant: Mutant) -> tuple[str, int, str]:
    return mutant.path, mutant.line, mutant.name


def _covers(prop: Property, mutant: Mutant) -> bool:
    return any(p == mutant.path and a <= mutant.line <= b for p, a, b, _ in prop.units)


def _code_files(properties: list[Property]) -> tuple[str, ...]:
    return tuple(sorted({path for prop in properties for path, *_ in prop.units}))


def _run_all(
    mutants: list[Mutant],
    properties: list[Property],
    copies: list[Path],
    paths: list[str],
    timeout: float,
) -> dict[tuple[str, str], str]:
    """Each (mutant, node) pair's outcome, the mutants shared among the copies."""
    free = list(copies)
    verdicts: dict[tuple[str, str], str] = {}
    code = _code_files(properties)

    def one(mutant: Mutant) -> None:
        nodes = [p.node for p in properties if _covers(p, mutant)]
        copy = free.pop()
        target = copy / mutant.path
        original = target.read_bytes()
        try:
            target.write_text(mutant.text, "utf-8")
            found, _ = run_properties(copy, nodes, paths, timeout, code)
        except (OSError, ValueError) as error:  # one mutant's trouble, not the run's
            found = dict.fromkeys(nodes, f"error: {error}")
        finally:
            target.write_bytes(original)
            free.append(copy)
        for node, kind in found.items():
            verdicts[mutant.name, node] = kind

    pool = concurrent.futures.ThreadPoolExecutor(len(copies))
    try:
        list(pool.map(one, [m for m in mutants if any(_covers(p, m) for p in properties)]))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # Ctrl-C: no new mutant starts
    return verdicts


def report(
    properties: list[Property],
    mutants: list[Mutant],
    verdicts: dict[tuple[str, str], str],
    reviewed: dict[str, str],
    floor: float,
    *,
    sampled: bool = False,
    paths_wanted: tuple[str, ...] = (),
) -> int:
    """Print each claim's killed/total, its survivors and errors; 1 when one is below floor.

    A claim with no mutant fails too, unless the mutants were drawn or narrowed to some
    paths: then the draw or the paths left it out.
    """
    status = 0
    for claim in sorted({p.claim for p in properties}):
        nodes = [p.node for p in properties if p.claim == claim]
        own = [m for m in mutants if any(_covers(p, m) for p in properties if p.claim == claim)]
        if not own:
            narrowed = sampled or bool(paths_wanted)
            why = "none was drawn or chosen" if narrowed else "its code under test has none"
            print(f"{claim}: no mutant: {why}; properties {', '.join(nodes)}")
            status |= not narrowed
            continue
        killed, survived, errors = [], [], []
        for mutant in own:
            kinds = [verdicts.get((mutant.name, node), "") for node in nodes]
            failures = [k for k in kinds if k not in {"passed", "skipped", ""}]
            if "assertion" in kinds:
                killed.append(mutant)
            elif failures:
                errors.append((mutant, failures[0]))
            else:
                survived.append(mutant)
        answered = len(killed) + len(survived)  # the mutants the properties gave a verdict on
        strength = 100.0 * len(killed) / answered if answered else 0.0
        low = strength < floor
        status |= low
        print(
            f"{claim}: killed {len(killed)} of the {answered} mutants its properties ran to an "
            f"end ({strength:.1f}%, floor {floor:g}%){' BELOW THE FLOOR' if low else ''}; "
            f"{len(errors)} more raised an error or timed out, listed apart; "
            f"properties {', '.join(nodes)}"
        )
        for mutant in survived:
            why = reviewed.get(f"{claim} {mutant.name}")
            note = f" (reviewed: {why})" if why else ""
            print(f"  survived {_where(mutant)}{note}")
        for mutant, kind in errors:
            print(f"  {kind}: {_where(mutant)}")
    return status


def _where(mutant: Mutant) -> str:
    return f"{mutant.path}:{mutant.line}: {mutant.name}: {mutant.before} -> {mutant.after}"


if __name__ == "__main__":
    sys.exit(main())
