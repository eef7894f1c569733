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
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from griffe import Extension, get_logger

from docpact._builders import report, zensical_build, zensical_folder
from docpact._model.errors import DocpactError
from docpact._pyproject import find_pyproject, load_config
from docpact._readers.files import Unreadable, read_text
from docpact._readers.mkdocs_load import read_mkdocs
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
        **unknown: Options it does not take, as misspelt in `mkdocs.yml`: each is an error
            logged by name, which fails a strict build.

    Attributes:
        config: The contracts, or `None` when they could not be read (the error is logged).
        findings: Every finding so far, sorted within each package.
        checked: Every contract checked so far, in the order they were checked.
        errors: With `log=False`, the errors that stopped a check (a broken registered
            kind), for the caller to raise.
    """

    def __init__(
        self,
        *,
        pyproject: str | os.PathLike[str] | None = None,
        config: Config | None = None,
        log: bool = True,
        defer_to: ContractExtension | None = None,
        **unknown: object,
    ) -> None:
        super().__init__()
        if unknown:  # a misspelt option of mkdocs.yml, not a traceback from griffe
            _error(
                "docpact's griffe extension has no option "
                f"{', '.join(sorted(unknown))}; it takes pyproject"
            )
        self.findings: list[Finding] = []
        self.checked: list[Contract] = []
        self.errors: list[DocpactError] = []
        self._log = log
        self._owner = defer_to
        if defer_to is not None:
            config = defer_to.config
        elif config is None:
            try:
                # mkdocs.yml's `!relative $config_dir/pyproject.toml` is a path-like object;
                # Zensical, which refuses that tag, names its configuration's folder.
                folder = zensical_folder() if zensical_build() else Path.cwd()
                config = load_config(pyproject or find_pyproject(folder))
            except DocpactError as error:
                _error(str(error))
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
            # The contracts count as checked, so that no one reports them as never reached.
            # Logged, the error fails a strict build on one line, not on griffe's traceback;
            # else the check that owns this extension raises it (`check_project`).
            self.checked.extend(contracts)
            if self._log:
                _error(str(error))
            else:
                self.errors.append(error)
            return
        self.checked.extend(contracts)
        self.findings.extend(found)
        if self._log and zensical_build():  # logged, a finding would fail no build
            report(found)
        elif self._log:
            logger = get_logger("docpact")
            for finding in found:  # a warning, by the contract's choice, fails no build
                (logger.error if finding.severity == "error" else logger.info)("%s", finding)


def _error(message: str) -> None:
    """Log an error that fails a strict MkDocs build; under Zensical, report it (`_builders`)."""
    if zensical_build():
        report([message])
    else:
        get_logger("docpact").error("%s", message)


def _warn_unchecked(config: Config, package: str) -> None:
    """Say how many contracts this build leaves unchecked, and the line that checks them.

    Run with the first package of a build that no docpact plugin owns: mkdocstrings loads a
    package only for a page that renders one of its objects (`::: package.object`), so a
    contract on a package no page of the site names goes unchecked.
    """
    rendered = _rendered_packages(config.root) | {package}
    unchecked = [c for c in config.contracts if c.package is not None and c.package not in rendered]
    if unchecked:
        packages = ", ".join(sorted({c.package for c in unchecked if c.package}))
        get_logger("docpact").warning(
            "%d of %d docpact contracts are on packages that no page renders (%s), so this "
            "build leaves them unchecked: add `- docpact` under `plugins:` in mkdocs.yml, and "
            "the docpact plugin checks every contract in every build",
            len(unchecked),
            len(config.contracts),
            packages,
        )


# An mkdocstrings directive, `::: package.module.object`, at the start of a line.
_RENDERS = re.compile(r"^[ \t]*:::[ \t]+([A-Za-z_]\w*)", re.MULTILINE)


def _rendered_packages(root: Path) -> set[str]:
    """The top-level packages the site's pages render with mkdocstrings' `:::` directive."""
    try:
        settings = read_mkdocs(root) or {}
    except DocpactError:  # the build reports its own configuration errors
        settings = {}
    folder = settings.get("docs_dir", "docs")
    pages = root / (folder if isinstance(folder, str) else "docs")
    found: set[str] = set()
    for page in sorted(pages.rglob("*.md")) if pages.is_dir() else []:
        try:
            found |= set(_RENDERS.findall(read_text(page)))
        except Unreadable:  # the build, or the contract naming the page, reports it
            continue
    return found
