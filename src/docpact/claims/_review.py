# SPDX-License-Identifier: MIT
"""Re-approval: `docpact claims --update` records each review in the ledger, and only there.

A claim is reviewed as it stands: its text, its property's code, and the code under test
that the property executed in a test run of the current commit. That run's results file
(written by `pytest --docpact-results`) must have been recorded on the commit the checkout
stands on, without uncommitted changes, with the property's code and the units it executed
as they are now; the update refuses any other, saying how to make one. It writes one
ledger file per claim reviewed and one per page whose suppressions changed
(`docpact.claims._ledger`), rewrites no test file and no page, and writes nothing at all
when it refuses.

`docpact claims --migrate` moves the reviews that earlier releases wrote into the test files
(`reviewed="TEXT/CODE/TESTED"`) and into the `not-a-claim` markers (`reviewed=STAMP`) into
the ledger, then removes them from the files: a claim whose text still has the stamp's
fingerprint, and a suppression whose reason and block still have theirs, are recorded as
reviewed; the others are left for `--update`. Run it where the earlier release's check
passed: the property's code is recorded as it is now.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from docpact._model.errors import DocpactError
from docpact._readers.files import git_head, replace_file
from docpact.claims._ledger import ClaimReview, PageReview, write

if TYPE_CHECKING:
    from pathlib import Path

    from docpact._model.config import Config
    from docpact.claims._analysis import Analysis
    from docpact.claims._bindings import Binding
    from docpact.claims._page import Block
    from docpact.claims._results import Run
    from docpact.claims._units import Units

__all__ = ["Update", "migrate", "update"]

# A line with its break: `\r\n`, `\r` or `\n`.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@dataclass
class Update:
    """What an update or a migration wrote.

    Attributes:
        claims: The claims whose reviews were written, by ID, with the review they replace
            (`None` for a first review).
        pages: The pages whose suppression reviews were written.
        unchanged: The claims already reviewed as they stand.
        files: The files written or removed, relative to the project root.
        left: What a migration left for `--update`, as `(path, line, why)`.
    """

    claims: dict[str, ClaimReview | None] = field(default_factory=dict)
    pages: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    left: list[tuple[str, int, str]] = field(default_factory=list)


def update(analysis: Analysis, config: Config, ids: tuple[str, ...] = ()) -> Update:
    """Review the claims that changed, and the suppressions, in the ledger.

    Args:
        analysis: The claims contract, read.
        config: The project's configuration.
        ids: The claims to review; every claim (and every page's suppressions) when empty.

    Returns:
        What was written.

    Raises:
        DocpactError: When an ID is no claim, or a claim to review has no results file of
            the current commit that recorded its property's code under test; nothing is
            written then.
    """
    claims = {block.argument: (page, block) for page, block in analysis.claims}
    if unknown := [claim_id for claim_id in ids if claim_id not in claims]:
        known = ", ".join(sorted(claims)) or "none"
        msg = f"error: no claim {', '.join(unknown)} on the claims pages (claims: {known})"
        raise DocpactError(msg)
    from docpact.claims._units import Units

    done = Update()
    head, now = git_head(config.root), Units(config.root)
    fresh: list[ClaimReview | PageReview] = []
    missing: list[tuple[str, int, str]] = []
    for claim_id, (page, block) in claims.items():
        bound = analysis.bound(claim_id)
        if (ids and claim_id not in ids) or len(bound) != 1:
            continue
        binding, review = bound[0], analysis.review(block)
        if review is not None and _current(block, binding, review, now):
            done.unchanged.append(claim_id)
            continue
        units = _run_units(analysis, binding, head, now)
        if units is None:
            missing.append(
                (
                    page,
                    block.line,
                    f"{binding.function} ({binding.path}:{binding.line}, claim {claim_id})",
                )
            )
            continue
        fresh.append(_review(now, page, block, binding, units, head[0] or ""))
        done.claims[claim_id] = review
    if missing:
        commit = head[0][:12] if head[0] else "none: this is no git checkout"
        page, line = missing[0][:2]  # at the first claim it could not review
        msg = (
            f"{page}:{line}: error: docpact claims --update reviews a claim's code under test "
            f"from a results file of the current commit (HEAD {commit}) recorded without "
            "uncommitted changes, with the property's code and its code under test as they "
            f"are now; none records {'; '.join(what for *_, what in missing)}. Commit your "
            "changes, run the properties with "
            "--docpact-results (nox -s tests writes .docpact/results/tests.json), then run "
            "docpact claims --update again; nothing was written"
        )
        raise DocpactError(msg)
    if not ids:
        for page, read in analysis.read.items():
            pairs = tuple(sorted({(b.argument, b.text) for b in read.suppressions}))
            old = analysis.ledger.pages.get(page)
            if (tuple(sorted(old.suppressions)) if old is not None else ()) != pairs:
                fresh.append(PageReview(page, pairs))
                done.pages.append(page)
    done.files = write(config.root, fresh)
    return done


def _current(block: Block, binding: Binding, review: ClaimReview, now: Units) -> bool:
    """Whether a claim's review still holds: text, property and code under test unchanged.

    A review that recorded no code under test (a migration without a run) is reviewed again
    from a run: its property executes at least itself.
    """
    from docpact.claims._analysis import changed

    if changed(block, binding, review) or not review.units:
        return False
    return not now.changed(review.units, review.files)


def _run_units(
    analysis: Analysis, binding: Binding, head: tuple[str | None, bool], now: Units
) -> dict[str, str] | None:
    """The units a results file of the current commit recorded for the property, if any.

    A run counts only where each unit it recorded is as the files are now: a change made
    since, not committed yet, is code under test that no run has measured. A run in which
    the property passed comes first, the newest first: a skip may stop it part way.
    """
    key = (binding.path, binding.node)
    commit, _ = head

    def order(run: Run) -> tuple[bool, float]:
        return run.outcomes.get(key, ("", ""))[1] != "passed", -run.mtime

    for run in sorted(analysis.runs, key=order):
        if run.commit != commit or run.dirty or key not in run.outcomes:
            continue
        if run.outcomes[key][0] != binding.code or key not in run.units:
            continue
        units = run.units[key]
        if now.changed(units):
            continue
        return dict(units)
    return None


def _review(
    now: Units,
    page: str,
    block: Block,
    binding: Binding,
    units: dict[str, str],
    commit: str,
) -> ClaimReview:
    """A claim's review as it stands, with the blob ids of the files it read.

    A file of the code under test has the id of the bytes whose units were compared with
    the run's, not of a later read.
    """
    names = {page, binding.path, *(name.rpartition("::")[0] for name in units)}
    files = {name: blob for name in sorted(names) if (blob := now.blob(name)) is not None}
    return ClaimReview(
        block.argument,
        page,
        block.title,
        block.text,
        binding.path,
        binding.node,
        binding.code,
        units,
        commit,
        files,
    )


def migrate(analysis: Analysis, config: Config) -> Update:
    """Move the reviews written into test files and markers into the ledger.

    Args:
        analysis: The claims contract, read.
        config: The project's configuration.

    Returns:
        What was written, and what was left for `--update`.

    Raises:
        DocpactError: When a file cannot be read or written, or a stamp cannot be removed
            from its line; nothing is written then.
    """
    from docpact.claims._page import fingerprint
    from docpact.claims._units import Units

    done = Update()
    head, now = git_head(config.root), Units(config.root)
    fresh: list[ClaimReview | PageReview] = []
    edits: dict[str, list[tuple[int, int, int, int]]] = {}
    for page, block in analysis.claims:
        for binding in analysis.bound(block.argument):
            if not binding.has_reviewed:
                continue
            edits.setdefault(binding.path, []).append(binding.span)
            text = binding.reviewed.split("/")[0]
            if len(analysis.bound(block.argument)) != 1 or text != block.fingerprint:
                why = f"claim {block.argument}: its text changed since the stamp; run --update"
                done.left.append((binding.path, binding.line, why))
                continue
            units = _run_units(analysis, binding, head, now) or {}
            fresh.append(_review(now, page, block, binding, units, head[0] or ""))
            done.claims[block.argument] = None
            if not units:
                why = (
                    f"claim {block.argument}: no results file of this commit records its "
                    "code under test; run its property with --docpact-results, then --update"
                )
                done.left.append((binding.path, binding.line, why))
    for binding in analysis.bindings:  # a stamp on a binding of no claim goes too
        if binding.has_reviewed and binding.claim not in {b.argument for _, b in analysis.claims}:
            edits.setdefault(binding.path, []).append(binding.span)
    markers: dict[str, list[int]] = {}
    for page, read in analysis.read.items():
        kept = []
        for block in read.suppressions:
            if not block.reviewed:
                continue
            markers.setdefault(page, []).append(block.line)
            if block.reviewed == fingerprint(f"{block.argument} {block.text}"):
                kept.append((block.argument, block.text))
            else:
                why = f'not-a-claim "{block.argument}": its block changed; run --update'
                done.left.append((page, block.line, why))
        if kept:
            old = analysis.ledger.pages.get(page)
            merged = {*kept, *(old.suppressions if old is not None else ())}
            fresh.append(PageReview(page, tuple(sorted(merged))))
            done.pages.append(page)
    texts = {path: _unstamped_code(config, path, spans) for path, spans in edits.items()}
    texts |= {page: _unstamped_page(config, page, lines) for page, lines in markers.items()}
    done.files = write(config.root, fresh)
    for path, data in texts.items():
        _replace(config.root / path, data, path)
        done.files.append(path)
    old_record = config.root / "docpact-reviews.json"  # the record of earlier releases
    if old_record.is_file():
        old_record.unlink()
        done.files.append("docpact-reviews.json")
    return done


def _read_lines(file: Path, path: str) -> tuple[bytes, list[str]]:
    """A text file's byte-order mark and its lines, each with its line break."""
    try:
        data = file.read_bytes()
    except OSError as error:
        msg = f"{path}: error: cannot read the file to migrate its reviews: {error.strerror}"
        raise DocpactError(msg) from None
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    try:
        return bom, _LINE.findall(data[len(bom) :].decode("utf-8"))
    except UnicodeDecodeError:
        msg = f"{path}: error: cannot migrate its reviews: the file is not UTF-8 text"
        raise DocpactError(msg) from None


# `reviewed="..."` after a comma on its line, or alone on its line with its comma.
_AFTER_COMMA = re.compile(r",\s*reviewed\s*=\s*\Z")
_ALONE = re.compile(r"\A\s*reviewed\s*=\s*\Z")


def _unstamped_code(config: Config, path: str, spans: list[tuple[int, int, int, int]]) -> bytes:
    """A test file's bytes without the `reviewed=` arguments at `spans`."""
    bom, lines = _read_lines(config.root / path, path)
    for start_line, start, end_line, end in sorted(spans, reverse=True):
        first, last = lines[start_line - 1], lines[end_line - 1]
        before, after = first[:start], last[end:]
        if match := _AFTER_COMMA.search(before):
            edited = [before[: match.start()] + after]
        elif _ALONE.match(before) and after.lstrip(" \t").startswith(","):
            rest = after.lstrip(" \t")[1:]
            indent = before[: len(before) - len(before.lstrip())]
            edited = [indent + rest.lstrip()] if rest.strip() else []
        else:
            msg = (
                f"{path}:{start_line}: error: cannot remove reviewed= from this line, so "
                "nothing was written: remove it by hand, then run docpact claims --migrate"
            )
            raise DocpactError(msg)
        lines[start_line - 1 : end_line] = edited
    return bom + "".join(lines).encode("utf-8")


_STAMP = re.compile(r"[ \t]+reviewed=\S+(?=[ \t]*-->)")


def _unstamped_page(config: Config, page: str, markers: list[int]) -> bytes:
    """A page's bytes without the `reviewed=` stamps of its `not-a-claim` markers."""
    bom, lines = _read_lines(config.root / page, page)
    for line in markers:
        lines[line - 1] = _STAMP.sub("", lines[line - 1], count=1)
    return bom + "".join(lines).encode("utf-8")


def _replace(file: Path, data: bytes, path: str) -> None:
    """Replace a file's bytes in one step, keeping its mode; a hard-linked file in place."""
    target = file.resolve()
    try:
        status = target.stat()
        if status.st_nlink > 1:
            target.write_bytes(data)
            return
        replace_file(target, data, status.st_mode)
    except OSError as error:
        msg = f"{path}: error: cannot write the file: {error.strerror}"
        raise DocpactError(msg) from None
