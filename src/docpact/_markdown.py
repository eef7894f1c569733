# SPDX-License-Identifier: MIT
"""docpact as a Python-Markdown extension: the gate of a builder that runs no MkDocs plugin.

Zensical 0.0.x reads `mkdocs.yml` but skips the plugins it does not know, docpact's among
them, without a word; it runs the Python-Markdown extensions of `markdown_extensions`.
Listed there, this extension checks the project when the first page renders, once per
process for the same files (keyed by the hashes of the files a check reads: the
`pyproject.toml`, the Python files under `[tool.docpact] paths`, the pages the contracts
name and the paths the kinds' sites watch), and again when one of them changed (under
`zensical serve`). Each finding is printed once; a strict build stops at the first page
with status 1 (`docpact._builders`). It also draws each claim in a box, through the
claims kind's page hook (`Kind.site`), with the box's style sheet in the page.

```yaml
markdown_extensions:
  - docpact  # or, with its one option: - docpact: {pyproject: path/to/pyproject.toml}
```

Under any other builder (MkDocs and ProperDocs run docpact's plugin, which checks and
draws the boxes) this extension does nothing: one `mkdocs.yml` may list both. MkDocs
itself makes the listed extensions while it validates the configuration, before any
plugin runs.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

from docpact._builders import report, zensical_build, zensical_folder
from docpact._check import check_project
from docpact._model.errors import DocpactError
from docpact._pyproject import find_pyproject, load_config
from docpact._readers.files import Unreadable, read_text
from docpact._registry import kind

if TYPE_CHECKING:
    from collections.abc import Callable

    from markdown import Markdown

    from docpact._model.config import Config
    from docpact._model.rules import Site

__all__ = ["DocpactExtension", "makeExtension"]

# A page's YAML front matter, which builders leave out of the Markdown they render.
_YAML_FRONT_MATTER = re.compile(r"\A-{3}[ \t]*\n.*?\n(?:-{3}|\.{3})[ \t]*(?:\n|\Z)", re.DOTALL)
# Folders no check reads: hidden ones (.git, .nox, .venv), the built site, caches.
_SKIPPED = frozenset({"site", "node_modules", "__pycache__"})


class DocpactExtension(Extension):
    """Check the project once per process and its changes, and draw the claim boxes.

    Options:
        pyproject: The project's `pyproject.toml`, relative to the folder of the
            configuration file Zensical builds; by default, the one in that folder or the
            nearest folder above it.
    """

    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "pyproject": [
                "",
                "The project's pyproject.toml, relative to the configuration's folder; by "
                "default that folder's or the nearest above it",
            ]
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:
        """Check the project if its files changed since the last check, and add the boxes."""
        if not zensical_build():  # MkDocs or ProperDocs: docpact's plugin does both
            return
        gate = _gate(str(self.getConfig("pyproject")))
        if gate is not None and gate.sites:
            md.preprocessors.register(_Boxes(md, gate), "docpact", 35)


def makeExtension(**kwargs: Any) -> DocpactExtension:
    """The extension, as Python-Markdown makes one from `markdown_extensions: [docpact]`."""
    return DocpactExtension(**kwargs)


class _Gate:
    """One project's last check in this process: its findings reported, its page hooks."""

    def __init__(self, pyproject: Path) -> None:
        self.pyproject = pyproject
        self.inputs: list[Path] = [pyproject]
        self.signature: tuple[tuple[str, int, int], ...] | None = None
        self.digest = ""
        self.config: Config | None = None
        # Each kind that changes pages: its name, site, page hook and the pages it rewrites.
        self.sites: list[tuple[str, Site, Callable[[str, str], str], tuple[str, ...]]] = []
        self.bodies: dict[str, str] = {}

    def refresh(self) -> None:
        """Check the project again if a file the last check read changed."""
        signature = _signature(self.inputs)
        if signature == self.signature:
            return
        try:
            config = load_config(self.pyproject)
        except DocpactError as error:
            self.signature, self.digest, self.sites = signature, "", []
            report([str(error)], key=("unreadable", str(error)))
            return
        self.inputs = _inputs(config)
        self.signature = _signature(self.inputs)
        digest = _digest(self.inputs)
        if digest == self.digest:
            return  # touched, not changed
        self.digest, self.config, self.bodies = digest, config, {}
        try:
            found = check_project(config)
            self.sites = [
                (contract.kind, site, site.prepare(contract, config), _pages(site, contract))
                for contract in config.contracts
                if (registered := kind(contract.kind)) is not None
                and (site := registered.site) is not None
            ]
        except DocpactError as error:
            self.sites = []
            report([str(error)], key=digest)
            return
        report(found, key=digest)

    def page_of(self, markdown: str) -> str | None:
        """The page, relative to the project root, whose Markdown this is; `None` if none is.

        A front end gives an extension a page's text, not its path: the text is matched
        against the pages the sites rewrite, their front matter left out as builders do.
        """
        if self.config is None:
            return None
        wanted = markdown.strip()
        for *_, pages in self.sites:
            for page in pages:
                if page not in self.bodies:
                    try:
                        text = read_text(self.config.root / page)
                    except Unreadable:
                        text = ""
                    # What Zensical renders: the page without its YAML front matter alone.
                    self.bodies[page] = _YAML_FRONT_MATTER.sub("", text, count=1).strip()
                if self.bodies[page] == wanted:
                    return page
        return None


_GATES: dict[str, _Gate] = {}


def _gate(pyproject: str) -> _Gate | None:
    """The project's gate, refreshed; `None`, the error reported, when no project is found."""
    folder = zensical_folder()  # `zensical build -f other/mkdocs.yml`: that folder's project
    try:
        path = (folder / pyproject).absolute() if pyproject else find_pyproject(folder)
    except DocpactError as error:
        report([str(error)], key=("unfound", str(error)))
        return None
    gate = _GATES.setdefault(str(path), _Gate(path))
    gate.refresh()
    return gate


def _pages(site: Site, contract: Any) -> tuple[str, ...]:
    return tuple(site.pages(contract)) if site.pages is not None else ()


def _inputs(config: Config) -> list[Path]:
    """The files a check of the project reads, or may: what keys it."""
    root = config.root
    # The configuration docpact reads with the contracts (headings, docstring style).
    found = {config.pyproject, root / "mkdocs.yml", root / "mkdocs.yaml"}
    folders = [root / path for path in config.paths]
    for contract in config.contracts:
        found.update(root / ref.partition("#")[0] for ref in contract.docs)
        if isinstance(file := getattr(contract, "file", None), str):  # config-defaults'
            found.add(root / file)
        registered = kind(contract.kind)
        site = registered.site if registered is not None else None
        if site is not None:
            found.update(root / page for page in _pages(site, contract))
            for path, _recursive in site.watched(contract, config) if site.watched else ():
                if path.is_dir():
                    folders.append(path)
                else:
                    found.add(path)
    for folder in folders:
        if folder.is_file():
            found.add(folder)
            continue
        for current, subfolders, files in os.walk(folder):
            subfolders[:] = [n for n in subfolders if not n.startswith(".") and n not in _SKIPPED]
            found.add(Path(current))  # its time changes when a file is added or removed
            found.update(Path(current) / name for name in files if _read_by_a_check(name))
    return sorted(found)


def _read_by_a_check(name: str) -> bool:
    return name.endswith((".py", ".md", ".json", ".toml", ".yml", ".yaml"))


def _signature(paths: list[Path]) -> tuple[tuple[str, int, int], ...]:
    """Each file's modification time and size, `-1` for one that cannot be read."""
    found = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            found.append((str(path), -1, -1))
            continue
        found.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(found)


def _digest(paths: list[Path]) -> str:
    """The SHA-256 of the files' paths and bytes."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
        try:
            digest.update(b"folder" if path.is_dir() else path.read_bytes())
        except OSError:
            digest.update(b"\0unreadable")
        digest.update(b"\0")
    return digest.hexdigest()


class _Boxes(Preprocessor):
    """Run the sites' page hooks on a page the sites rewrite, and add their style sheets."""

    def __init__(self, md: Markdown, gate: _Gate) -> None:
        super().__init__(md)
        self.gate = gate

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        page = self.gate.page_of(text)
        if page is None:
            return lines
        modules = {type(extension).__module__ for extension in self.md.registeredExtensions}
        styles = []
        for name, site, hook, _ in self.gate.sites:
            missing = [
                e for e in site.extensions if not any(m.rpartition(".")[2] == e for m in modules)
            ]
            if missing:
                report(
                    [
                        f"the docpact extension's {name} pages need the Markdown extensions "
                        f"{', '.join(missing)}; add them to markdown_extensions"
                    ]
                )
                continue
            rewritten = hook(page, text)
            if rewritten != text and site.stylesheet:
                styles.append(site.stylesheet)
            text = rewritten
        # Raw HTML the page keeps as it is: no builder's file list to add a style sheet to.
        text += "".join(f"\n\n<style>\n{style}</style>\n" for style in dict.fromkeys(styles))
        return text.split("\n")
