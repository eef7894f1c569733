# SPDX-License-Identifier: MIT
"""The claims kind end to end: rules DP012-DP016 and DP019-DP021, `docpact claims --update`.

Each test builds a small project, a git checkout. Most run docpact in-process, with the
results file that `record` writes as docpact's pytest plugin would (a slow test checks it
against a real run of that project); the slow ones run pytest with `--docpact-results` in
its own process, so that what the review records is what the run executed.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from docpact import load_config
from docpact.__main__ import main
from docpact.claims import _ledger
from docpact.claims._analysis import analyse
from docpact.claims._results import encode
from docpact.claims._units import Units, split
from helpers import run_module

if TYPE_CHECKING:
    from collections.abc import Callable

REPOSITORY = Path(__file__).resolve().parents[2]
PAGE = "docs/page.md"
PROPS = "tests/test_props.py"
RESULTS = ".docpact/results/tests.json"
PYPROJECT_TEXT = """\
[project]
name = "fixture"

[tool.pytest.ini_options]
pythonpath = ["src"]
addopts = ["-p", "no:cacheprovider"]

[[tool.docpact.contract]]
kind = "claims"
pages = ["docs/page.md"]
properties = ["tests"]
"""
CONTRACT_LINE = 8
REASON = "quotes a promise the code does not keep"
SUPPRESSED = "An older page said the sum is exactly two."
PAGE_TEXT = f"""\
# Page

<!-- docpact: claim sum-one -->
The weights always sum to one.

<!-- docpact: claim mean-holds -->
The mean never
drifts.

<!-- docpact: not-a-claim {REASON} -->
{SUPPRESSED}
"""
# How `docpact claims` lists the page's reviewed suppression, after the claims.
SUPPRESSION = f'{PAGE}:10: not-a-claim "{REASON}": reviewed'
# The project's code: both properties run `total`; none runs `spread`.
CODE = "src/fixture/__init__.py"
CODE_TEXT = """\
def total(weights):
    return sum(weights)


def spread(weights):
    return max(weights) - min(weights)
"""
TOTAL = f"{CODE}::total"
PROPS_TEXT = """\
import docpact
from fixture import total

WEIGHTS = [0.5, 0.5]


@docpact.claim("sum-one")
def test_sum():
    assert total(WEIGHTS) == 1


@docpact.claim(
    "mean-holds",
    session="tests",
)
def test_mean():
    assert total(WEIGHTS) / 2 == 0.5
"""
NOXFILE_TEXT = """\
import nox


@nox.session
def tests(session):
    pass


@nox.session(name="slow-tests")
def slow(session):
    pass
"""
# How `docpact claims` says test_sum, bound with no session, is run.
SUM_RUN = f"(run by pytest {PROPS}::test_sum)"
MEAN_RUN = "(run by nox -s tests)"
LISTED = [
    f"{PAGE}:3: sum-one: reviewed: {PROPS}:7 test_sum {SUM_RUN}",
    f"{PAGE}:6: mean-holds: reviewed: {PROPS}:12 test_mean {MEAN_RUN}",
    SUPPRESSION,
]
AGAIN = "review the one against the other, then run docpact claims --update"
SUM_FILE = "docpact-reviews/claims/sum-one.json"
MEAN_FILE = "docpact-reviews/claims/mean-holds.json"
PAGE_FILE = "docpact-reviews/pages/docs/page.md.json"


def write(root: Path, path: str, text: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text, encoding="utf-8")


def replace(root: Path, path: str, old: str, new: str) -> None:
    """Replace the one occurrence of `old` in a project file with `new`."""
    text = (root / path).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    (root / path).write_text(text.replace(old, new), encoding="utf-8")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    """Run `docpact` in-process: its exit status, its output's lines and its errors."""
    capsys.readouterr()
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def git(root: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(root: Path, message: str = "change") -> str:
    """Commit every change to a tracked file; the new HEAD."""
    git(root, "commit", "-q", "-a", "-m", message)
    return git(root, "rev-parse", "HEAD")


def record(root: Path, *, dirty: bool = False, units: dict[str, list[str]] | None = None) -> None:
    """Write the results file that `pytest --docpact-results` writes on HEAD.

    Each property passed, and executed itself and `total` (or the units `units` gives for
    its claim), fingerprinted as the files are now.
    """
    config = load_config(root / "pyproject.toml")
    analysis = analyse(config.contracts[0], config)  # type: ignore[arg-type]
    now = Units(root)
    entries = []
    for binding in analysis.bindings:
        own = f"{binding.path}::{binding.node.replace('::', '.')}"
        names = (units or {}).get(binding.claim or "", [own, TOTAL])
        entries.append(
            {
                "path": binding.path,
                "node": binding.node,
                "claim": binding.claim,
                "code": binding.code,
                "outcome": "passed",
                "blob": binding.blob,
                "units": {name: now.get(name).fingerprint for name in names},  # type: ignore[union-attr]
            }
        )
    paths = {split(name)[0] for entry in entries for name in entry["units"]}
    blobs = {path: now.blob(path) for path in paths}
    write(root, RESULTS, encode("", git(root, "rev-parse", "HEAD"), dirty, entries, blobs))


def files(root: Path) -> dict[str, bytes]:
    """Every file of the project but git's and the results, by path."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] not in {".git", ".docpact"}
    }


def ledger(root: Path) -> dict[str, object]:
    """The ledger's files, each read as JSON, by path."""
    return {
        path: json.loads(data)
        for path, data in files(root).items()
        if path.startswith(_ledger.FOLDER)
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A committed project with two claims, never reviewed, as the current folder."""
    root = tmp_path / "fixture"
    for path, text in [
        ("pyproject.toml", PYPROJECT_TEXT),
        (PAGE, PAGE_TEXT),
        (PROPS, PROPS_TEXT),
        (CODE, CODE_TEXT),
        ("noxfile.py", NOXFILE_TEXT),
        (".gitignore", ".docpact/\n__pycache__/\n"),
    ]:
        write(root, path, text)
    git(root, "init", "-q")
    git(root, "add", ".")
    commit(root, "start")
    monkeypatch.chdir(root)
    # Plain pytest, as the project runs it: not the nox session these tests may run in.
    monkeypatch.delenv("NOX_CURRENT_SESSION", raising=False)
    return root


@pytest.fixture
def reviewed(project: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The project after a run of its properties and `docpact claims --update`."""
    record(project)
    assert main(["claims", "--update"]) == 0
    capsys.readouterr()
    return project


def test_unreviewed_properties_are_dp015_at_their_bindings(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "check", "--select", "DP015") == (
        1,
        [
            f"{PROPS}:7: DP015 property test_sum was never reviewed against claim sum-one "
            f"({PAGE}:3): {AGAIN} sum-one",
            f"{PROPS}:12: DP015 property test_mean was never reviewed against claim mean-holds "
            f"({PAGE}:6): {AGAIN} mean-holds",
        ],
        "",
    )


def test_a_reviewed_project_checks_clean(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "check") == (0, [], "")


def test_a_reworded_claim_is_dp015_at_the_pages_marker(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PAGE, "always sum to one", "always sum to 1")
    assert run(capsys, "check") == (
        1,
        [
            f"{PAGE}:3: DP015 claim sum-one changed since its property test_sum ({PROPS}:7) "
            f"was reviewed against it: {AGAIN} sum-one"
        ],
        "",
    )


def test_a_rewrapped_claim_is_still_reviewed(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PAGE, "The mean never\ndrifts.", "The  mean\nnever drifts.   ")
    assert run(capsys, "check") == (0, [], "")


def test_a_changed_property_is_dp015_at_its_binding(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PROPS, "/ 2 == 0.5", "/ 2 == 1 / 2")
    assert run(capsys, "check") == (
        1,
        [
            f"{PROPS}:12: DP015 property test_mean changed since it was reviewed against claim "
            f"mean-holds ({PAGE}:6): {AGAIN} mean-holds"
        ],
        "",
    )


def test_a_runs_code_stands_in_for_a_parse_only_where_it_is_the_reviews(
    reviewed: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test file changed since its review is not fingerprinted where a run of its bytes was.

    And a run's code that differs from the review's (another docpact's, a file written by
    hand) is not taken on trust: the file is fingerprinted, and decides.
    """
    from docpact.claims import _bindings

    replace(reviewed, PROPS, "WEIGHTS = [0.5, 0.5]", "# the weights\nWEIGHTS = [0.5, 0.5]")
    commit(reviewed)
    record(reviewed)  # the run took the properties' codes of the file as it is now
    taken = []
    fingerprint = _bindings.code_fingerprint
    monkeypatch.setattr(
        _bindings, "code_fingerprint", lambda *a, **k: taken.append(a) or fingerprint(*a, **k)
    )
    assert run(capsys, "check") == (0, [], "")
    assert taken == []
    document = json.loads((reviewed / RESULTS).read_text(encoding="utf-8"))
    for entry in document["properties"]:
        entry["code"] = "0" * 12
    write(reviewed, RESULTS, json.dumps(document))
    before = ledger(reviewed)
    status, out, _ = run(capsys, "check", "--select", "DP015")
    assert (status, out) == (0, [])
    assert len(taken) == 2  # both properties fingerprinted from the file
    run(capsys, "claims", "--update")
    assert ledger(reviewed) == before  # the run's codes never reach the ledger


def _codes(root: Path, code: str | None = None) -> dict[str, str]:
    """Each property's code in the results file; first set to `code` where it is given."""
    document = json.loads((root / RESULTS).read_text(encoding="utf-8"))
    for entry in document["properties"]:
        entry["code"] = code or entry["code"]
    write(root, RESULTS, json.dumps(document))
    return {entry["node"]: entry["code"] for entry in document["properties"]}


def test_a_runs_code_vouches_only_in_a_check_and_only_where_the_runs_agree(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A results file that vouches for the review's code of bytes whose code is another one.

    The check takes it (that is what saves the fingerprint), unless another run disagrees.
    What writes a review or a results file fingerprints the property itself.
    """
    config = load_config(reviewed / "pyproject.toml")
    old = {b.node: b.code for b in analyse(config.contracts[0], config).bindings}  # type: ignore[arg-type]
    replace(reviewed, PROPS, "/ 2 == 0.5", "/ 2 == 1 / 2")  # test_mean really changed
    commit(reviewed)
    record(reviewed)
    honest = _codes(reviewed)
    assert honest["test_mean"] != old["test_mean"]
    _codes(reviewed, old["test_mean"])  # test_sum's is then wrong too, and refused
    vouched = analyse(config.contracts[0], config, runs_vouch=True)  # type: ignore[arg-type]
    plain = analyse(config.contracts[0], config)  # type: ignore[arg-type]
    assert {b.node: b.code for b in vouched.bindings} == {
        "test_sum": old["test_sum"],  # the run's code is not the review's: fingerprinted
        "test_mean": old["test_mean"],  # the run's code is the review's: taken
    }
    assert {b.node: b.code for b in plain.bindings} == honest
    assert run(capsys, "check", "--select", "DP015") == (0, [], "")
    # A second run that took the honest code: the runs disagree, the file is fingerprinted.
    (reviewed / RESULTS).with_name("other.json").write_bytes((reviewed / RESULTS).read_bytes())
    _codes(reviewed, honest["test_mean"])
    status, out, _ = run(capsys, "check", "--select", "DP015")
    assert (status, [line.split(" DP015 ")[0] for line in out]) == (1, [f"{PROPS}:12:"])
    # --update fingerprints the property: the run recorded another code, so it refuses.
    (reviewed / RESULTS).with_name("other.json").unlink()
    _codes(reviewed, old["test_mean"])
    before = ledger(reviewed)
    status, out, err = run(capsys, "claims", "--update", "mean-holds")
    assert (status, out) == (2, [])
    assert "none records test_mean (tests/test_props.py:12, claim mean-holds)" in err
    assert ledger(reviewed) == before


def test_a_changed_constant_of_the_module_changes_both_properties(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PROPS, "WEIGHTS = [0.5, 0.5]", "WEIGHTS = [0.25, 0.75]")
    status, out, _ = run(capsys, "check")
    assert (status, [line.split(" DP015 ")[0] for line in out]) == (
        1,
        [f"{PROPS}:7:", f"{PROPS}:12:"],
    )


def test_a_missing_claims_page_is_dp012_at_the_contract(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, "pyproject.toml", '["docs/page.md"]', '["docs/page.md", "docs/gone.md"]')
    assert run(capsys, "check") == (
        1,
        [f"pyproject.toml:{CONTRACT_LINE}: DP012 claims page docs/gone.md does not exist"],
        "",
    )


def test_an_unreadable_claims_page_is_dp012_at_the_contract(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / PAGE).write_bytes(b"caf\xe9\n")
    status, out, _ = run(capsys, "check")
    assert status == 1
    assert out[0] == (
        f"pyproject.toml:{CONTRACT_LINE}: DP012 claims page {PAGE} cannot be read: "
        "not UTF-8 at line 1 (invalid continuation byte)"
    )


def test_a_malformed_marker_is_dp012_at_its_line(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PAGE, "# Page\n", "# Page\n\n<!-- docpact: claim Bad_ID -->\nText.\n")
    status, out, _ = run(capsys, "check")
    assert (status, out[0]) == (
        1,
        f"{PAGE}:3: DP012 claim ID 'Bad_ID' is not a valid name: lowercase letters and digits "
        "in words joined by single hyphens, starting with a letter (mass-per-rollout)",
    )


def test_a_page_with_a_byte_order_mark_is_read_as_mkdocs_reads_it(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (reviewed / PAGE).read_text(encoding="utf-8").replace("# Page\n\n", "")
    (reviewed / PAGE).write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert run(capsys, "check") == (0, [], "")


def test_a_claim_id_given_twice_is_dp012_at_the_second(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(reviewed, "docs/other.md", "# Other\n\n<!-- docpact: claim sum-one -->\nAgain.\n")
    replace(reviewed, "pyproject.toml", '["docs/page.md"]', '["docs/page.md", "docs/other.md"]')
    assert run(capsys, "check") == (
        1,
        [f"docs/other.md:3: DP012 claim ID sum-one is given twice, first at {PAGE}:3"],
        "",
    )


def test_a_claim_without_a_property_is_dp013_at_its_marker(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PAGE, "# Page\n", "# Page\n\n<!-- docpact: claim unbound -->\nText.\n")
    assert run(capsys, "check") == (
        1,
        [
            f"{PAGE}:3: DP013 claim unbound has no property: mark the test that checks it, in "
            'tests, with @pytest.mark.docpact_claim("unbound") or @docpact.claim("unbound"), '
            "then run docpact claims --update"
        ],
        "",
    )


def test_a_claim_with_two_properties_is_dp013(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        reviewed,
        "tests/test_more.py",
        'from docpact import claim\n\n\n@claim("sum-one")\ndef test_again():\n    pass\n',
    )
    assert run(capsys, "check") == (
        1,
        [
            f"{PAGE}:3: DP013 claim sum-one has 2 properties, not one: tests/test_more.py:4 "
            f"test_again, {PROPS}:7 test_sum",
            f"tests/test_more.py:4: DP015 property test_again changed since it was reviewed "
            f"against claim sum-one ({PAGE}:3): {AGAIN} sum-one",
        ],
        "",
    )
    status, out, _ = run(capsys, "claims")
    assert (status, out[0]) == (
        1,
        f"{PAGE}:3: sum-one: 2 properties: tests/test_more.py:4 test_again (run by pytest "
        "tests/test_more.py::test_again), "
        f"{PROPS}:7 test_sum {SUM_RUN}",
    )


def test_a_property_bound_to_an_unknown_claim_is_dp014(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        reviewed,
        "tests/test_more.py",
        'import docpact as d\n\n\n@d.claim("gone")\ndef test_gone():\n    pass\n',
    )
    assert run(capsys, "check") == (
        1,
        [
            "tests/test_more.py:4: DP014 property test_gone is bound to claim gone, which no "
            f"claims page has ({PAGE}): mark its claim with <!-- docpact: claim gone -->, or "
            "remove the binding"
        ],
        "",
    )


def test_a_malformed_binding_is_dp014(reviewed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        reviewed,
        "tests/test_more.py",
        'from docpact import claim\n\n\n@claim("a", "b")\ndef test_two():\n    pass\n',
    )
    assert run(capsys, "check") == (
        1,
        [
            "tests/test_more.py:4: DP014 the claim decorator of test_two takes the claim ID "
            'alone: write @claim("ID") with string literals, and reviewed= and session= by '
            "keyword"
        ],
        "",
    )


def test_a_session_that_the_noxfile_lacks_is_dp014(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PROPS, 'session="tests"', 'session="slow"')
    assert run(capsys, "check") == (
        1,
        [
            f"{PROPS}:12: DP014 property test_mean runs in session slow, which noxfile.py does "
            "not define (it has slow-tests, tests)"
        ],
        "",
    )


def test_a_named_session_is_a_session(reviewed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replace(reviewed, PROPS, 'session="tests"', 'session="slow-tests"')
    assert run(capsys, "check") == (0, [], "")


def test_the_contracts_session_is_checked_and_without_a_noxfile_refused(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(
        reviewed,
        "pyproject.toml",
        'properties = ["tests"]',
        'properties = ["tests"]\nsession = "ci"',
    )
    status, out, _ = run(capsys, "check")
    assert (status, out) == (
        1,
        [
            f"{PROPS}:7: DP014 property test_sum runs in session ci, which noxfile.py does not "
            "define (it has slow-tests, tests)"
        ],
    )
    (reviewed / "noxfile.py").unlink()
    status, out, _ = run(capsys, "check")
    assert (status, out) == (
        1,
        [
            f"{PROPS}:7: DP014 property test_sum runs in session ci, but the project has no "
            "readable noxfile.py: drop the session, and pytest runs the property",
            f"{PROPS}:12: DP014 property test_mean runs in session tests, but the project has "
            "no readable noxfile.py: drop the session, and pytest runs the property",
        ],
    )


def test_without_a_session_pytest_runs_the_property_and_no_noxfile_is_needed(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PROPS, '    session="tests",\n', "")
    (reviewed / "noxfile.py").unlink()
    assert run(capsys, "check") == (0, [], "")
    status, out, _ = run(capsys, "claims")
    assert (status, out) == (
        0,
        [
            f"{PAGE}:3: sum-one: reviewed: {PROPS}:7 test_sum {SUM_RUN}",
            f"{PAGE}:6: mean-holds: reviewed: {PROPS}:12 test_mean (run by pytest "
            f"{PROPS}::test_mean)",
            SUPPRESSION,
        ],
    )


def test_an_unparsable_property_file_is_dp014(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(reviewed, "tests/test_more.py", "import docpact\n\n\n@docpact.claim(\n")
    assert run(capsys, "check") == (
        1,
        [
            "tests/test_more.py:4: DP014 tests/test_more.py has a syntax error "
            "('(' was never closed)"
        ],
        "",
    )


def test_a_claim_word_outside_a_claim_block_is_dp016_at_its_line(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PAGE, "# Page\n", "# Page\n\nIt always works, Always, and never `never`.\n")
    assert run(capsys, "check") == (
        1,
        [
            f"{PAGE}:3: DP016 claim word {word!r} outside a claim block: bind the sentence to a "
            "property (<!-- docpact: claim ID -->), reword it, or give the reason it claims "
            "nothing (<!-- docpact: not-a-claim REASON -->)"
            for word in ("Always", "always", "never")  # sorted
        ],
        "",
    )


def test_a_suppression_without_a_claim_word_is_dp016(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PAGE, "the sum is exactly two", "the sum is two")
    assert run(capsys, "check") == (
        1,
        [
            f"{PAGE}:10: DP016 <!-- docpact: not-a-claim --> marks a block without a claim word",
            f'{PAGE}:10: DP020 the block that not-a-claim "{REASON}" suppresses changed since '
            "its review: read it again (a claim there needs a claim block of its own), then "
            "run docpact claims --update",
        ],
        "",
    )


def test_the_contracts_words_replace_the_default_ones(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(
        reviewed,
        "pyproject.toml",
        'properties = ["tests"]',
        'properties = ["tests"]\nwords = ["sum*"]',
    )
    replace(reviewed, PAGE, "# Page\n", "# Page\n\nSummed, it never fails.\n")
    status, out, _ = run(capsys, "check")
    assert (status, [line.split(" outside")[0] for line in out]) == (
        1,
        [f"{PAGE}:3: DP016 claim word 'Summed'"],
    )


def test_claims_lists_each_claim_and_its_property(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "claims") == (
        0,
        [
            f"{PAGE}:3: sum-one: reviewed: {PROPS}:7 test_sum {SUM_RUN}",
            f"{PAGE}:6: mean-holds: reviewed: {PROPS}:12 test_mean (run by nox -s tests)",
            SUPPRESSION,
        ],
        "",
    )


def test_claims_exits_1_and_says_what_changed(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PAGE, "always sum to one", "always sum to 1")
    replace(reviewed, PROPS, "/ 2 == 0.5", "/ 2 == 1 / 2")
    status, out, err = run(capsys, "claims")
    assert (status, out[:2], err) == (
        1,
        [
            f"{PAGE}:3: sum-one: text changed: {PROPS}:7 test_sum {SUM_RUN}",
            f"{PAGE}:6: mean-holds: property changed: {PROPS}:12 test_mean (run by nox -s tests)",
        ],
        "",
    )
    assert out[2] == SUPPRESSION
    assert [line.split(" ")[1] for line in out[3:]] == ["DP015", "DP015"]
    replace(reviewed, PROPS, "WEIGHTS = [0.5, 0.5]", "WEIGHTS = [0.25, 0.75]")
    status, out, _ = run(capsys, "claims")
    assert (status, out[0]) == (
        1,
        f"{PAGE}:3: sum-one: text and property changed: {PROPS}:7 test_sum {SUM_RUN}",
    )


def test_claims_lists_unbound_claims_and_never_reviewed_ones(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(project, PAGE, "# Page\n", "# Page\n\n<!-- docpact: claim unbound -->\nText.\n")
    status, out, _ = run(capsys, "claims")
    assert (status, out[:3]) == (
        1,
        [
            f"{PAGE}:3: unbound: no property",
            f"{PAGE}:6: sum-one: never reviewed: {PROPS}:7 test_sum {SUM_RUN}",
            f"{PAGE}:9: mean-holds: never reviewed: {PROPS}:12 test_mean (run by nox -s tests)",
        ],
    )


def test_update_with_an_unknown_id_exits_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "claims", "--update", "gone", "sum-one", "lost") == (
        2,
        [],
        "error: no claim gone, lost on the claims pages (claims: mean-holds, sum-one)\n",
    )
    assert (project / PROPS).read_text(encoding="utf-8") == PROPS_TEXT


def test_ids_without_update_exit_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "claims", "sum-one") == (
        2,
        [],
        "error: claim IDs select what --update re-approves; add --update\n",
    )


def test_claims_without_a_claims_contract_exits_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        project,
        "pyproject.toml",
        '[[tool.docpact.contract]]\nkind = "config-defaults"\nfile = "a.yaml"\n'
        'docs = ["docs/page.md#page"]\n',
    )
    assert run(capsys, "claims") == (
        2,
        [],
        "pyproject.toml: error: no [[tool.docpact.contract]] of kind claims\n",
    )


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        (
            'pages = ["docs/page.md"]\n',
            "",
            CONTRACT_LINE,
            "tool.docpact.contract[0] needs pages for a claims contract",
        ),
        (
            'pages = ["docs/page.md"]',
            "pages = []",
            CONTRACT_LINE + 2,
            "tool.docpact.contract[0].pages must be a non-empty list of paths inside the "
            "project root, got []",
        ),
        (
            'pages = ["docs/page.md"]',
            'pages = ["../page.md"]',
            CONTRACT_LINE + 2,
            "tool.docpact.contract[0].pages must be a non-empty list of paths inside the "
            "project root, got ['../page.md']",
        ),
        (
            'properties = ["tests"]',
            'properties = ["/tmp/tests"]',
            CONTRACT_LINE + 3,
            "tool.docpact.contract[0].properties must be a non-empty list of paths inside the "
            "project root, got ['/tmp/tests']",
        ),
        (
            'properties = ["tests"]',
            'properties = ["tests"]\nwords = "never"',
            CONTRACT_LINE + 4,
            "tool.docpact.contract[0].words must be a list of words, each letters, optionally "
            "ending in * to match longer words too, got 'never'",
        ),
        (
            'properties = ["tests"]',
            'properties = ["tests"]\nsession = "two words"',
            CONTRACT_LINE + 4,
            "tool.docpact.contract[0].session must be a nox session name, got 'two words'",
        ),
        (
            'properties = ["tests"]',
            'properties = ["tests"]\nobject = "a.b"',
            CONTRACT_LINE,
            "tool.docpact.contract[0] has unknown keys ['object']; a claims contract takes "
            "['kind', 'pages', 'properties', 'results', 'scope', 'session', 'suspect', "
            "'words']",
        ),
    ],
    ids=["missing pages", "empty pages", "page outside", "absolute", "words", "session", "key"],
)
def test_a_bad_claims_contract_exits_2_naming_its_line_and_key(
    project: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, line: int, message: str
) -> None:
    replace(project, "pyproject.toml", old, new)
    expected = (2, [], f"pyproject.toml:{line}: error: {message}\n")
    assert run(capsys, "check") == expected
    assert run(capsys, "claims") == expected


def test_the_repositorys_claims_are_all_bound_and_reviewed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(REPOSITORY)
    status, out, err = run(capsys, "claims")
    assert (status, err) == (0, "")
    # Besides the claims: the suppressions.
    suppressions = [line for line in out if ": not-a-claim " in line]
    assert all(line.endswith(": reviewed") for line in suppressions), suppressions
    claims = [line for line in out if not line.startswith(" ") and line not in suppressions]
    assert [line.split(": ")[1:3] for line in claims] == [
        ["mass-per-rollout", "reviewed"],
        ["batch-mass", "reviewed"],
        ["no-update-compensation", "reviewed"],
        ["agg-token-mean", "reviewed"],
        ["agg-token-sum", "reviewed"],
        ["agg-seq-mean-token-sum", "reviewed"],
        ["agg-seq-mean-token-mean", "reviewed"],
        ["agg-seq-mean-token-sum-norm", "reviewed"],
        ["agg-per-rollout-mean", "reviewed"],
        ["dp-size-sum", "reviewed"],
        ["real-loop-mass", "reviewed"],
        ["real-loop-steps", "reviewed"],
        ["real-loop-epochs-and-cap", "reviewed"],
        ["real-loop-layout", "reviewed"],
        ["clip-grad-per-step", "reviewed"],
        ["kl-per-step", "reviewed"],
        ["bf16-masses", "reviewed"],
    ]


def test_a_properties_path_that_does_not_exist_is_dp014_at_the_contract(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder named in `properties` that is not there is reported at the contract's line."""
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace('properties = ["tests"]', 'properties = ["tests", "gone"]'))
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith("[[tool"))
    status, out, _ = run(capsys, "check", "--select", "DP014")
    assert (status, out) == (
        1,
        [f"pyproject.toml:{line}: DP014 properties path gone does not exist"],
    )


def test_a_second_claims_contract_is_a_configuration_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claim IDs span all pages: a second claims contract exits 2 naming its kind's line."""
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    second = (
        '\n[[tool.docpact.contract]]\nkind = "claims"\npages = ["docs/b.md"]\n'
        'properties = ["tests"]\n'
    )
    pyproject.write_text(text + second, encoding="utf-8")
    line = len((text + second).splitlines()) - 2
    status, out, err = run(capsys, "check")
    assert (status, out) == (2, [])
    assert err == (
        f"pyproject.toml:{line}: error: tool.docpact.contract[1].kind is a second claims "
        "contract: a claim ID names one claim over all the pages, so list every claims page "
        "in one contract\n"
    )


def test_pages_are_named_as_written_relative_to_the_root(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page written `./docs/page.md`, or with a backslash, is `docs/page.md` in findings."""
    for spelling in ("./docs/page.md", "docs\\\\page.md"):
        replace(project, "pyproject.toml", '"docs/page.md"', f'"{spelling}"')
        status, out, _ = run(capsys, "check", "--select", "DP013")
        assert (status, out) == (0, []), spelling
        from docpact import load_config

        [contract] = load_config(project / "pyproject.toml").contracts
        assert contract.pages == ("docs/page.md",)
        replace(project, "pyproject.toml", f'"{spelling}"', '"docs/page.md"')


def test_every_reviewed_check_of_a_claim_bound_twice_is_reported(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A property never reviewed does not hide the next one's."""
    write(
        project,
        "tests/test_z.py",
        'from docpact import claim\n\n\n@claim("sum-one")\ndef test_two():\n    pass\n\n\n'
        '@claim("sum-one")\ndef test_three():\n    pass\n',
    )
    status, out, _ = run(capsys, "check", "--select", "DP015")
    assert (status, out) == (
        1,
        [
            f"{PROPS}:7: DP015 property test_sum was never reviewed against claim sum-one "
            f"({PAGE}:3): {AGAIN} sum-one",
            f"{PROPS}:12: DP015 property test_mean was never reviewed against claim mean-holds "
            f"({PAGE}:6): {AGAIN} mean-holds",
            f"tests/test_z.py:4: DP015 property test_two was never reviewed against claim "
            f"sum-one ({PAGE}:3): {AGAIN} sum-one",
            f"tests/test_z.py:9: DP015 property test_three was never reviewed against claim "
            f"sum-one ({PAGE}:3): {AGAIN} sum-one",
        ],
    )


def test_claims_prints_the_findings_of_rules_dp012_to_dp014(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A malformed marker, an unbound claim, a binding to no claim: each finding is printed."""
    replace(
        reviewed,
        PAGE,
        "# Page\n",
        "# Page\n\n<!-- docpact: claim Bad -->\nBad.\n\n<!-- docpact: claim unbound -->\nText.\n",
    )
    write(
        reviewed,
        "tests/test_gone.py",
        'import docpact\n\n\n@docpact.claim("gone")\ndef test_gone():\n    pass\n',
    )
    assert run(capsys, "claims") == (
        1,
        [
            f"{PAGE}:6: unbound: no property",
            f"{PAGE}:9: sum-one: reviewed: {PROPS}:7 test_sum {SUM_RUN}",
            f"{PAGE}:12: mean-holds: reviewed: {PROPS}:12 test_mean (run by nox -s tests)",
            f'{PAGE}:16: not-a-claim "{REASON}": reviewed',
            f"{PAGE}:3: DP012 claim ID 'Bad' is not a valid name: lowercase letters and digits "
            "in words joined by single hyphens, starting with a letter (mass-per-rollout)",
            f"{PAGE}:6: DP013 claim unbound has no property: mark the test that checks it, in "
            'tests, with @pytest.mark.docpact_claim("unbound") or @docpact.claim("unbound"), '
            "then run docpact claims --update",
            "tests/test_gone.py:4: DP014 property test_gone is bound to claim gone, which no "
            f"claims page has ({PAGE}): mark its claim with <!-- docpact: claim gone -->, or "
            "remove the binding",
        ],
        "",
    )


def test_claims_reads_an_empty_pyproject_option_as_the_current_folder(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "claims", "--pyproject", "") == (
        2,
        [],
        ".: error: cannot be read: it is a folder, not a file\n",
    )


def test_update_of_an_id_on_pages_without_claims_says_there_are_none(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project, PAGE, "# Page\n")
    assert run(capsys, "claims", "--update", "gone") == (
        2,
        [],
        "error: no claim gone on the claims pages (claims: none)\n",
    )


def test_claims_on_pages_without_claims_says_there_are_none(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project, PAGE, "# Page\n")
    write(project, PROPS, "")
    assert run(capsys, "claims") == (
        0,
        [f"no claims on the claims pages ({PAGE}): mark one with <!-- docpact: claim ID -->"],
        "",
    )


def test_claims_on_pages_without_claims_names_every_page(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(project, "pyproject.toml", '["docs/page.md"]', '["docs/page.md", "docs/other.md"]')
    write(project, PAGE, "# Page\n")
    write(project, "docs/other.md", "# Other\n")
    write(project, PROPS, "")
    assert run(capsys, "claims") == (
        0,
        [
            f"no claims on the claims pages ({PAGE}, docs/other.md): mark one with "
            "<!-- docpact: claim ID -->"
        ],
        "",
    )


def test_a_claims_contract_without_words_or_session_has_the_default_words_and_no_session(
    project: Path,
) -> None:
    from docpact import load_config
    from docpact.claims._contract import DEFAULT_WORDS

    [contract] = load_config(project / "pyproject.toml").contracts
    assert (contract.words, contract.session) == (DEFAULT_WORDS, "")  # type: ignore[attr-defined]


def test_a_reviewed_argument_is_dp014_saying_to_migrate(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stamp that an earlier release wrote is no review: the ledger holds them now."""
    replace(
        reviewed, PROPS, '@docpact.claim("sum-one")', '@docpact.claim("sum-one", reviewed="abc")'
    )
    assert run(capsys, "check") == (
        1,
        [
            f"{PROPS}:7: DP014 property test_sum carries reviewed=, but reviews live in the "
            "review ledger now: run docpact claims --migrate to move it there"
        ],
        "",
    )


# --update: what it writes, and what it refuses.


def test_the_first_update_writes_the_ledger_alone_and_counts_what_it_wrote(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record(project)
    before = files(project)
    assert run(capsys, "claims", "--update") == (
        0,
        [
            f"{PAGE}:3: reviewed claim sum-one (first review)",
            f"{PAGE}:6: reviewed claim mean-holds (first review)",
            f"{PAGE}: reviewed its not-a-claim suppressions",
            "2 claim reviews and 1 page review written, 0 claims unchanged, 3 files written",
            *LISTED,
        ],
        "",
    )
    after = files(project)
    assert sorted(set(after) - set(before)) == [MEAN_FILE, SUM_FILE, PAGE_FILE]
    assert {path: after[path] for path in before} == before
    assert run(capsys, "check") == (0, [], "")


def test_a_claims_review_holds_its_text_property_units_commit_and_blobs(
    reviewed: Path,
) -> None:
    """The blob ids are git's, so `--diff` finds the reviewed files in any clone."""
    head = git(reviewed, "rev-parse", "HEAD")
    config = load_config(reviewed / "pyproject.toml")
    [sum_binding, _] = analyse(config.contracts[0], config).bindings  # type: ignore[arg-type]
    units = Units(reviewed)
    blobs = {path: git(reviewed, "hash-object", path) for path in (CODE, PAGE, PROPS)}
    assert ledger(reviewed) == {
        MEAN_FILE: ledger(reviewed)[MEAN_FILE],
        PAGE_FILE: {
            "page": PAGE,
            "suppressions": [{"block": SUPPRESSED, "reason": REASON}],
        },
        SUM_FILE: {
            "claim": "sum-one",
            "commit": head,
            "files": blobs,
            "page": PAGE,
            "property": {"code": sum_binding.code, "node": "test_sum", "path": PROPS},
            "text": "The weights always sum to one.",
            "title": "",
            "units": {
                TOTAL: units.get(TOTAL).fingerprint,  # type: ignore[union-attr]
                f"{PROPS}::test_sum": units.get(f"{PROPS}::test_sum").fingerprint,  # type: ignore[union-attr]
            },
        },
    }


def test_a_second_update_with_nothing_changed_writes_nothing(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {path: (reviewed / path).stat().st_mtime_ns for path in (SUM_FILE, MEAN_FILE)}
    written = files(reviewed)
    status, out, _ = run(capsys, "claims", "--update")
    assert (status, out) == (
        0,
        [
            "0 claim reviews and 0 page reviews written, 2 claims unchanged, 0 files written",
            *LISTED,
        ],
    )
    assert files(reviewed) == written
    assert {path: (reviewed / path).stat().st_mtime_ns for path in before} == before


def test_update_with_an_id_reviews_that_claim_alone(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record(project)
    status, out, _ = run(capsys, "claims", "--update", "mean-holds")
    assert (status, out[:4]) == (
        1,
        [
            f"{PAGE}:6: reviewed claim mean-holds (first review)",
            "1 claim review and 0 page reviews written, 0 claims unchanged, 1 file written",
            f"{PAGE}:3: sum-one: never reviewed: {PROPS}:7 test_sum {SUM_RUN}",
            LISTED[1],
        ],
    )
    assert list(ledger(project)) == [MEAN_FILE]


def test_a_reworded_claim_is_reviewed_again_from_the_same_run(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page changed, not the code: the run of this commit still holds its code under test."""
    old = ledger(reviewed)[SUM_FILE]
    replace(reviewed, PAGE, "always sum to one", "always sum to 1")
    status, out, _ = run(capsys, "claims", "--update")
    assert (status, out[:2]) == (
        0,
        [
            f"{PAGE}:3: reviewed claim sum-one",
            "1 claim review and 0 page reviews written, 1 claim unchanged, 1 file written",
        ],
    )
    new = ledger(reviewed)[SUM_FILE]
    assert new["text"] == "The weights always sum to 1."  # type: ignore[index]
    assert new["files"][PAGE] == git(reviewed, "hash-object", PAGE)  # type: ignore[index]
    assert {k: v for k, v in new.items() if k not in {"text", "files"}} == {  # type: ignore[union-attr]
        k: v
        for k, v in old.items()  # type: ignore[union-attr]
        if k not in {"text", "files"}
    }
    assert run(capsys, "check") == (0, [], "")


# Each claim's marker on the page: a refusal is located at the first claim it names.
CLAIM_LINES = {"sum-one": 3, "mean-holds": 6}


def refused(head: str, *claims: str) -> str:
    """The refusal of `--update` without a results file that records these properties."""
    first = claims[0].rpartition("claim ")[2].rstrip(")") if claims else "sum-one"
    return (
        f"{PAGE}:{CLAIM_LINES[first]}: "
        "error: docpact claims --update reviews a claim's code under test from a results file "
        f"of the current commit (HEAD {head[:12]}) recorded without uncommitted changes, with "
        "the property's code and its code under test as they are now; none records "
        f"{'; '.join(claims)}. Commit your changes, run the properties with --docpact-results "
        "(nox -s tests writes .docpact/results/tests.json), then run docpact claims --update "
        "again; nothing was written\n"
    )


def _another_commit(root: Path) -> None:
    record(root)
    write(root, "README.md", "A change of no code.\n")
    git(root, "add", "README.md")
    commit(root)


def _truncated(root: Path) -> None:
    record(root)
    text = (root / RESULTS).read_text(encoding="utf-8")
    write(root, RESULTS, text[: len(text) // 2])


def _version_1(root: Path) -> None:
    record(root)
    replace(root, RESULTS, '"docpact_results": 2', '"docpact_results": 1')


SUM_PROPERTY = f"test_sum ({PROPS}:7, claim sum-one)"
MEAN_PROPERTY = f"test_mean ({PROPS}:12, claim mean-holds)"
BOTH = (SUM_PROPERTY, MEAN_PROPERTY)
# How each refused project is made; the properties the refusal names; the check's finding.
REFUSALS = {
    "no results file": (lambda root: None, BOTH, ""),
    "another commit": (_another_commit, BOTH, ""),
    "a dirty tree": (lambda root: record(root, dirty=True), BOTH, ""),
    "the property changed since": (
        lambda root: (record(root), replace(root, PROPS, "WEIGHTS) == 1", "WEIGHTS) == 1.0")),
        (SUM_PROPERTY,),
        "",
    ),
    "the code under test changed since": (
        lambda root: (record(root), replace(root, CODE, "sum(weights)", "sum(list(weights))")),
        BOTH,
        "",
    ),
    "a truncated file": (
        _truncated,
        BOTH,
        f"{RESULTS}:1: DP018 {RESULTS} is not a docpact results file: line ",
    ),
    "a version 1 file": (
        _version_1,
        BOTH,
        f"{RESULTS}:1: DP018 {RESULTS} is not a docpact results file: it is a version 1 "
        "results file, which records no executed units; run pytest --docpact-results again "
        "to write one of version 2",
    ),
    "a foreign file": (
        lambda root: write(root, RESULTS, '{"results": []}\n'),
        BOTH,
        f"{RESULTS}:1: DP018 {RESULTS} is not a docpact results file: it needs "
        '"docpact_results": 2 (written by pytest --docpact-results)',
    ),
}


@pytest.mark.parametrize(("make", "named", "finding"), REFUSALS.values(), ids=REFUSALS.keys())
def test_update_refuses_without_a_results_file_of_this_commit_and_writes_nothing(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], object],
    named: tuple[str, ...],
    finding: str,
) -> None:
    """Exit 2 saying how to make a good one; a file that is none is a finding of the check."""
    make(project)
    before = files(project)
    assert run(capsys, "claims", "--update") == (
        2,
        [],
        refused(git(project, "rev-parse", "HEAD"), *named),
    )
    assert files(project) == before
    assert not (project / _ledger.FOLDER).exists()
    if finding:
        status, out, _ = run(capsys, "check", "--select", "DP018")
        assert (status, [line[: len(finding)] for line in out]) == (1, [finding])


def test_update_reads_the_newest_results_file_that_counts(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file of an older commit beside one of HEAD: the review takes HEAD's units."""
    record(project)
    (project / RESULTS).rename(project / ".docpact/results/old.json")
    replace(project, CODE, "sum(weights)", "sum(list(weights))")
    commit(project)
    record(project)
    assert main(["claims", "--update"]) == 0
    fingerprint = Units(project).get(TOTAL).fingerprint  # type: ignore[union-attr]
    assert ledger(project)[SUM_FILE]["units"][TOTAL] == fingerprint  # type: ignore[index]


def test_update_reads_the_units_of_a_run_the_property_passed_over_a_newer_skip(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A newer run that skipped the property part way records part of its code under test."""
    record(project)
    skipped = json.loads((project / RESULTS).read_text(encoding="utf-8"))
    for entry in skipped["properties"]:
        entry["outcome"] = "skipped"
        entry["units"] = {k: v for k, v in entry["units"].items() if k != TOTAL}
    newer = project / ".docpact/results/other.json"
    newer.write_text(json.dumps(skipped), encoding="utf-8")
    os.utime(newer, (time.time() + 60, time.time() + 60))
    assert main(["claims", "--update"]) == 0
    assert TOTAL in ledger(project)[SUM_FILE]["units"]  # type: ignore[operator]


def test_a_ledger_file_that_cannot_be_written_exits_2_naming_it(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    record(project)

    def refuse(path: Path, data: bytes, mode: int) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(_ledger, "replace_file", refuse)
    assert run(capsys, "claims", "--update") == (
        2,
        [],
        f"{SUM_FILE}: error: cannot write the review: Permission denied\n",
    )
    assert not list((project / _ledger.FOLDER).rglob("*.json"))


# The code under test: DP019 and DP021.


def test_a_changed_unit_of_the_code_under_test_is_dp019_naming_it(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, CODE, "sum(weights)", "sum(list(weights))")
    again = "read the claim against it, run its property with --docpact-results, then docpact"
    assert run(capsys, "check") == (
        1,
        [
            f"{PAGE}:3: DP019 claim sum-one is suspect, whatever its property test_sum "
            f"({PROPS}:7) gives: the code under test changed since the review: {TOTAL} "
            f"({CODE}:1); {again} claims --update sum-one",
            f"{PAGE}:6: DP019 claim mean-holds is suspect, whatever its property test_mean "
            f"({PROPS}:12) gives: the code under test changed since the review: {TOTAL} "
            f"({CODE}:1); {again} claims --update mean-holds",
        ],
        "",
    )
    write(reviewed, CODE, CODE_TEXT.replace("def total", "def grand_total"))
    status, out, _ = run(capsys, "check", "--select", "DP019")
    assert status == 1
    assert f"review: {TOTAL} (no longer found); read" in out[0]


def test_a_suspect_claim_is_listed_and_update_is_refused_until_a_run_records_the_change(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, CODE, "sum(weights)", "sum(list(weights))")
    before = ledger(reviewed)
    status, _, err = run(capsys, "claims", "--update", "sum-one")
    assert (status, err[:70]) == (2, refused("")[:70])
    assert ledger(reviewed) == before
    head = commit(reviewed)
    record(reviewed)
    status, out, _ = run(capsys, "claims", "--update", "sum-one")
    assert (status, out[:2]) == (
        1,  # mean-holds stays suspect
        [
            f"{PAGE}:3: reviewed claim sum-one",
            "1 claim review and 0 page reviews written, 0 claims unchanged, 1 file written",
        ],
    )
    assert ledger(reviewed)[SUM_FILE]["commit"] == head  # type: ignore[index]
    assert ledger(reviewed)[MEAN_FILE] == before[MEAN_FILE]
    status, out, _ = run(capsys, "check")
    assert (status, [line.split(" ")[:3] for line in out]) == (
        1,
        [[f"{PAGE}:6:", "DP019", "claim"]],
    )


def test_diff_shows_the_changed_unit_since_the_review(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reviewed copy comes from git by its blob id, after the review was committed."""
    reviewed_at = git(reviewed, "rev-parse", "HEAD")
    git(reviewed, "add", _ledger.FOLDER)
    commit(reviewed, "reviews")
    replace(reviewed, CODE, "sum(weights)", "sum(list(weights))")
    status, out, _ = run(capsys, "claims", "--diff", "sum-one")
    assert status == 0
    assert out[0] == f"claim sum-one ({PAGE}:3): since its review at commit {reviewed_at}"
    assert out[1] == f"{CODE}: code under test {TOTAL}"
    assert "-    return sum(weights)" in out
    assert "+    return sum(list(weights))" in out


def test_dp021_a_claim_outside_contract_sections_needs_some_of_the_projects_code(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A property that runs only itself checks nothing a change to the code can break."""
    record(project, units={"sum-one": [f"{PROPS}::test_sum"]})
    assert main(["claims", "--update"]) == 1
    assert run(capsys, "check") == (
        1,
        [
            f"{PAGE}:3: DP021 claim sum-one: its property test_sum ({PROPS}:7) executed none "
            "of the project's own code (in src, .) in the run its review read, so no change "
            "there can make it fail: test the code the claim is about"
        ],
        "",
    )


@pytest.mark.parametrize("paths", ['["."]', '["src"]', '["src/fixture"]'])
def test_dp021_counts_the_code_under_the_projects_paths_and_not_its_tests(
    reviewed: Path, capsys: pytest.CaptureFixture[str], paths: str
) -> None:
    """`.` is the whole root, where the properties' folders still do not count."""
    replace(reviewed, "pyproject.toml", "[[tool", f"[tool.docpact]\npaths = {paths}\n\n[[tool")
    assert run(capsys, "check", "--select", "DP021") == (0, [], "")
    replace(reviewed, "pyproject.toml", f"paths = {paths}", 'paths = ["lib"]')
    status, out, _ = run(capsys, "check", "--select", "DP021")
    assert (status, len(out)) == (1, 2)


def test_dp021_a_claim_in_a_contracts_section_needs_that_contracts_object(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page's section is a `names` contract's docs: its object is what the claims are about."""
    contract = (
        '\n[[tool.docpact.contract]]\nkind = "names"\nobject = "fixture.{}"\nnames = ["w"]\n'
        'docs = ["docs/page.md#page"]\n'
    )
    text = (reviewed / "pyproject.toml").read_text(encoding="utf-8")
    write(reviewed, "pyproject.toml", text + contract.format("total"))
    assert run(capsys, "check", "--select", "DP021") == (0, [], "")
    write(reviewed, "pyproject.toml", text + contract.format("spread"))
    line = text.count("\n") + 2
    assert run(capsys, "check", "--select", "DP021") == (
        1,
        [
            f"{PAGE}:3: DP021 claim sum-one: its property test_sum ({PROPS}:7) executed none of "
            "the code the claim is about, the objects of the contracts of its section: "
            f"fixture.spread (pyproject.toml:{line}); bind it to a property that calls them",
            f"{PAGE}:6: DP021 claim mean-holds: its property test_mean ({PROPS}:12) executed "
            "none of the code the claim is about, the objects of the contracts of its section: "
            f"fixture.spread (pyproject.toml:{line}); bind it to a property that calls them",
        ],
        "",
    )


# The ledger: bad input, and merges.


def _conflict(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(
        [*lines[:3], "<<<<<<< HEAD\n", *lines[3:5], "=======\n", ">>>>>>> other\n", *lines[5:]]
    )


LEDGER_PROBLEMS = {
    "a merge conflict": (
        SUM_FILE,
        _conflict,
        4,
        f"{SUM_FILE} holds a merge conflict: keep one side, or delete the file and run "
        "docpact claims --update again to review it afresh",
    ),
    "JSON that does not parse": (
        SUM_FILE,
        lambda text: text.replace('"page":', '"page"'),
        None,
        f"{SUM_FILE} is not JSON (Expecting ':' delimiter): delete it and run docpact claims "
        "--update",
    ),
    "a key of the wrong type": (
        SUM_FILE,
        lambda text: text.replace('"title": ""', '"title": 7'),
        "title",
        f"{SUM_FILE}: key 'title' must be a str, got 7: delete the file and run docpact claims "
        "--update to write it again",
    ),
    "a key missing": (
        SUM_FILE,
        lambda text: text.replace('"commit"', '"comit"'),
        1,
        f"{SUM_FILE}: key 'commit' must be a str, got None: delete the file and run docpact "
        "claims --update to write it again",
    ),
    "units that are no map of strings": (
        SUM_FILE,
        lambda text: text.replace('"units": {', '"units": {"x": 1, '),
        "units",
        f"{SUM_FILE}: key 'units' must map strings to strings",
    ),
    "a file named for another claim": (
        SUM_FILE,
        lambda text: text.replace('"claim": "sum-one"', '"claim": "mean-holds"'),
        "claim",
        f"{SUM_FILE} reviews claim 'mean-holds', which belongs in {MEAN_FILE}",
    ),
    "a page's entry without its block": (
        PAGE_FILE,
        lambda text: text.replace('"block"', '"blok"'),
        "suppressions",
        f"{PAGE_FILE}: suppressions[0] needs the strings reason and block",
    ),
}


@pytest.mark.parametrize(
    ("path", "edit", "line", "message"), LEDGER_PROBLEMS.values(), ids=LEDGER_PROBLEMS.keys()
)
def test_a_bad_ledger_file_is_dp015_at_its_line_saying_how_to_fix_it(
    reviewed: Path,
    capsys: pytest.CaptureFixture[str],
    path: str,
    edit: object,
    line: int | str | None,
    message: str,
) -> None:
    """The review it held counts as none; `--update` writes it again from the run.

    A problem of a key is at the key's line (a key missing: the file's first).
    """
    text = (reviewed / path).read_text(encoding="utf-8")
    edited = edit(text)  # type: ignore[operator]
    assert edited != text
    write(reviewed, path, edited)
    if line is None:  # where json reports it
        line = next(n for n, row in enumerate(edited.splitlines(), 1) if row.startswith(' "page"'))
    elif isinstance(line, str):  # the key's own line
        line = next(n for n, row in enumerate(edited.splitlines(), 1) if f'"{line}"' in row)
    status, out, _ = run(capsys, "check")
    assert status == 1
    assert out[0] == f"{path}:{line}: DP015 {message}"
    assert main(["claims", "--update"]) == 0
    assert (reviewed / path).read_text(encoding="utf-8") == text
    assert run(capsys, "check") == (0, [], "")


def test_a_review_of_a_claim_that_is_gone_is_dp015_at_its_file(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PAGE, "<!-- docpact: claim sum-one -->\n", "")
    status, out, _ = run(capsys, "check", "--select", "DP015")
    assert (status, out) == (
        1,
        [
            f"{SUM_FILE}:1: DP015 {SUM_FILE} reviews claim sum-one, which no claims page has: "
            "delete the file (git keeps it)"
        ],
    )


def test_reviews_of_two_claims_on_two_branches_merge_without_a_conflict(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each review is a file of its own: git merges two branches that reviewed two claims."""
    git(reviewed, "add", _ledger.FOLDER)
    commit(reviewed, "reviews")
    record(reviewed)
    git(reviewed, "branch", "-q", "other")
    replace(reviewed, PAGE, "always sum to one", "always sum to 1")
    assert main(["claims", "--update", "sum-one"]) == 0
    commit(reviewed, "sum-one reworded")
    git(reviewed, "checkout", "-q", "other")
    replace(reviewed, PAGE, "never\ndrifts", "never\never drifts")
    assert main(["claims", "--update", "mean-holds"]) == 0
    commit(reviewed, "mean-holds reworded")
    git(reviewed, "merge", "-q", "--no-edit", "-")
    assert git(reviewed, "status", "--porcelain") == ""
    assert ledger(reviewed)[SUM_FILE]["text"] == "The weights always sum to 1."  # type: ignore[index]
    assert ledger(reviewed)[MEAN_FILE]["text"] == "The mean never ever drifts."  # type: ignore[index]
    assert run(capsys, "check") == (0, [], "")


# --migrate: the stamps of earlier releases move into the ledger.

STAMPED_PROPS = PROPS_TEXT.replace(
    '@docpact.claim("sum-one")', '@docpact.claim("sum-one", reviewed="{}/{}/{}")'
).replace('    session="tests",\n', '    session="tests",\n    reviewed="{}/{}/{}",\n')


def test_migrate_moves_the_stamps_into_the_ledger_and_removes_them(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stamp whose claim text changed since is removed too, and left for `--update`."""
    from docpact.claims._page import fingerprint

    config = load_config(project / "pyproject.toml")
    blocks = {b.argument: b for _, b in analyse(config.contracts[0], config).claims}  # type: ignore[arg-type]
    other = "0" * 12
    write(
        project,
        PROPS,
        STAMPED_PROPS.format(blocks["sum-one"].fingerprint, other, other, "1" * 12, other, other),
    )
    stamp = fingerprint(f"{REASON} {SUPPRESSED}")
    replace(project, PAGE, f"{REASON} -->", f"{REASON} reviewed={stamp} -->")
    write(project, "docpact-reviews.json", "{}\n")
    git(project, "add", ".")
    commit(project)
    record(project)
    status, out, _ = run(capsys, "check")
    assert (status, sorted(line.split(" ")[1] for line in out)) == (
        1,
        ["DP014", "DP014", "DP015", "DP015", "DP020"],
    )
    status, out, err = run(capsys, "claims", "--migrate")
    assert (status, out[:5], err) == (
        1,
        [
            f"{PAGE}:3: migrated claim sum-one (first review)",
            f"{PAGE}: migrated its not-a-claim suppressions",
            f"{PROPS}:12: left: claim mean-holds: its text changed since the stamp; run --update",
            "1 claim review and 1 page review written, 0 claims unchanged, 5 files written",
            LISTED[0],
        ],
        "",
    )
    assert (project / PROPS).read_text(encoding="utf-8") == PROPS_TEXT
    assert (project / PAGE).read_text(encoding="utf-8") == PAGE_TEXT
    assert not (project / "docpact-reviews.json").exists()
    assert sorted(ledger(project)) == [SUM_FILE, PAGE_FILE]
    assert run(capsys, "check") == (
        1,
        [
            f"{PROPS}:12: DP015 property test_mean was never reviewed against claim mean-holds "
            f"({PAGE}:6): {AGAIN} mean-holds"
        ],
        "",
    )
    status, out, _ = run(capsys, "claims", "--update")
    assert (status, out[:2]) == (
        0,
        [
            f"{PAGE}:6: reviewed claim mean-holds (first review)",
            "1 claim review and 0 page reviews written, 1 claim unchanged, 1 file written",
        ],
    )
    assert run(capsys, "check") == (0, [], "")


def test_a_claim_migrated_without_a_run_is_reviewed_by_the_next_update_from_one(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stamp migrated with no results file records no units; --update then records them."""
    config = load_config(project / "pyproject.toml")
    blocks = {b.argument: b for _, b in analyse(config.contracts[0], config).claims}  # type: ignore[arg-type]
    other = "0" * 12
    stamps = (blocks["sum-one"].fingerprint, other, other, blocks["mean-holds"].fingerprint)
    write(project, PROPS, STAMPED_PROPS.format(*stamps, other, other))
    commit(project)
    assert run(capsys, "claims", "--migrate")[0] == 1
    assert [review["units"] for review in ledger(project).values()] == [{}, {}]
    commit(project)
    record(project)
    status, out, _ = run(capsys, "claims", "--update")
    assert (status, out[3]) == (
        0,
        "2 claim reviews and 1 page review written, 0 claims unchanged, 3 files written",
    )
    assert ledger(project)[SUM_FILE]["units"] == {  # type: ignore[index]
        f"{PROPS}::test_sum": Units(project).get(f"{PROPS}::test_sum").fingerprint,  # type: ignore[union-attr]
        TOTAL: Units(project).get(TOTAL).fingerprint,  # type: ignore[union-attr]
    }
    assert run(capsys, "check") == (0, [], "")


# Against a real run of the properties.


def pytest_run(root: Path) -> None:
    """Run the project's properties with `--docpact-results`, as its nox session would."""
    done = run_module(root, "pytest", "-q", f"--docpact-results={RESULTS}", "tests")
    assert done.returncode == 0, done.stdout


@pytest.mark.slow
def test_the_recorder_fingerprints_what_a_results_file_vouches_for(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A results file that vouches for the review's code does not carry it to the next one."""
    config = load_config(reviewed / "pyproject.toml")
    old = {b.node: b.code for b in analyse(config.contracts[0], config).bindings}  # type: ignore[arg-type]
    replace(reviewed, PROPS, "/ 2 == 0.5", "/ 2 == 1 / 2")
    commit(reviewed)
    record(reviewed)
    honest = _codes(reviewed)
    _codes(reviewed, old["test_mean"])  # vouches for the review's code of the new bytes
    assert run(capsys, "check", "--select", "DP015") == (0, [], "")  # the one run is taken
    pytest_run(reviewed)
    assert _codes(reviewed) == honest
    status, out, _ = run(capsys, "check", "--select", "DP015")
    assert (status, [line.split(" DP015 ")[0] for line in out]) == (1, [f"{PROPS}:12:"])


@pytest.fixture
def run_reviewed(project: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The project reviewed from a real run of its properties."""
    pytest_run(project)
    assert main(["claims", "--update"]) == 0
    capsys.readouterr()
    return project


@pytest.mark.slow
def test_record_writes_what_a_real_run_records(project: Path) -> None:
    """The same properties, outcomes and units, each property's units fingerprinted alike."""
    pytest_run(project)
    real = json.loads((project / RESULTS).read_text(encoding="utf-8"))
    record(project)
    written = json.loads((project / RESULTS).read_text(encoding="utf-8"))
    for document in (real, written):
        document["properties"].sort(key=lambda entry: entry["node"])
    assert written == real


@pytest.mark.slow
def test_a_refactor_of_code_under_test_makes_the_claims_suspect_until_reviewed(
    run_reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = run_reviewed
    replace(
        root,
        CODE,
        "return sum(weights)",
        "total = 0\n    for w in weights:\n        total += w\n    return total",
    )
    status, out, _ = run(capsys, "check")
    assert (
        status,
        [
            line.split(": the code under test changed since the review: ")[1].split(";")[0]
            for line in out
        ],
    ) == (
        1,
        [f"{TOTAL} ({CODE}:1)", f"{TOTAL} ({CODE}:1)"],
    )
    assert run(capsys, "claims", "--update")[0] == 2
    commit(root)
    pytest_run(root)
    status, out, _ = run(capsys, "claims", "--update")
    assert (status, out[2]) == (
        0,
        "2 claim reviews and 0 page reviews written, 0 claims unchanged, 2 files written",
    )
    assert run(capsys, "check") == (0, [], "")


@pytest.mark.slow
def test_a_refactor_of_a_helper_no_property_executed_keeps_the_claims_reviewed(
    run_reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert all(
        f"{CODE}::spread" not in review.get("units", {}) for review in ledger(run_reviewed).values()
    )  # type: ignore[union-attr]
    replace(run_reviewed, CODE, "max(weights) - min(weights)", "-(min(weights) - max(weights))")
    assert run(capsys, "check") == (0, [], "")


@pytest.mark.slow
def test_a_formatting_only_change_makes_nothing_suspect(
    run_reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Docstrings, comments, blank lines and line breaks, in the code and in its property."""
    replace(
        run_reviewed,
        CODE,
        "def total(weights):\n    return sum(weights)\n",
        'def total(weights):\n    """The weights\' sum."""\n\n    # All of them.\n'
        "    return sum(\n        weights,\n    )\n",
    )
    replace(
        run_reviewed,
        PROPS,
        "def test_sum():\n",
        'def test_sum():\n    """Sums to one."""  # as the page says\n\n',
    )
    assert run(capsys, "check") == (0, [], "")
    assert run(capsys, "claims", "--update")[1][0] == (
        "0 claim reviews and 0 page reviews written, 2 claims unchanged, 0 files written"
    )


@pytest.mark.slow
def test_a_property_that_executes_none_of_the_contracts_objects_is_dp021(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its test calls `sum` itself: the run shows it never reached `total`."""
    replace(project, PROPS, "assert total(WEIGHTS) == 1", "assert sum(WEIGHTS) == 1")
    text = (project / "pyproject.toml").read_text(encoding="utf-8")
    write(
        project,
        "pyproject.toml",
        text + '\n[[tool.docpact.contract]]\nkind = "names"\nobject = "fixture.total"\n'
        'names = ["w"]\ndocs = ["docs/page.md#page"]\n',
    )
    commit(project)
    pytest_run(project)
    assert main(["claims", "--update"]) == 1
    assert ledger(project)[SUM_FILE]["units"] == {  # type: ignore[index]
        f"{PROPS}::test_sum": Units(project).get(f"{PROPS}::test_sum").fingerprint  # type: ignore[union-attr]
    }
    status, out, _ = run(capsys, "check", "--select", "DP021")
    assert (status, out) == (
        1,
        [
            f"{PAGE}:3: DP021 claim sum-one: its property test_sum ({PROPS}:7) executed none of "
            "the code the claim is about, the objects of the contracts of its section: "
            f"fixture.total (pyproject.toml:{text.count(chr(10)) + 2}); bind it to a property "
            "that calls them"
        ],
    )
