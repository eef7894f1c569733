# SPDX-License-Identifier: MIT
"""docpact's pytest plugin: the claims' properties' results, for the claim boxes and DP018.

pytest loads it wherever docpact is installed (the `pytest11` entry point). It registers
the `docpact_claim` marker, and does nothing else unless pytest runs with
`--docpact-results PATH`: then, at the start of the session, it reads the bindings of the
project's claims contract (from `--docpact-pyproject`, by default the `pyproject.toml` of
pytest's root folder) as `docpact check` reads them, without importing a test; it notes the
outcome of each bound property's test items as their reports arrive (on pytest-xdist's
controller, which receives every worker's reports); and at the end of the session it
writes the results file, atomically, in the format of `docpact._kinds.claims.results`, with
the nox session (`NOX_CURRENT_SESSION`) and the commit the checkout stood on.

```console
$ pytest --docpact-results .docpact/results/tests.json
```
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from docpact._readers.python.properties import Binding

__all__ = ["pytest_addoption", "pytest_configure"]

_MARKER = (
    "docpact_claim(claim_id, reviewed='', session=''): binds a property test to the docs "
    "claim it checks (docpact)"
)
_PARAMETERS = re.compile(r"\[.*\]\Z", re.DOTALL)


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
    """Register the marker; with `--docpact-results`, record the properties' outcomes."""
    config.addinivalue_line("markers", _MARKER)
    path = config.getoption("docpact_results")
    if path is None or hasattr(config, "workerinput"):  # an xdist worker reports, not writes
        return
    pyproject = config.getoption("docpact_pyproject") or config.rootpath / "pyproject.toml"
    config.pluginmanager.register(
        _Recorder(Path(path).absolute(), Path(pyproject).absolute(), config.rootpath),
        "docpact-results",
    )


class _Recorder:
    """Collects the bound properties' outcomes, and writes them at the end of the session."""

    def __init__(self, path: Path, pyproject: Path, rootpath: Path) -> None:
        self.path = path
        self.pyproject = pyproject
        self.rootpath = rootpath
        self.root = pyproject.parent
        self.bindings: dict[tuple[str, str], Binding] = {}
        self.outcomes: dict[tuple[str, str], set[str]] = {}
        self.commit: str | None = None
        self.dirty = False

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Read the claims contract's bindings and the commit the checkout stands on."""
        # Imported here: a pytest run without --docpact-results loads none of docpact.
        from docpact._kinds.claims import CLAIMS
        from docpact._kinds.claims.analysis import analyse
        from docpact._model.errors import DocpactError
        from docpact._pyproject import load_config
        from docpact._readers.files import git_head

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
        analysis = analyse(contract, project)
        self.bindings = {(b.path, b.node): b for b in analysis.bindings if b.claim is not None}
        self.commit, self.dirty = git_head(self.root)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Note a bound property's outcome: a failure in any phase, a skip, a passed call."""
        key = self._key(report.nodeid)
        if key not in self.bindings:
            return
        if report.failed:
            self.outcomes.setdefault(key, set()).add("failed")
        elif report.skipped:
            self.outcomes.setdefault(key, set()).add("skipped")
        elif report.when == "call":
            self.outcomes.setdefault(key, set()).add("passed")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write the results file, replacing any older one only once it is whole."""
        from docpact._kinds.claims.results import OUTCOMES, encode

        entries = [
            {
                "path": path,
                "node": node,
                "claim": self.bindings[path, node].claim or "",
                "code": self.bindings[path, node].code,
                "outcome": next(o for o in OUTCOMES if o in outcomes),
            }
            for (path, node), outcomes in sorted(self.outcomes.items())
        ]
        text = encode(os.environ.get("NOX_CURRENT_SESSION", ""), self.commit, self.dirty, entries)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            Path(temporary).replace(self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def _key(self, nodeid: str) -> tuple[str, str]:
        """A test item's `(path, node)` as a binding gives them: the parameters dropped."""
        file, _, node = nodeid.partition("::")
        path = (self.rootpath / file).resolve()
        try:
            name = path.relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return ("", "")
        return name, _PARAMETERS.sub("", node)
