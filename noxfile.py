# SPDX-License-Identifier: MIT
"""The sessions: tests, docs, site, serve, lint, drift, bench, verl, mutate, fuzz.

The repository holds two distributions: docpact at the root and rolloutnorm in
``rolloutnorm/``. Each session's environment holds what it needs and no more:

- ``.nox/shared`` (tests, drift, bench, fuzz): both packages, rolloutnorm with its ``plot``
  and ``columnar`` extras (matplotlib, pyarrow), torch's CPU build (about 190 MB), the test
  and site tools;
- ``.nox/docs`` (docs, serve): docpact with its Sybil parsers (``docpact coverage`` reads
  the pages with them) and the site tools, no torch; mkdocstrings reads
  rolloutnorm's source without importing it;
- ``.nox/site`` (site): docpact, the site tools, pytest and Playwright, which drives
  Debian's Chromium (installed apart: ``apt-get install chromium``), no torch;
- ``.nox/mutate`` (mutate): docpact, its test and site tools and mutmut, no torch;
- ``.nox/verl`` (verl): rolloutnorm with verl (about 2 GB: ray, transformers), fastapi and
  uvicorn for verl's workers, TransferQueue and cachetools for its V1 trainer, and the test
  tools; the drift runner's ``verl`` check runs with its interpreter.

Each is installed once through the CPU constraints file, and again only when a project file
or the constraints change. Delete an environment's folder to rebuild it.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import nox

nox.needs_version = ">=2025.2.9"  # nox.project.dependency_groups
nox.options.sessions = ["lint", "tests", "docs"]
nox.options.reuse_venv = "yes"
nox.options.error_on_external_run = True

ROOT = Path(__file__).resolve().parent
CONSTRAINTS = ROOT / "constraints" / "cpu.txt"
PROJECT_FILES = (ROOT / "pyproject.toml", ROOT / "rolloutnorm" / "pyproject.toml", CONSTRAINTS)
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
# Where pytest collects the docstrings' and the pages' examples: its testpaths but tests/.
DOCUMENTS = [p for p in PYPROJECT["tool"]["pytest"]["ini_options"]["testpaths"] if p != "tests"]


def _results(session: nox.Session) -> str:
    """``--docpact-results`` for the session: where the claim boxes read its properties' results."""
    return f"--docpact-results={ROOT / '.docpact' / 'results' / session.name}.json"


def _groups(*names: str) -> list[str]:
    """The requirements of the repository's dependency groups."""
    return [req for name in names for req in nox.project.dependency_groups(PYPROJECT, name)]


# With rolloutnorm's optional extras, whose fallbacks the tests reach by hiding the modules.
SHARED = (
    "shared",
    [
        "-e",
        ".[sybil]",
        "-e",
        "./rolloutnorm[plot,columnar]",
        *_groups("tests", "distributions", "docs"),
    ],
)
DOCS = ("docs", ["-e", ".[sybil]", *_groups("docs")])
# The browser tests and the builders tests share one environment: the site's.
SITE = ("site", ["-e", ".[sybil]", *_groups("tests", "docs", "site", "builders")])
MUTATE = ("mutate", ["-e", ".[sybil]", *_groups("tests", "docs", "mutate")])
# verl.workers.engine_workers, which the real-loop tests drive, imports fastapi and uvicorn;
# verl's V1 trainer modules import TransferQueue and cachetools.
VERL = (
    "verl",
    [
        *("-e", ".[sybil]", "-e", "./rolloutnorm[verl]"),
        *("fastapi", "uvicorn", "transferqueue", "cachetools"),
        *_groups("tests"),
    ],
)


def _use_env(session: nox.Session, env: tuple[str, list[str]] = SHARED) -> str:
    """Create or reuse ``.nox/<name>`` with its requirements, reinstalled if its inputs changed.

    Returns the environment's python, which the session runs everything with.
    """
    name, requirements = env
    folder = ROOT / ".nox" / name
    bin_dir = folder / ("Scripts" if sys.platform == "win32" else "bin")
    python = bin_dir / "python"
    if not python.exists():
        session.run(sys.executable, "-m", "venv", str(folder), external=True)
    inputs = b"".join(path.read_bytes() for path in PROJECT_FILES)
    digest = hashlib.sha256(inputs + "\0".join(requirements).encode()).hexdigest()
    stamp = folder / "rolloutnorm-install.sha256"
    if not stamp.exists() or stamp.read_text() != digest:
        pip = (str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q")
        session.run(*pip, "-c", str(CONSTRAINTS), *requirements, external=True)
        stamp.write_text(digest)
    else:
        session.log(f"Reusing .nox/{name}: project files and constraints unchanged")
    session.env["VIRTUAL_ENV"] = str(folder)
    session.env["NO_MKDOCS_2_WARNING"] = "1"
    session.env["PATH"] = os.pathsep.join((str(bin_dir), os.environ.get("PATH", "")))
    return str(python)


@nox.session(venv_backend="none")
def tests(session: nox.Session) -> None:
    """Run unit and property tests, the Sybil-executed docs and the docstring examples.

    The tests under tests/ run on every core (pytest-xdist's ``-n auto``), then the examples
    of the docstrings and the pages in one process: a document's examples share a namespace,
    and xdist would send some of them to another worker than the names they use. Options
    after ``--`` (``-n 0``, ``-k retention``, a path) make it one run of pytest, as given.
    The run of tests/ writes its bound properties' results to ``.docpact/results/tests.json``
    for the claim boxes of ``nox -s docs``; a run given options writes none.
    """
    python = _use_env(session)
    if session.posargs:
        session.run(python, "-m", "pytest", "-n", "auto", *session.posargs, external=True)
        return
    session.run(python, "-m", "pytest", "-n", "auto", "tests", _results(session), external=True)
    session.run(python, "-m", "pytest", "-p", "no:xdist", *DOCUMENTS, external=True)


@nox.session(venv_backend="none")
def docs(session: nox.Session) -> None:
    """Check the contracts and the example coverage, then build the site (`--strict`)."""
    python = _use_env(session, DOCS)
    session.run(python, "-m", "docpact", "check", external=True)
    session.run(python, "-m", "docpact", "coverage", "--fail-under", "100", external=True)
    session.run(python, "-m", "mkdocs", "build", "--strict", "--site-dir", "site", external=True)
    session.log(f"Site built: {ROOT / 'site' / 'index.html'}")


@nox.session(venv_backend="none")
def site(session: nox.Session) -> None:
    """Build the site and load every page in Chromium, served and from disk (tests/browser)."""
    python = _use_env(session, SITE)
    session.run(
        python,
        "-m",
        "pytest",
        "tests/browser",
        "-p",
        "no:cacheprovider",
        *session.posargs,
        external=True,
    )


@nox.session(venv_backend="none")
def builders(session: nox.Session) -> None:
    """Build this site and the fixture adopter's with MkDocs, ProperDocs and Zensical.

    Each clean copy passes every strict build; a docstring, page and code drift each fail
    it, naming the file at fault (tests/builders). ``nox -s docs`` keeps MkDocs alone.
    """
    python = _use_env(session, SITE)
    # Each test builds in copies of its own: two at a time.
    session.run(
        python,
        "-m",
        "pytest",
        "tests/builders",
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
        *session.posargs,
        external=True,
    )


@nox.session(venv_backend="none")
def serve(session: nox.Session) -> None:
    """Serve the docs with live reload (`mkdocs serve`); pass mkdocs options after `--`."""
    python = _use_env(session, DOCS)
    session.run(python, "-m", "mkdocs", "serve", *session.posargs, external=True)


@nox.session
def lint(session: nox.Session) -> None:
    """Run `ruff check` (CPY001: the SPDX line), `ruff format --check` and docpact's layers."""
    session.install(*_groups("lint"))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    # import-linter reads both packages from their source; the lint environment installs neither.
    sources = os.pathsep.join((str(ROOT / "src"), str(ROOT / "rolloutnorm" / "src")))
    session.run("lint-imports", "--no-cache", env={"PYTHONPATH": sources})


@nox.session(venv_backend="none")
def drift(session: nox.Session) -> None:
    """Apply each catalogued drift to a copy of the repo and show every check that catches it."""
    python = _use_env(session)
    # The kill count on docs/verification.md is this run's own; CI fails if it changed.
    session.run(python, "scripts/drift.py", "--update-docs", *session.posargs, external=True)


@nox.session(venv_backend="none")
def fuzz(session: nox.Session) -> None:
    """Fuzz the command lines for a while (``-- --minutes 20``) and keep the defects found.

    tests/fuzz/fuzz.py runs seeded cases until the time is spent, prints the cases per
    outcome class and writes each defect's shrunk case under tests/fuzz/reproducers/, which
    the test suite replays; it exits 1 if any case was a defect. Not in CI: the suite runs a
    bounded slice (tests/fuzz/test_fuzz.py).
    """
    python = _use_env(session)
    session.run(python, str(ROOT / "tests" / "fuzz" / "fuzz.py"), *session.posargs, external=True)


@nox.session(venv_backend="none")
def bench(session: nox.Session) -> None:
    """Run the benchmark scripts under scripts/, each printing its ratios side by side.

    Options after ``--`` go to ``bench_normalize.py`` alone (``--device cuda``, say): the
    other scripts take options of their own. ``bench_explain.py`` times ``rolloutnorm
    explain`` against the naive JSON Lines parse, with pyarrow from the ``columnar`` extra.
    """
    python = _use_env(session)
    for script in sorted((ROOT / "scripts").glob("bench_*.py")):
        options = session.posargs if script.name == "bench_normalize.py" else []
        session.run(python, str(script), *options, external=True)


@nox.session(venv_backend="none")
def verl(session: nox.Session) -> None:
    """Run the loss through verl's loss path and actor update, and the pages that need verl.

    Without options after ``--``, the run writes its bound properties' results to
    ``.docpact/results/verl.json`` for the claim boxes of ``nox -s docs``.
    """
    python = _use_env(session, VERL)
    # Fails loudly if verl is missing, where the tests below would only be left uncollected.
    session.run(python, "-c", "import rolloutnorm.verl", external=True)
    # The pages whose examples need verl (a skip without it), and the test that none of
    # them is skipped here: the tests session runs every other page.
    pages = sorted(
        page.relative_to(ROOT).as_posix()
        for page in (ROOT / "docs").rglob("*.md")
        if any(
            line.startswith("<!-- skip:") and 'importable("verl")' in line
            for line in page.read_text("utf-8").splitlines()
        )
    )
    skips = (
        "tests/test_docs_pages.py::test_only_the_verl_examples_are_skipped_and_only_without_verl"
    )
    paths = (
        "tests/rolloutnorm/verl_session",
        *(f"{skips}[{page.removeprefix('docs/')}]" for page in pages),
        *pages,
        "rolloutnorm/src/rolloutnorm/verl.py",
    )
    # Results of a run narrowed by options would replace a whole run's: none are written.
    results = [] if session.posargs else [_results(session)]
    session.run(python, "-m", "pytest", *paths, *results, *session.posargs, external=True)


@nox.session(venv_backend="none")
def mutate(session: nox.Session) -> None:
    """Mutation-test docpact against its tests, and judge the survivors (slow: not in CI).

    mutmut works in ``mutants/`` (``[tool.mutmut]`` in pyproject.toml); a second run
    tests only what changed. ``scripts/mutation_report.py`` then fails below a 95% kill
    rate, on a survivor missing from ``tests/docpact/surviving_mutants.toml`` and on a
    reviewed entry that no longer survives. Options after ``--`` go to ``mutmut run``.
    """
    python = _use_env(session, MUTATE)
    session.run(python, "-m", "mutmut", "run", *session.posargs, external=True)
    session.run(python, "scripts/mutation_report.py", external=True)
