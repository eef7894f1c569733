# SPDX-License-Identifier: MIT
"""The griffe extension that checks the contracts whenever griffe loads their package.

The same extension runs under `docpact check` and under mkdocstrings. Findings are logged
as errors through griffe's logger: mkdocstrings relocates griffe's logger under
`mkdocs.plugins`, where `mkdocs build --strict` counts every warning and error and aborts
the build. Errors, because `mkdocs build -q` drops warnings before strict mode counts them,
and keeps errors; a build without `--strict` prints the findings and succeeds.

Under MkDocs with the docpact plugin, the plugin owns the checking: it gives each extension
that mkdocstrings makes its own checker (`defer_to`), so one checker sees every package of
the build and the plugin knows what it reported.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from griffe import Extension, get_logger

from docpact._model.errors import DocpactError
from docpact._pyproject import find_pyproject, load_config
from docpact._registry import check_contract

if TYPE_CHECKING:
    from griffe import GriffeLoader, Module

    from docpact._model.config import Config, Contract
    from docpact._model.findings import Finding

__all__ = ["ContractExtension"]


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
        defer_to: Another extension that checks in this one's place, the one the docpact
            MkDocs plugin owns; `pyproject` and `config` are then its own.

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
        defer_to: ContractExtension | None = None,
    ) -> None:
        super().__init__()
        self.findings: list[Finding] = []
        self.checked: list[Contract] = []
        self._log = log
        self._owner = defer_to
        if defer_to is not None:
            config = defer_to.config
        elif config is None:
            try:
                # mkdocs.yml's `!relative $config_dir/pyproject.toml` is a path-like object.
                config = load_config(pyproject or find_pyproject(Path.cwd()))
            except DocpactError as error:
                get_logger("docpact").error("%s", error)
        self.config = config

    def on_package(self, *, pkg: Module, loader: GriffeLoader, **kwargs: Any) -> None:
        """Check the contracts whose object lives in the package just loaded.

        The contracts that name no object (`config-defaults`) are checked with the first
        package loaded into griffe's modules collection, once: mkdocstrings makes a loader,
        with a new extension, per package it renders, and they share one collection.

        Args:
            pkg: The package.
            loader: The loader.
            **kwargs: For forward compatibility.
        """
        if self._owner is not None:
            self._owner.on_package(pkg=pkg, loader=loader, **kwargs)
            return
        if self.config is None:
            return
        if all(name == pkg.name for name in loader.modules_collection.members):
            self.check_unpackaged()
            if self._log:
                _warn_unchecked(self.config, pkg.name)
        done = set(self.checked)
        mine = [c for c in self.config.contracts if c.package == pkg.name and c not in done]
        self._check(mine, pkg)

    def check_unpackaged(self) -> None:
        """Check the contracts that name no object, unless this extension checked them."""
        if self.config is None:
            return
        done = set(self.checked)
        self._check([c for c in self.config.contracts if c.package is None and c not in done], None)

    def _check(self, contracts: list[Contract], package: Module | None) -> None:
        try:  # a contract may read the registered kinds, which may be broken
            found = sorted(
                finding
                for contract in contracts
                for finding in check_contract(contract, package=package, config=self.config)
            )
        except DocpactError as error:
            # An error, so a strict build fails on one line, not on griffe's traceback.
            get_logger("docpact").error("%s", error)
            return
        self.checked.extend(contracts)
        self.findings.extend(found)
        if self._log:
            logger = get_logger("docpact")
            for finding in found:
                logger.error("%s", finding)


def _warn_unchecked(config: Config, package: str) -> None:
    """Say how many contracts only a page that renders their package would check.

    Run with the first package of a build that no docpact plugin owns: mkdocstrings loads a
    package only for a page that renders it.
    """
    elsewhere = [c for c in config.contracts if c.package not in (None, package)]
    if elsewhere:
        packages = ", ".join(sorted({c.package for c in elsewhere if c.package}))
        get_logger("docpact").warning(
            "%d of %d docpact contracts are on packages no page has loaded yet (%s), and only "
            "the docpact MkDocs plugin checks a contract whose package no page renders: add "
            "`- docpact` under `plugins:` in mkdocs.yml",
            len(elsewhere),
            len(config.contracts),
            packages,
        )
