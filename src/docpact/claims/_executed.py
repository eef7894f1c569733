# SPDX-License-Identifier: MIT
"""What each bound property executed, measured by coverage.py's dynamic contexts.

One `coverage.Coverage`, made at the first bound test item and writing no data file, is
started for each bound item's setup and call phases, under a dynamic context naming the
item's property, and stopped after them: unbound tests, teardown, collection and imports run
unmeasured. At the end of the run each context's lines are read back through
`coverage.CoverageData`'s public queries and mapped to the units whose bodies hold them
(`docpact.claims._units`). Only files under the project root count, outside installed
packages and virtual environments; this module, which starts and stops the measurement
around each phase, never counts.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable, Generator

    import coverage

__all__ = ["Executed", "refuse_running_coverage"]

Key = tuple[str, str]

_HERE = Path(__file__).resolve()
_INSTALLED = frozenset({"site-packages", "dist-packages", "__pypackages__"})


def refuse_running_coverage() -> None:
    """Refuse to measure where coverage.py already measures this process.

    A second measurement would pause the first one during each bound property (coverage.py
    keeps one tracer at a time), and the first one's settings, not docpact's, would decide
    which files count: neither is silent enough to reuse.

    Raises:
        pytest.UsageError: When a `coverage.Coverage` is started (`pytest --cov`,
            `coverage run`).
    """
    import coverage

    if coverage.Coverage.current() is not None:
        msg = (
            "--docpact-results: coverage.py already measures this process (pytest --cov, "
            "coverage run), and docpact measures with it what each claim's property executes; "
            "run the properties for --docpact-results in a pytest run without coverage "
            "(with pytest-cov: --no-cov)"
        )
        raise pytest.UsageError(msg)


class Executed:
    """A pytest plugin: the units each bound property's setup and call phases executed.

    Args:
        root: The project root.
        key: The property a test item is bound to, `None` for an unbound item.
    """

    def __init__(self, root: Path, key: Callable[[pytest.Item], Key | None]) -> None:
        self._root = root
        self._real_root = root.resolve()
        self._key = key
        self._coverage: coverage.Coverage | None = None
        self._contexts: dict[str, Key] = {}
        self._environments: dict[Path, bool] = {}

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, object, object]:
        """Measure a bound item's setup phase: its fixtures."""
        return (yield from self._measured(item))

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, object, object]:
        """Measure a bound item's call phase: the test itself."""
        return (yield from self._measured(item))

    def _measured(self, item: pytest.Item) -> Generator[None, object, object]:
        key = self._key(item)
        if key is None:
            return (yield)
        context = f"{key[0]}::{key[1]}"
        self._contexts[context] = key
        measure = self._measure()
        measure.start()
        try:
            measure.switch_context(context)
            return (yield)
        finally:
            measure.stop()

    def _measure(self) -> coverage.Coverage:
        if self._coverage is None:
            import coverage

            # No data file, no configuration file: the project's own coverage settings
            # (its sources, plugins, dynamic contexts) are for its coverage report, not this.
            self._coverage = coverage.Coverage(data_file=None, config_file=False)
        return self._coverage

    def units(self) -> dict[Key, set[str]]:
        """The names (`path::qualname`) of the units each bound property executed.

        Read at the end of the run, from the files as they are then.

        Returns:
            The names, by `(path, node)` of each property that ran a measured phase.
        """
        from docpact.claims._units import Units

        if self._coverage is None:
            return {}
        data = self._coverage.get_data()
        files = {
            file: name
            for file in data.measured_files()
            if (name := self._counted(Path(file))) is not None
        }
        units = Units(self._root)
        found: dict[Key, set[str]] = {}
        for context, key in self._contexts.items():
            data.set_query_contexts([rf"\A{re.escape(context)}\Z"])
            names = found.setdefault(key, set())
            for file, name in files.items():
                names.update(unit.name for unit in units.executed(name, data.lines(file) or ()))
        return found

    def _counted(self, file: Path) -> str | None:
        """A measured file's path relative to the project root; `None` if it does not count."""
        if file == _HERE:
            return None
        for root in (self._root, self._real_root):
            if file.is_relative_to(root):
                relative = file.relative_to(root)
                break
        else:
            return None
        folders = relative.parts[:-1]
        if _INSTALLED.intersection(folders):
            return None
        for n in range(1, len(folders) + 1):
            if self._is_environment(root.joinpath(*folders[:n])):
                return None
        return relative.as_posix()

    def _is_environment(self, folder: Path) -> bool:
        """Whether a folder is a Python environment: a virtual one, a conda one, this one."""
        if folder not in self._environments:
            prefixes = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
            self._environments[folder] = (
                (folder / "pyvenv.cfg").is_file()
                or (folder / "conda-meta").is_dir()
                or folder.resolve() in prefixes
            )
        return self._environments[folder]
