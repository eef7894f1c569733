#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Apply each catalogued drift to a copy of the repository and show which checks catch it."""

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
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "scripts" / "drift_catalogue.toml"
VERIFICATION_PAGE = ROOT / "docs" / "verification.md"
KILL_SENTENCE = re.compile(r"<!-- drift-count -->.*?<!-- /drift-count -->", re.DOTALL)

# A failing property stops at its first counterexample, unshrunk (tests/conftest.py).
PYTEST = ["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--hypothesis-profile=drift"]
# The tests that run the pages or build the site belong to those checks, and the catalogue's
# own test fails in every drifted copy by design, so unit-tests leaves them out.
PAGE_TESTS = "tests/test_docs_pages.py"
SOURCES = ("src", "rolloutnorm/src")  # the packages' folders in a copy
SCRIPTS = Path(__file__).resolve().parent
NOT_UNIT = (PAGE_TESTS, "tests/test_site.py", "tests/test_drift_catalogue.py")

# Each check, run in the copy's own tree with the interpreter running this script. They overlap
# where one runs another's code (docs/verification.md says where), so a drift caught by several
# is guarded several times over.
CHECKS = {
    "docpact": ["-m", "docpact", "check"],
    "docs-examples": [*PYTEST, "docs", PAGE_TESTS],
    "unit-tests": [
        *PYTEST,
        *("-m", "not slow", "tests", "src", "rolloutnorm/src"),
        *(f"--ignore={path}" for path in NOT_UNIT),
    ],
    "mkdocs": ["-m", "mkdocs", "build", "--strict", "--site-dir", "_drift_site"],
    # The strict build as CI scripts often run it, quiet: a finding must fail it all the same.
    "mkdocs-quiet": ["-m", "mkdocs", "build", "--strict", "-q", "--site-dir", "_drift_site"],
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
# The checks of a drift with a `root`, a fixture project: run inside it, with the copy's docpact.
ROOT_CHECKS = ("docpact", "mkdocs", "mkdocs-quiet")
VERL_PYTHON = ROOT / ".nox" / "verl" / ("Scripts" if sys.platform == "win32" else "bin") / "python"


class DriftError(Exception):
    """A catalogue entry that cannot be applied: exit status 2."""


@dataclass(frozen=True)
class Drift:
    """One catalogued drift: its name, the checks and properties that must catch it, its edits.

    A drift with a `root` is made in that fixture project of the repository, whose files its
    edits name relative to it (they are stored relative to the repository), and is checked
    there by the `ROOT_CHECKS`.
    """

    name: str
    expect: tuple[str, ...]
    edits: tuple[dict[str, str], ...]
    properties: tuple[str, ...] = ()
    root: str = ""


def get_parser() -> argparse.ArgumentParser:
    """The command line: which catalogue, and whether to rewrite the docs' kill count."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--catalogue", type=Path, default=CATALOGUE, help="the TOML catalogue")
    parser.add_argument(
        "--update-docs", action="store_true", help="write the kill count into docs/verification.md"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="copies checked at once, each in its own tree (default: the CPU count)",
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
        edits = tuple(
            {**edit, "file": f"{root}/{edit['file']}"} if root else edit for edit in entry["edits"]
        )
        drifts.append(Drift(entry["name"], tuple(entry["expect"]), edits, tuple(properties), root))
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
    """Apply a drift's edits in place.

    Raises:
        DriftError: If a `find` text does not occur exactly once in its file.
    """
    for edit in drift.edits:
        path = tree / edit["file"]
        text = path.read_text("utf-8")
        copies = text.count(edit["find"])
        if copies != 1:
            msg = f"{drift.name}: {edit['file']} holds {copies} copies of {edit['find']!r}"
            raise DriftError(msg)
        path.write_text(text.replace(edit["find"], edit["replace"]), "utf-8")


def bound_properties(tree: Path) -> dict[str, str]:
    """The claims' properties that the `tests` session runs, as pytest node id to claim ID.

    docpact reads the bindings from the tree's test files without importing them, each
    with its node id (`Class::name` for a method), as `claim_strength.py` reads them.

    Raises:
        DriftError: If the tree's claims contracts cannot be read.
    """
    strength = _claim_strength()
    try:
        properties, _ = strength.read_properties(tree, "tests")
    except strength.StrengthError as error:
        raise DriftError(str(error)) from None
    return {prop.node: prop.claim for prop in properties}


def _claim_strength() -> ModuleType:
    """`scripts/claim_strength.py`, which judges a property's failure by the same rule."""
    if str(SCRIPTS) not in sys.path:  # run as a script it is; loaded by path, not yet
        sys.path.insert(0, str(SCRIPTS))
    import claim_strength

    return claim_strength


def run_properties(tree: Path) -> tuple[str | None, set[str]]:
    """Run the bound properties to their end; the evidence of a failure, and the claims failed.

    A claim counts as failed only when its property fails an assertion, the rule
    `claim_strength.py` kills a mutant by: a property that errors did not check its claim.
    """
    properties = bound_properties(tree)
    if not properties:
        return "no property is bound to a claim", set()
    verdicts, _ = _claim_strength().run_properties(tree, list(properties), list(SOURCES), None)
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


def run_checks(
    tree: Path, requested: tuple[str, ...] = ON_REQUEST, root: str = ""
) -> tuple[dict[str, str], set[str], float]:
    """Run every check in `tree`, of the `ON_REQUEST` ones only those `requested`.

    The properties run again what `unit-tests` runs, to their end, and the verl check
    starts verl's workers: only the clean copy and the drifts that expect them need them.
    With a `root`, the `ROOT_CHECKS` run in that fixture project of the tree instead.

    Returns:
        Each failing check's evidence, the claims whose property failed, and the seconds
        taken.
    """
    # The copy's own sources, both packages, before the installed ones.
    sources = os.pathsep.join(str(tree / path) for path in SOURCES)
    env = os.environ | {"PYTHONPATH": sources, "NO_MKDOCS_2_WARNING": "1"}
    start, failed, claims = time.perf_counter(), {}, set()
    for name, arguments in CHECKS.items():
        if (root and name not in ROOT_CHECKS) or (
            not root and name in ON_REQUEST and name not in requested
        ):
            continue
        if name == "properties":
            found, claims = run_properties(tree)
            if found is not None:
                failed[name] = found
            continue
        python = str(VERL_PYTHON) if name == "verl" else sys.executable
        result = subprocess.run(
            [python, *arguments], cwd=tree / root, env=env, capture_output=True, check=False
        )
        if result.returncode != 0:
            failed[name] = evidence(result.stdout.decode() + result.stderr.decode())
    return failed, claims, time.perf_counter() - start


def evidence(output: str) -> str:
    """The line of a check's output that says what failed: a finding, a test id or a warning."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
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


def run(args: argparse.Namespace) -> int:
    """Run the clean copy and every drift, print the results, and return the exit status.

    Raises:
        DriftError: If the catalogue is malformed, an edit does not apply, or the
            repository cannot be copied.
    """
    if args.jobs < 1:
        msg = f"--jobs must be 1 or more, got {args.jobs}"
        raise DriftError(msg)
    drifts = load_catalogue(args.catalogue)
    if any("verl" in drift.expect for drift in drifts) and not VERL_PYTHON.exists():
        msg = f"the verl check runs with {VERL_PYTHON}, which is missing: run nox -s verl first"
        raise DriftError(msg)
    with tempfile.TemporaryDirectory(prefix="rolloutnorm-drift-") as scratch:
        pristine = Path(scratch) / "pristine"
        copy_repository(pristine)
        wanted = tuple(name for name in ON_REQUEST if any(name in d.expect for d in drifts))
        trees = []
        for index, drift in enumerate(drifts):
            tree = Path(scratch) / f"drift-{index}"
            shutil.copytree(pristine, tree)
            apply(drift, tree)
            trees.append(tree)
        # Each copy is checked in its own tree and its own processes, so copies run at once.
        roots = sorted({drift.root for drift in drifts if drift.root})
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            clean = pool.submit(run_checks, pristine, wanted)
            clean_roots = [pool.submit(run_checks, pristine, (), root) for root in roots]
            runs = [
                pool.submit(
                    run_checks,
                    tree,
                    tuple(n for n in ON_REQUEST if n in drift.expect),
                    drift.root,
                )
                for drift, tree in zip(drifts, trees, strict=True)
            ]
            clean_failures, _, seconds = clean.result()
            for root, future in zip(roots, clean_roots, strict=True):
                found, _, more = future.result()
                clean_failures |= {f"{check} in {root}": line for check, line in found.items()}
                seconds += more
            results = [run.result() for run in runs]
    ok = not clean_failures
    rows = [("(no drift)", "-", ", ".join(clean_failures) or "nothing (clean)", seconds)]
    details = [f"(no drift) {check}: {line}" for check, line in clean_failures.items()]
    killed = 0
    for drift, (caught, claims, seconds) in zip(drifts, results, strict=True):
        missed = [check for check in drift.expect if check not in caught]
        missed += [f"property of {claim}" for claim in drift.properties if claim not in claims]
        ok &= bool(caught) and not missed
        killed += bool(caught)
        verdict = ", ".join(caught) or "NOTHING"
        if missed:
            verdict += f"  (MISSED by expected {', '.join(missed)})"
        rows.append((drift.name, ", ".join(drift.expect), verdict, seconds))
        details += [f"{drift.name} / {check}: {line}" for check, line in caught.items()]
    print_table(rows)
    print("\nWhat each check reported first:")
    print("\n".join(f"  {line}" for line in details))
    clean = "FAILS: " + ", ".join(clean_failures) if clean_failures else "passes every check"
    print(f"\n{killed} of {len(drifts)} drifts caught; the clean copy {clean}")
    if args.update_docs:
        update_docs(killed, len(drifts))
    return 0 if ok else 1


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
