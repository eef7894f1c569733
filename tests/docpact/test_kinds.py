# SPDX-License-Identifier: MIT
"""The contract kinds besides `divisor`: `names` and `config-defaults`, and the kind key."""

from __future__ import annotations

from pathlib import Path

import pytest
from sybil.example import SybilFailure

from docpact import DocpactError, check_project, load_config
from docpact.__main__ import main
from docpact._config_defaults import block_after
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
            "kind must be one of ['config-defaults', 'divisor', 'names'], got 'ratio'",
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
        ("<!-- docpact: config-defaults f.yaml -->\n```yaml\na: 1\n````\n", "a: 1\n"),
        ("<!-- docpact: config-defaults f.yaml -->\n```yaml-ish\na: 1\n```\n", None),
        ("<!-- docpact: config-defaults f.yaml -->\ntext\n```yaml\na: 1\n```\n", None),
        ("<!-- docpact: config-defaults f.yaml -->\n```yaml\na: 1\n", None),
    ],
)
def test_one_block_finder_reads_indented_blocks_and_longer_fences(
    page: str, source: str | None
) -> None:
    """The block after a comment: indented in a list item, closed by a longer fence, or none."""
    comment = page.index("-->") + 3
    found = block_after(page, comment)
    assert (found[0] if found else None) == source


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
