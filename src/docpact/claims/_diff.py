# SPDX-License-Identifier: MIT
"""`docpact claims --diff ID`: what changed since a claim's review, for its reviewer to read.

The review ledger (`docpact.claims._ledger`) holds the blob id of every file the
review read; git gives back those bytes in any clone that has them, squash-merged or not.
Three diffs follow, each a unified diff of the reviewed file against the working tree,
cut to the hunks that touch what the claim depends on: the claim's text on its page, the
property's function, and each unit of the code under test, with the units added or gone
since named. Without a review, without git, or where git no longer holds a reviewed file,
it says so and prints the current text instead.
"""

from __future__ import annotations

import difflib
import re
import shutil
from typing import TYPE_CHECKING

from docpact._model.errors import DocpactError
from docpact._readers.git import blob
from docpact._readers.markdown.prose import page_lines
from docpact.claims._bindings import source_lines
from docpact.claims._ledger import FOLDER, blob_id

if TYPE_CHECKING:
    from docpact._model.config import Config
    from docpact.claims._analysis import Analysis

__all__ = ["claim_diff"]

_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@")


def claim_diff(analysis: Analysis, config: Config, claim_id: str) -> list[str]:
    """The lines to print for `--diff ID`.

    Args:
        analysis: The claims contract, read.
        config: The project's configuration.
        claim_id: The claim.

    Returns:
        The text, diff and header lines, in order.

    Raises:
        DocpactError: When no claim of the pages has that ID.
    """
    claims = {block.argument: (page, block) for page, block in analysis.claims}
    if claim_id not in claims:
        known = ", ".join(sorted(claims)) or "none"
        msg = f"error: --diff {claim_id}: no such claim on the claims pages (claims: {known})"
        raise DocpactError(msg)
    page, block = claims[claim_id]
    bound = analysis.bound(claim_id)
    spans = [("claim text", page, block.line, block.last)]
    for binding in bound:
        first = binding.start or binding.line
        spans.append((f"property {binding.function}", binding.path, first, binding.end))
    record = analysis.review(block)
    if record is None:
        out = [
            f"claim {claim_id} ({page}:{block.line}): {FOLDER}/ has no review of it; as it is now:"
        ]
        return out + _current(config, spans)
    from docpact.claims._units import Units

    units = Units(config.root)
    gone = []
    for name in sorted(record.units):
        unit = units.get(name)
        if unit is None:
            gone.append(name)
        else:
            spans.append((f"code under test {name}", unit.path, unit.first, unit.last))
    added: list[str] = []
    commit = f" at commit {record.commit}" if record.commit else ""
    out = [f"claim {claim_id} ({page}:{block.line}): since its review{commit}"]
    if gone:
        out.append(f"code under test no longer found: {', '.join(gone)}")
    by_path: dict[str, list[tuple[str, int, int]]] = {}
    for what, path, first, last in spans:
        by_path.setdefault(path, []).append((what, first, last))
    for path in sorted(by_path | record.files):
        out += _file_diff(config, path, record.files.get(path), by_path.get(path, []))
    if len(out) == 1 + bool(added) + bool(gone):
        out.append("nothing it depends on changed")
    return out


def _file_diff(
    config: Config, path: str, reviewed_id: str | None, spans: list[tuple[str, int, int]]
) -> list[str]:
    """One file's hunks that touch its spans, under a header naming what they are."""
    try:
        now = (config.root / path).read_bytes()
    except OSError:
        now = None
    if reviewed_id is not None and now is not None and blob_id(now) == reviewed_id:
        return []
    if reviewed_id is None:
        old: bytes | None = b""  # not read by the review: all of it is new to the reviewer
    else:
        old = blob(config.root, reviewed_id)
    if old is None:
        why = (
            "git holds no reviewed copy" if shutil.which("git") else "without git, no reviewed copy"
        )
        header = f"{path}: {why} (blob {reviewed_id}); as it is now:"
        return [header, *_numbered(now or b"", spans)]
    new_lines = source_lines((now or b"").decode("utf-8", "replace"))
    old_lines = source_lines(old.decode("utf-8", "replace"))
    diff = list(
        difflib.unified_diff(old_lines, new_lines, f"{path} (reviewed)", f"{path} (now)", n=2)
    )
    kept: list[str] = []
    touched: list[str] = []
    for hunk in _hunks(diff[2:]):
        match = _HUNK.match(hunk[0])
        assert match is not None  # each hunk starts with its header
        start, count = int(match["start"]), max(int(match["count"] or 1), 1)
        hit = [what for what, first, last in spans if start <= last and first < start + count]
        if hit or not spans:
            kept += hunk
            touched += hit
    if not kept:
        return []
    names = ", ".join(dict.fromkeys(touched)) or "read by the review"
    return [f"{path}: {names}", *diff[:2], *kept]


def _hunks(lines: list[str]) -> list[list[str]]:
    """A unified diff's hunks, each its header line and its lines."""
    hunks: list[list[str]] = []
    for line in lines:
        if _HUNK.match(line):
            hunks.append([line])
        elif hunks:
            hunks[-1].append(line)
    return hunks


def _current(config: Config, spans: list[tuple[str, str, int, int]]) -> list[str]:
    """Each span's current lines, numbered, under its file and line."""
    out = []
    for what, path, first, last in spans:
        try:
            lines = page_lines((config.root / path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            out.append(f"{path}: cannot be read")
            continue
        out.append(f"{path}:{first}: {what}")
        out += [f"{n:>5} | {lines[n - 1]}" for n in range(first, min(last, len(lines)) + 1)]
    return out


def _numbered(data: bytes, spans: list[tuple[str, int, int]]) -> list[str]:
    lines = page_lines(data.decode("utf-8", "replace"))
    out = []
    for what, first, last in spans:
        out.append(f"  {what}:")
        out += [f"{n:>5} | {lines[n - 1]}" for n in range(first, min(last, len(lines)) + 1)]
    return out
