# SPDX-License-Identifier: MIT
"""A project's configuration as data: its contracts, where its packages are, its site's anchors.

`Contract` holds what every kind's contract has; each kind defines a subclass with its own
keys (`docpact._kinds`). `docpact._pyproject` reads all of it from `pyproject.toml`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_EXAMPLES",
    "DEFAULT_HEADINGS",
    "DEFAULT_PATHS",
    "DOCSTRING_STYLES",
    "EXAMPLE_RUNNERS",
    "Config",
    "Contract",
    "Headings",
]

DOCSTRING_STYLES = ("google", "numpy", "sphinx")
"""The docstring styles griffe parses, as `docstring-style` and mkdocstrings name them."""

DEFAULT_PATHS = ("src", ".")
"""Where packages are searched for without `[tool.docpact] paths`."""

EXAMPLE_RUNNERS = ("doctest", "markdown-exec", "pytest-examples", "sybil")
"""What may run a project's examples, as `[tool.docpact] examples` names them."""

DEFAULT_EXAMPLES = ("sybil", "doctest")
"""The runners without `[tool.docpact] examples`: `docpact.sybil` on the docs pages, and
doctest on the docstrings' `>>>` lines."""


@dataclass(frozen=True, kw_only=True)
class Contract:
    """One `[[tool.docpact.contract]]` table: what must keep agreeing, by its kind.

    Each kind's contract is a subclass that adds the kind's own keys, for example the
    `operands` of a `divisor` contract.

    Attributes:
        kind: The value of the table's `kind` key (`divisor` by default).
        line: The line of the contract's table in `pyproject.toml`.
        docs: Docs sections as `page#anchor`, the page relative to the project root and the
            anchor the heading has on the built site (`mkdocs.yml`'s `toc` settings).
    """

    kind: str
    line: int = 1
    docs: tuple[str, ...] = ()

    @property
    def package(self) -> str | None:
        """The top-level package that holds the contract's object, `None` without one."""
        return None

    @property
    def label(self) -> str:
        """How messages name the contract: by default, its kind."""
        return self.kind


@dataclass(frozen=True)
class Headings:
    """How the site turns headings into anchors: Python-Markdown's `toc` as configured.

    Attributes:
        extensions: The extensions to render headings with: `toc`, and `attr_list` if the
            site uses it.
        toc: The `toc` settings that shape anchors (`slugify`, `separator`), as sorted
            pairs, Python tags resolved: part of the key of any cache of anchors.
        blocks: Whether indented blocks (admonitions, details) hold headings too.
    """

    extensions: tuple[str, ...] = ("toc", "attr_list")
    toc: tuple[tuple[str, Any], ...] = ()

    @property
    def configs(self) -> dict[str, dict[str, Any]]:
        """The settings of `extensions`, as Python-Markdown takes them."""
        return {"toc": dict(self.toc)}

    blocks: bool = False


DEFAULT_HEADINGS = Headings()
"""Without `mkdocs.yml`: MkDocs' default `toc`, and `attr_list` for custom ids."""


@dataclass(frozen=True)
class Config:
    """The contracts of one project.

    Attributes:
        pyproject: The absolute path of the `pyproject.toml` that declares them.
        contracts: The contracts, in the order they are declared.
        paths: Where the contracts' packages are searched for, in order, relative to the
            project root: `[tool.docpact] paths`, by default `src` then the root itself.
        docstring_style: How docstrings' sections are read (`google`, `numpy`, `sphinx`):
            `[tool.docpact] docstring-style`, else the `docstring_style` that `mkdocs.yml`
            gives mkdocstrings' Python handler, else `google`.
        headings: How the site gives headings their anchors, from `mkdocs.yml`.
        coverage: The packages `docpact coverage` covers by default: `[tool.docpact]
            coverage`.
        examples: What runs the project's examples (`EXAMPLE_RUNNERS`): `[tool.docpact]
            examples`, by default `DEFAULT_EXAMPLES`.
    """

    pyproject: Path
    contracts: tuple[Contract, ...]
    paths: tuple[str, ...] = DEFAULT_PATHS
    docstring_style: str = "google"
    headings: Headings = DEFAULT_HEADINGS
    coverage: tuple[str, ...] = ()
    examples: tuple[str, ...] = DEFAULT_EXAMPLES

    @property
    def root(self) -> Path:
        """The project root: the folder of `pyproject.toml`."""
        return self.pyproject.parent
