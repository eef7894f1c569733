# SPDX-License-Identifier: MIT
"""The claims kind end to end: rules DP012-DP016 and DP019 through `docpact check`, `claims`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from docpact.__main__ import main
from docpact.claims import _review
from docpact.claims._ledger import DEFAULT_REVIEWS
from docpact.claims._page import fingerprint, normalized

REPOSITORY = Path(__file__).resolve().parents[2]
PAGE = "docs/page.md"
PROPS = "tests/test_props.py"
PYPROJECT_TEXT = """\
[project]
name = "fixture"

[tool.ruff]
line-length = 100

[[tool.docpact.contract]]
kind = "claims"
pages = ["docs/page.md"]
properties = ["tests"]
"""
CONTRACT_LINE = 7
REASON = "quotes a promise the code does not keep"
SUPPRESSED = "An older page said the sum is exactly two."
# The suppression comes reviewed: DP020 is tests/docpact/test_suppressions.py's to test.
SUPPRESSION_STAMP = fingerprint(normalized(f"{REASON} {SUPPRESSED}"))
PAGE_TEXT = f"""\
# Page

<!-- docpact: claim sum-one -->
The weights always sum to one.

<!-- docpact: claim mean-holds -->
The mean never
drifts.

<!-- docpact: not-a-claim {REASON} reviewed={SUPPRESSION_STAMP} -->
{SUPPRESSED}
"""
# How `docpact claims` lists the page's reviewed suppression, after the claims.
SUPPRESSION = f'{PAGE}:10: not-a-claim "{REASON}": reviewed'
# The project's own code that both properties reach (DP021), in src/fixture.
CODE_TEXT = """\
def total(weights):
    return sum(weights)
"""
CODE = "src/fixture/__init__.py"
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
AGAIN = "review the one against the other, then run docpact claims --update"


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
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def text_fingerprint(text: str) -> str:
    """The text fingerprint of a claim, from its block's Markdown."""
    return fingerprint(normalized(text))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with two claims, their two properties never reviewed, as the current folder."""
    root = tmp_path / "fixture"
    for path, text in [
        ("pyproject.toml", PYPROJECT_TEXT),
        (PAGE, PAGE_TEXT),
        (PROPS, PROPS_TEXT),
        (CODE, CODE_TEXT),
        ("noxfile.py", NOXFILE_TEXT),
    ]:
        write(root, path, text)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def reviewed(project: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The project after `docpact claims --update`: every claim reviewed."""
    assert main(["claims", "--update"]) == 0
    capsys.readouterr()
    return project


def test_unreviewed_properties_are_dp015_at_their_bindings(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "check") == (
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


def test_a_changed_constant_of_the_module_changes_both_properties(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(reviewed, PROPS, "WEIGHTS = [0.5, 0.5]", "WEIGHTS = [0.25, 0.75]")
    status, out, _ = run(capsys, "check")
    assert (status, [line.split(" DP015 ")[0] for line in out]) == (
        1,
        [f"{PROPS}:7:", f"{PROPS}:12:"],
    )


def test_a_malformed_reviewed_value_is_dp015(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(
        project, PROPS, '@docpact.claim("sum-one")', '@docpact.claim("sum-one", reviewed="abc")'
    )
    status, out, _ = run(capsys, "check")
    assert (status, out[0]) == (
        1,
        f"{PROPS}:7: DP015 property test_sum has reviewed='abc', not TEXT/CODE/TESTED with "
        f"12 hex digits each: {AGAIN} sum-one",
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
            f"tests/test_more.py:4: DP015 property test_again was never reviewed against claim "
            f"sum-one ({PAGE}:3): {AGAIN} sum-one",
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
    replace(reviewed, PROPS, 'session="tests", ', "")
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
    replace(reviewed, "pyproject.toml", '["sum*"]', "[]")
    assert run(capsys, "check") == (0, [], "")


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
            f"{PAGE}:6: mean-holds: code changed: {PROPS}:12 test_mean (run by nox -s tests)",
        ],
        "",
    )
    assert out[2] == SUPPRESSION
    assert [line.split(" ")[1] for line in out[3:]] == ["DP015", "DP015"]
    replace(reviewed, PROPS, "WEIGHTS = [0.5, 0.5]", "WEIGHTS = [0.25, 0.75]")
    status, out, _ = run(capsys, "claims")
    assert (status, out[0]) == (
        1,
        f"{PAGE}:3: sum-one: text and code changed: {PROPS}:7 test_sum {SUM_RUN}",
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


def test_update_inserts_reviewed_after_the_last_argument(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sum_one = text_fingerprint("The weights always sum to one.")
    status, out, err = run(capsys, "claims", "--update")
    [binding_sum, binding_mean] = [
        line.rsplit(" -> ", 1)[1] for line in out if "re-approved " in line
    ]
    assert binding_sum.startswith(f"{sum_one}/")
    assert (status, err) == (0, "")
    assert out == [
        f"{PROPS}:7: re-approved test_sum against claim sum-one ({PAGE}:3): never reviewed -> "
        f"{binding_sum}",
        f"{PROPS}:12: re-approved test_mean against claim mean-holds ({PAGE}:6): never "
        f"reviewed -> {binding_mean}",
        "2 re-approved",
        f"{PAGE}:3: sum-one: reviewed: {PROPS}:7 test_sum {SUM_RUN}",
        f"{PAGE}:6: mean-holds: reviewed: {PROPS}:12 test_mean (run by nox -s tests)",
        SUPPRESSION,
    ]
    assert (project / PROPS).read_text(encoding="utf-8") == PROPS_TEXT.replace(
        '@docpact.claim("sum-one")', f'@docpact.claim("sum-one", reviewed="{binding_sum}")'
    ).replace('session="tests",', f'session="tests", reviewed="{binding_mean}",')
    assert run(capsys, "check") == (0, [], "")


def test_update_replaces_an_existing_reviewed_in_place(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (reviewed / PROPS).read_text(encoding="utf-8")
    replace(reviewed, PAGE, "always sum to one", "always sum to 1")
    old = before.split('reviewed="')[1].split('"')[0]
    new = f"{text_fingerprint('The weights always sum to 1.')}/{old.split('/', 1)[1]}"
    assert run(capsys, "claims", "--update", "sum-one") == (
        0,
        [
            f"{PROPS}:7: re-approved test_sum against claim sum-one ({PAGE}:3): {old} -> {new}",
            "1 re-approved",
            f"{PAGE}:3: sum-one: reviewed: {PROPS}:7 test_sum {SUM_RUN}",
            f"{PAGE}:6: mean-holds: reviewed: {PROPS}:12 test_mean (run by nox -s tests)",
            SUPPRESSION,
        ],
        "",
    )
    assert (reviewed / PROPS).read_text(encoding="utf-8") == before.replace(old, new)


def test_update_rewrites_a_reviewed_string_spread_over_lines(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(
        project,
        PROPS,
        'session="tests",\n',
        'reviewed=(\n        "000000000000/"\n        "000000000000/"\n        "000000000000"\n'
        "    ),  # kept\n"
        '    session="tests",\n',
    )
    assert main(["claims", "--update", "mean-holds"]) == 1  # sum-one stays never reviewed
    text = (project / PROPS).read_text(encoding="utf-8")
    assert '    reviewed=(\n        "' in text
    assert '"\n    ),  # kept\n    session="tests",\n' in text
    assert text.count("reviewed=") == 1
    capsys.readouterr()
    status, out, _ = run(capsys, "check")
    assert (status, [line.split(":")[1] for line in out]) == (1, ["7"])


def test_update_with_an_id_re_approves_only_that_claim(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "claims", "--update", "mean-holds")
    assert (status, out[1:4]) == (
        1,
        [
            "1 re-approved",
            f"{PAGE}:3: sum-one: never reviewed: {PROPS}:7 test_sum {SUM_RUN}",
            f"{PAGE}:6: mean-holds: reviewed: {PROPS}:12 test_mean (run by nox -s tests)",
        ],
    )
    assert (project / PROPS).read_text(encoding="utf-8").count("reviewed=") == 1


def test_update_when_all_is_reviewed_writes_nothing(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (reviewed / PROPS).read_bytes()
    status, out, _ = run(capsys, "claims", "--update")
    assert (status, out[0]) == (0, "0 re-approved")
    assert (reviewed / PROPS).read_bytes() == before


def test_update_keeps_the_files_line_endings(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / PROPS).write_bytes(PROPS_TEXT.replace("\n", "\r\n").encode("utf-8"))
    assert main(["claims", "--update"]) == 0
    data = (project / PROPS).read_bytes()
    assert data.count(b"\r\n") == PROPS_TEXT.count("\n")
    assert b"\n" not in data.replace(b"\r\n", b"")
    capsys.readouterr()
    assert run(capsys, "check") == (0, [], "")


def test_update_rewrites_two_bindings_of_one_file_from_the_end(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        project,
        PROPS,
        "import docpact\nfrom fixture import total\n\n\n"
        "class T:\n"
        '    @docpact.claim("sum-one")\n    def test_a(self): total([1])\n\n'
        '    @docpact.claim("mean-holds", reviewed="")\n    def test_b(self): total([1])\n',
    )
    assert main(["claims", "--update"]) == 0
    capsys.readouterr()
    assert run(capsys, "check") == (0, [], "")


def test_update_writes_where_python_counts_the_lines(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A form feed, white space to Python, does not shift the line that is rewritten."""
    replace(project, PROPS, "WEIGHTS = [0.5, 0.5]\n", "WEIGHTS = [0.5, 0.5]\n\x0c\n")
    assert main(["claims", "--update"]) == 0
    text = (project / PROPS).read_text(encoding="utf-8")
    assert text.count("\x0c") == 1
    assert '@docpact.claim("sum-one", reviewed="' in text
    capsys.readouterr()
    assert run(capsys, "check") == (0, [], "")


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
            "['kind', 'pages', 'properties', 'results', 'session', 'suspect', 'words']",
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
    # Besides the claims: what the code-under-test rule left unresolved, and suppressions.
    suppressions = [line for line in out if ": not-a-claim " in line]
    assert all(line.endswith(": reviewed") for line in suppressions), suppressions
    claims = [line for line in out if not line.startswith(" ") and line not in suppressions]
    assert [line.split(": ")[1:3] for line in claims] == [
        ["mass-per-rollout", "reviewed"],
        ["batch-mass", "reviewed"],
        ["no-update-compensation", "reviewed"],
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
    """A malformed or missing `reviewed` of one property does not hide the next one's."""
    replace(
        project, PROPS, '@docpact.claim("sum-one")', '@docpact.claim("sum-one", reviewed="abc")'
    )
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
            f"{PROPS}:7: DP015 property test_sum has reviewed='abc', not TEXT/CODE/TESTED with "
            f"12 hex digits each: {AGAIN} sum-one",
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


@pytest.fixture
def fourth_part(reviewed: Path) -> str:
    """The reviewed project with a fourth part added to its first stamp; that stamp as was."""
    text = (reviewed / PROPS).read_text(encoding="utf-8")
    old = text.split('reviewed="')[1].split('"')[0]
    replace(reviewed, PROPS, f'"{old}"', f'"{old}/x"')
    return old


def test_a_reviewed_value_with_a_fourth_part_is_dp015(
    fourth_part: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`TEXT/CODE/TESTED/x` is no stamp: DP015 at the binding, as any malformed value is."""
    old = fourth_part
    assert run(capsys, "check") == (
        1,
        [
            f"{PROPS}:7: DP015 property test_sum has reviewed='{old}/x', not TEXT/CODE/TESTED "
            f"with 12 hex digits each: {AGAIN} sum-one"
        ],
        "",
    )


@pytest.mark.usefixtures("fourth_part")
def test_claims_lists_a_reviewed_value_with_a_fourth_part_as_not_reviewed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A stamp that DP015 calls malformed is not listed as `reviewed`."""
    status, out, _ = run(capsys, "claims")
    assert status == 1
    assert not out[0].startswith(f"{PAGE}:3: sum-one: reviewed: ")


def test_a_two_part_stamp_still_reads_and_its_claim_is_suspect(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`TEXT/CODE`, as written before the code under test was reviewed: no DP015, a DP019.

    Its text and code are compared as before; the code under test was never part of its
    review, so the claim is suspect at its marker until `claims --update` writes three parts.
    """
    text = (reviewed / PROPS).read_text(encoding="utf-8")
    old = text.split('reviewed="')[1].split('"')[0]
    two = old.rpartition("/")[0]
    replace(reviewed, PROPS, f'"{old}"', f'"{two}"')
    assert run(capsys, "check") == (
        1,
        [
            f"{PAGE}:3: DP019 claim sum-one is suspect, whatever its property test_sum "
            f"({PROPS}:7) gives: its code under test was not part of its review (a stamp from "
            "before it was); read the claim against it, then run docpact claims --update "
            "sum-one"
        ],
        "",
    )
    status, out, _ = run(capsys, "claims")
    assert (status, out[0]) == (
        1,
        f"{PAGE}:3: sum-one: code under test changed: {PROPS}:7 test_sum {SUM_RUN}",
    )
    status, out, _ = run(capsys, "claims", "--update", "sum-one")
    assert (status, out[0]) == (
        0,
        f"{PROPS}:7: re-approved test_sum against claim sum-one ({PAGE}:3): {two} -> {old}",
    )
    assert (reviewed / PROPS).read_text(encoding="utf-8") == text
    assert run(capsys, "check") == (0, [], "")


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


def test_update_keeps_every_other_line_byte_for_byte(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mixed line endings, a lone CR, a byte-order mark and a form feed stay as they were."""
    text = PROPS_TEXT.replace("\n", "\r\n", 1).replace(
        "WEIGHTS = [0.5, 0.5]\n", "WEIGHTS = [0.5, 0.5]\r\x0c\n"
    )
    (project / PROPS).write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    status, out, _ = run(capsys, "claims", "--update")
    [binding_sum, binding_mean] = [
        line.rsplit(" -> ", 1)[1] for line in out if "re-approved " in line
    ]
    assert status == 0
    expected = text.replace(
        '@docpact.claim("sum-one")', f'@docpact.claim("sum-one", reviewed="{binding_sum}")'
    ).replace('session="tests",', f'session="tests", reviewed="{binding_mean}",')
    assert (project / PROPS).read_bytes() == b"\xef\xbb\xbf" + expected.encode("utf-8")
    assert run(capsys, "check") == (0, [], "")


def test_a_re_approval_of_a_reviewed_binding_keeps_every_line_length(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stamp has a fixed width: only the stamp's characters change."""
    before = (reviewed / PROPS).read_text(encoding="utf-8")
    replace(reviewed, PAGE, "always sum to one", "always sum to 1")
    replace(reviewed, PROPS, "/ 2 == 0.5", "/ 2 == 1 / 2")
    assert main(["claims", "--update"]) == 0
    after = (reviewed / PROPS).read_text(encoding="utf-8")
    assert [len(line) for line in after.splitlines()] == [
        len(line) for line in before.replace("/ 2 == 0.5", "/ 2 == 1 / 2").splitlines()
    ]


def test_update_rewrites_a_later_binding_after_an_earlier_one_shrinks_by_lines(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `reviewed` string over two lines made one does not move the later binding's edit."""
    before = (
        "import docpact\nfrom fixture import total\n\n\n"
        '@docpact.claim(\n    "sum-one",\n    reviewed=(\n        "000000000000/"\n'
        '        "000000000000/000000000000"\n    ),\n)\ndef test_sum():\n    total([1])\n\n\n'
        '@docpact.claim("mean-holds")\ndef test_mean():\n    total([1])\n'
    )
    write(project, PROPS, before)
    status, out, _ = run(capsys, "claims", "--update")
    [binding_sum, binding_mean] = [
        line.rsplit(" -> ", 1)[1] for line in out if "re-approved " in line
    ]
    assert status == 0
    assert (project / PROPS).read_text(encoding="utf-8") == before.replace(
        '"000000000000/"\n        "000000000000/000000000000"', f'"{binding_sum}"'
    ).replace('claim("mean-holds")', f'claim("mean-holds", reviewed="{binding_mean}")')


@pytest.mark.parametrize(
    ("refused", "message"),
    [
        (DEFAULT_REVIEWS, "cannot write the review record"),
        (PROPS, "cannot write the reviewed fingerprints"),
    ],
    ids=["record", "test file"],
)
def test_update_of_a_file_that_cannot_be_written_exits_2_naming_it(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    refused: str,
    message: str,
) -> None:
    """The review record is written first, then the test file; either refused is named."""
    real = _review.os.replace

    def refuse(source: str, target: Path) -> None:
        if Path(target) == project / refused:
            raise PermissionError(13, "Permission denied")
        real(source, target)

    monkeypatch.setattr(_review.os, "replace", refuse)
    assert run(capsys, "claims", "--update") == (
        2,
        [],
        f"{refused}: error: {message}: Permission denied\n",
    )
    assert (project / PROPS).read_text(encoding="utf-8") == PROPS_TEXT
    assert sorted(path.name for path in (project / "tests").iterdir()) == ["test_props.py"]
    assert not [path.name for path in project.iterdir() if path.name.startswith(".")]


def test_update_replaces_the_file_in_one_step_keeping_its_mode(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / PROPS).chmod(0o640)
    before = (project / PROPS).stat().st_ino
    assert main(["claims", "--update"]) == 0
    after = (project / PROPS).stat()
    assert (after.st_ino != before, after.st_mode & 0o777) == (True, 0o640)
    assert sorted(path.name for path in (project / "tests").iterdir()) == ["test_props.py"]


def test_update_writes_a_hidden_temporary_file_beside_the_file_it_replaces(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the file's own folder, so that the one-step rename never crosses file systems.

    The review record has a temporary file of its own, beside it at the project root.
    """
    replaced = []
    real = _review.os.replace

    def spy(source: str, target: Path) -> None:
        hidden = Path(source).name.startswith(f".{Path(target).name}.")
        replaced.append((Path(source).parent, Path(target).name, hidden))
        real(source, target)

    monkeypatch.setattr(_review.os, "replace", spy)
    assert main(["claims", "--update"]) == 0
    assert replaced == [
        (project, DEFAULT_REVIEWS, True),
        (project / "tests", "test_props.py", True),
    ]


def test_a_file_gone_before_its_reviews_are_written_is_an_error_naming_it(project: Path) -> None:
    from docpact import DocpactError, load_config
    from docpact.claims._analysis import analyse

    config = load_config(project / "pyproject.toml")
    found = _review.reviews(analyse(config.contracts[0], config))  # type: ignore[arg-type]
    (project / PROPS).unlink()
    with pytest.raises(DocpactError) as error:
        _review.write_reviews(config, found)
    assert str(error.value) == (
        f"{PROPS}: error: cannot read the file to write its reviews: No such file or directory"
    )


def test_a_file_no_longer_utf_8_when_its_reviews_are_written_is_an_error_naming_it(
    project: Path,
) -> None:
    from docpact import DocpactError, load_config
    from docpact.claims._analysis import analyse

    config = load_config(project / "pyproject.toml")
    found = _review.reviews(analyse(config.contracts[0], config))  # type: ignore[arg-type]
    (project / PROPS).write_bytes(b"# caf\xe9\n" + PROPS_TEXT.encode("utf-8"))
    with pytest.raises(DocpactError) as error:
        _review.write_reviews(config, found)
    assert str(error.value) == (
        f"{PROPS}: error: cannot write its reviews: the file is not UTF-8 text"
    )


def test_a_stamp_that_would_overflow_the_line_is_refused_with_the_line_to_add(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(project, "pyproject.toml", "line-length = 100", "line-length = 73")
    status, out, err = run(capsys, "claims", "--update")
    stamp = err.split('reviewed="')[1].split('"')[0]
    assert (status, out, len(stamp)) == (2, [], 38)
    assert err == (
        f'{PROPS}:7: error: writing reviewed="{stamp}" would make line 7 76 characters long, '
        "over the line length 73, so nothing was written: add "
        f'`reviewed="{stamp}",` on a line of its own inside the parentheses of test_sum\'s '
        "binding (that is the review)\n"
    )
    assert (project / PROPS).read_text(encoding="utf-8") == PROPS_TEXT
    replace(
        project,
        PROPS,
        '@docpact.claim("sum-one")',
        f'@docpact.claim(\n    "sum-one",\n    reviewed="{stamp}",\n)',
    )
    capsys.readouterr()
    status, out, _ = run(capsys, "claims", "--update")  # the other one fits
    assert (status, out[1]) == (0, "1 re-approved")


def test_a_re_approval_of_a_line_already_past_the_line_length_is_written(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new stamp as wide as the old leaves the line as long as it was: no refusal."""
    replace(reviewed, "pyproject.toml", "line-length = 100", "line-length = 73")
    replace(reviewed, PAGE, "always sum to one", "always sum to 1")
    before = (reviewed / PROPS).read_text(encoding="utf-8")
    old = before.split('reviewed="')[1].split('"')[0]
    new = f"{text_fingerprint('The weights always sum to 1.')}/{old.split('/', 1)[1]}"
    assert len(before.splitlines()[6]) == 76
    status, out, err = run(capsys, "claims", "--update", "sum-one")
    assert (status, out[:2], err) == (
        0,
        [
            f"{PROPS}:7: re-approved test_sum against claim sum-one ({PAGE}:3): {old} -> {new}",
            "1 re-approved",
        ],
        "",
    )
    assert (reviewed / PROPS).read_text(encoding="utf-8") == before.replace(old, new)


def test_a_stamp_that_fills_the_line_length_exactly_is_written(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace(project, "pyproject.toml", "line-length = 100", "line-length = 76")
    assert main(["claims", "--update"]) == 0
    line = (project / PROPS).read_text(encoding="utf-8").splitlines()[6]
    assert (line.startswith('@docpact.claim("sum-one", reviewed="'), len(line)) == (True, 76)


def test_a_spread_stamp_joined_past_the_line_length_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Joining a stamp's lines makes a new line, refused past the limit however long the first."""
    replace(project, "pyproject.toml", "line-length = 100", "line-length = 70")
    first = '    reviewed=("000000000000" "/"  # the claim\'s text, then below the rest'
    rest = '        "000000000000/000000000000"),  # as reviewed'
    replace(
        project,
        PROPS,
        '@docpact.claim("sum-one")',
        f'@docpact.claim(\n    "sum-one",\n{first}\n{rest}\n)',
    )
    before = (project / PROPS).read_text(encoding="utf-8")
    status, out, err = run(capsys, "claims", "--update", "sum-one")
    stamp = err.split('reviewed="')[1].split('"')[0]
    assert (status, out, len(first)) == (2, [], 73)
    assert err == (
        f'{PROPS}:9: error: writing reviewed="{stamp}" would make line 9 71 characters long, '
        "over the line length 70, so nothing was written: add "
        f'`reviewed="{stamp}",` on a line of its own inside the parentheses of test_sum\'s '
        "binding (that is the review)\n"
    )
    assert (project / PROPS).read_text(encoding="utf-8") == before


@pytest.mark.parametrize(
    ("pyproject", "length"),
    [
        ("[tool.ruff]\nline-length = 79\n", 79),
        ("[tool.black]\nline-length = 120\n", 120),
        ("[tool.ruff]\nline-length = 99\n[tool.black]\nline-length = 120\n", 99),
        ("[tool.ruff]\nline-length = true\n", 88),
        ("[tool]\nruff = 1\nblack = 'x'\n", 88),
        ("[tool.ruff]\nline-length = 0\n", 88),
        ("[tool.ruff]\nline-length = 1\n", 1),
        ("tool = 1\n", 88),
        ("[project]\nname = 'x'\n", 88),
        ("not toml [", 88),
    ],
)
def test_the_line_length_is_ruffs_else_blacks_else_88(
    tmp_path: Path, pyproject: str, length: int
) -> None:
    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    assert _review.line_length(tmp_path / "pyproject.toml") == length


ODD_BINDINGS = {
    "a parenthesized ID": (
        '@docpact.claim(("sum-one"))',
        '@docpact.claim(("sum-one"), reviewed="{}")',
    ),
    "a parenthesized session": (
        '@docpact.claim("sum-one", session=("tests"))',
        '@docpact.claim("sum-one", session=("tests"), reviewed="{}")',
    ),
    "a trailing comma": ('@docpact.claim("sum-one",)', '@docpact.claim("sum-one", reviewed="{}",)'),
    "a comment before the parenthesis": (
        '@docpact.claim(\n    "sum-one"  # the one\n)',
        '@docpact.claim(\n    "sum-one", reviewed="{}"  # the one\n)',
    ),
    "the marker": (
        '@pytest.mark.docpact_claim("sum-one")',
        '@pytest.mark.docpact_claim("sum-one", reviewed="{}")',
    ),
}


@pytest.mark.parametrize(("written", "expected"), ODD_BINDINGS.values(), ids=ODD_BINDINGS.keys())
def test_update_adds_the_stamp_where_the_call_keeps_parsing(
    project: Path, capsys: pytest.CaptureFixture[str], written: str, expected: str
) -> None:
    text = "import pytest\n" + PROPS_TEXT.replace('@docpact.claim("sum-one")', written)
    write(project, PROPS, text)
    status, out, _ = run(capsys, "claims", "--update", "sum-one")
    stamp = next(line.rsplit(" -> ", 1)[1] for line in out if "re-approved " in line)
    assert status == 1  # mean-holds stays never reviewed
    assert (project / PROPS).read_text(encoding="utf-8") == text.replace(
        written, expected.format(stamp)
    )


def test_a_rewrite_that_would_not_parse_is_refused_and_nothing_is_written(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last guard: whatever the edit made, a text that does not parse is not written."""
    split_properties(project)
    edited = _review._edited

    def broken(lines: list[str], review: object, path: str, limit: int) -> list[str]:
        lines = edited(lines, review, path, limit)  # type: ignore[arg-type]
        return [line.replace("reviewed=", "reviewed=(") for line in lines]

    monkeypatch.setattr(_review, "_edited", broken)
    status, out, err = run(capsys, "claims", "--update")
    assert (status, out) == (2, [])
    assert err == (
        "tests/test_mean.py: error: writing the reviews would leave a file that does not parse "
        "('(' was never closed), so nothing was written: set reviewed= by hand\n"
    )
    assert (project / PROPS).read_text(encoding="utf-8").count("reviewed=") == 0


def test_a_rewrite_whose_binding_would_lose_its_stamp_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    edited = _review._edited

    def wrong(lines: list[str], review: object, path: str, limit: int) -> list[str]:
        lines = edited(lines, review, path, limit)  # type: ignore[arg-type]
        return [line.replace('reviewed="', 'reviewed="0') for line in lines]

    monkeypatch.setattr(_review, "_edited", wrong)
    status, _, err = run(capsys, "claims", "--update")
    stamp = err.split('reviewed="')[1].split('"')[0]
    assert (status, err) == (
        2,
        f'{PROPS}:7: error: the rewritten binding of test_sum would not hold reviewed="{stamp}", '
        "so nothing was written: set it by hand\n",
    )
    assert (project / PROPS).read_text(encoding="utf-8") == PROPS_TEXT


def split_properties(root: Path) -> None:
    """Move `test_mean` out of the properties file into a file of its own."""
    sum_only, _, mean = PROPS_TEXT.partition("\n\n\n@docpact.claim(\n")
    write(root, PROPS, sum_only + "\n")
    write(root, "tests/test_mean.py", "import docpact\n\n\n@docpact.claim(\n" + mean)


def test_update_through_a_symbolic_link_writes_the_file_it_names(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = project / "elsewhere" / "props.py"
    real.parent.mkdir()
    (project / PROPS).rename(real)
    (project / PROPS).symlink_to(real)
    assert main(["claims", "--update"]) == 0
    assert (project / PROPS).is_symlink()
    assert real.read_text(encoding="utf-8").count("reviewed=") == 2


def test_update_of_a_file_with_another_hard_link_keeps_both_names_on_one_text(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = project / "props-link.py"
    other.hardlink_to(project / PROPS)
    assert main(["claims", "--update"]) == 0
    assert other.read_text(encoding="utf-8") == (project / PROPS).read_text(encoding="utf-8")
    assert other.stat().st_ino == (project / PROPS).stat().st_ino


def test_update_of_a_file_its_owner_cannot_write_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As for a read-only file (root may write any file, so the check itself is faked here)."""
    monkeypatch.setattr(_review.os, "access", lambda path, mode: False)
    assert run(capsys, "claims", "--update") == (
        2,
        [],
        f"{PROPS}: error: cannot write the reviewed fingerprints: Permission denied\n",
    )
    assert (project / PROPS).read_text(encoding="utf-8") == PROPS_TEXT


def test_update_of_parenthesized_arguments_writes_a_file_that_parses_and_checks_clean(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`@claim(("c"))`, `session=("tests")`: the stamp follows the last argument, and parses.

    A second check finds the claims reviewed.
    """
    replace(project, PROPS, '@docpact.claim("sum-one")', '@docpact.claim(("sum-one"))')
    replace(project, PROPS, 'session="tests",', 'session=("tests"),')
    status, out, err = run(capsys, "claims", "--update")
    assert (status, err, out[2]) == (0, "", "2 re-approved")
    written = (project / PROPS).read_text(encoding="utf-8")
    ast.parse(written)
    assert '@docpact.claim(("sum-one"), reviewed="' in written
    assert 'session=("tests"), reviewed="' in written
    assert run(capsys, "check") == (0, [], "")
