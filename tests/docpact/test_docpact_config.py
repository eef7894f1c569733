# SPDX-License-Identifier: MIT
"""The `[tool.docpact]` table as `load_config` reads it, its errors, and the packages it names."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from docpact import Contract, DocpactError, check_project, find_pyproject, load_config
from docpact._model.config import DEFAULT_HEADINGS, Headings
from docpact._model.rules import Kind
from docpact._registry import KINDS
from samples.drift import copy_project, drift, line_of

PYPROJECT = "pyproject.toml"
CONTRACT = """[[tool.docpact.contract]]
object = "ratio._divide.scale_by_rollout"
operands = ["rollout_token_count", "num_trained_rows"]
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder, made the current one so that messages name `pyproject.toml` plainly."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def error_of(folder: Path, text: str, *, contracts: bool = True) -> str:
    """The message of the configuration error that a `pyproject.toml` with `text` raises."""
    (folder / PYPROJECT).write_text(text, "utf-8")
    with pytest.raises(DocpactError) as error:
        load_config(folder / PYPROJECT, contracts=contracts)
    return str(error.value)


def test_no_pyproject_in_a_folder_or_above_it_is_an_error_naming_the_folder(here: Path) -> None:
    """find_pyproject names the folder it started from, relative to the current folder."""
    (here / "a/b").mkdir(parents=True)
    assert not any((folder / PYPROJECT).is_file() for folder in here.parents)
    with pytest.raises(DocpactError) as error:
        find_pyproject(here / "a/b")
    assert str(error.value) == "a/b: error: no pyproject.toml in this folder or above it"


@pytest.mark.parametrize(
    ("text", "line"),
    [('[project]\nname = "x"\nversion = = 1\n', 3), ('[project]\nname = "x"\nversion =', 1)],
)
def test_invalid_toml_is_an_error_at_the_line_tomllib_names(
    here: Path, text: str, line: int
) -> None:
    """The line comes from tomllib's `at line N`; an error at the end of the file is at line 1."""
    with pytest.raises(tomllib.TOMLDecodeError) as toml:
        tomllib.loads(text)
    expected = f"{PYPROJECT}:{line}: error: is not valid TOML: {toml.value}"
    assert error_of(here, text) == expected


CONFIG_DEFAULTS = '[[tool.docpact.contract]]\nkind = "config-defaults"\ndocs = ["d.md#x"]\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[project]\nname = "x"\n', "1: error: no [[tool.docpact.contract]] table"),
        (
            "[tool.docpact]\ncontract = [1]\n",
            "1: error: tool.docpact.contract[0] must be a table, got 1",
        ),
        (
            f'\n{CONFIG_DEFAULTS}file = ""\n',
            "5: error: tool.docpact.contract[0].file must be a path inside the project root, "
            "got ''",
        ),
        (
            f'\n{CONFIG_DEFAULTS}file = "conf/x\\u0000.yaml"\n',
            "5: error: tool.docpact.contract[0].file must be a path inside the project root, "
            "got 'conf/x\\x00.yaml'",
        ),
        (
            f'\n{CONFIG_DEFAULTS}file = "conf\\\\..\\\\..\\\\x.yaml"\n',
            "5: error: tool.docpact.contract[0].file must be a path inside the project root, "
            "got 'conf\\\\..\\\\..\\\\x.yaml'",
        ),
        (
            f'{CONTRACT}docs = ["docs/guide.md#a#b"]\n',
            "4: error: tool.docpact.contract[0].docs must be a list of 'page.md#anchor' "
            "strings, got ['docs/guide.md#a#b']",
        ),
        (
            f'{CONTRACT}docs = ["../guide.md#a"]\n',
            "1: error: tool.docpact.contract[0].docs names ../guide.md, which is absolute or "
            "outside the project root; list pages relative to the folder of pyproject.toml, "
            "inside it",
        ),
        (
            f'[tool.docpact]\npaths = ["..\\\\elsewhere"]\n\n{CONTRACT}',
            "2: error: tool.docpact.paths lists ['..\\\\elsewhere'], absolute or outside the "
            "project root",
        ),
    ],
)
def test_a_configuration_error_is_exactly_its_line_and_message(
    here: Path, text: str, message: str
) -> None:
    """Each error names pyproject.toml, the line of the key at fault, and what is wrong."""
    assert error_of(here, text) == f"{PYPROJECT}:{message}"


@pytest.mark.parametrize(
    ("coverage", "got"), [('"ratio"', "'ratio'"), ('["ratio.1x"]', "['ratio.1x']")]
)
def test_coverage_must_list_dotted_package_names(here: Path, coverage: str, got: str) -> None:
    """A bare string, or a dotted name with a part that is no identifier, is refused."""
    message = error_of(here, f"[tool.docpact]\n\ncoverage = {coverage}\n", contracts=False)
    assert message == (
        f"{PYPROJECT}:3: error: tool.docpact.coverage must be a list of dotted package names, "
        f"got {got}"
    )


def test_a_key_missing_from_the_docpact_table_is_not_looked_for_in_the_next_table(
    here: Path,
) -> None:
    """`[tool.docpact.paths]` right after `[tool.docpact]`: the error is at the table's header."""
    text = "[project]\n[tool.docpact]\n[tool.docpact.paths]\npaths = 1\n"
    message = error_of(here, text, contracts=False)
    assert message == (
        f"{PYPROJECT}:2: error: tool.docpact.paths must be a non-empty list of folder names, "
        "got {'paths': 1}"
    )


def test_a_kind_that_needs_several_keys_names_each_missing_one(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The missing keys are listed sorted, comma-separated, with the kind's name."""
    pair = Kind("pair", "two keys", frozenset({"object", "file"}), frozenset(), "name", ())
    monkeypatch.setitem(KINDS, "pair", pair)
    message = error_of(here, '[[tool.docpact.contract]]\nkind = "pair"\n')
    assert message == (
        f"{PYPROJECT}:1: error: tool.docpact.contract[0] needs file, object for a pair contract"
    )


def test_without_required_contracts_declared_ones_are_still_read(here: Path) -> None:
    """`contracts=False` (docpact coverage) still validates and numbers the contracts there."""
    (here / PYPROJECT).write_text(f"[project]\n\n{CONTRACT}", "utf-8")
    config = load_config(here / PYPROJECT, contracts=False)
    assert [(c.object, c.operands, c.line) for c in config.contracts] == [
        ("ratio._divide.scale_by_rollout", ("rollout_token_count", "num_trained_rows"), 3)
    ]


def test_contracts_in_an_inline_array_are_all_at_line_1(here: Path) -> None:
    """Inline tables have no `[[...]]` header: each contract's findings point at line 1."""
    inline = '{object = "a.f", operands = ["x"]}'
    (here / PYPROJECT).write_text(f"\n[tool.docpact]\ncontract = [{inline}, {inline}]\n", "utf-8")
    config = load_config(here / PYPROJECT)
    assert [(c.object, c.line) for c in config.contracts] == [("a.f", 1), ("a.f", 1)]


def test_contracts_with_docs_take_their_anchors_from_mkdocs_yml(tmp_path: Path) -> None:
    """The toc settings that shape anchors come from mkdocs.yml once a contract lists docs."""
    project = copy_project("contract_project", tmp_path)
    assert load_config(project / PYPROJECT).headings == Headings(("toc",), (), False)
    with (project / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write("markdown_extensions:\n  - attr_list\n  - toc:\n      separator: _\n")
    assert load_config(project / PYPROJECT).headings == Headings(
        ("toc", "attr_list"), (("separator", "_"),), False
    )


def test_contracts_without_docs_never_read_the_sites_anchors(tmp_path: Path) -> None:
    """Without docs sections, a toc slugify that cannot be imported is never imported."""
    project = copy_project("contract_project", tmp_path)
    drift(project / PYPROJECT, 'docs = ["docs/guide.md#per-rollout-mean-loss"]\n', "")
    with (project / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write("markdown_extensions:\n  - toc:\n      slugify: !!python/name:gone.slug\n")
    assert load_config(project / PYPROJECT).headings == DEFAULT_HEADINGS


def test_every_package_that_cannot_be_found_is_reported(tmp_path: Path) -> None:
    """A missing package does not stop the check: the next package's contracts are reported."""
    project = copy_project("contract_project", tmp_path)
    with (project / PYPROJECT).open("a", encoding="utf-8") as file:
        for package in ("alpha", "omega"):
            file.write(f'\n[[tool.docpact.contract]]\nobject = "{package}.f"\noperands = ["x"]\n')
    findings = check_project(load_config(project / PYPROJECT))
    assert [(f.code, f.line, f.message) for f in findings] == [
        (
            "DP001",
            line_of(project / PYPROJECT, '"alpha.f"') - 1,
            "alpha.f does not exist: no package alpha under src/, ./",
        ),
        (
            "DP001",
            line_of(project / PYPROJECT, '"omega.f"') - 1,
            "omega.f does not exist: no package omega under src/, ./",
        ),
    ]


def test_a_folder_named_like_the_package_in_the_current_folder_is_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Packages are searched for in the configured paths only, never relative to the cwd."""
    project = copy_project("contract_project", tmp_path)
    (tmp_path / "ratio").mkdir()
    (tmp_path / "ratio/__init__.py").write_text('"""Not the project\'s package."""\n', "utf-8")
    monkeypatch.chdir(tmp_path)
    assert check_project(load_config(project / PYPROJECT)) == []


CLAIMS = (
    '[[tool.docpact.contract]]\nkind = "claims"\npages = ["docs/a.md"]\nproperties = ["tests"]\n'
)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            '"docs/a.md"',
            '"docs/a\\u0000.md"',
            "3: error: tool.docpact.contract[0].pages must be a non-empty list of paths inside "
            "the project root, got ['docs/a\\x00.md']",
        ),
        (
            '["tests"]',
            '["tests", "tests"]',
            "4: error: tool.docpact.contract[0].properties lists ['tests'] more than once; list "
            "each once",
        ),
        (
            '["tests"]\n',
            '["tests"]\nwords = ["two words"]\n',
            "5: error: tool.docpact.contract[0].words must be a list of words, each letters, "
            "optionally ending in * to match longer words too, got ['two words']",
        ),
    ],
    ids=["null byte", "twice", "two words"],
)
def test_a_malformed_claims_contract_is_exactly_its_line_and_message(
    here: Path, old: str, new: str, message: str
) -> None:
    assert error_of(here, CLAIMS.replace(old, new)) == f"{PYPROJECT}:{message}"


def test_claim_words_may_be_capitalized_and_starred(here: Path) -> None:
    (here / PYPROJECT).write_text(f'{CLAIMS}words = ["Never", "Guarantee*"]\n', "utf-8")
    [contract] = load_config(here / PYPROJECT).contracts
    assert contract.words == ("Never", "Guarantee*")


def test_a_config_defaults_block_after_a_claim_marker_is_collected(tmp_path: Path) -> None:
    """Claim markers are skipped, not the end of the page's config-defaults blocks."""
    from sybil import Document

    from docpact.sybil import ConfigDefaultsParser

    page = (
        "<!-- docpact: claim a -->\nThe claim.\n\n<!-- docpact: config-defaults d.yaml -->\n"
        "```yaml\nx: 1\n```\n"
    )
    regions = list(ConfigDefaultsParser(tmp_path)(Document(page, str(tmp_path / "page.md"))))
    assert [(r.start, r.parsed.file, r.parsed.source) for r in regions] == [
        (page.index("<!-- docpact: config"), "d.yaml", "x: 1\n")
    ]


def test_load_config_requires_contracts_unless_told_otherwise(here: Path) -> None:
    """As the MkDocs plugin and the griffe extension call it, a table without one is an error."""
    (here / PYPROJECT).write_text('[tool.docpact]\npaths = ["src"]\n', "utf-8")
    with pytest.raises(DocpactError) as error:
        load_config(here / PYPROJECT)
    assert str(error.value) == (
        f"{PYPROJECT}:1: error: tool.docpact.contract must be a non-empty array of tables, got None"
    )


# A kind without a parser, as another distribution may register one: docpact parses it.
PLAIN = Kind("plain", "docs sections only", frozenset(), frozenset({"docs"}), "section", ())


def test_a_kind_without_a_parser_gives_a_contract_of_its_kind_and_docs(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each table becomes a plain `Contract`: its kind, its line and its `docs`, if any."""
    monkeypatch.setitem(KINDS, "plain", PLAIN)
    text = (
        '[[tool.docpact.contract]]\nkind = "plain"\ndocs = ["d.md#x", "d.md#y"]\n\n'
        '[[tool.docpact.contract]]\nkind = "plain"\n'
    )
    (here / PYPROJECT).write_text(text, "utf-8")
    assert load_config(here / PYPROJECT).contracts == (
        Contract(kind="plain", line=1, docs=("d.md#x", "d.md#y")),
        Contract(kind="plain", line=5),
    )


def test_a_kind_without_a_parser_has_its_docs_checked_at_their_line(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`docs` must be a list of sections, as for docpact's own kinds."""
    monkeypatch.setitem(KINDS, "plain", PLAIN)
    message = error_of(here, '[[tool.docpact.contract]]\nkind = "plain"\ndocs = "d.md#x"\n')
    assert message == (
        f"{PYPROJECT}:3: error: tool.docpact.contract[0].docs must be a list of "
        "'page.md#anchor' strings, got 'd.md#x'"
    )


def test_a_kinds_parser_is_given_the_table_without_its_kind_key(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kind` picks the parser; the parser sees only the kind's own keys."""
    given: list[list[str]] = []

    def parse(entry: dict[str, object], key: str) -> Contract:
        given.append(sorted(entry))
        return Contract(kind="pages")

    pages = Kind("pages", "pages", frozenset({"pages"}), frozenset(), "page", (), parse=parse)
    monkeypatch.setitem(KINDS, "pages", pages)
    (here / PYPROJECT).write_text(
        '[[tool.docpact.contract]]\nkind = "pages"\npages = []\n', "utf-8"
    )
    load_config(here / PYPROJECT)
    assert given == [["pages"]]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[tool]\ndocpact = "x"\n', "1: error: tool.docpact must be a table, got 'x'"),
        ("[tool]\ndocpact = [1]\n", "1: error: tool.docpact must be a table, got [1]"),
        ("[tool]\ndocpact = 5\n", "1: error: tool.docpact must be a table, got 5"),
    ],
)
@pytest.mark.parametrize("contracts", [True, False])
def test_a_docpact_key_that_is_not_a_table_is_refused_at_its_line(
    here: Path, text: str, message: str, *, contracts: bool
) -> None:
    """`tool.docpact` a string, list or int is a located error, for `check` and `coverage`."""
    assert error_of(here, text, contracts=contracts) == f"{PYPROJECT}:{message}"


@pytest.mark.parametrize("key", ["coverag", "path", "docstring_style", "contracts", "exclude"])
def test_a_misspelt_key_beside_coverage_is_refused_without_contracts(here: Path, key: str) -> None:
    """A table for `docpact coverage` alone is checked for unknown keys like any other."""
    message = error_of(
        here, f'[tool.docpact]\ncoverage = ["pkg"]\n{key} = ["pkg"]\n', contracts=False
    )
    assert message == (
        f"{PYPROJECT}:1: error: tool.docpact has unknown keys [{key!r}]; known keys are "
        "['contract', 'coverage', 'docstring-style', 'examples', 'paths']"
    )


def test_an_integer_too_long_for_python_is_refused_at_its_line(here: Path) -> None:
    """A 5000-digit integer names Python's limit and how to raise it, at its line."""
    message = error_of(here, f'[tool.docpact]\npaths = ["src"]\nx = {"9" * 5000}\n')
    assert message == (
        f"{PYPROJECT}:3: error: has an integer of 5000 digits, over Python's limit of 4300 "
        "digits for converting text to an int (set PYTHONINTMAXSTRDIGITS to raise it)"
    )


def test_arrays_nested_deeper_than_tomllib_reads_are_refused_at_their_line(here: Path) -> None:
    """Arrays 1200 deep, past the recursion limit tomllib follows, are a located error."""
    message = error_of(here, f"[tool.docpact]\n\npaths = {'[' * 1200}{']' * 1200}\n")
    assert message == f"{PYPROJECT}:3: error: nests arrays or tables deeper than tomllib can read"
