# SPDX-License-Identifier: MIT
"""The griffe extension that checks the contracts whenever griffe loads their package.

The same extension runs under `docpact check` and under mkdocstrings. Findings are logged
as warnings through griffe's `docpact` logger: mkdocstrings relocates griffe loggers under
`mkdocs.plugins`, where `mkdocs build --strict` counts every warning and aborts the build.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from griffe import Extension, get_logger

from docpact._config import Config, Contract, find_pyproject, load_config
from docpact._errors import DocpactError
from docpact._findings import Finding
from docpact._registry import check_contract

if TYPE_CHECKING:
    from griffe import GriffeLoader, Module

__all__ = ["REPORTED", "ContractExtension"]

logger = get_logger("docpact")
# Every finding logged by an extension since the docpact MkDocs plugin's last build started:
# the plugin reports the claims findings that no extension of the build did.
REPORTED: set[Finding] = set()
# Per modules collection (one per mkdocstrings build), the unpackaged contracts checked.
_CHECKED: weakref.WeakKeyDictionary[object, set[Contract]] = weakref.WeakKeyDictionary()


class ContractExtension(Extension):
    """Check docpact contracts on griffe's static view of the packages it loads.

    Contracts are checked once their top-level package is completely loaded; contracts on
    packages that griffe never loads are not checked. With mkdocstrings, list the extension
    under the python handler's options:

    ```yaml
    plugins:
    - mkdocstrings:
        handlers:
          python:
            options:
              extensions:
              - docpact:
                  pyproject: !relative $config_dir/pyproject.toml
    ```

    Args:
        pyproject: The `pyproject.toml` that declares the contracts, as a path or a path-like
            object such as the `!relative $config_dir/pyproject.toml` of `mkdocs.yml`, which
            works from any current folder; a relative path is read from the current folder.
            By default, the one in the current folder or the nearest folder above it.
        config: Contracts already read, used instead of `pyproject`.
        log: Whether to log each finding when its package is checked. The findings are
            collected in `findings` either way.

    Attributes:
        config: The contracts, or `None` when they could not be read (the error is logged).
        findings: Every finding so far, sorted within each package.
        checked: Every contract checked so far, in the order they were checked.
    """

    def __init__(
        self,
        *,
        pyproject: str | os.PathLike[str] | None = None,
        config: Config | None = None,
        log: bool = True,
    ) -> None:
        super().__init__()
        self.findings: list[Finding] = []
        self.checked: list[Contract] = []
        self._log = log
        if config is None:
            try:
                # mkdocs.yml's `!relative $config_dir/pyproject.toml` is a path-like object.
                config = load_config(pyproject or find_pyproject(Path.cwd()))
            except DocpactError as error:
                logger.error("%s", error)
        self.config = config

    def on_package(self, *, pkg: Module, loader: GriffeLoader, **kwargs: Any) -> None:
        """Check the contracts whose object lives in the package just loaded.

        The contracts that name no object (`config-defaults`) are checked with the first
        package griffe loads, once.

        Args:
            pkg: The package.
            loader: The loader.
            **kwargs: For forward compatibility.
        """
        if self.config is None:
            return
        # mkdocstrings makes a loader, with a new extension, per package it renders; they
        # share one modules collection, which keeps the unpackaged contracts checked once.
        self.check_unpackaged(_CHECKED.setdefault(loader.modules_collection, set()))
        self._check([c for c in self.config.contracts if c.package == pkg.name], pkg)

    def check_unpackaged(self, done: set[Contract] | None = None) -> None:
        """Check the contracts that name no object, unless they were checked already.

        Args:
            done: The contracts already checked by any extension of the same build, updated;
                by default, those this extension checked.
        """
        if self.config is None:
            return
        done = set(self.checked) if done is None else done
        unpackaged = [c for c in self.config.contracts if c.package is None and c not in done]
        done.update(unpackaged)
        self._check(unpackaged, None)

    def _check(self, contracts: list[Contract], package: Module | None) -> None:
        found = sorted(
            finding
            for contract in contracts
            for finding in check_contract(contract, package=package, config=self.config)
        )
        self.checked.extend(contracts)
        self.findings.extend(found)
        if self._log:
            REPORTED.update(found)
            for finding in found:
                logger.warning("%s", finding)
