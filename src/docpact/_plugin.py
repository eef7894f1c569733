# SPDX-License-Identifier: MIT
"""The `docpact` MkDocs plugin: it owns the build's checking, and shows claims in boxes.

At build time, the block after `<!-- docpact: claim ID "Title" -->` becomes an admonition
of type `docpact-claim`, titled with the marker's title (else `Claim ID`), that ends with
the property checking it, the command that runs the property (its nox session where one is
configured, else pytest on its node id) and what the results files of the contract's
`results` (written by `pytest --docpact-results`) say of it: passed, failed or skipped on
the commit built, with the session and the commit; not run on this commit, when the only
results are of another commit or of the property's older code; or not run in this build,
with none. Only a passed property gets a check mark. The box is plain HTML and a style
sheet the plugin adds to the site: nothing is fetched or run in the browser.

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

`mkdocs serve` also watches the `pyproject.toml`, the claims contract's `properties` and the
folders of its `results`, so the boxes and the findings follow an edit of a contract or a
property test, and a new test run.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
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
    from docpact._kinds.claims.results import State
    from docpact._model.config import Config
    from docpact._readers.markdown.claims import Block
    from docpact._readers.python.properties import Binding

__all__ = ["DocpactPlugin"]

logger = logging.getLogger("mkdocs.plugins.docpact")

STYLESHEET = "assets/docpact/claims.css"


def _svg(path: str) -> str:
    return (
        "url(\"data:image/svg+xml;charset=utf-8,<svg xmlns='http://www.w3.org/2000/svg' "
        f"viewBox='0 0 24 24'><path d='{path}'/></svg>\")"
    )


# A state's colour and icon: a check mark for passed alone.
_STATES = {
    "passed": (
        "#00796b",
        "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm-1.5 14.5-4-4 1.4-1.4 2.6 2.6 5.6-5.6 1.4 1.4z",
    ),
    "failed": (
        "#c62828",
        "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm3.6 5 1.4 1.4-3.6 3.6 3.6 "
        "3.6-1.4 1.4-3.6-3.6L8.4 17 7 15.6l3.6-3.6L7 8.4 8.4 7l3.6 3.6z",
    ),
    "unknown": (
        "#607d8b",
        "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 2a8 8 0 1 1 0 16 8 8 0 0 1 0-16zM7 11h10v2H7z",
    ),
}
_CLASSES = {
    "passed": "passed",
    "failed": "failed",
    "skipped": "unknown",
    "stale": "unknown",
    "not-run": "unknown",
    "suspect": "unknown",
}
_CSS = (
    "".join(
        f"""\
.admonition.docpact-claim.docpact-{state} {{
  border-color: {colour};
}}
.docpact-claim.docpact-{state} > .admonition-title::before {{
  background-color: {colour};
  -webkit-mask-image: {_svg(path)};
  mask-image: {_svg(path)};
}}
"""
        for state, (colour, path) in _STATES.items()
    )
    + """\
.admonition.docpact-claim > .admonition-title {
  background-color: rgb(96 125 139 / 10%);
}
.docpact-claim.docpact-passed > .admonition-title {
  background-color: rgb(0 121 107 / 10%);
}
.docpact-claim.docpact-failed > .admonition-title {
  background-color: rgb(198 40 40 / 10%);
}
/* The light palette's red has 2.9:1 contrast on the dark one's background: this has 6:1. */
[data-md-color-scheme="slate"] .admonition.docpact-claim.docpact-failed {
  border-color: #ff8a80;
}
[data-md-color-scheme="slate"] .docpact-claim.docpact-failed > .admonition-title::before {
  background-color: #ff8a80;
}
[data-md-color-scheme="slate"] .docpact-claim.docpact-failed > .admonition-title {
  background-color: rgb(255 138 128 / 10%);
}
.docpact-claim .docpact-claim-check {
  display: block;
  font-size: 1em;
  border-top: 1px solid rgb(128 128 128 / 30%);
  padding-top: 0.4em;
}
"""
)


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
        self._watched: tuple[tuple[Path, bool], ...] = ()  # each path, and whether recursively
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
        results = () if claims is None else map(_folder, claims.results)
        self._watched = (
            (Path(pyproject), True),
            *((project.root / path, True) for path in properties),
            *((project.root / path, recursive) for path, recursive in results),
        )
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
        """Watch the `pyproject.toml`, the claims contract's `properties` and results folders.

        MkDocs watches the docs and `mkdocs.yml`; an edit of these rebuilds the site too, so
        its claim boxes and findings follow a contract, a property test and a test run as
        they change. A path that does not exist when the server starts is not watched.
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
        for finding in found:  # a warning, by the contract's choice, fails no strict build
            (logger.error if finding.severity == "error" else logger.info)("docpact: %s", finding)

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


def _folder(pattern: str) -> tuple[str, bool]:
    """The folder a results glob pattern searches, and whether its subfolders are watched.

    The folder is the pattern's fixed prefix, its parts before the first wildcard. Its
    subfolders are watched when the pattern searches them (a wildcard or `**` in a folder
    part), except the project root's: they hold `.git`, virtual environments and the
    built site, so `**/*.json` watches the files of the root alone.
    """
    parts = pattern.split("/")
    fixed = list(itertools.takewhile(lambda part: not _WILDCARD.search(part), parts))
    folder = "/".join(fixed[: len(parts) - 1]) or "."
    return folder, len(fixed) < len(parts) - 1 and folder != "."


_WILDCARD = re.compile(r"[*?\[]")


def _box(lines: list[str], block: Block, analysis: Analysis) -> list[str]:
    marker = lines[block.line - 1]
    indent = marker[: len(marker) - len(marker.lstrip())]
    body = [
        line[len(indent) :] if line.startswith(indent) else line.lstrip()
        for line in lines[block.first - 1 : block.last]
    ]
    bound = analysis.bound(block.argument)
    if len(bound) == 1:
        state = analysis.state(bound[0])
        check = _result(bound[0], state, analysis)
        status = state.status
    elif bound:
        check, status = f"Bound to {len(bound)} properties, which docpact check reports.", ""
    else:
        check, status = "No property checks this claim yet.", ""
    title = _literal(block.title or f"Claim {block.argument}")  # it holds no double quote
    classes = f"docpact-claim docpact-{_CLASSES.get(status, 'unknown')}"
    box = [f'!!! {classes} "{title}"', ""]
    box += [f"    {line}" if line.strip() else "" for line in body]
    box += [
        "",
        f'    <span class="docpact-claim-check" data-state="{status or "unbound"}">{check}</span>',
    ]
    run = state.run if len(bound) == 1 else None
    example = run.examples.get((bound[0].path, bound[0].node), "") if run is not None else ""
    if status == "failed" and example:  # Hypothesis's failing input, as it printed it
        fence = "`" * max(3, max(map(len, re.findall("`+", example)), default=0) + 1)
        box += ["", f"    {fence}text", *(f"    {line}" for line in example.splitlines())]
        box.append(f"    {fence}")
    return [f"{indent}{line}" if line else "" for line in box]


def _result(binding: Binding, state: State, analysis: Analysis) -> str:
    """A box's last line: the property, the command that runs it, and its result."""
    runner = _code(analysis.command(binding))
    checked = f"{_code(binding.function)} in {_code(binding.path)}"
    run = state.run
    if run is None:
        return f"Not run in this build: {checked} checks it; run {runner} to see its result."
    ran = _code(f"nox -s {run.session}") if run.session else "pytest"
    on = f"commit {_code(run.commit[:12])}" if run.commit else "a checkout without git"
    if run.dirty:
        on += " with uncommitted changes"
    if state.status == "stale":
        why = "its code changed since it last ran" if state.changed else "it last ran"
        return f"Not run on this commit: {checked} checks it; {why} in {ran} on {on}."
    word = {"passed": "Passed", "failed": "Failed", "skipped": "Skipped"}[state.status]
    return f"{word}: {checked}, run by {ran} on {on}."


def _code(text: str) -> str:
    """A Markdown code span showing `text` as it is: Markdown escapes its HTML.

    Its backticks are one more than the longest run of them in the text, and a space pads
    a text that starts or ends with one (Markdown strips it).
    """
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _literal(text: str) -> str:
    """Text that Markdown and its extensions show as it is: each mark a character reference."""
    return _MARKUP.sub(lambda mark: f"&#{ord(mark[0])};", text)


# Letters, digits and spaces mean nothing to Markdown, nor do these marks; `_` can emphasize.
_MARKUP = re.compile(r"[^\w\s\-.,;?/%@']|_")
