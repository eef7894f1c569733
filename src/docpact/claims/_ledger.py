# SPDX-License-Identifier: MIT
"""The review record: what each claim's review looked at, kept beside the stamps.

`docpact claims --update` writes, for each claim it re-approves, the stamp it wrote, the
commit the checkout stood on, every unit of the code under test with its fingerprint, and
the git blob id of each file the review read (the page, the property's file, the files of
the code under test). Blob ids are those of the files' bytes, whether committed or not, so
a squash merge or a rebase keeps them: git finds the reviewed text by its blob id in any
clone that has it. The stamp in the test file stays what the checks compare; the record
says which units changed when the code under test's fingerprint no longer matches, and is
read only for an entry whose stamp is the binding's.

The file is JSON, one entry per claim ID, keys sorted, so that two reviews of different
claims change different lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docpact._model.errors import DocpactError
from docpact._readers.files import Unreadable, git_head, read_text, replace_file

if TYPE_CHECKING:
    from pathlib import Path

    from docpact.claims._bindings import Binding

__all__ = ["DEFAULT_REVIEWS", "Record", "blob_id", "read_records", "record", "write_records"]

DEFAULT_REVIEWS = "docpact-reviews.json"
"""Where the review record is, relative to the project root, without a contract's `reviews`."""


@dataclass(frozen=True)
class Record:
    """What one claim's last review looked at.

    Attributes:
        stamp: The stamp written: `TEXT/CODE/TESTED`.
        commit: The commit the checkout stood on, empty without git.
        property: The property's pytest node id.
        units: Each unit of the code under test, by name, with its fingerprint.
        files: Each file read, relative to the project root, with its git blob id.
    """

    stamp: str
    commit: str
    property: str
    units: dict[str, str]
    files: dict[str, str]


def blob_id(data: bytes) -> str:
    """The id git gives a file of these bytes (`git hash-object`), computed without git."""
    import hashlib  # only where a blob id is computed: a check without claims computes none

    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def read_records(path: Path) -> dict[str, Record]:
    """The review record's entries, by claim ID; none when the file is absent or unreadable.

    An entry of the wrong shape is left out: the stamps are what the checks compare, and a
    claim without a usable entry is reported without the names of the changed units.
    """
    try:
        data = json.loads(read_text(path))
    except (Unreadable, ValueError, RecursionError):
        return {}
    entries = data.get("reviews") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        return {}
    return {claim: record for claim, entry in entries.items() if (record := _record(entry))}


def _record(entry: Any) -> Record | None:
    if not isinstance(entry, dict):
        return None
    strings = [entry.get(key) for key in ("stamp", "commit", "property")]
    maps = [entry.get(key) for key in ("units", "files")]
    if not all(isinstance(value, str) for value in strings) or not all(
        isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        for value in maps
    ):
        return None
    return Record(*strings, *maps)  # type: ignore[arg-type]


def record(
    root: Path, claim_page: str, binding: Binding, stamp: str, written: dict[str, bytes]
) -> Record:
    """The record of a review being written now.

    Args:
        root: The project root.
        claim_page: The claim's page, relative to the root.
        binding: The claim's property, with its code under test.
        stamp: The stamp being written.
        written: The new bytes of the files the review is about to write (the test files
            with their new stamps), by path: their blob ids are of those bytes.

    Returns:
        The record, the other files' blob ids read from the working tree.
    """
    names = {claim_page, binding.path, *(unit.path for unit in binding.reach.units)}
    files = {}
    for name in sorted(names):
        try:
            files[name] = blob_id(written[name] if name in written else (root / name).read_bytes())
        except OSError:
            continue
    return Record(
        stamp,
        git_head(root)[0] or "",
        f"{binding.path}::{binding.node}",
        binding.reach.by_name,
        files,
    )


def write_records(path: Path, where: str, records: dict[str, Record]) -> None:
    """Add or replace entries of the review record, atomically.

    Args:
        path: The record's file.
        where: Its path relative to the project root, for messages.
        records: The new entries, by claim ID.

    Raises:
        DocpactError: When the file cannot be written.
    """
    entries = {claim: record.__dict__ for claim, record in read_records(path).items()}
    entries.update({claim: record.__dict__ for claim, record in records.items()})
    text = json.dumps({"reviews": entries}, indent=1, sort_keys=True) + "\n"
    try:
        replace_file(path, text.encode("utf-8"), 0o644)
    except OSError as error:
        msg = f"{where}: error: cannot write the review record: {error.strerror}"
        raise DocpactError(msg) from None
