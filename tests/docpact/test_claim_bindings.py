# SPDX-License-Identifier: MIT
"""Properties bound to claims: the `claim` decorator, its static reader, code fingerprints."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import docpact
from docpact.claims._bindings import (
    Binding,
    read_bindings,
    read_text_bindings,
    sessions,
    source_lines,
)
from docpact.claims._fingerprint import code_fingerprint
from docpact.claims._ledger import blob_id

USAGE = 'write @claim("ID") with string literals, and reviewed= and session= by keyword'
REVIEWED = "0123456789ab/ba9876543210"
MODULE = '''\
import math

from hypothesis import given, settings

from docpact import claim

LIMIT = 3
OTHER = 4


def _helper(x):
    return _inner(x) + LIMIT


def _inner(x):
    return x


def _unrelated():
    return OTHER


@claim("sum-one", reviewed="000000000000/000000000000")
@settings(max_examples=10)
def test_sum():
    """The docstring."""
    assert _helper(1) == math.floor(4.2)
'''


def bindings(tmp_path: Path, source: str | bytes, name: str = "test_p.py") -> list[Binding]:
    """The bindings of one test file, which must be readable."""
    path = tmp_path / name
    if isinstance(source, bytes):
        path.write_bytes(source)
    else:
        path.write_text(source, encoding="utf-8")
    found, problems = read_bindings(tmp_path, (name,))
    assert problems == []
    return found


def code(tmp_path: Path, source: str) -> str:
    """The code fingerprint of the one property of a module."""
    [binding] = bindings(tmp_path, source)
    return binding.code


def test_the_decorator_returns_the_function_with_its_binding() -> None:
    def test_it() -> None:
        pass

    bound = docpact.claim("sum-one", session="slow")(test_it)
    assert bound is test_it
    assert test_it.__docpact_claim__ == {  # type: ignore[attr-defined]
        "claim": "sum-one",
        "session": "slow",
    }


@pytest.mark.parametrize("reviewed", [REVIEWED, "abc", ""], ids=["stamp", "malformed", "empty"])
def test_the_decorator_accepts_and_ignores_a_legacy_reviewed_stamp(reviewed: str) -> None:
    """A stamp an earlier release wrote still imports; the ledger, not the test, holds reviews."""

    def test_it() -> None:
        pass

    docpact.claim("sum-one", reviewed=reviewed)(test_it)
    assert test_it.__docpact_claim__ == {  # type: ignore[attr-defined]
        "claim": "sum-one",
        "session": "",
    }


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ("Sum",),
            "claim_id must be a claim ID such as 'mass-per-rollout', got 'Sum'",
        ),
        ((7,), "claim_id must be a claim ID such as 'mass-per-rollout', got 7"),
        (("a", "two words"), "session must be empty or a nox session name, got 'two words'"),
        (("a", 3), "session must be empty or a nox session name, got 3"),
    ],
    ids=["bad id", "int id", "bad session", "int"],
)
def test_the_decorator_rejects_malformed_arguments(arguments: tuple, message: str) -> None:
    claim_id, session = (*arguments, "")[:2]
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        docpact.claim(claim_id, session=session)


def test_a_binding_is_read_from_from_docpact_import_claim(tmp_path: Path) -> None:
    source = (
        f'from docpact import claim\n\n\n@claim("sum-one", reviewed="{REVIEWED}")\n'
        "def test_sum():\n    pass\n"
    )
    [binding] = bindings(tmp_path, source)
    assert binding == Binding(
        "test_p.py",
        4,
        "test_sum",
        "sum-one",
        reviewed=REVIEWED,
        session="",
        code=binding.code,
        span=(4, 27, 4, 54),
        has_reviewed=True,
        node="test_sum",
        end=6,
        start=4,
        blob=blob_id((tmp_path / "test_p.py").read_bytes()),
    )
    assert len(binding.code) == 12
    assert int(binding.code, 16) >= 0


@pytest.mark.parametrize(
    ("imports", "decorator"),
    [
        ("import docpact", "docpact.claim"),
        ("import docpact as d", "d.claim"),
        ("import docpact.sybil", "docpact.claim"),
        ("from docpact import (\n    Finding,\n    claim,\n)", "claim"),
    ],
    ids=["import docpact", "as d", "import docpact.sybil", "parenthesized"],
)
def test_a_binding_is_read_through_every_way_of_importing_claim(
    tmp_path: Path, imports: str, decorator: str
) -> None:
    source = f'{imports}\n\n\n@{decorator}("sum-one", session="slow")\ndef test_sum():\n    pass\n'
    [binding] = bindings(tmp_path, source)
    assert (binding.claim, binding.session, binding.reviewed, binding.has_reviewed) == (
        "sum-one",
        "slow",
        "",
        False,
    )
    assert binding.line == source.splitlines().index(f'@{decorator}("sum-one", session="slow")') + 1


@pytest.mark.parametrize(
    "source",
    [
        'def claim(x):\n    return lambda f: f\n\n\n@claim("sum-one")\ndef test_sum():\n    pass\n',
        'import docpact.sybil as s\n\n\n@s.claim("sum-one")\ndef test_sum():\n    pass\n',
        'from other import claim\n\n\n@claim("sum-one")\ndef test_sum():\n    pass\n',
        'import docpact\n\n\n@other.claim("sum-one")\ndef test_sum():\n    pass\n',
    ],
    ids=["local claim", "docpact.sybil as s", "other module", "other object"],
)
def test_a_claim_that_is_not_docpacts_is_no_binding(tmp_path: Path, source: str) -> None:
    assert bindings(tmp_path, source) == []


def test_methods_and_async_functions_are_properties_too(tmp_path: Path) -> None:
    source = """\
from docpact import claim


class TestMass:
    @claim("in-class")
    def test_method(self):
        pass

    @claim("async-method")
    async def test_async(self):
        pass


@claim("async-function")
async def test_top():
    pass
"""
    found = bindings(tmp_path, source)
    assert [(b.line, b.function, b.claim) for b in found] == [
        (5, "test_method", "in-class"),
        (9, "test_async", "async-method"),
        (14, "test_top", "async-function"),
    ]


@pytest.mark.parametrize(
    ("decorator", "problem"),
    [
        ("@claim()", f"the claim decorator of test_it takes the claim ID alone: {USAGE}"),
        ('@claim("a", "b")', f"the claim decorator of test_it takes the claim ID alone: {USAGE}"),
        (
            '@claim(claim_id="a")',
            f"the claim decorator of test_it takes the claim ID alone: {USAGE}",
        ),
        ("@claim(ID)", f"the claim decorator of test_it needs string literals: {USAGE}"),
        ('@claim(f"a{1}")', f"the claim decorator of test_it needs string literals: {USAGE}"),
        (
            '@claim("a", reviewed=REVIEWED)',
            f"the claim decorator of test_it needs string literals: {USAGE}",
        ),
        (
            '@claim("a", reviewd="")',
            f"the claim decorator of test_it has no argument reviewd: {USAGE}",
        ),
        ('@claim("Mass")', "the claim decorator of test_it names 'Mass', not a valid claim ID"),
        (
            '@claim("a", session="two words")',
            "the claim decorator of test_it names session 'two words', not a name",
        ),
    ],
    ids=[
        "no arguments",
        "two positional",
        "id by keyword",
        "name",
        "f-string",
        "reviewed not literal",
        "unknown keyword",
        "invalid id",
        "bad session",
    ],
)
def test_a_malformed_decorator_is_a_binding_with_a_problem(
    tmp_path: Path, decorator: str, problem: str
) -> None:
    source = f"from docpact import claim\n\n\n{decorator}\ndef test_it():\n    pass\n"
    assert bindings(tmp_path, source) == [Binding("test_p.py", 4, "test_it", None, problem=problem)]


def test_bindings_come_in_path_and_line_order_each_file_once(tmp_path: Path) -> None:
    (tmp_path / "tests/deep").mkdir(parents=True)
    one = 'from docpact import claim\n\n\n@claim("b")\ndef test_b():\n    pass\n'
    (tmp_path / "tests/deep/test_z.py").write_text(one, encoding="utf-8")
    (tmp_path / "tests/test_a.py").write_text(one.replace('"b"', '"a"'), encoding="utf-8")
    (tmp_path / "tests/test_a.txt").write_text(one, encoding="utf-8")
    (tmp_path / "tests/test_plain.py").write_text("def test_x():\n    pass\n", encoding="utf-8")
    found, problems = read_bindings(tmp_path, ("tests", "tests/test_a.py", "tests/gone"))
    assert problems == [("pyproject.toml", 0, "properties path tests/gone does not exist")]
    assert [(b.path, b.claim) for b in found] == [
        ("tests/deep/test_z.py", "b"),
        ("tests/test_a.py", "a"),
    ]


def test_an_unparsable_file_is_a_problem_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "test_p.py").write_text('import docpact\n\n@docpact.claim("a"\n', "utf-8")
    assert read_bindings(tmp_path, ("test_p.py",)) == (
        [],
        [("test_p.py", 3, "test_p.py has a syntax error ('(' was never closed)")],
    )


@pytest.mark.parametrize(
    "source",
    [
        "# Each claim of the page holds.\ndef test_a(:\n",
        "claim(\n",
        "import docpactish\n\n\ndef test_a(:\n",
    ],
    ids=["the word claim", "a bare claim(", "a module whose name starts with docpact"],
)
def test_a_file_without_the_marker_or_an_import_of_docpact_is_not_parsed(
    tmp_path: Path, source: str
) -> None:
    """The text scan skips it before parsing: its syntax error is no problem of the claims."""
    (tmp_path / "test_p.py").write_text(source, encoding="utf-8")
    assert read_bindings(tmp_path, ("test_p.py",)) == ([], [])


def test_a_binding_under_another_name_is_read(tmp_path: Path) -> None:
    """The scan looks for the import, not the name: `claim as c` binds as `claim` does."""
    source = 'from docpact import claim as c\n\n\n@c("a")\ndef test_a():\n    pass\n'
    (tmp_path / "test_p.py").write_text(source, encoding="utf-8")
    found, problems = read_bindings(tmp_path, ("test_p.py",))
    assert ([(b.claim, b.function, b.line) for b in found], problems) == ([("a", "test_a", 4)], [])


@pytest.mark.parametrize(
    "source",
    [
        "# pytest.mark.docpact_claim binds a property\ndef test_a(:\n",
        "from docpact import claim\n\n\ndef test_a(:\n",
        'import docpact\n\n\n@docpact.claim ("a")\ndef test_a(:\n',
    ],
    ids=["the marker's name", "an import of claim", "an import of docpact"],
)
def test_a_file_that_names_the_marker_or_imports_docpact_is_parsed(
    tmp_path: Path, source: str
) -> None:
    """The scan errs toward parsing: a file it lets through reports its syntax error."""
    (tmp_path / "test_p.py").write_text(source, encoding="utf-8")
    found, problems = read_bindings(tmp_path, ("test_p.py",))
    assert found == []
    assert [(path, message.split(" (")[0]) for path, _, message in problems] == [
        ("test_p.py", "test_p.py has a syntax error")
    ]


def test_a_file_that_is_not_utf8_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "test_p.py").write_bytes(b"# caf\xe9\nimport docpact\n")
    assert read_bindings(tmp_path, ("test_p.py",)) == (
        [],
        [
            (
                "test_p.py",
                1,
                "test_p.py cannot be read: not UTF-8 at line 1 (invalid continuation byte)",
            )
        ],
    )


def test_an_unreadable_file_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_p.py").write_text("import docpact\n", encoding="utf-8")

    def denied(self: Path, *args: object, **kwargs: object) -> str:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", denied)
    assert read_bindings(tmp_path, ("tests",)) == (
        [],
        [("tests/test_p.py", 1, "tests/test_p.py cannot be read: Permission denied")],
    )


def test_a_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    source = '\ufeffimport docpact\n\n\n@docpact.claim("a")\ndef test_a():\n    pass\n'
    [binding] = bindings(tmp_path, source.encode("utf-8"))
    assert (binding.claim, binding.line) == ("a", 4)


def test_the_reviewed_span_is_in_characters_on_the_lines_python_counts(tmp_path: Path) -> None:
    """A form feed is no line break, and a non-ASCII character is one column."""
    source = (
        'import docpact\n\x0c\nX = "é"\n\n\n@docpact.claim("a", session="é", reviewed="x")\n'
        "def test_a():\n    pass\n"
    )
    [binding] = bindings(tmp_path, source)
    line = source.split("\n")[binding.span[0] - 1]
    assert binding.span == (6, 42, 6, 45)
    assert line[binding.span[1] : binding.span[3]] == '"x"'


def test_the_code_fingerprint_ignores_comments_formatting_and_docstrings(tmp_path: Path) -> None:
    base = code(tmp_path, MODULE)
    for old, new in [
        ('"""The docstring."""', '"""The docstring."""  # a comment'),
        ('"""The docstring."""', '"""Another docstring."""'),
        ("_helper(1) == math", "_helper( 1 )==math"),
        ("def _inner(x):\n", 'def _inner(x):\n    """A helper docstring."""\n'),
        ("\n\n\ndef _unrelated", "\n\n\n\n\n# a comment\ndef _unrelated"),
        (
            "assert _helper(1) == math.floor(4.2)",
            "assert (\n        _helper(1)\n == math.floor(4.2))",
        ),
    ]:
        assert MODULE.count(old) == 1
        assert code(tmp_path, MODULE.replace(old, new)) == base, new


def test_the_code_fingerprint_ignores_the_claim_decorators_arguments(tmp_path: Path) -> None:
    """Writing `reviewed=` or a session does not change the code it records."""
    base = code(tmp_path, MODULE)
    old = 'reviewed="000000000000/000000000000"'
    for new in ['reviewed="111111111111/222222222222"', 'session="slow"', ""]:
        assert code(tmp_path, MODULE.replace(old, new)) == base, new


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("_helper(1) ==", "_helper(2) =="),
        ("max_examples=10", "max_examples=20"),
        ("_inner(x) + LIMIT", "_inner(x) - LIMIT"),
        ("    return x\n", "    return -x\n"),
        ("LIMIT = 3", "LIMIT = 5"),
        ("import math", "import cmath as math"),
        ("def test_sum", "def test_total"),
    ],
    ids=["body", "other decorator", "helper", "helper's helper", "constant", "import", "name"],
)
def test_the_code_fingerprint_changes_with_what_the_property_uses(
    tmp_path: Path, old: str, new: str
) -> None:
    assert MODULE.count(old) == 1
    assert code(tmp_path, MODULE.replace(old, new)) != code(tmp_path, MODULE)


@pytest.mark.parametrize(
    ("old", "new"),
    [("return OTHER", "return OTHER + 1"), ("OTHER = 4", "OTHER = 5")],
    ids=["unrelated helper", "its constant"],
)
def test_the_code_fingerprint_ignores_what_the_property_does_not_use(
    tmp_path: Path, old: str, new: str
) -> None:
    assert code(tmp_path, MODULE.replace(old, new)) == code(tmp_path, MODULE)


FIXTURES = """\
import random

import pytest

from docpact import claim


@pytest.fixture
def seeded():
    random.seed(0)


@pytest.fixture
def unused():
    return 1


@claim("sum-one")
def test_sum(seeded):
    assert random.random() < 1
"""


def test_the_code_fingerprint_follows_the_fixtures_its_parameters_name(tmp_path: Path) -> None:
    """A fixture the property only names as a parameter, for its effect, is its code too."""
    base = code(tmp_path, FIXTURES)
    assert code(tmp_path, FIXTURES.replace("random.seed(0)", "random.seed(1)")) != base
    assert code(tmp_path, FIXTURES.replace("return 1", "return 2")) == base


def test_reviewing_one_property_leaves_another_that_uses_it_unchanged(tmp_path: Path) -> None:
    source = MODULE + '\n\n@claim("uses-sum")\ndef test_uses():\n    test_sum()\n'
    before = [b.code for b in bindings(tmp_path, source)]
    reviewed = source.replace("000000000000/000000000000", REVIEWED)
    assert [b.code for b in bindings(tmp_path, reviewed)] == before


def test_code_fingerprint_takes_the_module_and_the_names_claim_has(tmp_path: Path) -> None:
    tree = ast.parse(MODULE)
    [function] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "test_sum"]
    assert code_fingerprint(tree, function, {"claim"}, set()) == code(tmp_path, MODULE)
    # Where `claim` is not docpact's, its decorator is code like any other.
    assert code_fingerprint(tree, function, set(), set()) != code(tmp_path, MODULE)


NOXFILE = """\
import nox
from nox import session


@nox.session
def tests(session):
    pass


@nox.session(name="lint-all", python=False)
def lint(session):
    pass


@session(venv_backend="none")
def docs(session):
    pass


def _helper():
    pass
"""


def test_sessions_are_the_noxfiles_decorated_functions_or_their_names(tmp_path: Path) -> None:
    (tmp_path / "noxfile.py").write_text(NOXFILE, encoding="utf-8")
    assert sessions(tmp_path) == {"tests", "lint-all", "docs"}


@pytest.mark.parametrize("noxfile", [None, "def (:\n", b"\xff\n"], ids=["missing", "bad", "bytes"])
def test_without_a_readable_noxfile_there_are_no_sessions(
    tmp_path: Path, noxfile: str | bytes | None
) -> None:
    if isinstance(noxfile, str):
        (tmp_path / "noxfile.py").write_text(noxfile, encoding="utf-8")
    elif noxfile is not None:
        (tmp_path / "noxfile.py").write_bytes(noxfile)
    assert sessions(tmp_path) is None


def test_folders_whose_name_starts_with_a_dot_are_not_searched(tmp_path: Path) -> None:
    """A virtual environment or nox folder under a properties path is left out."""
    one = 'from docpact import claim\n\n\n@claim("b")\ndef test_b():\n    pass\n'
    (tmp_path / ".nox/lib").mkdir(parents=True)
    (tmp_path / ".nox/lib/test_v.py").write_text(one, encoding="utf-8")
    (tmp_path / "test_top.py").write_text(one.replace('"b"', '"a"'), encoding="utf-8")
    found, problems = read_bindings(tmp_path, (".",))
    assert (problems, [(b.path, b.claim) for b in found]) == ([], [("test_top.py", "a")])


def _fingerprint_of(tmp_path: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    found, problems = read_bindings(tmp_path, ("tests",))
    assert problems == []
    return found[0].code


PROPERTY = (
    "from docpact import claim\nfrom strategies import batches\n\n\n"
    '@claim("c")\ndef test_c():\n    assert batches()\n'
)


@pytest.mark.parametrize(
    ("helper", "narrowed"),
    [
        ("tests/strategies.py", "LIMIT = 6\n\n\ndef batches():\n    return [1]\n"),
        ("tests/strategies.py", "def (:\n"),
        ("tests/strategies/__init__.py", "LIMIT = 1\n\n\ndef batches():\n    return []\n"),
        ("strategies.py", "LIMIT = 1\n\n\ndef batches():\n    return []\n"),
    ],
    ids=["beside the property", "unparsable", "package", "outside the properties folders"],
)
def test_an_imported_module_is_not_part_of_the_propertys_code(
    tmp_path: Path, helper: str, narrowed: str
) -> None:
    """A helper it imports, a narrowed strategy included, is code under test, not its code.

    The test run records whether the property executed the helper (`docpact.claims._units`),
    and `docpact check` reports the claim suspect when an executed one changes (DP019).
    """
    strategies = "LIMIT = 6\n\n\ndef batches():\n    return list(range(LIMIT))\n"
    before = _fingerprint_of(tmp_path, {"tests/test_c.py": PROPERTY, helper: strategies})
    assert _fingerprint_of(tmp_path, {helper: narrowed}) == before


def test_definitions_inside_top_level_blocks_and_the_class_count(tmp_path: Path) -> None:
    """A constant set in a top-level try block, and the class of a method, are followed."""
    source = (
        "from docpact import claim\n\ntry:\n    LIMIT = 3\nexcept ImportError:\n    LIMIT = 4\n\n\n"
        "class TestC:\n    BOUND = 2\n\n"
        '    @claim("c")\n    def test_c(self):\n        assert LIMIT > self.BOUND\n'
    )
    before = _fingerprint_of(tmp_path, {"tests/test_c.py": source})
    for old, new in [("LIMIT = 3", "LIMIT = 1"), ("BOUND = 2", "BOUND = 0")]:
        changed = _fingerprint_of(tmp_path, {"tests/test_c.py": source.replace(old, new)})
        assert changed != before, old


def test_a_claim_decorator_on_a_class_is_a_problem_of_the_binding(tmp_path: Path) -> None:
    """Only a test function can be a property: a decorated class says so at its line."""
    source = 'from docpact import claim\n\n\n@claim("c")\nclass TestC:\n    pass\n'
    [binding] = bindings(tmp_path, source)
    assert (binding.line, binding.claim, binding.problem) == (
        4,
        None,
        "the claim decorator decorates class TestC: bind the test function that checks the claim",
    )


def test_code_too_deep_to_fingerprint_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    """A property whose expression nests beyond the recursion limit gets a problem."""
    deep = " + ".join(["1"] * 2000)
    source = f'from docpact import claim\n\n\n@claim("c")\ndef test_c():\n    assert {deep}\n'
    [binding] = bindings(tmp_path, source)
    assert binding.claim is None
    assert binding.problem == (
        "the code of test_c is nested too deeply for docpact to fingerprint it: split its "
        "longest expression"
    )


def test_the_decorators_default_is_an_empty_session() -> None:
    def test_it() -> None:
        pass

    docpact.claim("sum-one")(test_it)
    binding = test_it.__docpact_claim__  # type: ignore[attr-defined]
    assert binding == {"claim": "sum-one", "session": ""}


@pytest.mark.parametrize(
    "imports",
    [
        "from docpact import claim\nfrom docpact import Finding\nimport docpact",
        "import docpact\nimport os\nfrom docpact import claim",
    ],
    ids=["claim then another name", "docpact then another module"],
)
def test_later_imports_keep_the_earlier_names_of_claim_and_docpact(
    tmp_path: Path, imports: str
) -> None:
    """An import of another name or module adds to the names already found, replacing none."""
    source = f'{imports}\n\n\n@claim("a")\ndef test_a():\n    pass\n\n\n'
    source += '@docpact.claim("b")\ndef test_b():\n    pass\n'
    assert [(b.line, b.claim) for b in bindings(tmp_path, source)] == [(6, "a"), (11, "b")]


def test_a_claim_after_another_decorator_is_read(tmp_path: Path) -> None:
    source = (
        "import pytest\n\nfrom docpact import claim\n\n\n"
        '@pytest.mark.slow\n@claim("a")\ndef test_a():\n    pass\n'
    )
    assert [(b.line, b.claim) for b in bindings(tmp_path, source)] == [(7, "a")]


def test_a_plain_class_after_a_property_leaves_its_binding(tmp_path: Path) -> None:
    source = (
        'from docpact import claim\n\n\n@claim("a")\ndef test_a():\n    pass\n\n\n'
        "class Other:\n    pass\n"
    )
    assert [(b.line, b.claim) for b in bindings(tmp_path, source)] == [(4, "a")]


@pytest.mark.parametrize(
    ("imports", "decorator"),
    [
        ("from docpact import claim", '@claim("c")'),
        ("import docpact", '@docpact.claim("c")'),
    ],
    ids=["call", "attribute"],
)
def test_every_form_of_the_claim_decorator_on_a_class_is_the_same_problem(
    tmp_path: Path, imports: str, decorator: str
) -> None:
    source = f"{imports}\n\n\n{decorator}\nclass TestC:\n    pass\n"
    assert bindings(tmp_path, source) == [
        Binding(
            "test_p.py",
            4,
            "TestC",
            None,
            problem="the claim decorator decorates class TestC: bind the test function that "
            "checks the claim",
        )
    ]


def test_each_claim_of_a_property_too_deep_to_fingerprint_is_a_problem_at_its_line(
    tmp_path: Path,
) -> None:
    deep = " + ".join(["1"] * 2000)
    source = (
        f'from docpact import claim\n\n\n@claim("c")\n@claim("d")\ndef test_c():\n'
        f"    assert {deep}\n"
    )
    problem = (
        "the code of test_c is nested too deeply for docpact to fingerprint it: split its "
        "longest expression"
    )
    assert bindings(tmp_path, source) == [
        Binding("test_p.py", 4, "test_c", None, problem=problem),
        Binding("test_p.py", 5, "test_c", None, problem=problem),
    ]


def test_the_span_of_a_reviewed_string_over_two_lines_ends_on_the_second(tmp_path: Path) -> None:
    """An implicitly joined `reviewed` string ends at its last part's column, on its last line."""
    second = '    "' + "y" * 40 + '")\n'
    source = (
        f'import docpact\n\n\n@docpact.claim("a", reviewed="x"\n{second}def test_a():\n    pass\n'
    )
    [binding] = bindings(tmp_path, source)
    assert binding.span == (4, 29, 5, len(second) - 2)


def test_source_lines_split_at_line_feeds_only_and_keep_each_break() -> None:
    assert source_lines("a\r\nb\x0cc\rd\n") == ["a\r\n", "b\x0cc\rd\n"]


def test_a_file_that_cannot_be_parsed_is_a_problem_at_the_line_at_fault(tmp_path: Path) -> None:
    """A null byte is at its line; nesting beyond the parser's limit, at its longest line."""
    bound = '@claim("a")\ndef test_a():\n    pass\n'
    (tmp_path / "test_n.py").write_text("from docpact import claim\n\x00\n" + bound, "utf-8")
    (tmp_path / "test_r.py").write_text(
        "from docpact import claim\nx = " + "1+" * 100000 + "1\n" + bound, "utf-8"
    )
    assert read_bindings(tmp_path, ("test_n.py", "test_r.py")) == (
        [],
        [
            ("test_n.py", 2, "test_n.py holds a NUL byte"),
            ("test_r.py", 2, "test_r.py nests too deeply for Python's parser"),
        ],
    )


def test_a_warning_while_parsing_a_test_file_names_the_file(tmp_path: Path) -> None:
    source = (
        'from docpact import claim\n\nPATTERN = "\\d"\n\n\n@claim("a")\ndef test_a():\n    pass\n'
    )
    with pytest.warns((DeprecationWarning, SyntaxWarning)) as record:
        bindings(tmp_path, source)
    assert [(w.filename, w.lineno) for w in record] == [("test_p.py", 3)]


def test_files_after_a_missing_or_unreadable_one_are_still_read(tmp_path: Path) -> None:
    one = 'from docpact import claim\n\n\n@claim("b")\ndef test_b():\n    pass\n'
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_a.py").write_bytes(b"# caf\xe9\nimport docpact\n")
    (tmp_path / "tests/test_b.py").write_text(one, encoding="utf-8")
    found, problems = read_bindings(tmp_path, ("gone", "tests"))
    assert problems == [
        ("pyproject.toml", 0, "properties path gone does not exist"),
        (
            "tests/test_a.py",
            1,
            "tests/test_a.py cannot be read: not UTF-8 at line 1 (invalid continuation byte)",
        ),
    ]
    assert [(b.path, b.claim) for b in found] == [("tests/test_b.py", "b")]


def test_a_dot_folder_inside_a_properties_folder_is_not_searched(tmp_path: Path) -> None:
    one = 'from docpact import claim\n\n\n@claim("b")\ndef test_b():\n    pass\n'
    (tmp_path / "tests/.nox").mkdir(parents=True)
    (tmp_path / "tests/.nox/test_v.py").write_text(one, encoding="utf-8")
    (tmp_path / "tests/test_top.py").write_text(one.replace('"b"', '"a"'), encoding="utf-8")
    found, problems = read_bindings(tmp_path, ("tests",))
    assert (problems, [(b.path, b.claim) for b in found]) == ([], [("tests/test_top.py", "a")])


def test_a_module_imported_as_a_dotted_name_counts_in_the_fingerprint(tmp_path: Path) -> None:
    """`import os.path` defines `os`: the import is code the property uses."""
    source = (
        'import os.path\n\nfrom docpact import claim\n\n\n@claim("a")\ndef test_a():\n'
        "    assert os.sep\n"
    )
    assert code(tmp_path, source) != code(tmp_path, source.replace("os.path", "os.sep"))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("LIMIT: int = 3", "LIMIT: int = 4"),
        ("BOUND += 1", "BOUND += 2"),
        ("    LOW = 0\nelse", "    LOW = 1\nelse"),
        ("    HIGH = 9\n", "    HIGH = 8\n"),
        ("    STEP = 2\nexcept", "    STEP = 3\nexcept"),
        ("    STEP = 1\n", "    STEP = 5\n"),
        ("    SEED = 0\n", "    SEED = 7\n"),
        ("    WIDE = 1\n", "    WIDE = 2\n"),
    ],
    ids=["annotated", "augmented", "if", "else", "try", "except", "finally", "with"],
)
def test_every_kind_of_module_level_definition_counts_in_the_fingerprint(
    tmp_path: Path, old: str, new: str
) -> None:
    """Annotated and augmented assignments, and those in every branch of a top-level block."""
    source = """\
import contextlib

from docpact import claim

LIMIT: int = 3
BOUND = 0
BOUND += 1
if LIMIT:
    LOW = 0
else:
    HIGH = 9
try:
    STEP = 2
except ImportError:
    STEP = 1
finally:
    SEED = 0
with contextlib.suppress(ImportError):
    WIDE = 1


@claim("a")
def test_a():
    assert LIMIT + BOUND + LOW + HIGH + STEP + SEED + WIDE
"""
    assert source.count(old) == 1
    assert code(tmp_path, source.replace(old, new)) != code(tmp_path, source)


def test_only_functions_decorated_by_a_session_are_sessions(tmp_path: Path) -> None:
    """Other decorators, named or dotted, make no session and hide none below them."""
    noxfile = """\
import functools

import nox


def helper(function):
    return function


@helper
def not_a_session():
    pass


@functools.cache
def cached():
    pass


@nox.parametrize("x", [1, 2])
@nox.session
def matrix(session, x):
    pass
"""
    (tmp_path / "noxfile.py").write_text(noxfile, encoding="utf-8")
    assert sessions(tmp_path) == {"matrix"}


CLAIMS_CONTRACT = """\
[project]
name = "fixture"

[[tool.docpact.contract]]
kind = "claims"
pages = ["docs/a.md", "docs/b.md"]
properties = ["tests", "more"]
"""


def claims_findings(
    tmp_path: Path, files: dict[str, str], contract: str = CLAIMS_CONTRACT
) -> list[str]:
    """The findings of `docpact check` on a project with a claims contract and `files`."""
    files = {"pyproject.toml": contract, "docs/b.md": "# B\n", "more/x.py": "", **files}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return [str(f) for f in docpact.check_project(docpact.load_config(tmp_path / "pyproject.toml"))]


def test_every_binding_is_checked_after_a_malformed_one(tmp_path: Path) -> None:
    """A binding after a malformed one is still checked for its claim and its session."""
    props = (
        'from docpact import claim\n\n\n@claim("a", "b")\ndef test_bad():\n    pass\n\n\n'
        '@claim("gone", session="tests")\ndef test_gone():\n    pass\n'
    )
    files = {"docs/a.md": "# A\n", "tests/test_p.py": props, "noxfile.py": "import nox\n"}
    assert claims_findings(tmp_path, files) == [
        "tests/test_p.py:4: DP014 the claim decorator of test_bad takes the claim ID alone: "
        f"{USAGE}",
        "tests/test_p.py:9: DP014 property test_gone is bound to claim gone, which no claims "
        "page has (docs/a.md, docs/b.md): mark its claim with <!-- docpact: claim gone -->, or "
        "remove the binding",
        "tests/test_p.py:9: DP014 property test_gone runs in session tests, which noxfile.py "
        "does not define (it has none)",
    ]


def test_a_claim_without_a_property_names_every_properties_folder(tmp_path: Path) -> None:
    page = "# A\n\n<!-- docpact: claim lone -->\nThe claim.\n"
    assert claims_findings(tmp_path, {"docs/a.md": page, "tests/x.py": ""}) == [
        "docs/a.md:3: DP013 claim lone has no property: mark the test that checks it, in "
        'tests, more, with @pytest.mark.docpact_claim("lone") or @docpact.claim("lone"), then '
        "run docpact claims --update"
    ]


def test_a_legacy_reviewed_stamp_is_dp014_and_no_review(tmp_path: Path) -> None:
    """A `reviewed=` stamp, well formed or not, is to migrate; only the ledger holds reviews.

    Each property of the claim without a ledger review is never reviewed, the stamped ones
    too, and a malformed stamp does not hide the next property's findings.
    """
    page = "# A\n\n<!-- docpact: claim a -->\nThe claim.\n"
    props = (
        'from docpact import claim\n\n\n@claim("a")\ndef test_one():\n    pass\n\n\n'
        '@claim("a", reviewed="abc")\ndef test_two():\n    pass\n\n\n'
        '@claim("a", reviewed="000000000000/000000000000")\ndef test_three():\n    pass\n'
    )
    again = "review the one against the other, then run docpact claims --update a"
    migrate = (
        "but reviews live in the review ledger now: run docpact claims --migrate to move it there"
    )
    findings = claims_findings(tmp_path, {"docs/a.md": page, "tests/test_p.py": props})
    assert [f for f in findings if " DP014 " in f or " DP015 " in f] == [
        f"tests/test_p.py:4: DP015 property test_one was never reviewed against claim a "
        f"(docs/a.md:3): {again}",
        f"tests/test_p.py:9: DP014 property test_two carries reviewed=, {migrate}",
        f"tests/test_p.py:9: DP015 property test_two was never reviewed against claim a "
        f"(docs/a.md:3): {again}",
        f"tests/test_p.py:14: DP014 property test_three carries reviewed=, {migrate}",
        f"tests/test_p.py:14: DP015 property test_three was never reviewed against claim a "
        f"(docs/a.md:3): {again}",
    ]


WORD = (
    "claim word 'never' outside a claim block: bind the sentence to a property "
    "(<!-- docpact: claim ID -->), reword it, or give the reason it claims nothing "
    "(<!-- docpact: not-a-claim REASON -->)"
)
SUPPRESSION = "<!-- docpact: not-a-claim --> marks a block without a claim word"


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (
            "<!-- docpact: claim a -->\nThe claim.\n\nIt never fails.\n",
            [f"docs/a.md:4: DP016 {WORD}"],
        ),
        (
            "<!-- docpact: claim a -->\nThe claim.\n## It never fails\n",
            [f"docs/a.md:3: DP016 {WORD}"],
        ),
        (
            "<!-- docpact: not-a-claim a quote -->\nA quote.\n## It never fails\n",
            [
                f"docs/a.md:1: DP016 {SUPPRESSION}",
                f"docs/a.md:3: DP016 {WORD}",
            ],
        ),
        (
            "<!-- docpact: not-a-claim a quote -->\n!!! quote\n    A quote.\n\n    More.\n",
            [f"docs/a.md:1: DP016 {SUPPRESSION}"],
        ),
    ],
    ids=["after a claim", "heading after a claim", "heading after a suppression", "blank inside"],
)
def test_claim_words_are_looked_for_on_exactly_the_lines_outside_the_blocks(
    tmp_path: Path, page: str, expected: list[str]
) -> None:
    """A line right after a block is outside it; a blank line inside a block is in it."""
    props = 'from docpact import claim\n\n\n@claim("a")\ndef test_a():\n    pass\n'
    files = {"docs/a.md": page, "tests/test_p.py": props}
    findings = claims_findings(tmp_path, files, CLAIMS_CONTRACT + 'scope = "pages"\n')
    assert [f for f in findings if " DP016 " in f] == expected


MARKERS = {
    "pytest.mark": ("import pytest", "@pytest.mark.docpact_claim"),
    "mark": ("from pytest import mark", "@mark.docpact_claim"),
    "pytest aliased": ("import pytest as pt", "@pt.mark.docpact_claim"),
}


@pytest.mark.parametrize(("imports", "marker"), MARKERS.values(), ids=MARKERS.keys())
def test_the_marker_binds_a_property_without_importing_docpact(
    tmp_path: Path, imports: str, marker: str
) -> None:
    source = (
        f'{imports}\n\n\n{marker}("sum-one", reviewed="{REVIEWED}")\ndef test_sum():\n    pass\n'
    )
    [binding] = bindings(tmp_path, source)
    assert (binding.line, binding.function, binding.claim, binding.reviewed, binding.problem) == (
        4,
        "test_sum",
        "sum-one",
        REVIEWED,
        "",
    )


def test_the_marker_is_left_out_of_the_code_fingerprint(tmp_path: Path) -> None:
    """Its stamp and session change no fingerprint; the property's body does."""
    marked = 'import pytest\n\n\n@pytest.mark.docpact_claim("a")\ndef test_a():\n    assert 1\n'
    codes = []
    for name, source in [
        ("plain", marked),
        ("stamped", marked.replace('("a")', f'("a", reviewed="{REVIEWED}", session="s")')),
        ("changed", marked.replace("assert 1", "assert 2")),
    ]:
        (tmp_path / name).mkdir()
        [binding] = bindings(tmp_path / name, source)
        codes.append(binding.code)
    assert codes[0] == codes[1] != codes[2]


def test_a_marker_with_arguments_that_are_not_literals_is_malformed(tmp_path: Path) -> None:
    source = (
        'import pytest\n\nID = "a"\n\n\n@pytest.mark.docpact_claim(ID)\ndef test_a():\n    pass\n'
    )
    [binding] = bindings(tmp_path, source)
    assert (binding.line, binding.claim) == (6, None)
    assert binding.problem.startswith("the claim decorator of test_a needs string literals")


def test_other_markers_bind_nothing(tmp_path: Path) -> None:
    source = (
        "import pytest\n\n\n@pytest.mark.claim('a')\n@pytest.docpact_claim('b')\n"
        "@mark.docpact_claim.other('c')\ndef test_a():\n    pass\n"
    )
    assert bindings(tmp_path, source) == []


def test_a_method_s_binding_names_its_pytest_node_id(tmp_path: Path) -> None:
    source = (
        "import pytest\n\n\nclass TestMass:\n    class TestInner:\n"
        '        @pytest.mark.docpact_claim("a")\n        def test_a(self):\n            pass\n'
    )
    [binding] = bindings(tmp_path, source)
    assert (binding.function, binding.node) == ("test_a", "TestMass::TestInner::test_a")


def test_a_decorator_that_is_neither_a_name_nor_an_attribute_binds_nothing(
    tmp_path: Path,
) -> None:
    """A subscript decorator, beside the claim on a function or alone on a class, is no claim."""
    source = (
        "from docpact import claim\n\nMARKS = [lambda thing: thing]\n\n\n"
        '@MARKS[0]\n@claim("a")\ndef test_a():\n    pass\n\n\n@MARKS[0]\nclass TestB:\n    pass\n'
    )
    assert [(b.line, b.claim, b.problem) for b in bindings(tmp_path, source)] == [(7, "a", "")]


def test_a_property_inside_a_top_level_block_has_its_name_as_node_id(tmp_path: Path) -> None:
    source = (
        "import sys\n\nfrom docpact import claim\n\nif sys.platform:\n\n"
        '    @claim("a")\n    def test_a():\n        pass\n'
    )
    [binding] = bindings(tmp_path, source)
    assert (binding.line, binding.function, binding.node) == (7, "test_a", "test_a")


TEXT_BINDING = (
    'from docpact import claim\n\n\n@claim(\n    "a",\n    reviewed="0123456789ab/ba9876543210",\n'
    ")\ndef test_a():\n    pass\n"
)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_text_bindings_are_read_alike_whatever_the_line_breaks(newline: str) -> None:
    """A text's bindings keep their path, lines and span under CRLF or CR line breaks."""
    [binding] = read_text_bindings(TEXT_BINDING.replace("\n", newline), "tests/test_a.py")
    assert (binding.path, binding.line, binding.claim, binding.reviewed, binding.span) == (
        "tests/test_a.py",
        4,
        "a",
        REVIEWED,
        (6, 13, 6, 40),
    )
    assert binding.node == "test_a"


def test_a_text_that_does_not_parse_raises_a_syntax_error_naming_its_path() -> None:
    with pytest.raises(SyntaxError) as caught:
        read_text_bindings("def (:\n", "tests/test_a.py")
    assert (caught.value.filename, caught.value.lineno) == ("tests/test_a.py", 1)


def test_a_known_code_is_the_one_of_its_claim_where_two_properties_share_a_name(
    tmp_path: Path,
) -> None:
    """A test defined twice, bound to two claims: a review's code is its own claim's."""
    source = (
        'from docpact import claim\n\n\n@claim("a")\ndef test_x():\n    assert 1\n\n\n'
        '@claim("b")\ndef test_x():\n    assert 2\n'
    )
    (tmp_path / "test_p.py").write_text(source, encoding="utf-8")
    plain, _ = read_bindings(tmp_path, ("test_p.py",))
    codes = {binding.claim: binding.code for binding in plain}
    assert codes["a"] != codes["b"]
    blob = blob_id((tmp_path / "test_p.py").read_bytes())
    known = {"test_p.py": {blob: {("test_x", "b"): codes["b"]}}}
    reused, _ = read_bindings(tmp_path, ("test_p.py",), known)
    assert {binding.claim: binding.code for binding in reused} == codes
    stale = {"test_p.py": {"0" * 40: {("test_x", "a"): "f" * 12}}}  # another file's bytes
    again, _ = read_bindings(tmp_path, ("test_p.py",), stale)
    assert {binding.claim: binding.code for binding in again} == codes
