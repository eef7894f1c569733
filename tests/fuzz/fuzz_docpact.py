# SPDX-License-Identifier: MIT
"""Cases of ``docpact check|claims|claims --update|coverage``: projects drawn, then mutated.

A case is a project of docpact_grammar, valid as drawn, then maybe mutated (`MUTATIONS`):
values of the wrong type in ``[tool.docpact]`` or ``mkdocs.yml``, a misspelt key, deep
nesting, huge integers, ``.nan``, a byte-order mark, an unclosed ``<!--``, fence or backtick
run, a page of thousands of them, a path component over the file system's limit, a FIFO or
folder where a file is expected, parenthesized binding arguments, bytes that are not UTF-8.
Each case runs one command in a child (fuzz_runner) and is classified there; then, where
it ended as promised, against what must hold (`check`): a project as drawn is clean, a
wrong key is refused, a ``.nan`` equals itself, a test file still parses after ``claims
--update``, and every listed anchor exists exactly when MkDocs' own configuration
(``mkdocs.config.load_config``) and Python-Markdown give a heading that id.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import hashlib
import json
import logging
import os
import random
import re
import tomllib
from collections.abc import Callable
from pathlib import Path

from docpact_grammar import projects, toc_ids
from docpact_mutations import DATA, FILES, MUTATIONS
from fuzz_runner import Result, run
from hypothesis import strategies as st

__all__ = [
    "MUTATIONS",
    "SHRINK_RUNS",
    "TIMEOUT",
    "Case",
    "cases",
    "check",
    "label",
    "shrink",
]

SPEC, PROG = "docpact._cli:main", "docpact"
TIMEOUT = 4.0
"""Seconds before a case is a hang: a check of these projects takes a tenth of one."""
SHRINK_RUNS = 60
"""The most runs spent shrinking a defect (a tenth of a second each)."""
COMMANDS = [["check"], ["check"], ["claims"], ["claims", "--update"], ["coverage", "pkg"]]

# The mutations that a wrong anchor or an accepted key is put down to, likeliest first.
ANCHOR_CAUSES = ("mapping-form", "bom", "unclosed", "unicode", "bytes", "quadratic")
KEY_CAUSES = ("misspelt-key", "toml-type")


@dataclasses.dataclass
class Case:
    """One run of a docpact command on a project: its files, its arguments, what must hold."""

    args: list[str]
    files: dict[str, str]  # text; bytes that are not UTF-8 as surrogate escapes
    special: dict[str, str] = dataclasses.field(default_factory=dict)  # path: fifo or folder
    mutations: list[str] = dataclasses.field(default_factory=list)
    expect: list[str] = dataclasses.field(default_factory=list)  # clean, refused, equal

    def __repr__(self) -> str:
        """The case's command and mutations, and its files' sizes: a page can be 80 KB."""
        sizes = {path: len(text) for path, text in self.files.items()}
        return (
            f"Case({self.args}, sizes={sizes}, special={self.special}, mutations={self.mutations})"
        )

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        """As `__repr__`, for hypothesis' printer, which would print every field."""
        printer.text(repr(self))

    def to_json(self) -> str:
        """The case as a reproducer file's text: JSON, which escapes the lone surrogates."""
        return json.dumps(dataclasses.asdict(self), indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Case:
        """A case read back from a reproducer file."""
        return cls(**json.loads(text))


def label(case: Case) -> str:
    """The command a case runs: ``check``, ``claims``, ``claims --update`` or ``coverage``."""
    return " ".join(arg for arg in case.args if arg != "pkg")


@st.composite
def cases(draw: st.DrawFn, *, mutate: bool = True) -> Case:
    """A case: a project, maybe mutated (three times in four), and a command to run on it.

    Args:
        draw: Hypothesis' draw.
        mutate: Whether to mutate at all; a project as drawn is expected clean.

    Returns:
        The case, listing the mutations it underwent and what must hold of its answer.
    """
    # The command and the classes of mutation from a PRNG seeded by the project drawn: over a
    # long run hypothesis draws the first of a list far more often than the others, and the
    # same small integers again and again, which would hardly reach some classes.
    project = copy.deepcopy(draw(projects()))
    drawn = json.dumps([project.files(), draw(st.integers(0, 2**64 - 1))])
    choices = random.Random(hashlib.sha256(drawn.encode("utf-8", "surrogateescape")).digest())
    args = list(choices.choice(COMMANDS))
    chosen = []
    if mutate and choices.random() < 0.75:
        chosen = choices.choices(MUTATIONS, k=choices.randint(1, 3))
    done, expect, later = [], [], []
    for mutation in chosen:  # deep nesting goes in the data or in the code, as drawn
        if mutation in DATA and (mutation not in FILES or draw(st.booleans())):
            must = DATA[mutation](draw, choices, project)
            if must is not None:
                done.append(mutation)
                expect += must
        else:
            later.append(mutation)
    case = Case(args, project.files(), mutations=done, expect=expect)
    # What an expectation is about: a file mutation of one of these files voids it (a line
    # dropped from pyproject.toml may be the wrong key; a cut defaults file is no longer equal).
    about = {
        "refused": {"pyproject.toml"},
        "equal": {project.page, f"{project.package}/defaults.yaml"},
    }
    for mutation in later:
        before = ({**case.files}, {**case.special})
        if FILES[mutation](draw, choices, case.files, case.special, project):
            case.mutations.append(mutation)
            touched = {
                path
                for path in {*before[0], *case.files, *before[1], *case.special}
                if before[0].get(path) != case.files.get(path)
                or before[1].get(path) != case.special.get(path)
            }
            case.expect = [e for e in case.expect if not about.get(e, set()) & touched]
    if not case.mutations:
        case.expect = ["clean"]
    return case


def write(case: Case, folder: Path) -> None:
    """Write the case's files, FIFOs and folders in ``folder``."""
    for path, text in case.files.items():
        file = folder / path
        with contextlib.suppress(OSError):  # under a path a special file took
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(text.encode("utf-8", "surrogateescape"))
    for path, kind in case.special.items():
        file = folder / path
        with contextlib.suppress(OSError):
            file.parent.mkdir(parents=True, exist_ok=True)
            if kind == "fifo":
                os.mkfifo(file)
            else:
                file.mkdir(exist_ok=True)


def _parses(folder: Path) -> set[str]:
    """The regular Python files under ``folder`` that parse."""
    found = set()
    for file in folder.rglob("*.py"):
        if file.is_file():
            with contextlib.suppress(SyntaxError, ValueError, RecursionError, MemoryError):
                ast.parse(file.read_bytes())
                found.add(file.relative_to(folder).as_posix())
    return found


def check(case: Case, folder: Path, *, mode: str = "fork", timeout: float = TIMEOUT) -> Result:
    """Write the case in ``folder``, run its command, classify the end and check the answer."""
    write(case, folder)
    paths = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
    parsed = _parses(folder) if "--update" in case.args else set()
    result = run(SPEC, case.args, cwd=folder, paths=paths, prog=PROG, timeout=timeout, mode=mode)
    if result.outcome not in {"ok", "finding", "usage error"}:
        return result
    if broken := sorted(parsed - _parses(folder)):
        return dataclasses.replace(
            result, outcome="corrupted file", detail=f"{broken[0]} no longer parses"
        )
    wrong = _wrong(case, folder, result)
    return dataclasses.replace(result, outcome="wrong answer", detail=wrong) if wrong else result


def _wrong(case: Case, folder: Path, result: Result) -> str:
    """What is wrong with an answer given as promised, or nothing.

    The first words are the kind of wrong answer, with the mutation it is put down to.
    """

    def cause(likeliest: tuple[str, ...]) -> str:
        return next((m for m in (*likeliest, *case.mutations) if m in case.mutations), "none")

    if "clean" in case.expect and result.outcome != "ok":
        first = ((result.stdout + result.stderr).strip().splitlines() or [""])[0]
        return f"clean project: {first}"
    if "refused" in case.expect and result.outcome == "ok":
        return f"accepted after {cause(KEY_CAUSES)}: a wrong key or type"
    if "equal" in case.expect and " DP007 the yaml block differs from " in result.stdout:
        return "DP007 after nan: equal config-defaults (a .nan) differ"
    if case.args[0] == "check" and result.outcome != "usage error":
        wrong = _anchors(folder, result.stdout)
        return f"anchors after {cause(ANCHOR_CAUSES)}: {wrong}" if wrong else ""
    return ""


_MISSING = re.compile(r" DP005 (?P<page>\S+) has no heading with anchor #(?P<anchor>\S*), listed")


def _anchors(folder: Path, stdout: str) -> str:
    """Where docpact's DP005 findings differ from the ids MkDocs gives the pages' headings.

    Only for pages and configurations that are regular files MkDocs loads; anything else
    is no question of anchors. A DP005 for an id the page has is always wrong; no DP005 for
    one it lacks, only where every contract was checked (no DP001).
    """
    try:
        data = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))
        listed = {
            ref
            for contract in data["tool"]["docpact"]["contract"]
            for ref in contract.get("docs", [])
            if isinstance(ref, str) and "#" in ref
        }
        extensions, configs = _site_markdown(folder)
    except Exception:  # a project MkDocs or tomllib refuses has no site ids
        return ""
    said = {(m["page"], m["anchor"]) for m in _MISSING.finditer(stdout)}
    # A contract whose package cannot be loaded gets its DP001 alone: its sections unchecked.
    checked = " DP001 " not in stdout
    for ref in sorted(listed):
        page, _, anchor = ref.partition("#")
        ids = _site_ids(folder / page, extensions, configs)
        if ids is None:
            continue
        if (anchor in ids) == ((page, anchor) in said) and (checked or anchor in ids):
            where = "has" if anchor in ids else "lacks"
            return f"the site {where} #{anchor} of {page}, docpact says otherwise"
    return ""


def _site_markdown(folder: Path) -> tuple[list, dict]:
    """The Markdown extensions and their settings that MkDocs renders pages with."""
    config = folder / "mkdocs.yml"
    if not config.exists():
        return ["toc", "tables", "fenced_code"], {}
    for file in (config, folder / "config" / "base.yml"):
        if file.exists() and not file.is_file():
            msg = "not a regular file"
            raise OSError(msg)
    from mkdocs.config import load_config

    logging.getLogger("mkdocs").setLevel(logging.CRITICAL)
    loaded = load_config(str(config))
    return loaded["markdown_extensions"], loaded["mdx_configs"]


def _site_ids(page: Path, extensions: list, configs: dict) -> set[str] | None:
    """The ids of a page's headings as MkDocs builds it, None for a page it cannot read."""
    from mkdocs.utils.meta import get_data

    try:
        # A page of thousands of unclosed marks is a question of time, not of anchors.
        if not page.is_file() or page.suffix != ".md" or page.stat().st_size > 50_000:
            return None
        text = page.read_bytes().decode("utf-8-sig")
        return set(toc_ids(get_data(text)[0], extensions, configs))
    except Exception:  # what MkDocs cannot read has no ids
        return None


def shrink(case: Case, outcome: str, same: Callable[[Case], bool], budget: int) -> Case:
    """A smaller case of the same class: files dropped, then chunks of each file's lines.

    A wrong answer drops whole files only: a page and its contract's data must stay whole
    for the answer to be checked. A case expected clean is kept as it is.

    Args:
        case: The case found.
        outcome: Its outcome class.
        same: Whether a candidate ends in the same class.
        budget: The most runs spent.

    Returns:
        The smallest case found.
    """
    if "clean" in case.expect:
        return case
    runs = 0
    for path in sorted(case.files):
        if path != "pyproject.toml" and runs < budget:
            runs += 1
            candidate = dataclasses.replace(
                case, files={k: v for k, v in case.files.items() if k != path}
            )
            case = candidate if same(candidate) else case
    if outcome == "wrong answer":
        return case
    for path in sorted(case.files, key=lambda p: -len(case.files[p])):
        lines = case.files[path].split("\n")
        size = len(lines) // 2
        while size and runs < budget:
            start = 0
            while start < len(lines) and runs < budget:
                kept = lines[:start] + lines[start + size :]
                candidate = dataclasses.replace(case, files={**case.files, path: "\n".join(kept)})
                runs += 1
                if same(candidate):
                    case, lines = candidate, kept
                else:
                    start += size
            size //= 2
    return case
