# SPDX-License-Identifier: MIT
"""Check a project's contracts by loading their packages with griffe, without importing them."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from griffe import GriffeLoader, LoadingError, load_extensions

from docpact._extension import ContractExtension
from docpact._rules import missing_object

if TYPE_CHECKING:
    from docpact._config import Config
    from docpact._findings import Finding

__all__ = ["check_project"]


def check_project(config: Config) -> list[Finding]:
    """Check every contract of a project.

    Packages are searched for under `src/` and then the project root. A package that
    cannot be found or parsed is reported as a finding on each of its contracts.

    Args:
        config: The project's contracts.

    Returns:
        The findings, sorted by path, line and code.
    """
    extension = ContractExtension(config=config, log=False)
    loader = GriffeLoader(
        extensions=load_extensions(extension),
        search_paths=[config.root / "src", config.root],
        allow_inspection=False,
        store_source=False,
    )
    findings = []
    griffe_logger = logging.getLogger("griffe")
    for package in sorted({contract.package for contract in config.contracts}):
        # griffe logs a traceback for a package it cannot parse; docpact reports one line.
        griffe_logger.disabled, was_disabled = True, griffe_logger.disabled
        try:
            loader.load(package, try_relative_path=False)
        except (ModuleNotFoundError, LoadingError):
            findings += [
                missing_object(contract, package=None, config=config)
                for contract in config.contracts
                if contract.package == package
            ]
        finally:
            griffe_logger.disabled = was_disabled
    return sorted(findings + extension.findings)
