# SPDX-License-Identifier: MIT
"""Check a project's contracts by loading their packages with griffe, without importing them."""

from __future__ import annotations

from errno import ENAMETOOLONG
from typing import TYPE_CHECKING

from griffe import GriffeLoader, load_extensions

from docpact._extension import ContractExtension
from docpact._kinds.objects import OBJECT, unloadable
from docpact._model.errors import DocpactError
from docpact._readers.python.quiet import griffe_quiet
from docpact._readers.python.sources import PARSE_ERRORS, search_paths, special_source

if TYPE_CHECKING:
    from docpact._model.config import Config
    from docpact._model.findings import Finding

__all__ = ["check_project"]

# What griffe raises for a package it cannot find, read or parse.
_LOAD_ERRORS = (ImportError, *PARSE_ERRORS)


def check_project(config: Config, checker: ContractExtension | None = None) -> list[Finding]:
    """Check every contract of a project.

    Packages are searched for in `config.paths` (`src/`, then the project root, by
    default). A package that cannot be found, read or parsed is reported as a finding on
    each of its contracts.

    Args:
        config: The project's contracts.
        checker: An extension that has checked some contracts already, as the MkDocs
            plugin's has by the end of a build: only the packages of the contracts it has
            not checked are loaded, it checks them, and its earlier findings are returned
            with the new ones.

    Returns:
        The findings, sorted by path, line and code.

    Raises:
        DocpactError: When a check cannot run (a broken registered kind), or griffe loaded a
            package without calling the extension's `on_package` hook (griffe older than
            1.14), so its contracts went unchecked.
    """
    extension = checker or ContractExtension(config=config, log=False)
    loader = GriffeLoader(
        extensions=load_extensions(extension),
        search_paths=search_paths(config),
        allow_inspection=False,
        store_source=False,
    )
    findings = _load_each(config, loader, extension)
    extension.check_unpackaged()  # in case no package was loaded
    if extension.errors:
        raise extension.errors[0]
    return sorted(findings + extension.findings)


def _load_each(config: Config, loader: GriffeLoader, extension: ContractExtension) -> list[Finding]:
    """Load each contract's package, the extension checking it; report what cannot load."""
    findings = []
    done = set(extension.checked)
    for package in sorted({c.package for c in config.contracts if c.package and c not in done}):
        contracts = [contract for contract in config.contracts if contract.package == package]
        try:
            if special := special_source(package, config):
                raise OSError(special)
            with griffe_quiet():
                loader.load(package, try_relative_path=False)
        except _LOAD_ERRORS as error:
            missing = (
                type(error) is ModuleNotFoundError or getattr(error, "errno", 0) == ENAMETOOLONG
            )
            reason = None if missing else error
            findings += [
                OBJECT.finding(*where)
                for contract in contracts
                for where in unloadable(contract, config, reason)
            ]
            continue
        if unchecked := [c.object for c in contracts if c not in extension.checked]:
            msg = (
                f"{config.pyproject.name}: error: griffe loaded package "
                f"{package} but never called docpact's on_package hook, so {unchecked} went "
                "unchecked; docpact needs griffe>=1.14"
            )
            raise DocpactError(msg)
    return findings
