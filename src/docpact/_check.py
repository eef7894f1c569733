# SPDX-License-Identifier: MIT
"""Check a project's contracts by loading their packages with griffe, without importing them."""

from __future__ import annotations

import contextvars
import logging
from typing import TYPE_CHECKING

from griffe import GriffeLoader, LoadingError, load_extensions

from docpact._errors import DocpactError
from docpact._extension import ContractExtension
from docpact._sources import missing_object, search_paths

if TYPE_CHECKING:
    from docpact._config import Config
    from docpact._findings import Finding

__all__ = ["check_project"]

# What griffe raises for a package it cannot find, read or parse.
_LOAD_ERRORS = (ImportError, LoadingError, OSError, SyntaxError, ValueError)
# Whether griffe's records are dropped: set only while this context loads a package, so
# another thread's or task's griffe logging is left alone, and no logger is switched off.
_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("docpact_quiet", default=False)


def _drop_while_quiet(record: logging.LogRecord) -> bool:
    return not _QUIET.get()


# mkdocstrings moves griffe's records to `mkdocs.plugins.griffe` once it is imported.
for _name in ("griffe", "mkdocs.plugins.griffe"):
    logging.getLogger(_name).addFilter(_drop_while_quiet)


def check_project(config: Config) -> list[Finding]:
    """Check every contract of a project.

    Packages are searched for in `config.paths` (`src/`, then the project root, by
    default). A package that cannot be found, read or parsed is reported as a finding on
    each of its contracts.

    Args:
        config: The project's contracts.

    Returns:
        The findings, sorted by path, line and code.

    Raises:
        DocpactError: When griffe loaded a package without calling the extension's
            `on_package` hook (griffe older than 1.14), so its contracts went unchecked.
    """
    extension = ContractExtension(config=config, log=False)
    loader = GriffeLoader(
        extensions=load_extensions(extension),
        search_paths=search_paths(config),
        allow_inspection=False,
        store_source=False,
    )
    findings = []
    for package in sorted({c.package for c in config.contracts if c.package is not None}):
        contracts = [contract for contract in config.contracts if contract.package == package]
        # griffe logs a traceback for a package it cannot parse; docpact reports one line.
        quiet = _QUIET.set(True)
        try:
            loader.load(package, try_relative_path=False)
        except _LOAD_ERRORS as error:
            reason = None if type(error) is ModuleNotFoundError else error
            findings += [
                missing_object(contract, package=None, config=config, error=reason)
                for contract in contracts
            ]
            continue
        finally:
            _QUIET.reset(quiet)
        if unchecked := [c.object for c in contracts if c not in extension.checked]:
            msg = (
                f"{config.pyproject.name}: error: griffe loaded package "
                f"{package} but never called docpact's on_package hook, so {unchecked} went "
                "unchecked; docpact needs griffe>=1.14"
            )
            raise DocpactError(msg)
    extension.check_unpackaged()  # in case no package was loaded
    return sorted(findings + extension.findings)
