# SPDX-License-Identifier: MIT
"""The claim boxes: each claim of a claims page rendered as an admonition with its result.

Whatever builds the site calls the claims kind's page hook (`Kind.site`) on each page's
Markdown before it is rendered. The block after `<!-- docpact: claim ID "Title" -->` becomes
an admonition of type `docpact-claim`, titled with the marker's title (else `Claim ID`),
that ends with the property checking it, the command that runs the property (its nox
session where one is configured, else pytest on its node id) and what the results files of
the contract's `results` (written by `pytest --docpact-results`) say of it: passed, failed
or skipped on the commit built, with the session and the commit; not run on this commit,
when the only results are of another commit or of the property's older code; or not run in
this build, with none. Only a passed property gets a check mark. The box is plain HTML and
a style sheet added to the site: nothing is fetched or run in the browser.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from docpact._model.rules import Site
from docpact._readers.markdown.prose import page_lines

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from docpact._model.config import Config
    from docpact.claims._analysis import Analysis
    from docpact.claims._bindings import Binding
    from docpact.claims._contract import ClaimsContract
    from docpact.claims._page import Block
    from docpact.claims._results import State

__all__ = ["SITE"]


def _prepare(contract: ClaimsContract, config: Config) -> Callable[[str, str], str]:
    """The page hook of a build: the contract read once, each claims page boxed."""
    from docpact.claims._analysis import analyse
    from docpact.claims._page import read_page

    analysis = analyse(contract, config, runs_vouch=True)  # the states the check reads

    def boxed(page: str, markdown: str) -> str:
        if page not in contract.pages:
            return markdown
        lines = page_lines(markdown)
        for block in reversed(read_page(markdown).claims):
            lines[block.line - 1 : block.last] = _box(lines, block, analysis)
        return "\n".join(lines)

    return boxed


def _watched(contract: ClaimsContract, config: Config) -> tuple[tuple[Path, bool], ...]:
    """The properties, the review ledger and the folders of the results, for a server."""
    from docpact.claims._ledger import FOLDER

    return (
        *((config.root / path, True) for path in contract.properties),
        (config.root / FOLDER, True),
        *((config.root / path, recursive) for path, recursive in map(_folder, contract.results)),
    )


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


SITE = Site(
    prepare=_prepare,  # type: ignore[arg-type]
    stylesheet=_CSS,
    extensions=("admonition",),
    watched=_watched,  # type: ignore[arg-type]
    pages=lambda contract: contract.pages,  # type: ignore[attr-defined]
)
"""The claims kind's part in a built site: the boxes, their style sheet and what they need."""
