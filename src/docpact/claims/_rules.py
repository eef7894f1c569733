# SPDX-License-Identifier: MIT
"""The rules of the claims kind, DP012 to DP016 and DP018 to DP021, in the order they run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docpact._model.findings import cannot_read
from docpact._model.rules import Rule
from docpact._readers.files import Unreadable
from docpact._readers.markdown.prose import visible_prose

if TYPE_CHECKING:
    from docpact._model.rules import Subject


# The claims' readers (the test files' bindings, the code under test) are imported by the
# checks that run, not by every `docpact check`: a project without claims never loads them.
def claims_analysis(subject: Subject) -> Any:
    """The claims contract's analysis, shared by its rules (`analysis.claims_analysis`)."""
    from docpact.claims._analysis import claims_analysis as analysis

    return analysis(subject)


def changed(block: Any, binding: Any, review: Any) -> Any:
    """What changed of a claim since its review (`analysis.changed`)."""
    from docpact.claims._analysis import changed as what_changed

    return what_changed(block, binding, review)


def units(subject: Subject) -> Any:
    """The units of the project's files, read once for the rules (`docpact.claims._units`)."""
    return subject.shared(_units)


def _units(subject: Subject) -> Any:
    from docpact.claims._units import Units

    found = Units(subject.config.root)
    for run in claims_analysis(subject).runs:  # what a run fingerprinted is not parsed again
        for fingerprints in run.units.values():
            found.take(fingerprints, run.files)
    return found


__all__ = ["CLAIM_WORDS", "RULES"]

_UPDATE = "docpact claims --update"


def _well_formed(subject: Subject) -> list[tuple[str, int, str]]:
    analysis, contract = claims_analysis(subject), subject.contract
    findings = []
    for page, text in analysis.pages.items():
        if isinstance(text, Unreadable) and text.missing:
            message = f"claims page {page} does not exist"
            findings.append((subject.config.pyproject.name, contract.line, message))
        elif not isinstance(text, str):
            message = f"claims page {page} {cannot_read(text)}"
            findings.append((subject.config.pyproject.name, contract.line, message))
    first: dict[str, tuple[str, int]] = {}
    for page, read in analysis.read.items():
        findings += [(page, line, message) for line, message in read.problems]
        for block in read.claims:
            if block.argument in first:
                where = ":".join(map(str, first[block.argument]))
                message = f"claim ID {block.argument} is given twice, first at {where}"
                findings.append((page, block.line, message))
            else:
                first[block.argument] = (page, block.line)
    return findings


def _one_property_each(subject: Subject) -> list[tuple[str, int, str]]:
    analysis = claims_analysis(subject)
    findings = []
    for page, block in analysis.claims:
        bound = analysis.bound(block.argument)
        if not bound:
            folders = ", ".join(subject.contract.properties)
            message = (
                f"claim {block.argument} has no property: mark the test that checks it, in "
                f'{folders}, with @pytest.mark.docpact_claim("{block.argument}") or '
                f'@docpact.claim("{block.argument}"), then run {_UPDATE}'
            )
            findings.append((page, block.line, message))
        elif len(bound) > 1:
            where = ", ".join(f"{b.path}:{b.line} {b.function}" for b in bound)
            message = f"claim {block.argument} has {len(bound)} properties, not one: {where}"
            findings.append((page, block.line, message))
    return findings


def _bound_to_claims(subject: Subject) -> list[tuple[str, int, str]]:
    analysis = claims_analysis(subject)
    pyproject, contract_line = subject.config.pyproject.name, subject.contract.line
    findings = [
        (pyproject, contract_line, message) if line == 0 else (path, line, message)
        for path, line, message in analysis.unreadable
    ]
    known = {block.argument for _, block in analysis.claims}
    for binding in analysis.bindings:
        if binding.claim is None:
            findings.append((binding.path, binding.line, binding.problem))
            continue
        if binding.has_reviewed:
            message = (
                f"property {binding.function} carries reviewed=, but reviews live in the "
                f"review ledger now: run docpact claims --migrate to move it there"
            )
            findings.append((binding.path, binding.line, message))
        if binding.claim not in known:
            pages = ", ".join(subject.contract.pages)
            message = (
                f"property {binding.function} is bound to claim {binding.claim}, which no "
                f"claims page has ({pages}): mark its claim with "
                f"<!-- docpact: claim {binding.claim} -->, or remove the binding"
            )
            findings.append((binding.path, binding.line, message))
        session = analysis.session(binding)
        if session and analysis.sessions is None:
            message = (
                f"property {binding.function} runs in session {session}, but the project has "
                "no readable noxfile.py: drop the session, and pytest runs the property"
            )
            findings.append((binding.path, binding.line, message))
        elif session and analysis.sessions is not None and session not in analysis.sessions:
            message = (
                f"property {binding.function} runs in session {session}, which noxfile.py "
                f"does not define (it has {', '.join(sorted(analysis.sessions)) or 'none'})"
            )
            findings.append((binding.path, binding.line, message))
    return findings


def _reviewed(subject: Subject) -> list[tuple[str, int, str]]:
    analysis = claims_analysis(subject)
    findings = list(analysis.ledger.problems)
    claims = {block.argument for _, block in analysis.claims}
    from docpact.claims._ledger import claim_file

    for claim_id in sorted(set(analysis.ledger.claims) - claims):
        message = (
            f"{claim_file(claim_id)} reviews claim {claim_id}, which no claims page has: "
            "delete the file (git keeps it)"
        )
        findings.append((claim_file(claim_id), 1, message))
    for page, block in analysis.claims:
        claim_at = f"{page}:{block.line}"
        review = analysis.review(block)
        for binding in analysis.bound(block.argument):
            property_at = f"{binding.path}:{binding.line}"
            again = f"review the one against the other, then run {_UPDATE} {block.argument}"
            if review is None:
                message = (
                    f"property {binding.function} was never reviewed against claim "
                    f"{block.argument} ({claim_at}): {again}"
                )
                findings.append((binding.path, binding.line, message))
                continue
            stale = changed(block, binding, review)
            if "text" in stale:
                message = (
                    f"claim {block.argument} changed since its property {binding.function} "
                    f"({property_at}) was reviewed against it: {again}"
                )
                findings.append((page, block.line, message))
            if "code" in stale:
                message = (
                    f"property {binding.function} changed since it was reviewed against "
                    f"claim {block.argument} ({claim_at}): {again}"
                )
                findings.append((binding.path, binding.line, message))
    return findings


def _suspect(subject: Subject) -> list[tuple[str, int, str]]:
    analysis, found_units = claims_analysis(subject), units(subject)
    findings = []
    for page, block in analysis.claims:
        bound, review = analysis.bound(block.argument), analysis.review(block)
        if len(bound) != 1 or review is None or changed(block, bound[0], review):
            continue  # DP013 and DP015 report those
        binding = bound[0]
        names = [
            f"{name} (no longer found)" if unit is None else f"{name} ({unit.path}:{unit.first})"
            for name, unit in found_units.changed(review.units, review.files)
        ]
        if not names:
            continue
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        again = (
            f"read the claim against it, run its property with --docpact-results, then "
            f"{_UPDATE} {block.argument}"
        )
        message = (
            f"claim {block.argument} is suspect, whatever its property {binding.function} "
            f"({binding.path}:{binding.line}) gives: the code under test changed since the "
            f"review: {shown}; {again}"
        )
        findings.append((page, block.line, message))
    return findings


def _reaches_its_subject(subject: Subject) -> list[tuple[str, int, str]]:
    analysis, config, found_units = claims_analysis(subject), subject.config, units(subject)
    findings = []
    for page, block in analysis.claims:
        bound, review = analysis.bound(block.argument), analysis.review(block)
        if len(bound) != 1 or review is None:
            continue  # DP013 and DP015 report those
        binding, about = bound[0], _about(subject, page, block.line)
        ran = list(review.units)
        where = f"its property {binding.function} ({binding.path}:{binding.line})"
        if not about:
            properties = subject.contract.properties
            if any(_is_own_code(name, config.paths, properties) for name in ran):
                continue
            message = (
                f"claim {block.argument}: {where} executed none of the project's own code "
                f"(in {', '.join(config.paths)}) in the run its review read, so no change "
                "there can make it fail: test the code the claim is about"
            )
            findings.append((page, block.line, message))
            continue
        targets = [found_units.locate(name, config.paths) for name, _ in about]
        if any(_is_in(name, target) for name in ran for target in targets if target):
            continue
        named = ", ".join(f"{name} (pyproject.toml:{line})" for name, line in sorted(set(about)))
        message = (
            f"claim {block.argument}: {where} executed none of the code the claim is about, "
            f"the objects of the contracts of its section: {named}; bind it to a property "
            "that calls them"
        )
        findings.append((page, block.line, message))
    return findings


def _is_own_code(unit: str, paths: tuple[str, ...], properties: tuple[str, ...]) -> bool:
    """Whether a unit is the project's own code: under `paths` (`.` is the root), not a test's."""
    path = unit.rpartition("::")[0]

    def under(folders: tuple[str, ...]) -> bool:
        return any(
            (folder := name.strip("/")) in {"", "."}
            or path == folder
            or path.startswith(f"{folder}/")
            for name in folders
        )

    return under(paths) and not under(properties)


def _is_in(unit: str, target: str) -> bool:
    """Whether a unit is the object `target` names, or one of its members."""
    return unit == target or unit.startswith(target if target.endswith("::") else f"{target}.")


def _about(subject: Subject, page: str, line: int) -> list[tuple[str, int]]:
    """The objects a claim is about: those of the contracts whose docs sections hold it."""
    from docpact._readers.markdown.sections import sections

    named = [
        (contract, ref.partition("#")[2])
        for contract in subject.config.contracts
        if getattr(contract, "object", "")
        for ref in contract.docs
        if ref.partition("#")[0] == page
    ]
    text = claims_analysis(subject).pages.get(page)
    if not named or not isinstance(text, str):  # no contract names a section of the page
        return []
    held = {
        section.anchor
        for section in sections(text, subject.config.headings)
        if section.line <= line <= section.line + section.text.count("\n") + 1
    }
    return [(contract.object, contract.line) for contract, anchor in named if anchor in held]


def _suppressions_reviewed(subject: Subject) -> list[tuple[str, int, str]]:
    analysis = claims_analysis(subject)
    findings = []
    for page, read in analysis.read.items():
        review = analysis.ledger.pages.get(page)
        reviewed = set(review.suppressions) if review is not None else set()
        reasons = {reason for reason, _ in reviewed}
        for block in read.suppressions:
            if block.reviewed:
                message = (
                    f'not-a-claim "{block.argument}" carries reviewed=, but reviews live in '
                    "the review ledger now: run docpact claims --migrate to move it there"
                )
                findings.append((page, block.line, message))
                continue
            if (block.argument, block.text) in reviewed:
                continue
            if block.argument in reasons:
                message = (
                    f'the block that not-a-claim "{block.argument}" suppresses changed since '
                    f"its review: read it again (a claim there needs a claim block of its "
                    f"own), then run {_UPDATE}"
                )
            else:
                message = (
                    f'not-a-claim "{block.argument}" was never reviewed: read its block, '
                    f"then run {_UPDATE} to record it"
                )
            findings.append((page, block.line, message))
    return findings


def _claim_words(subject: Subject) -> list[tuple[str, int, str]]:
    analysis, words = claims_analysis(subject), subject.contract.words
    from docpact.claims._page import words_pattern

    pattern = words_pattern(words)
    findings = []
    for page, read in analysis.read.items():
        prose = visible_prose(analysis.pages[page])  # type: ignore[arg-type]
        marked = {n for b in read.blocks for n in range(b.first, b.last + 1)}
        scope = _in_scope(subject, page, read)
        for line, text in prose.items():
            if line in marked or (scope is not None and line not in scope):
                continue
            for word in dict.fromkeys(m[0] for m in pattern.finditer(text)):
                message = (
                    f"claim word {word!r} outside a claim block: bind the sentence to a "
                    "property (<!-- docpact: claim ID -->), reword it, or give the reason it "
                    "claims nothing (<!-- docpact: not-a-claim REASON -->)"
                )
                findings.append((page, line, message))
        for block in read.suppressions:
            lines = range(block.first, block.last + 1)
            if not any(pattern.search(prose.get(n, "")) for n in lines):
                message = "<!-- docpact: not-a-claim --> marks a block without a claim word"
                findings.append((page, block.line, message))
    return findings


def _in_scope(subject: Subject, page: str, read: Any) -> set[int] | None:
    """The lines of a page whose claim words are checked; `None` for the whole page.

    Under `scope = "sections"`, the lines of the sections that the project's contracts
    name on the page (their subsections included) and of the innermost section that holds
    each claim.
    """
    if subject.contract.scope == "pages":
        return None
    from docpact._readers.markdown.sections import sections

    text = claims_analysis(subject).pages[page]
    found = sections(text, subject.config.headings)  # type: ignore[arg-type]
    spans = {s.anchor: (s.line, s.end or s.line + s.text.count("\n") + 1) for s in found}
    named = {
        ref.partition("#")[2]
        for contract in subject.config.contracts
        for ref in contract.docs
        if ref.partition("#")[0] == page
    }
    lines: set[int] = set()
    for anchor in named & set(spans):
        lines.update(range(spans[anchor][0], spans[anchor][1] + 1))
    for block in read.claims:
        holding = [s for s in spans.values() if s[0] <= block.line <= s[1]]
        if holding:
            first, last = max(holding)  # the innermost: the one that starts last
            lines.update(range(first, last + 1))
    return lines


def _one_line(example: str) -> str:
    """A falsifying example on one line, for a finding: its white space runs made one space."""
    text = " ".join(example.split())
    return text if len(text) <= _EXAMPLE_WIDTH else text[: _EXAMPLE_WIDTH - 3] + "..."


_EXAMPLE_WIDTH = 600  # a finding's example; the claim box shows the whole of it


def _passing(subject: Subject) -> list[tuple[str, int, str]]:
    analysis = claims_analysis(subject)
    findings = [
        (path, 1, f"{path} {why}: delete it, or run the tests again to rewrite it")
        for path, why in analysis.bad_runs
    ]
    for page, block in analysis.claims:
        for binding in analysis.bound(block.argument):
            found = analysis.state(binding)
            if found.status != "failed" or found.run is None:
                continue
            run = found.run
            where = f"in {run.path} (session {run.session})" if run.session else f"in {run.path}"
            message = (
                f"claim {block.argument}: its property {binding.function} "
                f"({binding.path}:{binding.line}) failed on this commit {where}: fix the "
                f"code, the property or the claim, then run {analysis.command(binding)} again"
            )
            if example := run.examples.get((binding.path, binding.node)):
                message += f"; {_one_line(example)}"
            findings.append((page, block.line, message))
    return findings


WELL_FORMED = Rule(
    "DP012",
    "every listed claims page exists, and its claim markers "
    "(`<!-- docpact: claim ID -->`) have a valid, unique ID and a paragraph or "
    "admonition after them",
    "the marker, or the contract",
    _well_formed,
)

ONE_PROPERTY_EACH = Rule(
    "DP013",
    "every claim has exactly one property: a test marked "
    '`@pytest.mark.docpact_claim("ID")` or decorated with `@docpact.claim("ID")`',
    "the claim's marker",
    _one_property_each,
)

BOUND_TO_CLAIMS = Rule(
    "DP014",
    "every property binding is well-formed, carries no review (the ledger holds them), "
    "and names a claim on a listed page and a session of `noxfile.py`",
    "the binding",
    _bound_to_claims,
)

STILL_REVIEWED = Rule(
    "DP015",
    "each claim's text and its property's code are as the review ledger recorded them "
    "when they were last reviewed (`docpact claims --update`), and each ledger file is "
    "one review of a claim that exists",
    "the claim's marker for a changed text, the ledger file for its own faults, the "
    "binding otherwise",
    _reviewed,
)

CLAIM_WORDS = Rule(
    "DP016",
    "no line of a claims page outside a claim block uses a claim word, unless a "
    "`<!-- docpact: not-a-claim REASON -->` marks its block; by default the lines of the "
    "sections the contracts name and of those that hold a claim, every line under "
    '`scope = "pages"`',
    "the line, or the suppression",
    _claim_words,
)

SUSPECT = Rule(
    "DP019",
    "no claim's code under test (the project's functions its property executed in the run "
    "its review read) changed since the claim was last reviewed",
    "the claim's marker",
    _suspect,
    severity=lambda subject: getattr(subject.contract, "suspect", "error"),
)

SUPPRESSIONS_REVIEWED = Rule(
    "DP020",
    "every `<!-- docpact: not-a-claim REASON -->` block is the one the review ledger "
    "recorded for its reason (`docpact claims --update`)",
    "the suppression",
    _suppressions_reviewed,
)

REACHES_ITS_SUBJECT = Rule(
    "DP021",
    "each claim's property executed the code the claim is about, in the run its review "
    "read: an object of a contract whose docs section holds the claim, else some code of "
    "the project's own",
    "the claim's marker",
    _reaches_its_subject,
)

PASSING = Rule(
    "DP018",
    "no claim's property failed in the results that docpact's pytest plugin wrote on the "
    "commit checked, and each results file the contract's `results` match is readable",
    "the claim's marker, or the results file",
    _passing,
)

RULES = (
    WELL_FORMED,
    ONE_PROPERTY_EACH,
    BOUND_TO_CLAIMS,
    STILL_REVIEWED,
    CLAIM_WORDS,
    PASSING,
    SUSPECT,
    SUPPRESSIONS_REVIEWED,
    REACHES_ITS_SUBJECT,
)
"""The claims kind's rules, in the order they run."""
