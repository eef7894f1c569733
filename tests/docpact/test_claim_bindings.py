# SPDX-License-Identifier: MIT
"""Properties bound to claims: the `claim` decorator, its static reader, code fingerprints."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import docpact
from docpact._bindings import Binding, code_fingerprint, read_bindings, sessions

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

    bound = docpact.claim("sum-one", reviewed=REVIEWED, session="slow")(test_it)
    assert bound is test_it
    assert test_it.__docpact_claim__ == {  # type: ignore[attr-defined]
        "claim": "sum-one",
        "reviewed": REVIEWED,
        "session": "slow",
    }


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ("Sum",),
            "claim_id must be a claim ID such as 'mass-per-rollout', got 'Sum'",
        ),
        ((7,), "claim_id must be a claim ID such as 'mass-per-rollout', got 7"),
        (
            ("a", "abc"),
            "reviewed must be empty or TEXT/CODE, 12 hex digits each, got 'abc'",
        ),
        (
            ("a", REVIEWED.upper()),
            "reviewed must be empty or TEXT/CODE, 12 hex digits each, got "
            "'0123456789AB/BA9876543210'",
        ),
        (("a", None), "reviewed must be empty or TEXT/CODE, 12 hex digits each, got None"),
        (("a", "", "two words"), "session must be empty or a nox session name, got 'two words'"),
        (("a", "", 3), "session must be empty or a nox session name, got 3"),
    ],
    ids=["bad id", "int id", "bad reviewed", "upper hex", "None reviewed", "bad session", "int"],
)
def test_the_decorator_rejects_malformed_arguments(arguments: tuple, message: str) -> None:
    claim_id, reviewed, session = (*arguments, "", "")[:3]
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        docpact.claim(claim_id, reviewed=reviewed, session=session)


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
    )
    assert len(binding.code) == 12
    assert int(binding.code, 16) >= 0


@pytest.mark.parametrize(
    ("imports", "decorator"),
    [
        ("from docpact import claim as c", "c"),
        ("import docpact", "docpact.claim"),
        ("import docpact as d", "d.claim"),
        ("import docpact.sybil", "docpact.claim"),
        ("from docpact import (\n    Finding,\n    claim,\n)", "claim"),
    ],
    ids=["as c", "import docpact", "as d", "import docpact.sybil", "parenthesized"],
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
        ("@claim", f"the claim decorator of test_it takes the claim ID alone: {USAGE}"),
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
        "bare",
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
        [("test_p.py", 3, "test_p.py cannot be parsed: '(' was never closed")],
    )


def test_a_file_that_is_not_utf8_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "test_p.py").write_bytes(b"# caf\xe9\nimport docpact\n")
    assert read_bindings(tmp_path, ("test_p.py",)) == (
        [],
        [("test_p.py", 1, "test_p.py cannot be read: not UTF-8 (invalid continuation byte)")],
    )


def test_an_unreadable_file_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_p.py").write_text("import docpact\n", encoding="utf-8")

    def denied(self: Path, *args: object, **kwargs: object) -> str:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_text", denied)
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


def test_without_reviewed_the_span_is_the_end_of_the_last_argument(tmp_path: Path) -> None:
    source = (
        'import docpact\n\n\n@docpact.claim(\n    "a",\n    session="slow",\n)\n'
        "def test_a():\n    pass\n"
    )
    [binding] = bindings(tmp_path, source)
    assert (binding.has_reviewed, binding.span) == (False, (6, 12, 6, 18))


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


def test_a_strategy_imported_from_the_properties_folders_counts_in_the_fingerprint(
    tmp_path: Path,
) -> None:
    """Narrowing a strategy in a module beside the property changes the property's code."""
    strategies = "LIMIT = 6\n\n\ndef batches():\n    return list(range(LIMIT))\n"
    files = {"tests/test_c.py": PROPERTY, "tests/strategies.py": strategies}
    before = _fingerprint_of(tmp_path, files)
    files["tests/strategies.py"] = strategies.replace("LIMIT = 6", "LIMIT = 1")
    assert _fingerprint_of(tmp_path, files) != before
    files["tests/strategies.py"] = strategies + "\n\ndef unused():\n    return 2\n"
    files["tests/strategies.py"] = strategies.replace("LIMIT = 6", "LIMIT = 6  # comment")
    assert _fingerprint_of(tmp_path, files) == before


def test_a_module_outside_the_properties_folders_is_not_followed(tmp_path: Path) -> None:
    """The code under test, outside the properties paths, leaves the fingerprint alone."""
    files = {"tests/test_c.py": PROPERTY, "strategies.py": "def batches():\n    return 1\n"}
    before = _fingerprint_of(tmp_path, files)
    files["strategies.py"] = "def batches():\n    return 2\n"
    assert _fingerprint_of(tmp_path, files) == before


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
