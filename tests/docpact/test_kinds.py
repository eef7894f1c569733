# SPDX-License-Identifier: MIT
"""The contract kinds besides `divisor`: `names` and `config-defaults`, and the kind key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from sybil.example import SybilFailure

from docpact import DocpactError, check_project, load_config
from docpact.__main__ import main
from docpact._readers.data import differences
from docpact._readers.markdown.directives import block_after
from docpact._readers.yaml_safe import SafeLoader
from docpact.sybil import docs_sybil
from samples.drift import copy_project, drift, line_of

PYPROJECT = "pyproject.toml"
GUIDE = "docs/guide.md"
NAMES = """
[[tool.docpact.contract]]
kind = "names"
object = "ratio.RolloutStats"
names = ["rollout_token_count", "RolloutStats"]
docs = ["docs/guide.md#rollout-stats"]
"""
SECTION = """
## Rollout stats

`RolloutStats` keeps `rollout_token_count` per rollout.
"""
DEFAULTS = """
[[tool.docpact.contract]]
kind = "config-defaults"
file = "conf/defaults.yaml"
docs = ["docs/guide.md#defaults"]
"""
BLOCK = """
## Defaults

<!-- docpact: config-defaults conf/defaults.yaml -->
```yaml
trainer:
  epochs: 1
  warmup: 10
```
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The fixture project with a names contract and a config-defaults contract that hold."""
    path = copy_project("contract_project", tmp_path)
    with (path / PYPROJECT).open("a", encoding="utf-8") as file:
        file.write(NAMES + DEFAULTS)
    with (path / GUIDE).open("a", encoding="utf-8") as file:
        file.write(SECTION + BLOCK)
    drift(
        path / "src/ratio/_divide.py",
        '"""Counts kept per rollout."""',
        '"""Counts kept per rollout: `rollout_token_count` for each, in a `RolloutStats`."""',
    )
    (path / "conf").mkdir()
    (path / "conf/defaults.yaml").write_text("trainer:\n  epochs: 1\n  warmup: 10\n", "utf-8")
    return path


def codes(project: Path) -> list[tuple[str, str, int]]:
    return [(f.code, f.path, f.line) for f in check_project(load_config(project / PYPROJECT))]


def test_the_new_kinds_hold_on_the_fixture(project: Path) -> None:
    """A class named in its docstring and docs, and a block equal to its file: no finding."""
    config = load_config(project / PYPROJECT)
    assert [contract.kind for contract in config.contracts] == [
        "divisor",
        "names",
        "config-defaults",
    ]
    assert codes(project) == []


def test_a_name_missing_from_the_docstring_is_dp002(project: Path) -> None:
    """A names contract needs no division: a class's docstring must name each name."""
    drift(project / "src/ratio/_divide.py", "`rollout_token_count` for each, ", "")
    [finding] = check_project(load_config(project / PYPROJECT))
    assert (finding.code, finding.message) == (
        "DP002",
        "docstring of ratio.RolloutStats does not name identifier `rollout_token_count` as "
        "inline code",
    )


def test_a_name_missing_from_the_docs_is_dp004(project: Path) -> None:
    """Each listed section must name every name as inline code."""
    drift(project / GUIDE, "`RolloutStats` keeps", "It keeps")
    [finding] = check_project(load_config(project / PYPROJECT))
    assert (finding.code, finding.path, finding.line) == (
        "DP004",
        GUIDE,
        line_of(project / GUIDE, "## Rollout stats"),
    )
    assert "does not name identifier `RolloutStats`" in finding.message


def test_a_names_object_that_is_gone_is_dp001(project: Path) -> None:
    """The object of a names contract must exist; its other rules are then skipped."""
    drift(project / PYPROJECT, 'object = "ratio.RolloutStats"', 'object = "ratio.Gone"')
    [finding] = check_project(load_config(project / PYPROJECT))
    assert (finding.code, finding.message) == ("DP001", "ratio.Gone does not exist")


def test_a_default_changed_in_the_file_is_dp007_at_the_block(project: Path) -> None:
    """The block and the file differ as data: DP007 at the announcing comment, keys named."""
    drift(project / "conf/defaults.yaml", "warmup: 10", "warmup: 20")
    [finding] = check_project(load_config(project / PYPROJECT))
    line = line_of(project / GUIDE, "<!-- docpact: config-defaults conf/defaults.yaml -->")
    assert (finding.code, finding.path, finding.line) == ("DP007", GUIDE, line)
    assert finding.message == (
        "the yaml block differs from conf/defaults.yaml: trainer.warmup: the docs have 10, "
        "conf/defaults.yaml has 20"
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "<!-- docpact: config-defaults conf/defaults.yaml -->\n",
            "",
            "has no yaml block announced",
        ),
        ("  warmup: 10\n```", "  warmup: [10\n```", "the yaml block is not valid YAML"),
        ("  epochs: 1\n", "", "trainer.epochs: missing from the docs (conf/defaults.yaml has 1)"),
        ("  epochs: 1\n", "  epochs: 1.0\n", "trainer.epochs: the docs have 1.0"),
    ],
)
def test_each_way_a_block_can_drift_is_dp007(
    project: Path, old: str, new: str, message: str
) -> None:
    """No block, a block that is not YAML, a missing key or another type: one DP007 each."""
    drift(project / GUIDE, old, new)
    [finding] = check_project(load_config(project / PYPROJECT))
    assert finding.code == "DP007"
    assert message in finding.message


@pytest.mark.parametrize(
    ("data", "message"),
    [(None, "conf/defaults.yaml cannot be read: No such file"), (b"a: [", "is not valid YAML")],
)
def test_an_unreadable_file_is_dp007_at_the_contract(
    project: Path, data: bytes | None, message: str
) -> None:
    """A missing or broken packaged file is a finding at the contract, never a traceback."""
    target = project / "conf/defaults.yaml"
    if data is None:
        target.unlink()
    else:
        target.write_bytes(data)
    [finding] = check_project(load_config(project / PYPROJECT))
    assert (finding.code, finding.path) == ("DP007", PYPROJECT)
    assert finding.line == line_of(project / PYPROJECT, 'kind = "config-defaults"') - 1
    assert message in finding.message


def test_a_missing_section_of_a_config_defaults_contract_is_dp005(project: Path) -> None:
    drift(project / GUIDE, "## Defaults", "## Settings")
    [finding] = check_project(load_config(project / PYPROJECT))
    assert finding.code == "DP005"
    assert "has no heading with anchor #defaults, listed for conf/defaults.yaml" in finding.message


def test_the_command_line_reports_the_new_kinds(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`docpact check` runs every kind, and --select picks DP007 alone."""
    monkeypatch.chdir(project)
    drift(project / "conf/defaults.yaml", "warmup: 10", "warmup: 20")
    drift(project / GUIDE, "`RolloutStats` keeps", "It keeps")
    assert main(["check"]) == 1
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines()] == ["DP004", "DP007"]
    assert main(["check", "--select", "DP007"]) == 1
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines()] == ["DP007"]


@pytest.mark.parametrize(
    ("contract", "message"),
    [
        (
            'kind = "ratio"\nobject = "ratio.x"\n',
            "kind must be one of ['claims', 'codes', 'config-defaults', 'divisor', 'kinds', "
            "'names'], got 'ratio'",
        ),
        ('kind = "names"\nobject = "ratio.x"\n', "names must be a non-empty list of Python names"),
        (
            'kind = "names"\nobject = "ratio.x"\nnames = ["a"]\noperands = ["b"]\n',
            "has unknown keys ['operands']; a names contract takes",
        ),
        (
            'kind = "config-defaults"\ndocs = ["docs/guide.md#x"]\n',
            "needs file for a config-defaults contract",
        ),
        (
            'kind = "config-defaults"\nfile = "../x.yaml"\ndocs = ["docs/guide.md#x"]\n',
            "file must be a path inside the project root",
        ),
        (
            'kind = "config-defaults"\nfile = "x.yaml"\n',
            "docs must list at least one 'page.md#anchor'",
        ),
        ('kind = "names"\nnames = ["a"]\n', "needs object for a names contract"),
        ('kind = ["divisor"]\nobject = "ratio.x"\n', "kind must be one of"),
    ],
)
def test_a_malformed_contract_of_any_kind_names_its_line_and_key(
    tmp_path: Path, contract: str, message: str
) -> None:
    """Each malformed contract is a configuration error at its table's line, naming the key."""
    pyproject = tmp_path / PYPROJECT
    pyproject.write_text(f"[project]\nname = 'x'\n\n[[tool.docpact.contract]]\n{contract}", "utf-8")
    with pytest.raises(DocpactError) as error:
        load_config(pyproject)
    assert f"{PYPROJECT}:" in str(error.value)
    assert "tool.docpact.contract[0]" in str(error.value)
    assert message in str(error.value)


MALFORMED = {
    "kinds without object": (
        'kind = "kinds"\n',
        4,
        "tool.docpact.contract[0] needs object for a kinds contract",
    ),
    "kinds object not dotted": (
        'kind = "kinds"\nobject = "1x"\n',
        6,
        "tool.docpact.contract[0].object must be a dotted Python path, got '1x'",
    ),
    "kinds docs not sections": (
        'kind = "kinds"\nobject = "ratio"\ndocs = ["guide.md"]\n',
        7,
        "tool.docpact.contract[0].docs must be a list of 'page.md#anchor' strings, got "
        "['guide.md']",
    ),
    "names object not dotted": (
        'kind = "names"\nobject = "ratio."\nnames = ["a"]\n',
        6,
        "tool.docpact.contract[0].object must be a dotted Python path, got 'ratio.'",
    ),
    "names docs not a list": (
        'kind = "names"\nobject = "ratio"\nnames = ["a"]\ndocs = "guide.md#a"\n',
        8,
        "tool.docpact.contract[0].docs must be a list of 'page.md#anchor' strings, got "
        "'guide.md#a'",
    ),
    "config-defaults without docs": (
        'kind = "config-defaults"\nfile = "x.yaml"\n',
        4,
        "tool.docpact.contract[0].docs must list at least one 'page.md#anchor' for a "
        "config-defaults contract",
    ),
}


@pytest.mark.parametrize(("contract", "line", "message"), MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_contract_is_an_error_at_the_key_at_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, contract: str, line: int, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    pyproject = tmp_path / PYPROJECT
    pyproject.write_text(f"[project]\nname = 'x'\n\n[[tool.docpact.contract]]\n{contract}", "utf-8")
    with pytest.raises(DocpactError) as error:
        load_config(pyproject)
    assert str(error.value) == f"{PYPROJECT}:{line}: error: {message}"


def test_a_kinds_contract_may_list_no_docs(tmp_path: Path) -> None:
    pyproject = tmp_path / PYPROJECT
    pyproject.write_text('[[tool.docpact.contract]]\nkind = "kinds"\nobject = "ratio"\n', "utf-8")
    [contract] = load_config(pyproject).contracts
    assert (contract.kind, contract.docs) == ("kinds", ())


@pytest.mark.parametrize(
    ("page", "source"),
    [
        ("<!-- docpact: config-defaults f.yaml -->\n```yaml\na: 1\n```\n", "a: 1\n"),
        ("<!-- docpact: config-defaults f.yaml -->\n\n~~~yml title\na: 1\n~~~\n", "a: 1\n"),
        (
            "- item\n\n    <!-- docpact: config-defaults f.yaml -->\n"
            "    ```yaml\n    a:\n      b: 1\n    ```\n",
            "a:\n  b: 1\n",
        ),
        # Python-Markdown closes a fence at the very same fence only: a longer one is text.
        ("<!-- docpact: config-defaults f.yaml -->\n```yaml\na: 1\n````\n", None),
        ("<!-- docpact: config-defaults f.yaml -->\n```yaml\na: 1\n````\n```\t\n", "a: 1\n````\n"),
        ("<!-- docpact: config-defaults f.yaml -->\n```yaml-ish\na: 1\n```\n", None),
        ("<!-- docpact: config-defaults f.yaml -->\ntext\n```yaml\na: 1\n```\n", None),
        ("<!-- docpact: config-defaults f.yaml -->\n```yaml\na: 1\n", None),
    ],
)
def test_one_block_finder_reads_indented_blocks_closed_by_the_same_fence(
    page: str, source: str | None
) -> None:
    """The block after a comment: indented in a list item, closed by its own fence, or none."""
    comment = page.index("-->") + 3
    found = block_after(page, comment)
    assert (found[0] if found else None) == source


@pytest.mark.parametrize(
    ("page", "source"),
    [
        ("<!-- docpact: config-defaults f.yaml -->\n\n\n\n```yaml\na: 1\n```\n", "a: 1\n"),
        ("<!-- docpact: config-defaults f.yaml -->\n\n\n", None),
        ("<!-- docpact: config-defaults f.yaml -->", None),
        ("<!-- docpact: config-defaults f.yaml --> text\n```yaml\na: 1\n```\n", None),
        (
            "    <!-- docpact: config-defaults f.yaml -->\n    ```yaml\n    a:\n  b: 1\n    ```\n",
            "a:\nb: 1\n",
        ),
    ],
)
def test_a_block_follows_its_comment_after_blank_lines_only(page: str, source: str | None) -> None:
    """Blank lines may come between; text on the comment's line, or no block at all, is none.

    A line indented less than the opening fence loses all its indent.
    """
    found = block_after(page, page.index("-->") + 3)
    assert (found[0] if found else None) == source


@pytest.mark.parametrize(
    ("block", "rest"),
    [
        ("```yaml\na: 1\n```", "\nafter\n"),
        ("~~~~~yaml\na: 1\n~~~~~", "\n"),
        ("  ```yaml\n  a: 1\n  ```  ", "\n\n```\n"),
        ("```yaml\na: 1\n```", ""),
    ],
)
def test_a_block_ends_at_the_end_of_its_closing_fence(block: str, rest: str) -> None:
    """The block's end is where its closing fence's line ends: the rest of the page follows."""
    page = f"<!-- docpact: config-defaults f.yaml -->\n{block}{rest}"
    found = block_after(page, page.index("-->") + 3)
    assert found is not None
    assert page[found[1] :] == rest


def test_the_sybil_parser_and_docpact_check_find_the_same_indented_block(project: Path) -> None:
    """In a list item, both the tests' Sybil parser and the DP007 rule read the block."""
    guide = project / GUIDE
    drift(
        guide,
        BLOCK,
        BLOCK.replace("\n<!--", "\n- In a list:\n\n    <!--")
        .replace("\n```", "\n    ```")
        .replace(
            "\ntrainer:\n  epochs: 1\n  warmup: 10",
            "\n    trainer:\n      epochs: 1\n      warmup: 10",
        ),
    )
    assert codes(project) == []
    drift(project / "conf/defaults.yaml", "warmup: 10", "warmup: 20")
    assert [code for code, _, _ in codes(project)] == ["DP007"]
    document = docs_sybil(root=project).parse(guide)
    blocks = [example for example in document if hasattr(example.region.parsed, "file")]
    assert len(blocks) == 1
    with pytest.raises(SybilFailure) as failure:
        blocks[0].evaluate()
    outcomes = [str(failure.value)]
    assert "trainer.warmup: the docs have 10" in outcomes[0]


def one_line(error: yaml.YAMLError) -> str:
    return " ".join(str(error).split())


def yaml_error(source: str) -> yaml.YAMLError:
    """The error PyYAML raises for a source that is not YAML."""
    with pytest.raises(yaml.YAMLError) as error:
        yaml.load(source, Loader=SafeLoader)
    return error.value


def test_a_section_without_a_block_is_dp007_at_its_heading(project: Path) -> None:
    """The finding is on the docs page, at the section's heading, naming the comment to add."""
    drift(project / GUIDE, "<!-- docpact: config-defaults conf/defaults.yaml -->\n", "")
    [finding] = check_project(load_config(project / PYPROJECT))
    assert (finding.code, finding.path, finding.line, finding.message) == (
        "DP007",
        GUIDE,
        line_of(project / GUIDE, "## Defaults"),
        "section #defaults has no yaml block announced by "
        "<!-- docpact: config-defaults conf/defaults.yaml -->",
    )


def test_a_file_that_is_not_yaml_is_dp007_with_yamls_reason_on_one_line(project: Path) -> None:
    """PyYAML's multi-line reason is joined into the one line of the finding."""
    (project / "conf/defaults.yaml").write_text("a: [\n", "utf-8")
    [finding] = check_project(load_config(project / PYPROJECT))
    reason = one_line(yaml_error("a: [\n"))
    assert finding.message == f"conf/defaults.yaml is not valid YAML: {reason}"


def test_every_block_of_a_section_is_compared_after_one_that_is_not_yaml(project: Path) -> None:
    """A broken block is reported at its comment, and the next block is still compared."""
    broken = "trainer:\n  epochs: 1\n  warmup: [10\n"
    second = BLOCK.replace("## Defaults\n", "").replace("epochs: 1", "epochs: 2")
    drift(
        project / GUIDE, "  warmup: 10\n```\n", f"  warmup: [10\n```\n{second.replace('10', '20')}"
    )
    findings = check_project(load_config(project / PYPROJECT))
    comments = [
        i
        for i, line in enumerate((project / GUIDE).read_text("utf-8").splitlines(), 1)
        if "<!-- docpact: config-defaults" in line
    ]
    assert [(f.code, f.path, f.line, f.message) for f in findings] == [
        (
            "DP007",
            GUIDE,
            comments[0],
            f"the yaml block is not valid YAML: {one_line(yaml_error(broken))}",
        ),
        (
            "DP007",
            GUIDE,
            comments[1],
            "the yaml block differs from conf/defaults.yaml: trainer.epochs: the docs have 2, "
            "conf/defaults.yaml has 1; trainer.warmup: the docs have 20, conf/defaults.yaml has 10",
        ),
    ]


def test_a_missing_section_does_not_stop_the_next_sections_comparison(project: Path) -> None:
    """DP005 for a section that is gone, and DP007 still for the listed section after it."""
    drift(
        project / PYPROJECT,
        'docs = ["docs/guide.md#defaults"]',
        'docs = ["docs/guide.md#gone", "docs/guide.md#defaults"]',
    )
    drift(project / "conf/defaults.yaml", "warmup: 10", "warmup: 20")
    assert [(code, path) for code, path, _ in codes(project)] == [
        ("DP007", GUIDE),
        ("DP005", PYPROJECT),
    ]


@pytest.mark.parametrize(
    ("documented", "expected", "found"),
    [
        ({"a": 1}, 1, ["  <document>: the docs have {'a': 1}, f.yaml has 1"]),
        (1, {"a": 1}, ["  <document>: the docs have 1, f.yaml has {'a': 1}"]),
        (
            {1: "x", "b": 2, "d": 4},
            {1: "y", "b": 2, "c": 3},
            [
                "  1: the docs have 'x', f.yaml has 'y'",
                "  c: missing from the docs (f.yaml has 3)",
                "  d: not in f.yaml (the docs have 4)",
            ],
        ),
    ],
)
def test_data_differences_are_listed_by_key_sorted_as_text(
    documented: object, expected: object, found: list[str]
) -> None:
    """A mapping against a scalar differs as a whole; keys of any type sort by their text."""
    assert differences(documented, expected, file="f.yaml") == found


NAN = float("nan")


@pytest.mark.parametrize(
    ("documented", "expected", "found"),
    [
        ({"ratio": NAN}, {"ratio": NAN}, []),
        ([NAN, 1], [NAN, 1], []),
        ({"a": [{"b": NAN}]}, {"a": [{"b": NAN}]}, []),
        ({"ratio": NAN}, {"ratio": 1.0}, ["  ratio: the docs have nan, f.yaml has 1.0"]),
        ([1], [1.0], ["  <document>: the docs have [1], f.yaml has [1.0]"]),
        ([True], [1], ["  <document>: the docs have [True], f.yaml has [1]"]),
        ({"a": [1]}, {"a": [True]}, ["  a: the docs have [1], f.yaml has [True]"]),
    ],
)
def test_a_nan_equals_a_nan_and_types_still_differ(
    documented: object, expected: object, found: list[str]
) -> None:
    """`.nan` in the docs and the file is the same value; `1`, `1.0` and `true` still differ."""
    assert differences(documented, expected, file="f.yaml") == found


def test_a_nan_default_documented_as_it_is_is_no_finding(project: Path) -> None:
    """A `.nan` in the packaged file and in the docs block alike gives no DP007."""
    drift(project / GUIDE, "  epochs: 1\n", "  epochs: .nan\n")
    drift(project / "conf/defaults.yaml", "epochs: 1", "epochs: .nan")
    assert check_project(load_config(project / PYPROJECT)) == []


def test_a_packaged_file_refused_by_the_safe_reader_is_dp007_naming_its_line(
    project: Path,
) -> None:
    """An integer too long for Python in the packaged file is a finding, never a traceback."""
    (project / "conf/defaults.yaml").write_text(f"a: 1\nb: {'9' * 5000}\n", "utf-8")
    [finding] = check_project(load_config(project / PYPROJECT))
    assert (finding.code, finding.path) == ("DP007", PYPROJECT)
    assert finding.message == (
        "conf/defaults.yaml, line 2, has an integer of 5000 digits, over Python's limit of 4300 "
        "digits for converting text to an int (set PYTHONINTMAXSTRDIGITS to raise it)"
    )
