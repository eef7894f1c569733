# SPDX-License-Identifier: MIT
"""`docpact check --format json` and `--format sarif`: one document, findings or none.

The SARIF output is validated against the SARIF 2.1.0 schema of OASIS, kept in
tests/docpact/data (its README says where it comes from).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import docpact
from docpact import Finding
from docpact.__main__ import main
from docpact._formats import JSON_VERSION, SARIF_SCHEMA, render
from docpact._registry import all_kinds, codes
from samples.drift import DISTINCT_ROLLOUTS, DIVIDE, copy_project, drift, line_of

# The rules every document lists: every installed kind's, the claims extension's included.
CODES = codes(all_kinds())


SCHEMA_FILE = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"
VERIFICATION = Path(__file__).resolve().parents[2] / "docs" / "reference" / "contracts.md"
JSON_FENCE = re.compile(r"^```json\n(.*?)^```$", re.MULTILINE | re.DOTALL)
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
GUIDE = "docs/guide.md"
# Two contracts more, each broken: an anchor the page lacks, a claims page that is not there.
MORE_CONTRACTS = """
[[tool.docpact.contract]]
kind = "names"
object = "ratio._divide.scale_by_rollout"
names = ["num_trained_rows"]
docs = ["docs/guide.md#gone"]

[[tool.docpact.contract]]
kind = "claims"
pages = ["docs/gone.md"]
properties = ["tests"]
"""


def _validate(document: dict[str, Any]) -> None:
    """Validate a SARIF log against the SARIF 2.1.0 schema, its formats (uri...) included."""
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    validator.validate(document)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture project, as the current folder."""
    path = copy_project("contract_project", tmp_path)
    monkeypatch.chdir(path)
    return path


@pytest.fixture
def broken(project: Path) -> Path:
    """The fixture project with findings of six codes in three files."""
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    drift(project / GUIDE, "`max(1, rollout_token_count * num_trained_rows)`", "the token count")
    with (project / "pyproject.toml").open("a", encoding="utf-8") as pyproject:
        pyproject.write(MORE_CONTRACTS)
    return project


def _expected(project: Path) -> list[tuple[str, str, int, str]]:
    """The broken project's findings, as `(code, path, line, message)`, in printed order."""
    names_line = line_of(project / "pyproject.toml", 'kind = "names"') - 1
    claims_line = line_of(project / "pyproject.toml", 'kind = "claims"') - 1
    docstring = line_of(project / DIVIDE, "``max(1, rollout_token_count")
    math = line_of(project / GUIDE, r"\hat{A}_i")
    return [
        (
            "DP004",
            GUIDE,
            line_of(project / GUIDE, "## Per-rollout mean loss"),
            "section #per-rollout-mean-loss does not name operand `rollout_token_count` as "
            "inline code",
        ),
        (
            "DP005",
            "pyproject.toml",
            names_line,
            "docs/guide.md has no heading with anchor #gone, listed for "
            "ratio._divide.scale_by_rollout (the page's anchors: #guide, "
            "#per-rollout-mean-loss, #other-settings)",
        ),
        ("DP012", "pyproject.toml", claims_line, "claims page docs/gone.md does not exist"),
        ("DP014", "pyproject.toml", claims_line, "properties path tests does not exist"),
        (
            "DP023",
            DIVIDE,
            line_of(project / DIVIDE, "divisor = torch.clamp("),
            "ratio._divide.scale_by_rollout divides by "
            "`max(1, num_trained_rows * numel(unique(codes)))`, but its docstring and docs state "
            f"`max(1, rollout_token_count * num_trained_rows)` ({DIVIDE}:{docstring}, "
            f"{GUIDE}:{math}): change the code back, or the statements",
        ),
        (
            "DP003",
            DIVIDE,
            line_of(project / DIVIDE, "scaled = advantages"),
            "no division in ratio._divide.scale_by_rollout computes its divisor from operand "
            "`rollout_token_count`",
        ),
    ]


def test_json_prints_every_finding_with_its_rule_in_one_document(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The JSON document has the shape's version, the tool, and each finding with its rule."""
    assert main(["check", "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    assert out.endswith("}\n")
    assert json.loads(out) == {
        "version": 2,
        "tool": "docpact",
        "findings": [
            {
                "code": code,
                "path": path,
                "line": line,
                "message": message,
                "severity": "error",
                "rule": CODES[code],
            }
            for code, path, line, message in _expected(broken)
        ],
    }


def test_the_json_example_on_the_verification_page_is_what_docpact_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's JSON document is the output, byte for byte, for the anchor it describes.

    A small project, so that each line of the document fits the page's code box.
    """
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "__init__.py").write_text(
        'def f(x, n):\n    """Divide by the count: $x / n$."""\n    return x / n\n',
        encoding="utf-8",
    )
    (tmp_path / "d.md").write_text("# X\n\n## Y\n\nReturns `x / n`.\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.docpact]\npaths = ["."]\n\n[[tool.docpact.contract]]\nobject = "m.f"\n'
        'operands = ["n"]\ndocs = ["d.md#y"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    [example] = JSON_FENCE.findall(VERIFICATION.read_text(encoding="utf-8"))
    assert main(["check", "--format", "json"]) == 1
    assert capsys.readouterr() == (example, "")


def test_sarif_is_valid_and_locates_each_result(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The SARIF log validates; each result has its rule, relative file, line and message."""
    assert main(["check", "--format", "sarif"]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    log = json.loads(out)
    _validate(log)
    assert (log["$schema"], log["version"]) == (SARIF_SCHEMA, "2.1.0")
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("docpact", docpact.__version__)
    assert [(rule["id"], rule["shortDescription"]["text"]) for rule in driver["rules"]] == list(
        CODES.items()
    )
    results = [
        (
            result["ruleId"],
            driver["rules"][result["ruleIndex"]]["id"],
            result["level"],
            result["locations"][0]["physicalLocation"]["artifactLocation"],
            result["locations"][0]["physicalLocation"]["region"],
            result["message"]["text"],
        )
        for result in run["results"]
    ]
    assert results == [
        (code, code, "error", {"uri": path, "uriBaseId": "%SRCROOT%"}, {"startLine": line}, text)
        for code, path, line, text in _expected(broken)
    ]


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_no_findings_is_still_one_document(
    project: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """A clean project exits 0 and prints a document with no findings, not nothing."""
    assert main(["check", "--format", form]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    document = json.loads(out)
    if form == "json":
        assert document == {"version": JSON_VERSION, "tool": "docpact", "findings": []}
    else:
        _validate(document)
        assert document["runs"][0]["results"] == []
        assert len(document["runs"][0]["tool"]["driver"]["rules"]) == len(CODES)


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_select_filters_the_document_too(
    broken: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """--select and --ignore leave out findings, not the document: none left is exit 0."""
    assert main(["check", "--format", form, "--select", "DP003,DP012", "--ignore", "DP012"]) == 1
    document = json.loads(capsys.readouterr().out)
    found = document["findings"] if form == "json" else document["runs"][0]["results"]
    assert [f["code"] if form == "json" else f["ruleId"] for f in found] == ["DP003"]
    assert main(["check", "--format", form, "--select", "DP001"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["findings"] if form == "json" else document["runs"][0]["results"]) == []


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_a_configuration_error_prints_one_line_and_no_document(
    project: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """A malformed pyproject.toml exits 2 with one line on stderr and nothing on stdout."""
    (project / "pyproject.toml").write_text("[tool.docpact\n", encoding="utf-8")
    assert main(["check", "--format", form]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "pyproject.toml:1: error: is not valid TOML: Expected ']' at the end of a table "
        "declaration (at line 1, column 14)"
    ]


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_a_usage_error_prints_no_document(
    project: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """An unknown code exits 2 through argparse: its usage on stderr, nothing on stdout."""
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--format", form, "--select", "DP999"])
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[-1].startswith(
        "docpact check: error: argument --select: unknown code DP999; the codes are DP001, "
    )


def test_a_finding_without_a_line_starts_at_line_1_in_sarif() -> None:
    """SARIF lines start at 1: a finding at line 0 is placed at line 1; JSON keeps its 0."""
    finding = Finding("pyproject.toml", 0, "DP014", "properties path tests does not exist")
    [sarif] = render([finding], "sarif")
    log = json.loads(sarif)
    _validate(log)
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1}
    [document] = render([finding], "json")
    assert json.loads(document)["findings"][0]["line"] == 0


def test_a_path_becomes_a_uri_reference() -> None:
    """A space or `%` in a path is percent-encoded; a path outside the root is a file URI."""
    findings = [
        Finding("docs/my page 100%.md", 3, "DP005", "m"),
        Finding("/elsewhere/guide.md", 2, "DP005", "m"),
    ]
    log = json.loads(render(findings, "sarif")[0])
    _validate(log)
    assert [
        result["locations"][0]["physicalLocation"]["artifactLocation"]
        for result in log["runs"][0]["results"]
    ] == [
        {"uri": "docs/my%20page%20100%25.md", "uriBaseId": "%SRCROOT%"},
        {"uri": "file:///elsewhere/guide.md"},
    ]


def test_the_json_document_keeps_text_that_is_not_ascii() -> None:
    """A message in any script reads back as written from ASCII-only output."""
    finding = Finding("docs/é.md", 1, "DP004", "section #größe does not name `x`")
    [document] = render([finding], "json")
    assert document.isascii()
    assert json.loads(document)["findings"][0] == {
        "code": "DP004",
        "path": "docs/é.md",
        "line": 1,
        "message": "section #größe does not name `x`",
        "severity": "error",
        "rule": CODES["DP004"],
    }


def test_the_kept_sarif_schema_is_the_oasis_file_unchanged() -> None:
    """The vendored schema is the published SARIF 2.1.0 (Errata 01) schema, byte for byte."""
    data = SCHEMA_FILE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SCHEMA_SHA256
    schema = json.loads(data)
    jsonschema.Draft4Validator.check_schema(schema)
    assert schema["id"] == SARIF_SCHEMA
