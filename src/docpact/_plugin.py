# SPDX-License-Identifier: MIT
"""The `docpact` MkDocs plugin: it owns the build's checking, and runs the kinds' page hooks.

Each contract whose kind changes the site (`Kind.site`: the claims kind's boxes) gets its
page hook called on every page's Markdown, its style sheet added to the site, and the
Markdown extensions it needs required.

The plugin owns the checking of the build. It hands docpact's griffe extension, where
mkdocstrings lists it, a checker of its own, so every package mkdocstrings loads is checked
once by that checker; when the pages are built, the checker loads the packages of the
contracts no page rendered and checks them too. Every contract of every kind is checked in
every build, with or without mkdocstrings and API pages, and each finding is logged once,
as an error: `mkdocs build --strict` fails on it at any log level (`-q` drops warnings, not
errors), and a build without `--strict` prints it and succeeds. A strict build checks every
contract before any page is rendered, and stops there on an error, listing every finding,
rather than after the whole site.

ProperDocs, MkDocs' fork, loads the same plugin from its own `properdocs.plugins` entry
point: its command line gives `mkdocs` imports its own modules.

```yaml
plugins:
  - docpact:
      pyproject: !relative $config_dir/pyproject.toml  # the default
```

`mkdocs serve` also watches the `pyproject.toml`, the claims contract's `properties` and the
folders of its `results`, so the boxes and the findings follow an edit of a contract or a
property test, and a new test run.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File

from docpact._check import check_project
from docpact._extension import ContractExtension
from docpact._model.errors import DocpactError
from docpact._model.findings import relative
from docpact._pyproject import load_config
from docpact._registry import kind

if TYPE_CHECKING:
    from collections.abc import Callable

    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

    from docpact._model.config import Config
    from docpact._model.findings import Finding

__all__ = ["DocpactPlugin"]

logger = logging.getLogger("mkdocs.plugins.docpact")


class _Options(base.Config):
    # A path, or mkdocs.yml's `!relative $config_dir/pyproject.toml`, a path-like object.
    pyproject = c.Optional(c.Type((str, os.PathLike)))


class DocpactPlugin(BasePlugin[_Options]):
    """Check every contract once per build through one checker, and show each claim in a box.

    Attributes:
        checker: The griffe extension that checks the build's contracts, in the place of
            the extensions mkdocstrings makes; `None` before `on_pre_build`.
    """

    def __init__(self) -> None:
        self._pages: list[Callable[[str, str], str]] = []
        self._stylesheets: dict[str, str] = {}
        self._root = Path()
        self._project: Config | None = None
        self._watched: tuple[tuple[Path, bool], ...] = ()  # each path, and whether recursively
        self.checker: ContractExtension | None = None

    def on_config(self, config: MkDocsConfig, **kwargs: Any) -> MkDocsConfig:
        """Read the contracts, prepare the kinds' page hooks, and add their style sheets.

        Raises:
            PluginError: When the contracts cannot be read, or a contract's kind changes
                pages with Markdown extensions the site lacks (the claims kind: the
                `admonition` extension its boxes are made with).
        """
        pyproject = self.config.pyproject or str(
            Path(config.config_file_path).parent / "pyproject.toml"
        )
        try:
            project = load_config(pyproject)
            sites = [
                (contract, found.name, found.site)
                for contract in project.contracts
                if (found := kind(contract.kind)) is not None and found.site is not None
            ]
            self._pages = [site.prepare(contract, project) for contract, _, site in sites]
        except DocpactError as error:
            raise PluginError(str(error)) from None
        self._root = project.root
        self._project = project
        watched = [(Path(pyproject), True)]
        for contract, name, site in sites:
            if missing := [e for e in site.extensions if e not in config.markdown_extensions]:
                msg = (
                    f"the docpact plugin's {name} pages need the Markdown extensions "
                    f"{', '.join(missing)}; add them to markdown_extensions"
                )
                raise PluginError(msg)
            if site.watched is not None:
                watched += site.watched(contract, project)
            if site.stylesheet:
                self._stylesheets[f"assets/docpact/{name}.css"] = site.stylesheet
        self._watched = tuple(watched)
        config.extra_css.extend(self._stylesheets)
        return config

    def on_serve(
        self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Callable[[], None]
    ) -> LiveReloadServer:
        """Watch the `pyproject.toml`, and the paths the kinds' sites name.

        MkDocs watches the docs and `mkdocs.yml`; an edit of these rebuilds the site too, so
        its pages (the claim boxes) and findings follow a contract, a property test and a
        test run as they change. A path that does not exist when the server starts is not
        watched.
        """
        for path, recursive in self._watched:
            if not path.exists():
                continue
            if recursive:  # MkDocs' default
                server.watch(str(path))
            else:
                server.watch(str(path), recursive=False)
        return server

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        """Start each build with a checker that has checked nothing yet, the extensions'.

        A strict build checks every contract now, before any page is rendered.

        Raises:
            PluginError: In a strict build, when a contract has an error: every finding is
                logged first. Also when a check cannot run (a broken registered kind).
        """
        if self._project is None:
            return
        self.checker = ContractExtension(config=self._project, log=False)
        _defer_extensions(config, self.checker)
        if not config.strict:
            return
        found = _checked(self._project, self.checker)
        errors = [finding for finding in found if finding.severity == "error"]
        if not errors:
            return  # logged after the pages, with what they add: nothing, all being checked
        _log(found)
        self.checker = None  # logged: on_post_build, which a plugin error skips, has nothing
        noun = "error" if len(errors) == 1 else "errors"
        msg = f"docpact: {len(errors)} {noun}; the strict build stops before any page is built"
        raise PluginError(msg)

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Check the contracts no page loaded, and log every finding of the build once.

        Raises:
            PluginError: When griffe is too old to call the checker (`docpact check` says
                the same).
        """
        if self._project is None or self.checker is None:
            return
        _log(_checked(self._project, self.checker))

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        """Add the kinds' style sheets."""
        for name, css in self._stylesheets.items():
            files.append(File.generated(config, name, content=css))
        return files

    def on_page_markdown(self, markdown: str, *, page: Page, **kwargs: Any) -> str:
        """Run each contract's page hook on the page (the claims kind's boxes)."""
        source = page.file.abs_src_path
        if source is None:
            return markdown
        name = relative(Path(source), self._root)
        for hook in self._pages:
            markdown = hook(name, markdown)
        return markdown


def _checked(project: Config, checker: ContractExtension) -> list[Finding]:
    """The build's findings: `check_project` through the build's checker, errors as plugin errors.

    Raises:
        PluginError: When a check cannot run (a broken registered kind, griffe too old to
            call the checker).
    """
    try:
        return check_project(project, checker)
    except DocpactError as error:
        raise PluginError(str(error)) from None


def _log(found: list[Finding]) -> None:
    """Log each finding: an error fails a strict build; a warning, a contract's choice, not."""
    for finding in found:
        (logger.error if finding.severity == "error" else logger.info)("docpact: %s", finding)


def _defer_extensions(config: MkDocsConfig, checker: ContractExtension) -> None:
    """Make each docpact extension that mkdocstrings lists check through `checker`.

    mkdocstrings' Python handler reads its options when it first renders, after every
    plugin's `on_config`, and passes an extension's options to the extension it makes.
    """
    plugin = config.plugins.get("mkdocstrings")
    handlers = getattr(getattr(plugin, "config", None), "handlers", None) or {}
    options = (handlers.get("python") or {}).get("options") or {}
    extensions = options.get("extensions") or []
    for i, entry in enumerate(extensions):
        name, settings = next(iter(entry.items())) if isinstance(entry, dict) else (entry, {})
        if _is_docpact(name) and isinstance(settings or {}, dict):
            extensions[i] = {name: {**(settings or {}), "defer_to": checker}}


# The spellings by which griffe loads docpact's extension: its package, its module, or
# either followed by the class (`module:Class`, as griffe accepts it).
_DOCPACT_EXTENSION = ("docpact", "docpact._extension")


def _is_docpact(name: object) -> bool:
    """Whether griffe would load `name` as docpact's `ContractExtension`."""
    if not isinstance(name, str):
        return False
    module, _, attribute = name.partition(":")
    return module in _DOCPACT_EXTENSION and attribute in ("", "ContractExtension")
