# SPDX-License-Identifier: MIT
"""The `docpact` MkDocs plugin: it owns the build's checking, and shows claims in boxes.

At build time, the block after `<!-- docpact: claim ID -->` becomes an admonition of type
`docpact-claim`, titled with the claim's ID, that ends with the property checking it and
the command that runs the property: its nox session where one is configured, else pytest
on its node id. The box is plain HTML and a style sheet the plugin adds
to the site: nothing is fetched or run in the browser.

The plugin owns the checking of the build. It hands docpact's griffe extension, where
mkdocstrings lists it, a checker of its own, so every package mkdocstrings loads is checked
once by that checker; when the pages are built, the checker loads the packages of the
contracts no page rendered and checks them too. Every contract of every kind is checked in
every build, with or without mkdocstrings and API pages, and each finding is logged once,
as an error: `mkdocs build --strict` fails on it at any log level (`-q` drops warnings, not
errors), and a build without `--strict` prints it and succeeds.

```yaml
plugins:
  - docpact:
      pyproject: !relative $config_dir/pyproject.toml  # the default
```

`mkdocs serve` also watches the `pyproject.toml` and the claims contract's `properties`,
so the boxes and the findings follow an edit of a contract or a property test.
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
from docpact._kinds.claims import CLAIMS
from docpact._kinds.claims.analysis import analyse
from docpact._model.errors import DocpactError
from docpact._model.findings import relative
from docpact._pyproject import load_config
from docpact._readers.markdown.claims import read_page
from docpact._readers.markdown.prose import page_lines

if TYPE_CHECKING:
    from collections.abc import Callable

    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

    from docpact._kinds.claims.analysis import Analysis
    from docpact._model.config import Config
    from docpact._readers.markdown.claims import Block

__all__ = ["DocpactPlugin"]

logger = logging.getLogger("mkdocs.plugins.docpact")

STYLESHEET = "assets/docpact/claims.css"
_ICON = (
    "url(\"data:image/svg+xml;charset=utf-8,<svg xmlns='http://www.w3.org/2000/svg' "
    "viewBox='0 0 24 24'><path d='M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm-1.5 14.5-4-4 "
    "1.4-1.4 2.6 2.6 5.6-5.6 1.4 1.4z'/></svg>\")"
)
_CSS = f"""\
:root {{
  --docpact-claim-color: #00796b;
  --docpact-claim-icon: {_ICON};
}}
.md-typeset .admonition.docpact-claim {{
  border-color: var(--docpact-claim-color);
}}
.md-typeset .docpact-claim > .admonition-title {{
  background-color: rgb(0 121 107 / 10%);
}}
.md-typeset .docpact-claim > .admonition-title::before {{
  background-color: var(--docpact-claim-color);
  -webkit-mask-image: var(--docpact-claim-icon);
  mask-image: var(--docpact-claim-icon);
}}
.md-typeset .docpact-claim-check {{
  color: var(--md-default-fg-color--light, inherit);
  font-size: 0.85em;
}}
"""


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
        self._analysis: Analysis | None = None
        self._root = Path()
        self._project: Config | None = None
        self._watched: tuple[Path, ...] = ()
        self.checker: ContractExtension | None = None

    def on_config(self, config: MkDocsConfig, **kwargs: Any) -> MkDocsConfig:
        """Read the contracts, and add the claim boxes' style sheet to the site.

        Raises:
            PluginError: When the contracts cannot be read, or a claims contract exists and
                the site lacks the `admonition` Markdown extension the boxes are made with.
        """
        pyproject = self.config.pyproject or str(
            Path(config.config_file_path).parent / "pyproject.toml"
        )
        try:
            project = load_config(pyproject)
        except DocpactError as error:
            raise PluginError(str(error)) from None
        self._root = project.root
        self._project = project
        # load_config allows one claims contract: a claim ID names one claim over all pages.
        claims = next((c for c in project.contracts if c.kind == CLAIMS.name), None)
        self._analysis = None if claims is None else analyse(claims, project)
        properties = () if claims is None else claims.properties
        self._watched = (Path(pyproject), *(project.root / path for path in properties))
        if claims is not None and "admonition" not in config.markdown_extensions:
            msg = (
                "the docpact plugin makes claim boxes with the admonition extension; add it "
                "to markdown_extensions"
            )
            raise PluginError(msg)
        config.extra_css.append(STYLESHEET)
        return config

    def on_serve(
        self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Callable[[], None]
    ) -> LiveReloadServer:
        """Watch the `pyproject.toml` and each of the claims contract's `properties` there is.

        MkDocs watches the docs and `mkdocs.yml`; an edit of these rebuilds the site too, so
        its claim boxes and findings follow a contract or a property test as they change.
        """
        for path in self._watched:
            if path.exists():
                server.watch(str(path))
        return server

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        """Start each build with a checker that has checked nothing yet, the extensions'."""
        if self._project is not None:
            self.checker = ContractExtension(config=self._project, log=False)
            _defer_extensions(config, self.checker)

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Check the contracts no page loaded, and log every finding of the build once.

        Raises:
            PluginError: When griffe is too old to call the checker (`docpact check` says
                the same).
        """
        if self._project is None or self.checker is None:
            return
        try:
            found = check_project(self._project, self.checker)
        except DocpactError as error:
            raise PluginError(str(error)) from None
        for finding in found:
            logger.error("docpact: %s", finding)

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        """Add the style sheet of the boxes."""
        files.append(File.generated(config, STYLESHEET, content=_CSS))
        return files

    def on_page_markdown(self, markdown: str, *, page: Page, **kwargs: Any) -> str:
        """Turn each claim of a claims page into a claim box."""
        source = page.file.abs_src_path
        if source is None:
            return markdown
        name = relative(Path(source), self._root)
        analysis = self._analysis
        if analysis is None or name not in analysis.contract.pages:
            return markdown
        lines = page_lines(markdown)
        for block in reversed(read_page(markdown).claims):
            lines[block.line - 1 : block.last] = _box(lines, block, analysis)
        return "\n".join(lines)


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


def _box(lines: list[str], block: Block, analysis: Analysis) -> list[str]:
    marker = lines[block.line - 1]
    indent = marker[: len(marker) - len(marker.lstrip())]
    body = [
        line[len(indent) :] if line.startswith(indent) else line.lstrip()
        for line in lines[block.first - 1 : block.last]
    ]
    bound = analysis.bound(block.argument)
    if len(bound) == 1:
        binding = bound[0]
        runner = analysis.command(binding)
        check = f"Checked by `{binding.function}` in `{binding.path}`, run by `{runner}`."
    elif bound:
        check = f"Bound to {len(bound)} properties, which docpact check reports."
    else:
        check = "No property checks this claim yet."
    box = [f'!!! docpact-claim "Claim {block.argument}"', ""]
    box += [f"    {line}" if line.strip() else "" for line in body]
    box += ["", f'    <span class="docpact-claim-check">{check}</span>']
    return [f"{indent}{line}" if line else "" for line in box]
