# SPDX-License-Identifier: MIT
"""Re-approval: `docpact claims --update` writes each property's reviewed fingerprints.

As a snapshot tool's update does, it rewrites what the checks compare against, here the
`reviewed="TEXT/CODE"` argument of each `@docpact.claim` decorator, in place. A decorator
without one gets it after its last argument; a file written with one kind of line ending
keeps it. A file whose text changed length is then formatted with ruff, when ruff is
installed, so that it stays as ruff wants it.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from docpact._model.errors import DocpactError
from docpact._readers.python.properties import source_lines

if TYPE_CHECKING:
    from docpact._kinds.claims.analysis import Analysis
    from docpact._model.config import Config
    from docpact._readers.python.properties import Binding

__all__ = ["Review", "reviews", "write_reviews"]


@dataclass(frozen=True)
class Review:
    """One binding whose `reviewed` argument is rewritten.

    Attributes:
        binding: The binding.
        page: The claim's page.
        line: The claim marker's line.
        old: The `reviewed` argument now (empty when absent).
        new: The fingerprints of the claim's text and the property's code now.
    """

    binding: Binding
    page: str
    line: int
    old: str
    new: str


def reviews(analysis: Analysis, ids: tuple[str, ...] = ()) -> list[Review]:
    """The bindings whose recorded fingerprints differ from their claim and code now.

    Only claims with exactly one property are re-approved; the others are DP013 findings.

    Args:
        analysis: The project's claims contract, read.
        ids: The claim IDs to re-approve; every claim when empty.

    Returns:
        The rewrites, by file and line.

    Raises:
        DocpactError: When an ID in `ids` is no claim of the pages.
    """
    claims = {block.argument: (page, block) for page, block in analysis.claims}
    if unknown := [claim_id for claim_id in ids if claim_id not in claims]:
        known = ", ".join(sorted(claims)) or "none"
        msg = f"error: no claim {', '.join(unknown)} on the claims pages (claims: {known})"
        raise DocpactError(msg)
    found = []
    for claim_id, (page, block) in claims.items():
        bound = analysis.bound(claim_id)
        if (ids and claim_id not in ids) or len(bound) != 1:
            continue
        binding = bound[0]
        new = f"{block.fingerprint}/{binding.code}"
        if binding.reviewed != new:
            found.append(Review(binding, page, block.line, binding.reviewed, new))
    return sorted(found, key=lambda review: (review.binding.path, review.binding.line))


def write_reviews(config: Config, found: list[Review]) -> list[str]:
    """Write the new fingerprints into the test files, then format what changed length.

    Args:
        config: The project's configuration.
        found: The rewrites, from `reviews`.

    Returns:
        The files written, relative to the project root.

    Raises:
        DocpactError: When a file cannot be read or written, or ruff fails on it.
    """
    by_file: dict[str, list[Review]] = {}
    for review in found:
        by_file.setdefault(review.binding.path, []).append(review)
    reformat = []
    for path, edits in by_file.items():
        file = config.root / path
        try:
            with file.open(encoding="utf-8") as stream:
                text = stream.read()
                ending = stream.newlines if isinstance(stream.newlines, str) else "\n"
            lines = source_lines(text)
            # From the end, so that earlier positions stay where they are.
            for review in sorted(edits, key=lambda r: r.binding.span, reverse=True):
                lines = _edited(lines, review)
            written = "".join(lines)
            file.write_text(written, encoding="utf-8", newline=ending)
        except OSError as error:
            msg = f"{path}: error: cannot write the reviewed fingerprints: {error.strerror}"
            raise DocpactError(msg) from None
        if len(written) != len(text):
            reformat.append(path)
    if reformat:
        _format(config.root, reformat)
    return list(by_file)


def _edited(lines: list[str], review: Review) -> list[str]:
    start_line, start, end_line, end = review.binding.span
    literal = f'"{review.new}"'
    if review.binding.has_reviewed:
        head = lines[start_line - 1][:start]
        tail = lines[end_line - 1][end:]
        return [*lines[: start_line - 1], head + literal + tail, *lines[end_line:]]
    line = lines[end_line - 1]
    edited = f"{line[:end]}, reviewed={literal}{line[end:]}"
    return [*lines[: end_line - 1], edited, *lines[end_line:]]


def _format(root: Path, paths: list[str]) -> None:
    """Format files with ruff, if it is installed, under the project's ruff settings."""
    ruff = _ruff()
    if ruff is None:
        logging.getLogger("docpact").warning(
            "ruff is not installed: %s written without formatting; run ruff format on it",
            ", ".join(paths),
        )
        return
    result = subprocess.run(
        [ruff, "format", "--quiet", *paths], cwd=root, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        msg = f"{', '.join(paths)}: error: ruff format failed: {result.stderr.strip()}"
        raise DocpactError(msg)


def _ruff() -> str | None:
    try:
        from ruff.__main__ import find_ruff_bin
    except ImportError:
        return shutil.which("ruff")
    try:
        return str(find_ruff_bin())
    except FileNotFoundError:
        return shutil.which("ruff")
