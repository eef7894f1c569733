# SPDX-License-Identifier: MIT
"""The results of the claims' properties: what a test run wrote, and each claim's state.

docpact's pytest plugin (`docpact.claims._pytest_plugin`) writes one results file per run given
`--docpact-results PATH`; the claims contract's `results` globs (by default
`.docpact/results/*.json`) say where the MkDocs plugin and rule DP018 read them. A file is
one JSON object, written by `encode` alone:

```json
{"docpact_results": 2, "session": "tests", "commit": "<40 hex digits>", "dirty": false,
 "properties": [{"path": "tests/test_loss.py", "node": "test_mass", "claim": "mass",
                 "code": "<the property's code fingerprint>", "outcome": "passed",
                 "blob": "<git blob id of tests/test_loss.py>",
                 "units": {"src/pkg/loss.py::mass": "<12 hex digits>",
                           "tests/test_loss.py::test_mass": "<12 hex digits>"}}],
 "files": {"src/pkg/loss.py": "<git blob id>", "tests/test_loss.py": "<git blob id>"}}
```

`session` is the nox session that ran pytest (empty under plain pytest), `commit` the
checkout's `HEAD` when the run began (`null` without git), `dirty` whether tracked files
had uncommitted changes then. Each bound property that ran has one entry: `failed` when
any of its test items failed (a parametrized property has several), else `passed` when one
passed, else `skipped`. A property that did not run has none. `units` names the units
(`docpact.claims._units`) its items' setup and call phases executed, each with its
fingerprint taken from the files as they were at the end of the run. `blob` is the git blob
id of the test file's bytes that `code` was taken from, and `files` the blob id of each
file whose units were fingerprinted: where a file's bytes still have that id, `docpact check`
takes the fingerprints the runs agree on and the review recorded instead of taking them
again (`docpact.claims._analysis`). Both are optional (a file without them only costs that
work); a file that gives them wrongly is refused. A file whose session is not a nox
session name, or whose commit is not a hex commit id, is not a results file:
the box shows both, and they come from whoever wrote the file; nor is a file of another
version of the format.

An entry counts for this build when it ran on the commit the checkout stands on, with no
uncommitted changes, and the property's code fingerprint is still the recorded one. A
failure that counts is the property's state whatever session it ran in; else the counting
entries of the property's own session, when there are any, else any session's, give it:
a pass wins over a skip. Entries that do not count leave the claim `stale` ("not run on
this commit"), naming the newest of them (by the file's modification time), its own
session's first; a run with uncommitted changes is one of these. No entry leaves it
`not-run`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from docpact._model.keys import SESSION
from docpact._readers.files import Unreadable, read_text

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from docpact.claims._bindings import Binding

__all__ = [
    "DEFAULT_RESULTS",
    "FORMAT",
    "OUTCOMES",
    "Run",
    "State",
    "encode",
    "pattern_error",
    "read_run",
    "read_runs",
    "state",
]

FORMAT = 2
"""The version of the results format, the value of its `docpact_results` key.

Version 2 added each property's `units`; a version 1 file records none, and is refused.
"""

DEFAULT_RESULTS = (".docpact/results/*.json",)
"""Where a claims contract that sets no `results` reads them."""

OUTCOMES = ("failed", "passed", "skipped")
"""A property's outcomes in a run, the one that wins first."""

_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a commit's or a blob's, SHA-1 or SHA-256
_FINGERPRINT = re.compile(r"[0-9a-f]{12}")


@dataclass(frozen=True)
class Run:
    """One results file: a test run's session, commit and outcomes.

    Attributes:
        path: The file, relative to the project root.
        session: The nox session that ran the tests, empty under plain pytest.
        commit: The commit the checkout stood on, `None` without git.
        dirty: Whether tracked files had uncommitted changes.
        outcomes: Each property's `(code fingerprint, outcome)`, by `(path, node)`.
        examples: A failed property's falsifying example, as Hypothesis printed it, by
            `(path, node)`.
        units: The units each property executed, `path::qualname` to fingerprint, by
            `(path, node)`.
        mtime: When the file was written (its modification time, in seconds), which makes
            one run newer than another.
        blobs: Each property's claim and the git blob id of the test file's bytes its code
            fingerprint was taken from, by `(path, node)`.
        files: The git blob id of each file whose units the run fingerprinted, by path.
    """

    path: str
    session: str
    commit: str | None
    dirty: bool
    outcomes: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    examples: dict[tuple[str, str], str] = field(default_factory=dict)
    units: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    mtime: float = 0.0
    blobs: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class State:
    """What the results say of one property of a claim.

    Attributes:
        status: `passed`, `failed` or `skipped` (results of this commit); `stale`
            (results of another commit, of uncommitted changes, or of the property's older
            code); `not-run` (no results). `suspect` is reserved for code under test
            changed since the review.
        run: The results file it comes from, `None` for `not-run`.
        changed: For `stale`, whether the property's code changed since it ran.
    """

    status: str
    run: Run | None = None
    changed: bool = False


def encode(
    session: str,
    commit: str | None,
    dirty: bool,
    entries: Iterable[dict[str, Any]],
    files: dict[str, str] | None = None,
) -> str:
    """A results file's text.

    Args:
        session: The nox session, or empty.
        commit: The commit, or `None`.
        dirty: Whether tracked files had uncommitted changes.
        entries: One `{"path", "node", "claim", "code", "outcome", "units"}` per property,
            with `"blob"` where its test file's blob id is known and `"counterexample"`
            where it failed with one; its units' keys are sorted.
        files: The blob id of each file whose units were fingerprinted, by path.

    Returns:
        The JSON text, ending with a line break.
    """
    document = {
        "docpact_results": FORMAT,
        "session": session,
        "commit": commit,
        "dirty": dirty,
        "properties": [
            entry | {"units": dict(sorted(entry["units"].items()))} for entry in entries
        ],
        "files": dict(sorted((files or {}).items())),
    }
    return json.dumps(document, indent=1) + "\n"


def pattern_error(pattern: str) -> str | None:
    """Why a `results` glob pattern cannot name results files, `None` when it can.

    Args:
        pattern: A pattern relative to the project root, normalized (no `./`, no `//`).

    Returns:
        What is wrong, worded to follow the pattern, or `None`.
    """
    parts = pattern.split("/")
    if pattern in {"", "."}:
        return "names the project root, not its results files"
    if any("**" in part and part != "**" for part in parts):
        return "has ** inside a name, where it can only stand alone between slashes"
    if parts[-1] == "**":
        return "ends in **, which matches folders; end it with the files' names, as */*.json"
    return None


def read_runs(root: Path, patterns: tuple[str, ...]) -> tuple[list[Run], list[tuple[str, str]]]:
    """Read every results file the patterns match, in path order.

    Args:
        root: The project root.
        patterns: Glob patterns relative to the root.

    Returns:
        The runs, and the files that are not results files (or the patterns that cannot
        be searched), as `(path, why)`.
    """
    paths, problems = set(), []
    for pattern in patterns:
        why = pattern_error(pattern)
        try:
            paths |= set(root.glob(pattern)) if why is None else set()
        # pathlib refuses some patterns with ValueError, "." with IndexError (Python 3.11).
        except (ValueError, IndexError, NotImplementedError, OSError) as error:
            why = f"cannot be searched ({error})"
        if why is not None:
            problems.append((pattern, f"is not a results pattern docpact can search: it {why}"))
    runs = []
    for path in sorted(paths):
        name = path.relative_to(root).as_posix()
        try:
            runs.append(read_run(path, name))
        except Unreadable as error:
            problems.append((name, error.reason))
        except ValueError as error:
            problems.append((name, f"is not a docpact results file: {error}"))
    return runs, problems


def read_run(path: Path, name: str) -> Run:
    """Read one results file.

    Args:
        path: The file.
        name: Its path relative to the project root, the run's `path`.

    Returns:
        The run.

    Raises:
        Unreadable: When the file cannot be read as text.
        ValueError: When it is not a results file, saying why.
    """
    run = _run(name, read_text(path))
    try:
        mtime = path.stat().st_mtime
    except OSError:  # replaced or removed since it was read
        mtime = 0.0
    return dataclasses.replace(run, mtime=mtime)


def _run(name: str, text: str) -> Run:
    try:
        data: Any = json.loads(text)
    except RecursionError:
        msg = "its JSON nests too deeply"
        raise ValueError(msg) from None
    except json.JSONDecodeError as error:
        msg = f"line {error.lineno}: {error.msg}"
        raise ValueError(msg) from None
    if not isinstance(data, dict) or data.get("docpact_results") != FORMAT:
        version = data.get("docpact_results") if isinstance(data, dict) else None
        older = isinstance(version, int) and not isinstance(version, bool) and version < FORMAT
        msg = (
            f"it is a version {version} results file, which records no executed units; run "
            "pytest --docpact-results again to write one of version 2"
            if older
            else f'it needs "docpact_results": {FORMAT} (written by pytest --docpact-results)'
        )
        raise ValueError(msg)
    session, commit, dirty = data.get("session"), data.get("commit"), data.get("dirty")
    entries = data.get("properties")
    if not isinstance(session, str) or not (commit is None or isinstance(commit, str)):
        msg = "session must be a string and commit a string or null"
        raise ValueError(msg)
    if session and not SESSION.fullmatch(session):
        msg = "session must be empty or a nox session name (letters, digits and _.-+)"
        raise ValueError(msg)
    if commit is not None and not _OBJECT_ID.fullmatch(commit):
        msg = "commit must be null or a commit's id, 40 or 64 lowercase hex digits"
        raise ValueError(msg)
    if not isinstance(dirty, bool) or not isinstance(entries, list):
        msg = "dirty must be true or false and properties a list"
        raise ValueError(msg)
    files = data.get("files", {})
    if not isinstance(files, dict) or not all(
        isinstance(path, str) and isinstance(blob, str) and _OBJECT_ID.fullmatch(blob)
        for path, blob in files.items()
    ):
        msg = (
            "files must be absent or map each path to a git blob id, 40 or 64 lowercase hex digits"
        )
        raise ValueError(msg)
    outcomes, examples, units, blobs = {}, {}, {}, {}
    for i, entry in enumerate(entries):
        values = entry if isinstance(entry, dict) else {}
        keys = ("path", "node", "code", "outcome")
        if not all(isinstance(values.get(key), str) for key in keys) or (
            values["outcome"] not in OUTCOMES
        ):
            msg = (
                f"properties[{i}] needs the strings path, node, code and an outcome of "
                f"{', '.join(OUTCOMES)}"
            )
            raise ValueError(msg)
        outcomes[values["path"], values["node"]] = (values["code"], values["outcome"])
        example = values.get("counterexample", "")
        if not isinstance(example, str):
            msg = f"properties[{i}].counterexample must be a string"
            raise ValueError(msg)
        if example:
            examples[values["path"], values["node"]] = example
        units[values["path"], values["node"]] = _units(i, values.get("units"))
        blob, claim = values.get("blob"), values.get("claim")
        if "blob" in values and not (isinstance(blob, str) and _OBJECT_ID.fullmatch(blob)):
            msg = f"properties[{i}].blob must be a git blob id, 40 or 64 lowercase hex digits"
            raise ValueError(msg)
        if isinstance(blob, str) and isinstance(claim, str) and claim:
            blobs[values["path"], values["node"]] = (claim, blob)
        else:  # an older docpact's file, or no claim: not an earlier entry's blob either
            blobs.pop((values["path"], values["node"]), None)
    return Run(
        name, session, commit, dirty, outcomes, examples, units, blobs=blobs, files=dict(files)
    )


def _units(i: int, units: object) -> dict[str, str]:
    """A property's units, checked: `path::qualname` to 12 hex digits."""
    if not isinstance(units, dict) or not all(
        isinstance(name, str)
        and all(name.partition("::"))
        and isinstance(fingerprint, str)
        and _FINGERPRINT.fullmatch(fingerprint)
        for name, fingerprint in units.items()
    ):
        msg = (
            f"properties[{i}].units must map each unit executed, as path::qualname, to its "
            "fingerprint of 12 lowercase hex digits"
        )
        raise ValueError(msg)
    return dict(units)


def state(binding: Binding, session: str, runs: list[Run], head: str | None) -> State:
    """The state of a bound property by the runs' results.

    Args:
        binding: The property.
        session: The session it runs in (its own, else its contract's), or empty.
        runs: Every results file read.
        head: The commit the checkout stands on now, `None` without git.

    Returns:
        Its state: a failure on this commit in any session's run; else the best outcome
        on this commit of its own session's runs when any has one, else of any run's;
        else `stale` from the newest run that has it, its own session's first.
    """
    key = (binding.path, binding.node)
    found = [run for run in runs if key in run.outcomes]
    if not found:
        return State("not-run")
    current = [
        run
        for run in found
        if run.commit == head and not run.dirty and run.outcomes[key][0] == binding.code
    ]
    if current:
        failed = [run for run in current if run.outcomes[key][1] == "failed"]
        pool = failed or [run for run in current if run.session == session] or current
        best = min(pool, key=lambda run: _rank(run, key, session))
        return State(best.outcomes[key][1], best)
    pool = [run for run in found if run.session == session] or found
    run = max(pool, key=lambda run: run.mtime)
    return State("stale", run, changed=run.outcomes[key][0] != binding.code)


def _rank(run: Run, key: tuple[str, str], session: str) -> tuple[int, bool, float]:
    """A run's order among those that count: its outcome's, its own session's, newest."""
    return OUTCOMES.index(run.outcomes[key][1]), run.session != session, -run.mtime
