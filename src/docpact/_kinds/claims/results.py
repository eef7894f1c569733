# SPDX-License-Identifier: MIT
"""The results of the claims' properties: what a test run wrote, and each claim's state.

docpact's pytest plugin (`docpact._pytest`) writes one results file per run given
`--docpact-results PATH`; the claims contract's `results` globs (by default
`.docpact/results/*.json`) say where the MkDocs plugin and rule DP018 read them. A file is
one JSON object, written by `encode` alone:

```json
{"docpact_results": 1, "session": "tests", "commit": "<40 hex digits>", "dirty": false,
 "properties": [{"path": "tests/test_loss.py", "node": "test_mass", "claim": "mass",
                 "code": "<the property's code fingerprint>", "outcome": "passed"}]}
```

`session` is the nox session that ran pytest (empty under plain pytest), `commit` the
checkout's `HEAD` when the run began (`null` without git), `dirty` whether tracked files
had uncommitted changes then. Each bound property that ran has one entry: `failed` when
any of its test items failed (a parametrized property has several), else `passed` when one
passed, else `skipped`. A property that did not run has none.

A claim's state comes from the entries of its property: those of the property's own
session when there are any, else any session's. An entry counts for this build when it ran
on the commit the checkout stands on and the property's code fingerprint is still the
recorded one; among those, a failure wins over a pass, a pass over a skip. Entries that do
not count leave the claim `stale` ("not run on this commit"); no entry leaves it `not-run`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from docpact._readers.files import Unreadable, read_text

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from docpact._readers.python.properties import Binding

__all__ = [
    "DEFAULT_RESULTS",
    "FORMAT",
    "OUTCOMES",
    "Run",
    "State",
    "encode",
    "read_runs",
    "state",
]

FORMAT = 1
"""The version of the results format, the value of its `docpact_results` key."""

DEFAULT_RESULTS = (".docpact/results/*.json",)
"""Where a claims contract that sets no `results` reads them."""

OUTCOMES = ("failed", "passed", "skipped")
"""A property's outcomes in a run, the one that wins first."""


@dataclass(frozen=True)
class Run:
    """One results file: a test run's session, commit and outcomes.

    Attributes:
        path: The file, relative to the project root.
        session: The nox session that ran the tests, empty under plain pytest.
        commit: The commit the checkout stood on, `None` without git.
        dirty: Whether tracked files had uncommitted changes.
        outcomes: Each property's `(code fingerprint, outcome)`, by `(path, node)`.
    """

    path: str
    session: str
    commit: str | None
    dirty: bool
    outcomes: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class State:
    """What the results say of one property of a claim.

    Attributes:
        status: `passed`, `failed` or `skipped` (results of this commit); `stale`
            (results of another commit, or of the property's older code); `not-run` (no
            results). `suspect` is reserved for code under test changed since the review.
        run: The results file it comes from, `None` for `not-run`.
        changed: For `stale`, whether the property's code changed since it ran.
    """

    status: str
    run: Run | None = None
    changed: bool = False


def encode(session: str, commit: str | None, dirty: bool, entries: Iterable[dict[str, str]]) -> str:
    """A results file's text.

    Args:
        session: The nox session, or empty.
        commit: The commit, or `None`.
        dirty: Whether tracked files had uncommitted changes.
        entries: One `{"path", "node", "claim", "code", "outcome"}` per property.

    Returns:
        The JSON text, ending with a line break.
    """
    document = {
        "docpact_results": FORMAT,
        "session": session,
        "commit": commit,
        "dirty": dirty,
        "properties": list(entries),
    }
    return json.dumps(document, indent=1) + "\n"


def read_runs(root: Path, patterns: tuple[str, ...]) -> tuple[list[Run], list[tuple[str, str]]]:
    """Read every results file the patterns match, in path order.

    Args:
        root: The project root.
        patterns: Glob patterns relative to the root.

    Returns:
        The runs, and the files that are not results files, as `(path, why)`.
    """
    paths = sorted({path for pattern in patterns for path in root.glob(pattern)})
    runs, problems = [], []
    for path in paths:
        name = path.relative_to(root).as_posix()
        try:
            runs.append(_run(name, read_text(path)))
        except Unreadable as error:
            problems.append((name, error.reason))
        except ValueError as error:
            problems.append((name, f"is not a docpact results file: {error}"))
    return runs, problems


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
        msg = f'it needs "docpact_results": {FORMAT} (written by pytest --docpact-results)'
        raise ValueError(msg)
    session, commit, dirty = data.get("session"), data.get("commit"), data.get("dirty")
    entries = data.get("properties")
    if not isinstance(session, str) or not (commit is None or isinstance(commit, str)):
        msg = "session must be a string and commit a string or null"
        raise ValueError(msg)
    if not isinstance(dirty, bool) or not isinstance(entries, list):
        msg = "dirty must be true or false and properties a list"
        raise ValueError(msg)
    outcomes = {}
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
    return Run(name, session, commit, dirty, outcomes)


def state(binding: Binding, session: str, runs: list[Run], head: str | None) -> State:
    """The state of a bound property by the runs' results.

    Args:
        binding: The property.
        session: The session it runs in (its own, else its contract's), or empty.
        runs: Every results file read.
        head: The commit the checkout stands on now, `None` without git.

    Returns:
        Its state, from its own session's runs when any has it, else from any run's.
    """
    key = (binding.path, binding.node)
    found = [run for run in runs if key in run.outcomes]
    found = [run for run in found if run.session == session] or found
    if not found:
        return State("not-run")
    current = [run for run in found if run.commit == head and run.outcomes[key][0] == binding.code]
    if not current:
        run = found[-1]
        return State("stale", run, changed=run.outcomes[key][0] != binding.code)
    best = min(current, key=lambda run: OUTCOMES.index(run.outcomes[key][1]))
    return State(best.outcomes[key][1], best)
