# SPDX-License-Identifier: MIT
"""docpact's pytest plugin: the claims' properties' results and the code each one executed.

pytest loads it wherever docpact is installed (the `pytest11` entry point). It registers
the `docpact_claim` marker, and does nothing else unless pytest runs with
`--docpact-results PATH`: then it checks at once that it can write PATH; at the start of
the session it reads the bindings of the project's claims contract (from
`--docpact-pyproject`, by default the `pyproject.toml` of pytest's root folder) as
`docpact check` reads them, without importing a test; it notes the outcome of each bound
property's test items as their reports arrive (on pytest-xdist's controller, which
receives every worker's reports); it measures the units each bound property's items
execute in their setup and call phases with coverage.py (`docpact.claims._executed`; on
each xdist worker, which sends them to the controller at its end); and at the end of the
session it writes the results file, atomically, in the format of
`docpact.claims._results`, with the nox session (`NOX_CURRENT_SESSION`, its parameters
dropped), the commit the checkout stood on and each unit's fingerprint. Where coverage.py
already measures the process (`pytest --cov`), it refuses to run.
A test is matched to its binding by the file that defines it, as pytest reports it
relative to its root folder, so a linked test file or a root folder outside the project
still finds its binding.

```console
$ pytest --docpact-results .docpact/results/tests.json
```

What a file records, when a run does not run every property to its end:

- `--collect-only` runs nothing: no file is written, and one already there is kept.
- A property that failed is recorded as failed: a failed phase of one of its items, or
  its module (or class) failing to be collected.
- Otherwise a property is recorded only when every one of its items that pytest selected
  ran to its end. A run stopped early (`-x`, `--maxfail`, Ctrl-C) does not record a
  property it passed only in part, nor one it never reached; a selection (`-k`, node ids)
  records the properties it selected. An xdist worker that died took with it what its
  properties executed: the run records only its failed properties.
- The file then replaces the one at PATH. When that one was written by the same session
  on the same commit, both without uncommitted changes, its entries for the properties
  this run did not record are kept, where the property's code is unchanged, with their
  units fingerprinted again: a partial run never drops what an earlier run found on that
  commit. Any other file (another commit's, another format's) is replaced whole, and the
  properties this run did not record read as not run.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterable

    from docpact.claims._bindings import Binding
    from docpact.claims._executed import Executed
    from docpact.claims._units import Units

__all__ = ["pytest_addoption", "pytest_configure"]

_MARKER = (
    "docpact_claim(claim_id, session=''): binds a property test to the docs "
    "claim it checks (docpact)"
)
_PARAMETERS = re.compile(r"\[.*\]\Z", re.DOTALL)
_NOX_PARAMETERS = re.compile(r"\(.*\)\Z", re.DOTALL)
_WORKER_OUTPUT = "docpact_executed"  # an xdist worker's units, in its `workeroutput`

Key = tuple[str, str]


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add `--docpact-results` and `--docpact-pyproject`."""
    group = parser.getgroup("docpact", "docpact: the results of the claims' properties")
    group.addoption(
        "--docpact-results",
        metavar="PATH",
        default=None,
        help="write the outcome of each property bound to a docs claim to this JSON file, "
        "which docpact's MkDocs plugin and `docpact check` read",
    )
    group.addoption(
        "--docpact-pyproject",
        metavar="PATH",
        default=None,
        help="the pyproject.toml whose claims contract binds the properties (default: the "
        "one in pytest's root folder)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker; with `--docpact-results`, record the properties' outcomes.

    Raises:
        pytest.UsageError: When the results file cannot be written, the nox session is
            not one a results file can name, or coverage.py already measures the process.
    """
    config.addinivalue_line("markers", _MARKER)
    path = config.getoption("docpact_results")
    if path is None or config.getoption("collectonly"):  # nothing runs, nothing is recorded
        return
    from docpact.claims._executed import refuse_running_coverage

    refuse_running_coverage()
    worker = hasattr(config, "workerinput")  # an xdist worker measures and reports, not writes
    path = Path(path).absolute()
    if not worker:
        _check_writable(path)
    pyproject = config.getoption("docpact_pyproject") or config.rootpath / "pyproject.toml"
    recorder = _Recorder(path, Path(pyproject).absolute(), config.rootpath, _session(), worker)
    config.pluginmanager.register(recorder, "docpact-results")


def _check_writable(path: Path) -> None:
    """Fail now, not after the tests ran, where the results file cannot be written."""
    try:
        if path.is_dir():
            msg = f"--docpact-results: {path} is a folder; name the JSON file to write"
            raise pytest.UsageError(msg)
        path.parent.mkdir(parents=True, exist_ok=True)
        _temporary(path).unlink()
    except OSError as error:
        msg = f"--docpact-results: cannot write {path}: {error.strerror or error}"
        raise pytest.UsageError(msg) from None


def _session() -> str:
    """The nox session running pytest (empty for none), as a results file names it."""
    from docpact.claims._bindings import SESSION

    running = os.environ.get("NOX_CURRENT_SESSION", "")
    name = _NOX_PARAMETERS.sub("", running)  # `tests(x=1)`: `nox -s tests` runs it
    if name and not SESSION.fullmatch(name):
        msg = (
            f"--docpact-results: NOX_CURRENT_SESSION is {running!r}, which is not a nox "
            "session name docpact can record (letters, digits and _.-+)"
        )
        raise pytest.UsageError(msg)
    return name


def _temporary(path: Path) -> Path:
    """A new, empty, hidden file beside `path`, with the mode the umask gives any new file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    return temporary


class _Recorder:
    """Collects the bound properties' outcomes and units, and writes them at the end.

    On an xdist worker it only measures, and sends the units to the controller.
    """

    def __init__(
        self, path: Path, pyproject: Path, rootpath: Path, session: str, worker: bool = False
    ) -> None:
        self.path = path
        self.pyproject = pyproject
        self.rootpath = rootpath
        self.session = session
        self.root = pyproject.parent
        self.bindings: dict[Key, Binding] = {}
        self.outcomes: dict[Key, set[str]] = {}
        self.examples: dict[Key, str] = {}  # the first failing input of each failed property
        self.functions: dict[Key, set[str]] = {}  # each property's node ids, parameters dropped
        self.selected: set[str] = set()
        self.finished: set[str] = set()
        self.commit: str | None = None
        self.dirty = False
        self.worker = worker
        self.measured: Executed | None = None
        self.executed: dict[Key, set[str]] = {}  # each property's units, by name
        self.lost = False  # whether an xdist worker died, with what it measured

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Read the claims contract's bindings and the commit the checkout stands on."""
        # Imported here: a pytest run without --docpact-results loads none of docpact.
        from docpact._model.errors import DocpactError
        from docpact._pyproject import load_config
        from docpact._readers.files import git_head
        from docpact.claims import CLAIMS
        from docpact.claims._analysis import analyse
        from docpact.claims._executed import Executed

        try:
            project = load_config(self.pyproject)
        except DocpactError as error:
            msg = f"--docpact-results: {error}"
            raise pytest.UsageError(msg) from None
        contract = next((c for c in project.contracts if c.kind == CLAIMS.name), None)
        if contract is None:
            msg = f"--docpact-results: {self.pyproject} has no claims contract to record"
            raise pytest.UsageError(msg)
        self.root = project.root
        analysis = analyse(contract, project)  # fingerprints: no results file vouches here
        self.bindings = {(b.path, b.node): b for b in analysis.bindings if b.claim is not None}
        self.measured = Executed(self.root, lambda item: self._key(item.location, item.nodeid))
        session.config.pluginmanager.register(self.measured, "docpact-executed")
        if not self.worker:
            self.commit, self.dirty = git_head(self.root)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Note the items selected to run (without xdist)."""
        self.selected.update(item.nodeid for item in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        """Note the items selected to run (on xdist's controller, from each worker)."""
        self.selected.update(ids)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object | None) -> None:
        """Take the units an xdist worker's properties executed, as it sends them at its end."""
        output = getattr(node, "workeroutput", {})
        if error is not None or _WORKER_OUTPUT not in output:
            self.lost = True
            return
        for path, function, names in output[_WORKER_OUTPUT]:
            self.executed.setdefault((path, function), set()).update(names)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Fail (or skip) the bound properties of a module or class that failed to collect."""
        if report.passed:
            return
        file, _, node = report.nodeid.partition("::")
        name = self._name(file)
        if name is None:
            return
        for path, function in self.bindings:
            in_file = path == name or name == "." or path.startswith(f"{name}/")
            if in_file and (not node or function == node or function.startswith(f"{node}::")):
                outcome = "failed" if report.failed else "skipped"
                self.outcomes.setdefault((path, function), set()).add(outcome)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Note a bound property's outcome: a failure in any phase, a skip, a passed call."""
        if report.when == "teardown":
            self.finished.add(report.nodeid)
        key = self._key(report.location, report.nodeid)
        if key is None:
            return
        self.functions.setdefault(key, set()).add(_PARAMETERS.sub("", report.nodeid))
        if report.failed:
            self.outcomes.setdefault(key, set()).add("failed")
            if key not in self.examples and (example := falsifying_example(report.longreprtext)):
                self.examples[key] = example
        elif report.skipped:
            self.outcomes.setdefault(key, set()).add("skipped")
        elif report.when == "call":
            self.outcomes.setdefault(key, set()).add("passed")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write the results file, replacing any older one only once it is whole.

        On an xdist worker, put the units its properties executed in its `workeroutput`.
        """
        from docpact.claims._results import OUTCOMES, encode
        from docpact.claims._units import Units, split

        if self.measured is not None:
            for key, names in self.measured.units().items():
                self.executed.setdefault(key, set()).update(names)
        if self.worker:
            executed = [[*key, sorted(names)] for key, names in sorted(self.executed.items())]
            session.config.workeroutput[_WORKER_OUTPUT] = executed  # type: ignore[attr-defined]
            return
        units = Units(self.root)
        unfinished = {_PARAMETERS.sub("", nodeid) for nodeid in self.selected - self.finished}
        entries = {
            key: {
                "path": key[0],
                "node": key[1],
                "claim": self.bindings[key].claim or "",
                "code": self.bindings[key].code,
                "outcome": next(o for o in OUTCOMES if o in outcomes),
                "units": _fingerprints(units, self.executed.get(key, set())),
            }
            | _blob(self.bindings[key])
            | ({"counterexample": self.examples[key]} if key in self.examples else {})
            for key, outcomes in self.outcomes.items()
            if "failed" in outcomes
            or not (self.lost or self.functions.get(key, set()) & unfinished)
        }
        entries = self._kept(units) | entries
        paths = {split(name)[0] for entry in entries.values() for name in entry["units"]}
        files = {path: blob for path in paths if (blob := units.blob(path)) is not None}
        ordered = [entries[k] for k in sorted(entries)]
        text = encode(self.session, self.commit, self.dirty, ordered, files)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = _temporary(self.path)
            try:
                temporary.write_text(text, encoding="utf-8")
                temporary.replace(self.path)
            except BaseException:
                temporary.unlink(missing_ok=True)
                raise
        except OSError as error:
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            message = f"--docpact-results: cannot write {self.path}: {error.strerror or error}"
            if reporter is None:
                print(f"ERROR: {message}", file=sys.stderr)
            else:
                reporter.write_line(f"ERROR: {message}", red=True)
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.INTERNAL_ERROR

    def _kept(self, units: Units) -> dict[Key, dict[str, object]]:
        """The entries of the file being replaced that still hold for this run's commit."""
        from docpact._readers.files import Unreadable
        from docpact.claims._results import read_run

        if self.commit is None or self.dirty or not self.path.is_file():
            return {}
        try:
            old = read_run(self.path, self.path.name)
        except (Unreadable, ValueError):
            return {}
        if (old.session, old.commit, old.dirty) != (self.session, self.commit, False):
            return {}
        return {
            key: {"path": key[0], "node": key[1], "claim": binding.claim or ""}
            | {"code": code, "outcome": outcome}
            | {"units": _fingerprints(units, old.units.get(key, {}))}
            | _blob(binding)
            | ({"counterexample": old.examples[key]} if key in old.examples else {})
            for key, (code, outcome) in old.outcomes.items()
            if (binding := self.bindings.get(key)) is not None and binding.code == code
        }

    def _key(self, location: tuple[str, int | None, str], nodeid: str) -> Key | None:
        """The bound property a test item or report is of, by the file defining its function.

        pytest gives the file relative to its root folder and the function as
        `Class.name[parameters]`; the node id's file, tried next, is relative to the path
        given on the command line when that lies outside the root folder.
        """
        file, _, domain = location
        node = _PARAMETERS.sub("", domain).replace(".", "::")
        nodeid_file, _, nodeid_node = nodeid.partition("::")
        for path, function in ((file, node), (nodeid_file, _PARAMETERS.sub("", nodeid_node))):
            name = self._name(path)
            if name is not None and (name, function) in self.bindings:
                return name, function
        return None

    def _name(self, file: str) -> str | None:
        """A path relative to pytest's root folder, relative to the project root instead.

        A link is not followed, as the bindings' paths follow none, unless the root folder
        or the project root is reached through one.
        """
        path = Path(os.path.normpath(self.rootpath / file))
        real = self.root.resolve()
        for candidate, root in ((path, self.root), (path, real), (_real_folder(path), real)):
            if candidate.is_relative_to(root):
                return candidate.relative_to(root).as_posix()
        return None


def _blob(binding: Binding) -> dict[str, str]:
    """A results entry's `blob`: that of the test file's bytes its code was taken from."""
    return {"blob": binding.blob} if binding.blob else {}


def _fingerprints(units: Units, names: Iterable[str]) -> dict[str, str]:
    """Each unit's fingerprint as its file is now, by name; a unit gone since is left out."""
    return {name: unit.fingerprint for name in names if (unit := units.get(name)) is not None}


def _real_folder(path: Path) -> Path:
    """The path with its folder's links followed, and its own name kept (a linked file's)."""
    return path.parent.resolve() / path.name


def falsifying_example(text: str) -> str:
    """Hypothesis's failing input in a failure's report, as it prints it; empty if none.

    It is the `Falsifying example:` (`Failing test case:` in later Hypothesis releases) call,
    to its closing parenthesis, and the `Draw` lines of `st.data()` after it, without the
    `E   ` margin pytest puts before an exception's text, at most 4,000 characters.
    """
    lines = text.splitlines()
    found = next(
        ((n, m) for n, line in enumerate(lines) for m in _EXAMPLE_MARKERS if m in line), None
    )
    if found is None:
        return ""
    start, marker = found
    margin = lines[start][: lines[start].index(marker)]
    if margin.strip() not in {"", "E"}:
        return ""
    taken = [lines[start][len(margin) :]]
    closed = taken[0].rstrip().endswith(")")
    for line in lines[start + 1 :]:
        if not line.startswith(margin.rstrip()):
            break
        body = line[len(margin) :]
        if closed and not body.startswith("Draw "):
            break
        taken.append(body)
        closed = closed or body.rstrip() == ")"
    example = "\n".join(line.rstrip() for line in taken)
    return example if len(example) <= _EXAMPLE_CHARS else example[: _EXAMPLE_CHARS - 3] + "..."


_EXAMPLE_MARKERS = ("Falsifying example:", "Failing test case:")
_EXAMPLE_CHARS = 4000
