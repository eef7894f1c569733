# SPDX-License-Identifier: MIT
"""What `--docpact-results` records that each property executed, measured by coverage.py.

Each test runs pytest in its own process on a small project whose properties reach their
code in the ways a static reading of the tests cannot follow (an object a factory returns,
a registry, `getattr`, a fixture), beside code they never run, code run only at import or in
teardown, test helpers, and packages installed under the project root.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from docpact.claims._units import Units
from helpers import run_module

pytestmark = pytest.mark.slow

SHAPES = """\
def at_import():
    return 1


LOADED = at_import()


class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side

    def perimeter(self):
        return 4 * self.side


def make(side):
    return Square(side)


def double(x):
    return 2 * x


def halve(x):
    return x / 2


REGISTRY = {"double": double, "halve": halve}


class Ops:
    def triple(self, x):
        return 3 * x


class Counter:
    def __init__(self):
        self.count = 0

    def increment(self):
        self.count += 1
        return self.count

    def close(self):
        self.count = 0
"""

PROJECT = {
    "pyproject.toml": (
        "[tool.pytest.ini_options]\naddopts = ['-p', 'no:cacheprovider']\n\n"
        "[[tool.docpact.contract]]\nkind = 'claims'\npages = ['p.md']\nproperties = ['tests']\n"
    ),
    "p.md": "".join(f"<!-- docpact: claim {c} -->\n{c.upper()}.\n\n" for c in "pqr"),
    "pkg/__init__.py": "",
    "pkg/shapes.py": SHAPES,
    # Installed packages under the project root: a virtual environment's, a site-packages'.
    ".venv/pyvenv.cfg": "home = /usr/bin\n",
    ".venv/lib/extlib_a.py": "def identity(x):\n    return x\n",
    "deps/site-packages/extlib_b.py": "def identity(x):\n    return x\n",
    "tests/conftest.py": (
        "import sys\n\nimport pytest\n\nfrom pkg.shapes import Counter\n\n"
        "sys.path[:0] = ['.venv/lib', 'deps/site-packages']\n\n\n"
        "@pytest.fixture\ndef counter():\n    made = Counter()\n    yield made\n"
        "    made.close()\n"
    ),
    "tests/support.py": (
        "from hypothesis import strategies as st\n\n\n"
        "def expected_area(side):\n    return side**2\n\n\n"
        "@st.composite\ndef sides(draw):\n    return draw(st.integers(1, 9))\n"
    ),
    # Under `-n 2 --dist each`, each worker runs one item to its end and skips the other.
    "tests/test_merged.py": (
        "import pytest\n\n"
        "from pkg.shapes import double, halve\n\n\n"
        "@pytest.mark.docpact_claim('r')\n"
        "@pytest.mark.parametrize('x', [1, 2])\n"
        "def test_r(x, request):\n"
        "    # The run's own worker, not one of an outer run whose variables it inherits.\n"
        "    worker = getattr(request.config, 'workerinput', {}).get('workerid', f'gw{x - 1}')\n"
        "    if worker != f'gw{x - 1}':\n"
        "        pytest.skip('the other worker runs it')\n"
        "    assert (double if x == 1 else halve)(x)\n"
    ),
    "tests/test_shapes.py": (
        "import coverage\nimport extlib_a\nimport extlib_b\nimport pytest\n"
        "from hypothesis import given, settings\n\n"
        "from pkg.shapes import REGISTRY, Ops, make\n"
        "from support import expected_area, sides\n\n\n"
        "@pytest.mark.docpact_claim('p')\n"
        "@settings(max_examples=5, database=None)\n"
        "@given(side=sides())\n"
        "def test_p(side):\n"
        "    shape = make(side)\n"
        "    assert shape.area() == expected_area(side)\n"
        "    assert REGISTRY['double'](side) == 2 * side\n"
        "    assert getattr(Ops(), 'tri' + 'ple')(side) == 3 * side\n"
        "    assert extlib_a.identity(side) == extlib_b.identity(side)\n\n\n"
        "@pytest.mark.docpact_claim('q')\n"
        "def test_q(counter):\n"
        "    assert coverage.Coverage.current() is not None\n"
        "    assert counter.increment() == 1\n\n\n"
        "def test_unbound():\n"
        "    assert coverage.Coverage.current() is None\n"
        "    assert make(1).perimeter() == 4\n"
    ),
}

EXECUTED = {
    "p": {
        # Through an object a factory returns, a registry and getattr.
        "pkg/shapes.py::make",
        "pkg/shapes.py::Square.__init__",
        "pkg/shapes.py::Square.area",
        "pkg/shapes.py::double",
        "pkg/shapes.py::Ops.triple",
        # Test helpers: a plain function and a Hypothesis strategy.
        "tests/support.py::expected_area",
        "tests/support.py::sides",
        "tests/test_shapes.py::test_p",
    },
    "q": {
        # The fixture that builds the object (its setup), and the object's method.
        "tests/conftest.py::counter",
        "pkg/shapes.py::Counter.__init__",
        "pkg/shapes.py::Counter.increment",
        "tests/test_shapes.py::test_q",
    },
    # Its two items, on two xdist workers: the union.
    "r": {"pkg/shapes.py::double", "pkg/shapes.py::halve", "tests/test_merged.py::test_r"},
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project; plain pytest, not the nox session these tests may run in."""
    monkeypatch.delenv("NOX_CURRENT_SESSION", raising=False)
    for name, text in PROJECT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _units(project: Path) -> dict[str, dict[str, str]]:
    written = json.loads((project / "r.json").read_text(encoding="utf-8"))
    assert written["docpact_results"] == 2
    return {entry["claim"]: entry["units"] for entry in written["properties"]}


@pytest.mark.parametrize(
    "workers", [(), ("-n", "2", "--dist", "each")], ids=["in-process", "xdist"]
)
def test_each_property_lists_the_units_it_executed_and_only_those(
    project: Path, workers: tuple[str, ...]
) -> None:
    """Not listed: never run (perimeter, halve for p), import or teardown only, installed."""
    result = run_module(project, "pytest", "-q", "--docpact-results", "r.json", *workers)
    assert result.returncode == 0, result.stdout
    units = _units(project)
    assert {claim: set(names) for claim, names in units.items()} == EXECUTED
    now = Units(project)
    for names in units.values():
        assert list(names) == sorted(names)
        assert all(fingerprint == now.get(name).fingerprint for name, fingerprint in names.items())


def test_a_fingerprint_is_taken_from_the_file_as_it_is_at_the_end_of_the_run(
    project: Path,
) -> None:
    """A refactor of an executed unit changes its fingerprint; a comment changes none."""
    assert run_module(project, "pytest", "-q", "--docpact-results", "r.json").returncode == 0
    before = _units(project)["p"]
    shapes = project / "pkg" / "shapes.py"
    shapes.write_text(
        SHAPES.replace("return 3 * x", "return x + x + x  # the same, refactored").replace(
            "return 2 * x", "return 2 * x  # a comment"
        ),
        encoding="utf-8",
    )
    assert run_module(project, "pytest", "-q", "--docpact-results", "r.json").returncode == 0
    after = _units(project)["p"]
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"pkg/shapes.py::Ops.triple"}


def test_coverage_already_measuring_the_process_is_a_usage_error(project: Path) -> None:
    """Under `coverage run` (as under pytest --cov) docpact would pause it: it refuses."""
    result = run_module(
        project, "coverage", "run", "-m", "pytest", "-q", "--docpact-results", "r.json"
    )
    assert result.returncode == 4, result.stdout
    assert result.stdout.startswith(
        "ERROR: --docpact-results: coverage.py already measures this process"
    )
    assert "--no-cov" in result.stdout
    assert not (project / "r.json").exists()
    # Without --docpact-results, coverage runs the tests as ever.
    command = ("coverage", "run", "-m", "pytest", "-q", "tests/test_merged.py")
    assert run_module(project, *command).returncode == 0


def test_coverage_is_imported_only_for_a_run_that_records(project: Path) -> None:
    """The claims kind, the results reader and the plugin, loaded by every pytest, import none."""
    code = (
        "import sys\n"
        "import docpact.claims, docpact.claims._pytest_plugin, docpact.claims._results\n"
        "assert 'coverage' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=project, check=False)
    assert done.returncode == 0
    (project / "tests" / "test_modules.py").write_text(
        "import sys\n\n\ndef test_modules():\n    assert 'coverage' not in sys.modules\n",
        encoding="utf-8",
    )
    result = run_module(project, "pytest", "-q", "tests/test_modules.py")
    assert result.returncode == 0, result.stdout
