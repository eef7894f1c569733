# SPDX-License-Identifier: MIT
"""Re-approval: `docpact claims --update` writes each property's reviewed fingerprints.

As a snapshot tool's update does, it rewrites what the checks compare against, here the
`reviewed="TEXT/CODE"` string of each binding, in place, and nothing else: every other line
of the file stays byte for byte as it was, its line endings and byte-order mark included. A
stamp has a fixed width, so re-approving a binding reviewed with a three-part stamp never
changes a line's length. The review record (`docpact.claims._ledger`) gets an entry
per re-approved claim.
A binding without `reviewed=` gets one after its last argument; where that would make the
line longer than the project's line length (`line-length` of `[tool.ruff]`, else of
`[tool.black]`, else 88), the update is refused with the line to add by hand. Each file's new
text is parsed, and its bindings read again, before it atomically replaces the old one; if
any file fails that, nothing is written.
"""

from __future__ import annotations

import ast
import codecs
import os
import re
import tomllib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docpact._model.errors import DocpactError
from docpact._readers.files import Unreadable, read_text, replace_file
from docpact.claims._bindings import read_text_bindings
from docpact.claims._ledger import DEFAULT_REVIEWS, read_records, record, write_records

if TYPE_CHECKING:
    from pathlib import Path

    from docpact._model.config import Config
    from docpact.claims._analysis import Analysis
    from docpact.claims._bindings import Binding

__all__ = [
    "DEFAULT_LINE_LENGTH",
    "Review",
    "SuppressionReview",
    "missing_records",
    "reviews",
    "suppression_reviews",
    "write_reviews",
    "write_suppression_reviews",
]

DEFAULT_LINE_LENGTH = 88
"""The line length without a `[tool.ruff]` or `[tool.black]` one: both tools' default."""

# A line with its break, as Python's tokenizer numbers lines: `\r\n`, `\r` or `\n`.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


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
        new = f"{block.fingerprint}/{binding.code}/{binding.tested}"
        if binding.reviewed != new:
            found.append(Review(binding, page, block.line, binding.reviewed, new))
    return sorted(found, key=lambda review: (review.binding.path, review.binding.line))


@dataclass(frozen=True)
class SuppressionReview:
    """One `not-a-claim` marker whose `reviewed=` stamp is rewritten.

    Attributes:
        page: The page.
        line: The marker's line.
        reason: The suppression's reason.
        old: Its stamp now (empty when absent).
        new: The fingerprint of its reason and block now.
    """

    page: str
    line: int
    reason: str
    old: str
    new: str


def suppression_reviews(analysis: Analysis) -> list[SuppressionReview]:
    """The suppressions whose stamp differs from the fingerprint of their reason and block.

    Args:
        analysis: The project's claims contract, read.

    Returns:
        The rewrites, by page and line.
    """
    return [
        SuppressionReview(page, block.line, block.argument, block.reviewed, block.fingerprint)
        for page, read in analysis.read.items()
        for block in read.suppressions
        if block.reviewed != block.fingerprint
    ]


def write_suppression_reviews(config: Config, found: list[SuppressionReview]) -> list[str]:
    """Write the new stamps into the suppressions' markers, each page replaced atomically.

    Only the marker's line is rewritten: `<!-- docpact: not-a-claim REASON reviewed=STAMP -->`
    at its indent, with its line break; every other byte of the page stays as it was.

    Args:
        config: The project's configuration.
        found: The rewrites, from `suppression_reviews`.

    Returns:
        The pages written, relative to the project root.

    Raises:
        DocpactError: When a page cannot be read or written, or a marker is no longer on
            its line; nothing is written then.
    """
    by_page: dict[str, list[SuppressionReview]] = {}
    for review in found:
        by_page.setdefault(review.page, []).append(review)
    texts = {}
    for page, edits in by_page.items():
        bom, lines = _read_lines(config.root / page, page)
        for review in edits:
            old = lines[review.line - 1] if review.line <= len(lines) else ""
            body = old.rstrip("\r\n")
            indent = body[: len(body) - len(body.lstrip(" \t"))]
            if not body.lstrip(" \t").startswith("<!-- docpact: not-a-claim"):
                msg = (
                    f"{page}:{review.line}: error: the not-a-claim marker is no longer on "
                    "this line, so nothing was written: run docpact claims --update again"
                )
                raise DocpactError(msg)
            marker = f"<!-- docpact: not-a-claim {review.reason} reviewed={review.new} -->"
            lines[review.line - 1] = indent + marker + old[len(body) :]
        texts[page] = bom + "".join(lines).encode("utf-8")
    for page, data in texts.items():
        _replace(config.root / page, data, page)
    return list(texts)


def _read_lines(file: Path, path: str) -> tuple[bytes, list[str]]:
    """A text file's byte-order mark and its lines, each with its line break."""
    try:
        data = file.read_bytes()
    except OSError as error:
        msg = f"{path}: error: cannot read the file to write its reviews: {error.strerror}"
        raise DocpactError(msg) from None
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    try:
        text = data[len(bom) :].decode("utf-8")
    except UnicodeDecodeError:
        msg = f"{path}: error: cannot write its reviews: the file is not UTF-8 text"
        raise DocpactError(msg) from None
    return bom, _LINE.findall(text)


def write_reviews(config: Config, found: list[Review]) -> list[str]:
    """Write the new fingerprints into the test files, each replaced atomically.

    Every file's new text is made and checked first; only then is any file written.

    Args:
        config: The project's configuration.
        found: The rewrites, from `reviews`.

    Returns:
        The files written, relative to the project root.

    Raises:
        DocpactError: When a file cannot be read or written, a line would grow past the line
            length, or a new text would not parse or not hold its stamps; the message
            names the file and line, and nothing is written.
    """
    by_file: dict[str, list[Review]] = {}
    for review in found:
        by_file.setdefault(review.binding.path, []).append(review)
    limit = line_length(config.pyproject)
    texts = {
        path: _rewritten(config.root / path, path, edits, limit) for path, edits in by_file.items()
    }
    if found:  # first: an entry is read only where its stamp is the binding's
        records = {
            r.binding.claim or "": record(config.root, r.page, r.binding, r.new, texts)
            for r in found
        }
        write_records(config.root / DEFAULT_REVIEWS, DEFAULT_REVIEWS, records)
    for path, data in texts.items():
        _replace(config.root / path, data, path)
    return list(texts)


def line_length(pyproject: Path) -> int:
    """The project's line length: `[tool.ruff]`'s, else `[tool.black]`'s, else 88."""
    try:
        tools = tomllib.loads(read_text(pyproject)).get("tool", {})
    except (Unreadable, ValueError, RecursionError):  # TOMLDecodeError is a ValueError
        return DEFAULT_LINE_LENGTH  # load_config read it; a file changed since is no reason
    for tool in ("ruff", "black"):
        table = tools.get(tool) if isinstance(tools, dict) else None
        value = table.get("line-length") if isinstance(table, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_LINE_LENGTH


def missing_records(config: Config, analysis: Analysis) -> list[str]:
    """Write the review record's entry of each reviewed claim that has none, or a stale one.

    A claim whose stamp matches its text, property and code under test was reviewed as it
    stands; its entry is written from the working tree, as `--update` would have.

    Args:
        config: The project's configuration.
        analysis: The claims contract, read after any rewrite.

    Returns:
        The claim IDs whose entries were written.
    """
    records = read_records(config.root / DEFAULT_REVIEWS)
    fresh = {}
    for page, block in analysis.claims:
        bound = analysis.bound(block.argument)
        if len(bound) != 1:
            continue
        binding = bound[0]
        stamp = f"{block.fingerprint}/{binding.code}/{binding.tested}"
        entry = records.get(block.argument)
        if binding.reviewed == stamp and (entry is None or entry.stamp != stamp):
            fresh[block.argument] = record(config.root, page, binding, stamp, {})
    if fresh:
        write_records(config.root / DEFAULT_REVIEWS, DEFAULT_REVIEWS, fresh)
    return sorted(fresh)


def _rewritten(file: Path, path: str, edits: list[Review], limit: int) -> bytes:
    """A file's bytes with the new stamps, checked to parse and to hold every stamp."""
    bom, lines = _read_lines(file, path)
    # From the end, so that earlier positions stay where they are.
    for review in sorted(edits, key=lambda r: r.binding.span, reverse=True):
        lines = _edited(lines, review, path, limit)
    written = "".join(lines)
    _check(written, path, edits)
    return bom + written.encode("utf-8")


def _edited(lines: list[str], review: Review, path: str, limit: int) -> list[str]:
    start_line, start, end_line, end = review.binding.span
    literal = f'"{review.new}"'
    first, last = lines[start_line - 1], lines[end_line - 1]
    if review.binding.has_reviewed:
        edited = first[:start] + literal + last[end:]
    elif first[:start].endswith(","):  # after a trailing comma, and one after it again
        edited = f"{first[:start]} reviewed={literal},{first[start:]}"
    else:
        edited = f"{first[:start]}, reviewed={literal}{first[start:]}"
    old, new = _width(first if start_line == end_line else ""), _width(edited)
    if new > limit and new > old:
        msg = (
            f"{path}:{start_line}: error: writing reviewed={literal} would make line "
            f"{start_line} {new} characters long, over the line length {limit}, so nothing "
            f"was written: add `reviewed={literal},` on a line of its own inside the "
            f"parentheses of {review.binding.function}'s binding (that is the review)"
        )
        raise DocpactError(msg)
    return [*lines[: start_line - 1], edited, *lines[end_line:]]


def _width(line: str) -> int:
    return len(line.rstrip("\r\n"))


def _check(written: str, path: str, edits: list[Review]) -> None:
    """Refuse a new text that does not parse, or whose bindings lack their new stamps."""
    try:
        ast.parse(written, filename=path)
    except (SyntaxError, ValueError) as error:
        msg = (
            f"{path}: error: writing the reviews would leave a file that does not parse "
            f"({error.args[0]}), so nothing was written: set reviewed= by hand"
        )
        raise DocpactError(msg) from None
    # By claim and node id: an edit that joins a stamp's lines moves the bindings after it.
    stamps = {(b.claim, b.node): b.reviewed for b in read_text_bindings(written, path)}
    for review in edits:
        binding = review.binding
        if stamps.get((binding.claim, binding.node)) != review.new:
            msg = (
                f"{path}:{binding.line}: error: the rewritten binding of {binding.function} "
                f'would not hold reviewed="{review.new}", so nothing was written: set it by '
                "hand"
            )
            raise DocpactError(msg)


def _replace(file: Path, data: bytes, path: str) -> None:
    """Replace a file's bytes in one step, as its owner may, keeping its mode and its links.

    The new bytes go to a temporary file beside the file a link names, then take its place,
    so a symbolic link still names it. A file with other hard links is written in place
    instead (a new file would leave those links on the old text), and a file its owner
    cannot write is refused, as an editor refuses it.
    """
    target = file.resolve()
    try:
        status = target.stat()
        if not os.access(target, os.W_OK):
            raise PermissionError(13, "Permission denied")
        if status.st_nlink > 1:
            target.write_bytes(data)
            return
        replace_file(target, data, status.st_mode)
    except OSError as error:
        msg = f"{path}: error: cannot write the reviewed fingerprints: {error.strerror}"
        raise DocpactError(msg) from None
