# SPDX-License-Identifier: MIT
"""The review ledger: the one store of every review, one JSON file per claim or page.

`docpact claims --update` writes it; nothing else does, and it rewrites no test file and no
page. It lives in the folder `docpact-reviews/` of the project root, committed with the
project:

- `claims/ID.json`, one per reviewed claim: the claim's page, title and normalized text; its
  property's file, node id and code fingerprint; each unit of the code under test that the
  property executed in the run the review read (`docpact.claims._units`), with its
  fingerprint; the commit of that run; and the git blob id of each file the review read, for
  `docpact claims --diff`.
- `pages/PAGE.json` (the page's path, `.json` added), one per page with reviewed
  suppressions: each `not-a-claim` reason with the normalized text of the block it was
  reviewed on.

Each file is one object, keys sorted, so reviews of different claims never touch the same
file, and a merge of two branches that reviewed different claims has no conflict.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from docpact._model.errors import DocpactError
from docpact._readers.files import Unreadable, read_text, replace_file

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "FOLDER",
    "ClaimReview",
    "Ledger",
    "PageReview",
    "blob_id",
    "claim_file",
    "page_file",
    "read_ledger",
    "write",
]

FOLDER = "docpact-reviews"
"""The ledger's folder, relative to the project root."""

_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})( |$)", re.MULTILINE)


@dataclass(frozen=True)
class ClaimReview:
    """What one claim's last review read.

    Attributes:
        claim: The claim's ID.
        page: Its page, relative to the project root.
        title: Its title, normalized; empty without one.
        text: Its normalized text.
        path: Its property's file, relative to the project root.
        node: The property's node id after its path.
        code: The fingerprint of the property's code.
        units: Each unit of the code under test the property executed, with its fingerprint.
        commit: The commit of the test run whose units the review read.
        files: Each file the review read, relative to the project root, with its blob id.
    """

    claim: str
    page: str
    title: str
    text: str
    path: str
    node: str
    code: str
    units: dict[str, str] = field(default_factory=dict)
    commit: str = ""
    files: dict[str, str] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        """The review as its file holds it."""
        return {
            "claim": self.claim,
            "page": self.page,
            "title": self.title,
            "text": self.text,
            "property": {"path": self.path, "node": self.node, "code": self.code},
            "units": dict(sorted(self.units.items())),
            "commit": self.commit,
            "files": dict(sorted(self.files.items())),
        }


@dataclass(frozen=True)
class PageReview:
    """A page's reviewed suppressions: each reason with the block text it was reviewed on."""

    page: str
    suppressions: tuple[tuple[str, str], ...]

    def document(self) -> dict[str, Any]:
        """The review as its file holds it."""
        return {
            "page": self.page,
            "suppressions": [
                {"reason": reason, "block": block} for reason, block in sorted(self.suppressions)
            ],
        }


@dataclass(frozen=True)
class Ledger:
    """Every review of the ledger, and what is wrong with its files.

    Attributes:
        claims: The claims' reviews, by ID.
        pages: The pages' suppression reviews, by page.
        problems: Each file that cannot be read as a review, as `(path, line, message)`.
    """

    claims: dict[str, ClaimReview]
    pages: dict[str, PageReview]
    problems: tuple[tuple[str, int, str], ...] = ()


def claim_file(claim_id: str) -> str:
    """A claim's review file, relative to the project root."""
    return f"{FOLDER}/claims/{claim_id}.json"


def page_file(page: str) -> str:
    """A page's review file, relative to the project root."""
    return f"{FOLDER}/pages/{page}.json"


def blob_id(data: bytes) -> str:
    """The id git gives a file of these bytes (`git hash-object`), computed without git."""
    import hashlib  # only where a blob id is computed: a check without claims computes none

    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def read_ledger(root: Path) -> Ledger:
    """Read every review file of the ledger under `root`.

    Args:
        root: The project root.

    Returns:
        The reviews; a file that is not one (a merge conflict, JSON that does not parse, a
        key missing or of the wrong type, a file named for another claim or page) is a
        problem, located at its line and key, saying how to fix it.
    """
    folder = root / FOLDER
    claims: dict[str, ClaimReview] = {}
    pages: dict[str, PageReview] = {}
    problems: list[tuple[str, int, str]] = []
    for kind in ("claims", "pages"):
        for file in sorted((folder / kind).rglob("*.json")) if (folder / kind).is_dir() else []:
            where = file.relative_to(root).as_posix()
            text = ""
            try:
                text, data = _document(file, where)
                if kind == "claims":
                    review = _claim(data, where)
                    claims[review.claim] = review
                else:
                    page = _page(data, where)
                    pages[page.page] = page
            except _Problem as problem:
                problems.append((where, problem.at(text), problem.message))
    return Ledger(claims, pages, tuple(problems))


class _Problem(Exception):
    """A ledger file that is no review, at a line or at the first line of a key."""

    def __init__(self, line: int, message: str, key: str = "") -> None:
        super().__init__(message)
        self.line, self.message, self.key = line, message, key

    def at(self, text: str) -> int:
        """The problem's line: its key's first in the file's text, where it names one."""
        if self.key and (found := re.search(rf'"{re.escape(self.key)}"\s*:', text)):
            return text.count("\n", 0, found.start()) + 1
        return self.line


def _document(file: Path, where: str) -> tuple[str, dict[str, Any]]:
    try:
        text = read_text(file)
    except Unreadable as error:
        raise _Problem(1, f"{where} {error.reason}") from None
    if conflict := _CONFLICT.search(text):
        line = text.count("\n", 0, conflict.start()) + 1
        msg = (
            f"{where} holds a merge conflict: keep one side, or delete the file and run "
            "docpact claims --update again to review it afresh"
        )
        raise _Problem(line, msg)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        msg = f"{where} is not JSON ({error.msg}): delete it and run docpact claims --update"
        raise _Problem(error.lineno, msg) from None
    except RecursionError:
        raise _Problem(1, f"{where}: its JSON nests too deeply") from None
    if not isinstance(data, dict):
        raise _Problem(1, f"{where} must hold one JSON object")
    return text, data


def _key(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        msg = (
            f"{where}: key {key!r} must be a {kind.__name__}, got {value!r}: delete the file "
            "and run docpact claims --update to write it again"
        )
        raise _Problem(1, msg, key)
    return value


def _strings(data: dict[str, Any], key: str, where: str) -> dict[str, str]:
    value = _key(data, key, dict, where)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        msg = f"{where}: key {key!r} must map strings to strings"
        raise _Problem(1, msg, key)
    return value


def _claim(data: dict[str, Any], where: str) -> ClaimReview:
    claim = _key(data, "claim", str, where)
    if where != claim_file(claim):
        msg = f"{where} reviews claim {claim!r}, which belongs in {claim_file(claim)}"
        raise _Problem(1, msg, "claim")
    prop = _key(data, "property", dict, where)
    return ClaimReview(
        claim,
        _key(data, "page", str, where),
        _key(data, "title", str, where),
        _key(data, "text", str, where),
        _key(prop, "path", str, f"{where} property"),
        _key(prop, "node", str, f"{where} property"),
        _key(prop, "code", str, f"{where} property"),
        _strings(data, "units", where),
        _key(data, "commit", str, where),
        _strings(data, "files", where),
    )


def _page(data: dict[str, Any], where: str) -> PageReview:
    page = _key(data, "page", str, where)
    if where != page_file(page):
        msg = f"{where} reviews page {page!r}, whose reviews belong in {page_file(page)}"
        raise _Problem(1, msg, "page")
    found = []
    for i, entry in enumerate(_key(data, "suppressions", list, where)):
        values = entry if isinstance(entry, dict) else {}
        reason, block = values.get("reason"), values.get("block")
        if not isinstance(reason, str) or not isinstance(block, str):
            msg = f"{where}: suppressions[{i}] needs the strings reason and block"
            raise _Problem(1, msg, "suppressions")
        found.append((reason, block))
    return PageReview(page, tuple(found))


def write(root: Path, reviews: list[ClaimReview | PageReview]) -> list[str]:
    """Write reviews into the ledger, each file replaced atomically.

    Args:
        root: The project root.
        reviews: The reviews to write; a page review without suppressions removes the
            page's file.

    Returns:
        The files written or removed, relative to the project root.

    Raises:
        DocpactError: When a file cannot be written.
    """
    written = []
    for review in reviews:
        where = (
            claim_file(review.claim) if isinstance(review, ClaimReview) else page_file(review.page)
        )
        file = root / where
        try:
            if isinstance(review, PageReview) and not review.suppressions:
                if file.exists():
                    file.unlink()
                    written.append(where)
                continue
            text = json.dumps(review.document(), indent=1, sort_keys=True, ensure_ascii=False)
            file.parent.mkdir(parents=True, exist_ok=True)
            replace_file(file, (text + "\n").encode("utf-8"), 0o644)
        except OSError as error:
            msg = f"{where}: error: cannot write the review: {error.strerror}"
            raise DocpactError(msg) from None
        written.append(where)
    return written
