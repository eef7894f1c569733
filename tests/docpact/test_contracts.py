# SPDX-License-Identifier: MIT
"""Contracts on the fixture project and on drifted copies of it: one drift per finding."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from griffe import GriffeLoader, LoadingError

from docpact import DocpactError, check_project, load_config
from samples.drift import DISTINCT_ROLLOUTS, DIVIDE, copy_project, drift, line_of

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = "pyproject.toml"
GUIDE = "docs/guide.md"
OBJECT = 'object = "ratio._divide.scale_by_rollout"'
INIT = "src/ratio/__init__.py"
# The divisor computed again, from the total token count instead of each rollout's.
DIVISOR_AGAIN = "    divisor = torch.clamp(tokens_per_rollout.sum() * num_trained_rows, min=1)"
# The divisor's formula, as the docstring (in double backticks) and the guide state it; the
# guide states it again in display math.
STATED = "max(1, rollout_token_count * num_trained_rows)"
STATED_MATH = r"\max(1, \mathrm{rollout\_token\_count} \cdot \mathrm{num\_trained\_rows})"
# The code's divisor line, where DP023 reports a formula every statement disagrees with.
DIVISOR = "divisor = torch.clamp("


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project("contract_project", tmp_path)


def with_table(project: Path, keys: str) -> None:
    """Give the fixture's pyproject.toml a `[tool.docpact]` table with these keys (TOML lines)."""
    contract = "[[tool.docpact.contract]]"
    drift(project / PYPROJECT, contract, f"[tool.docpact]\n{keys}\n\n{contract}")


def restated(formula: str, math: str) -> list[tuple[str, str, str]]:
    """The edits that make the docstring and the guide state another formula of the divisor."""
    return [
        (DIVIDE, f"``{STATED}``", f"``{formula}``"),
        (GUIDE, f"`{STATED}`", f"`{formula}`"),
        (GUIDE, STATED_MATH, math),
    ]


def findings(project: Path) -> list[tuple[str, str, int]]:
    return [(f.code, f.path, f.line) for f in check_project(load_config(project / PYPROJECT))]


def test_the_fixture_project_keeps_its_contract(project: Path) -> None:
    assert findings(project) == []


def test_the_repository_keeps_its_contracts() -> None:
    """The contracts in this repository's pyproject.toml hold on the real tree."""
    config = load_config(REPO / PYPROJECT)
    assert config.contracts
    assert check_project(config) == []


def test_a_contract_may_name_the_public_alias(project: Path) -> None:
    drift(project / PYPROJECT, OBJECT, 'object = "ratio.scale_by_rollout"')
    assert findings(project) == []


def test_a_contract_may_name_a_re_export_under_another_name(project: Path) -> None:
    """`from ratio._divide import scale_by_rollout as scale` lets a contract name `ratio.scale`."""
    init = project / INIT
    init.write_text(
        init.read_text("utf-8") + "from ratio._divide import scale_by_rollout as scale\n", "utf-8"
    )
    drift(project / PYPROJECT, OBJECT, 'object = "ratio.scale"')
    assert findings(project) == []
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)  # and the renamed export is still checked
    assert [code for code, _, _ in findings(project)] == ["DP023", "DP003"]


# Each drift: the file and text to change, and the findings it causes, each located by a
# text on its line in the drifted file. A drift of the divisor is also a DP023 at the code's
# divisor, which no statement states any more; a statement lost is a DP022 at its place.
DRIFTS = {
    "object renamed": (
        [(PYPROJECT, OBJECT, 'object = "ratio._divide.scale_by_rollouts"')],
        [("DP001", PYPROJECT, "[[tool.docpact.contract]]")],
    ),
    "unknown package": (
        [(PYPROJECT, OBJECT, 'object = "nosuch.scale_by_rollout"')],
        [("DP001", PYPROJECT, "[[tool.docpact.contract]]")],
    ),
    "a class, not a function": (
        [(PYPROJECT, OBJECT, 'object = "ratio._divide.RolloutStats"')],
        [("DP001", DIVIDE, "class RolloutStats")],
    ),
    "an attribute, not a function": (
        [(PYPROJECT, OBJECT, 'object = "ratio._divide.__all__"')],
        [("DP001", DIVIDE, "__all__ = [")],
    ),
    "no docstring": (
        [(DIVIDE, '    """Divide each row', '    _ = """Divide each row')],
        [("DP001", DIVIDE, "def scale_by_rollout")],
    ),
    "syntax error in the module": (
        [(DIVIDE, "opmath = torch.float32", "opmath = torch.float32 +")],
        [("DP001", DIVIDE, "opmath = torch.float32 +")],
    ),
    "syntax error in the package": (
        [("src/ratio/__init__.py", "__all__ = [", "__all__ = [[")],
        [("DP001", "src/ratio/__init__.py", "__all__ = [[")],
    ),
    "package not UTF-8": (
        [(INIT, b"__all__ = [", b"__all__ = [  # \xff")],
        [("DP001", INIT, "__all__ = [")],
    ),
    "module not UTF-8": (
        [(DIVIDE, b"opmath = torch.float32", b"opmath = torch.float32  # \xff")],
        [("DP001", DIVIDE, "opmath = torch.float32")],
    ),
    "NUL byte in the package": (
        [(INIT, "__all__ = [", "__all__ = [  # \x00")],
        [("DP001", INIT, "__all__ = [")],
    ),
    "NUL byte in the module": (
        [(DIVIDE, "opmath = torch.float32", "opmath = torch.float32  # \x00")],
        [("DP001", DIVIDE, "opmath = torch.float32")],
    ),
    "docstring lost the inline code": (
        [
            (DIVIDE, "by `rollout_token_count` times", "by rollout_token_count times"),
            (DIVIDE, f"``{STATED}``", STATED),
        ],
        [("DP002", DIVIDE, '"""Divide each row'), ("DP022", DIVIDE, '"""Divide each row')],
    ),
    "divisor counts distinct rollouts": (
        [(DIVIDE, *DISTINCT_ROLLOUTS)],
        [("DP023", DIVIDE, DIVISOR), ("DP003", DIVIDE, "scaled = advantages")],
    ),
    "parameter renamed": (
        [
            (DIVIDE, "    num_trained_rows: int,", "    num_rows: int,"),
            (DIVIDE, "* num_trained_rows, min=1", "* num_rows, min=1"),
        ],
        [("DP003", DIVIDE, "def scale_by_rollout"), ("DP023", DIVIDE, DIVISOR)],
    ),
    "parameter renamed, the old name kept as a local": (
        [
            (DIVIDE, "    num_trained_rows: int,", "    trained_rows: int,"),
            (DIVIDE, "    rollout_token_count = ", "    num_trained_rows = int(trained_rows)\n$"),
        ],
        [("DP003", DIVIDE, "def scale_by_rollout")],
    ),
    "divisor overwritten before the division": (
        [(DIVIDE, "    opmath = ", DIVISOR_AGAIN + "\n    opmath = ")],
        [("DP023", DIVIDE, DIVISOR_AGAIN), ("DP003", DIVIDE, "scaled = advantages")],
    ),
    "second division divides another value": (
        [
            (DIVIDE, "(rollout_token_count * num_trained_rows, min=1)", "(rollout_token_count)"),
            (DIVIDE, "    return scaled.to(", "    other = advantages / num_trained_rows\n$"),
        ],
        [("DP023", DIVIDE, DIVISOR), ("DP003", DIVIDE, "scaled = advantages")],
    ),
    "docs section lost the inline code": (
        [(GUIDE, "`max(1, rollout_token_count * num_trained_rows)`", "rollout_token_count * rows")],
        [("DP004", GUIDE, "## Per-rollout mean loss")],
    ),
    "docs page missing": (
        [(PYPROJECT, "docs/guide.md#", "docs/gone.md#")],
        [("DP005", PYPROJECT, "[[tool.docpact.contract]]")],
    ),
    "docs heading renamed": (
        [(GUIDE, "## Per-rollout mean loss", "## Per-rollout loss")],
        [("DP005", PYPROJECT, "[[tool.docpact.contract]]")],
    ),
    "docs heading commented out": (
        [(GUIDE, "## Per-rollout mean loss", "<!--\n## Per-rollout mean loss\n-->")],
        [("DP005", PYPROJECT, "[[tool.docpact.contract]]")],
    ),
    "docs operand only in an HTML comment": (
        [
            (
                GUIDE,
                "`max(1, rollout_token_count * num_trained_rows)`",
                "`rollout_token_count` times",
            ),
            (GUIDE, "`num_trained_rows` counts", "<!-- `num_trained_rows` --> the rows counts"),
        ],
        [("DP004", GUIDE, "## Per-rollout mean loss")],
    ),
    "docs code span across a paragraph break": (
        [
            (
                GUIDE,
                "`max(1, rollout_token_count * num_trained_rows)`",
                "`rollout_token_count` times",
            ),
            (GUIDE, "`num_trained_rows` counts", "` is cut.\n\nnum_trained_rows` counts"),
        ],
        [("DP004", GUIDE, "## Per-rollout mean loss")],
    ),
    "division gone": (
        [(DIVIDE, "advantages.to(opmath) / divisor", "advantages.to(opmath) * divisor")],
        [("DP006", DIVIDE, "def scale_by_rollout")],
    ),
    "division multiplied by a reciprocal instead": (
        [(DIVIDE, "/ divisor.to(opmath)", "* divisor.to(opmath).reciprocal()")],
        [("DP006", DIVIDE, "def scale_by_rollout")],
    ),
    "dead division": (
        [
            (
                DIVIDE,
                "    scaled = advantages.to(opmath) /",
                "    scaled = advantages\n    _ = advantages.to(opmath) /",
            )
        ],
        [("DP003", DIVIDE, "_ = advantages.to(opmath) /")],
    ),
    "division result overwritten before the return": (
        [(DIVIDE, "    return scaled.to(", "    scaled = advantages.to(opmath)\n$")],
        [("DP003", DIVIDE, "scaled = advantages.to(opmath) /")],
    ),
    "operand reached only through numel()": (
        [(DIVIDE, "clamp(rollout_token_count *", "clamp(rollout_token_count.numel() *")],
        [("DP023", DIVIDE, DIVISOR), ("DP003", DIVIDE, "scaled = advantages")],
    ),
    "operand reached only through len()": (
        [(DIVIDE, "clamp(rollout_token_count *", "clamp(len(rollout_token_count) *")],
        [("DP023", DIVIDE, DIVISOR), ("DP003", DIVIDE, "scaled = advantages")],
    ),
    "operand reached only through an attribute": (
        [(DIVIDE, "clamp(rollout_token_count *", "clamp(rollout_token_count.shape[0] *")],
        [("DP023", DIVIDE, DIVISOR), ("DP003", DIVIDE, "scaled = advantages")],
    ),
}


def apply(project: Path, edits: list[tuple[str, str | bytes, str | bytes]]) -> None:
    """Make each edit; a `$` that ends a replacement stands for the text it replaces."""
    for file, old, new in edits:
        if isinstance(new, str) and new.endswith("$"):
            new = new[:-1] + str(old)
        drift(project / file, old, new)


@pytest.mark.parametrize(("edits", "expected"), DRIFTS.values(), ids=DRIFTS.keys())
def test_each_drift_gives_its_findings(
    project: Path, edits: list[tuple[str, str, str]], expected: list[tuple[str, str, str]]
) -> None:
    apply(project, edits)
    assert findings(project) == [
        (code, path, line_of(project / path, text_on_line)) for code, path, text_on_line in expected
    ]


# Rewrites that keep the contract: docpact must not report them. A rewrite that changes the
# divisor's formula restates it in the docstring and the guide, as its author must.
KEPT = {
    "torch.div with the divisor as other=": [
        (
            DIVIDE,
            "advantages.to(opmath) / divisor",
            "torch.div(advantages.to(opmath), other=divisor",
        ),
        (DIVIDE, ".unsqueeze(-1)\n", ".unsqueeze(-1))\n"),
    ],
    "division split over two statements": [
        (DIVIDE, "(rollout_token_count * num_trained_rows, min=1)", "(rollout_token_count, min=1)"),
        (DIVIDE, "    return scaled.to(", "    scaled = scaled / num_trained_rows\n$"),
        *restated(
            "max(1, rollout_token_count) * num_trained_rows",
            r"\max(1, \mathrm{rollout\_token\_count}) \cdot \mathrm{num\_trained\_rows}",
        ),
    ],
    "augmented divisions in a row": [
        (DIVIDE, "(rollout_token_count * num_trained_rows, min=1)", "(rollout_token_count, min=1)"),
        (
            DIVIDE,
            "    scaled = advantages.to(opmath) / ",
            "    scaled = advantages.to(opmath)\n    scaled /= ",
        ),
        (DIVIDE, "    return scaled.to(", "    scaled /= num_trained_rows\n$"),
        *restated(
            "max(1, rollout_token_count) * num_trained_rows",
            r"\max(1, \mathrm{rollout\_token\_count}) \cdot \mathrm{num\_trained\_rows}",
        ),
    ],
    "divisor assigned in both branches": [
        (
            DIVIDE,
            "    divisor = torch.clamp(",
            "    if codes.numel():\n        divisor = torch.clamp(",
        ),
        (DIVIDE, "    opmath = ", "    else:\n    " + DIVISOR_AGAIN + "\n$"),
        (PYPROJECT, "docs = [", f'formula = "{STATED}"\ndocs = ['),
    ],
    "division in place with div_": [
        (
            DIVIDE,
            "    scaled = advantages.to(opmath) / divisor.to(opmath).unsqueeze(-1)",
            "    scaled = advantages.to(opmath)\n    scaled.div_(divisor.to(opmath).unsqueeze(-1))",
        ),
    ],
    "division into an out= buffer": [
        (
            DIVIDE,
            "    scaled = advantages.to(opmath) / divisor.to(opmath).unsqueeze(-1)",
            "    scaled = torch.empty(advantages.shape, dtype=opmath)\n"
            "    torch.div(advantages.to(opmath), divisor.to(opmath).unsqueeze(-1), out=scaled)",
        ),
    ],
    "division appended to a list that is returned from": [
        (
            DIVIDE,
            "    scaled = advantages.to(opmath) / divisor.to(opmath).unsqueeze(-1)",
            "    parts = []\n"
            "    parts.append(advantages.to(opmath) / divisor.to(opmath).unsqueeze(-1))\n"
            "    scaled = parts[0]",
        ),
    ],
    "operand through a method that keeps its values": [
        (DIVIDE, "clamp(rollout_token_count *", "clamp(rollout_token_count.mul(1).abs() *"),
        *restated(
            "max(1, abs(rollout_token_count * 1) * num_trained_rows)",
            (
                r"\max(1, \operatorname{abs}(\mathrm{rollout\_token\_count} \cdot 1)"
                r" \cdot \mathrm{num\_trained\_rows})"
            ),
        ),
    ],
    "commuted product": [
        (
            DIVIDE,
            "(rollout_token_count * num_trained_rows, min=1)",
            "(num_trained_rows * rollout_token_count, min=1)",
        ),
    ],
    "operand through methods that keep its values": [
        (
            DIVIDE,
            "clamp(rollout_token_count *",
            "clamp(rollout_token_count.to(torch.int64).clamp_min(0) *",
        ),
        *restated(
            "max(1, max(0, rollout_token_count) * num_trained_rows)",
            r"\max(1, \max(0, \mathrm{rollout\_token\_count}) \cdot \mathrm{num\_trained\_rows})",
        ),
    ],
    "chain of divisions": [
        (DIVIDE, "(rollout_token_count * num_trained_rows, min=1)", "(rollout_token_count, min=1)"),
        (DIVIDE, ".unsqueeze(-1)\n", ".unsqueeze(-1) / num_trained_rows\n"),
        *restated(
            "max(1, rollout_token_count) * num_trained_rows",
            r"\max(1, \mathrm{rollout\_token\_count}) \cdot \mathrm{num\_trained\_rows}",
        ),
    ],
    "division returned directly": [
        (DIVIDE, "    scaled = advantages.to(opmath) /", "    return advantages.to(opmath) /"),
        (DIVIDE, "    return scaled.to(advantages.dtype)\n", ""),
    ],
    "docs operand named only in a subsection": [
        (GUIDE, "`num_trained_rows` counts", "### Rows\n\n`num_trained_rows` counts"),
        (GUIDE, f"`{STATED}`", "`rollout_token_count` times"),
    ],
}


@pytest.mark.parametrize("edits", KEPT.values(), ids=KEPT.keys())
def test_each_rewrite_that_keeps_the_contract_gives_no_finding(
    project: Path, edits: list[tuple[str, str, str]]
) -> None:
    apply(project, edits)
    assert findings(project) == []


def test_a_finding_names_the_missing_operand(project: Path) -> None:
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    formula, finding = check_project(load_config(project / PYPROJECT))
    assert formula.code == "DP023"
    assert finding.message == (
        "no division in ratio._divide.scale_by_rollout computes its divisor "
        "from operand `rollout_token_count`"
    )
    assert str(finding) == f"{DIVIDE}:{finding.line}: DP003 {finding.message}"


def test_a_renamed_parameter_is_named_as_renamed(project: Path) -> None:
    drift(project / DIVIDE, "    num_trained_rows: int,", "    trained_rows: int,")
    drift(project / DIVIDE, "    rollout_token_count = ", "    num_trained_rows = 1\n    x = ")
    [finding] = check_project(load_config(project / PYPROJECT))
    assert finding.message == (
        "operand `num_trained_rows` is documented as a parameter of "
        "ratio._divide.scale_by_rollout but the signature has none (renamed?)"
    )


def test_an_attribute_is_named_with_its_article(project: Path) -> None:
    drift(project / PYPROJECT, OBJECT, 'object = "ratio._divide.__all__"')
    [finding] = check_project(load_config(project / PYPROJECT))
    assert finding.message == (
        "ratio._divide.__all__ is an attribute, not a function, method or property"
    )


def test_a_namespace_package_is_reported_at_its_folder(project: Path) -> None:
    """A namespace package has a list of folders for a filepath; the first one is reported."""
    (project / "src/nsp").mkdir()
    (project / "src/nsp/m.py").write_text('"""A module."""\n', encoding="utf-8")
    drift(project / PYPROJECT, OBJECT, 'object = "nsp"')
    [finding] = check_project(load_config(project / PYPROJECT))
    assert str(finding) == "src/nsp:1: DP001 nsp is a module, not a function, method or property"


def test_an_unreadable_module_names_the_reason(project: Path) -> None:
    drift(project / DIVIDE, b"opmath = torch.float32", b"opmath = torch.float32  # \xff")
    [finding] = check_project(load_config(project / PYPROJECT))
    assert finding.message == (
        "ratio._divide.scale_by_rollout cannot be loaded: "
        "src/ratio/_divide.py cannot be read: not UTF-8 at line 35 (invalid start byte)"
    )


def test_every_operand_missing_from_the_docs_is_a_finding(project: Path) -> None:
    drift(project / GUIDE, "`max(1, rollout_token_count * num_trained_rows)`", "the product")
    drift(project / GUIDE, "`num_trained_rows` counts", "it counts")
    line = line_of(project / GUIDE, "## Per-rollout mean loss")
    assert findings(project) == [("DP004", GUIDE, line), ("DP004", GUIDE, line)]


def test_checking_never_imports_torch() -> None:
    """The check runs in-process on the real tree, and torch stays out of sys.modules."""
    code = (
        "import sys; from docpact.__main__ import main; "
        "status = main(['check']); "
        "assert 'torch' not in sys.modules, 'torch was imported'; "
        "assert 'rolloutnorm' not in sys.modules, 'rolloutnorm was imported'; "
        "sys.exit(status)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_syntax_error_in_a_single_module_package_is_reported_at_the_error(
    project: Path,
) -> None:
    (project / DIVIDE).rename(project / "src" / "solo.py")
    shutil.rmtree(project / "src" / "ratio")
    drift(project / PYPROJECT, OBJECT, 'object = "solo.scale_by_rollout"')
    assert findings(project) == []
    drift(project / "src" / "solo.py", "opmath = torch.float32", "opmath = torch.float32 +")
    line = line_of(project / "src" / "solo.py", "opmath = torch.float32 +")
    assert findings(project) == [("DP001", "src/solo.py", line)]


def test_a_syntax_error_in_a_namespace_package_is_reported_at_the_error(project: Path) -> None:
    (project / INIT).unlink()
    assert findings(project) == []
    drift(project / DIVIDE, "opmath = torch.float32", "opmath = torch.float32 +")
    assert findings(project) == [("DP001", DIVIDE, line_of(project / DIVIDE, "float32 +"))]


def test_a_loading_error_without_a_file_at_fault_is_reported_at_the_contract(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        msg = "OSError when loading src/ratio: too many open files"
        raise LoadingError(msg)

    monkeypatch.setattr(GriffeLoader, "load", fail)
    [finding] = check_project(load_config(project / PYPROJECT))
    assert (finding.code, finding.path, finding.line) == (
        "DP001",
        PYPROJECT,
        line_of(project / PYPROJECT, "[[tool.docpact.contract]]"),
    )
    assert finding.message == (
        "ratio._divide.scale_by_rollout cannot be loaded: "
        "OSError when loading src/ratio: too many open files"
    )


def test_paths_say_where_packages_are_searched(project: Path) -> None:
    """With `[tool.docpact] paths`, a package outside `src/` is found; the default misses it."""
    shutil.move(project / "src", project / "lib")
    [finding] = check_project(load_config(project / PYPROJECT))
    assert (finding.code, finding.message) == (
        "DP001",
        "ratio._divide.scale_by_rollout does not exist: no package ratio under src/, ./",
    )
    with_table(project, 'paths = ["lib"]')
    assert load_config(project / PYPROJECT).paths == ("lib",)
    assert findings(project) == []


@pytest.mark.parametrize(
    ("table", "error"),
    [
        ('paths = "src"', "tool.docpact.paths must be a non-empty list of folder names"),
        ("paths = []", "tool.docpact.paths must be a non-empty list of folder names"),
        (
            'paths = ["src", "../elsewhere"]',
            r"tool.docpact.paths lists \['../elsewhere'\], absolute or outside",
        ),
        ('paths = ["/abs"]', r"tool.docpact.paths lists \['/abs'\], absolute or outside"),
    ],
)
def test_bad_paths_are_a_configuration_error(project: Path, table: str, error: str) -> None:
    """Paths must be a list of folders inside the project root, else DocpactError names the key."""
    with_table(project, table)
    with pytest.raises(DocpactError, match=error):
        load_config(project / PYPROJECT)


def test_a_docs_page_outside_the_project_root_is_a_usage_error(project: Path) -> None:
    """A docs page such as ../../elsewhere.md is never read: load_config names line and key."""
    outside = project.parent / "elsewhere.md"
    outside.write_text("# X\n\n`rollout_token_count` `num_trained_rows`\n", "utf-8")
    drift(project / PYPROJECT, "docs/guide.md#per-rollout-mean-loss", f"../{outside.name}#x")
    line = line_of(project / PYPROJECT, "[[tool.docpact.contract]]")
    key = r"tool\.docpact\.contract\[0\]\.docs"
    with pytest.raises(DocpactError, match=rf"pyproject.toml:{line}: error: {key} names \.\./"):
        load_config(project / PYPROJECT)


NUMPY_ARGS = """    Parameters
    ----------
    advantages : torch.Tensor
        Advantages of shape (rows, tokens).
    codes : torch.Tensor
        The rollout of each row.
    tokens_per_rollout : torch.Tensor
        Response tokens per rollout.
    num_trained_rows : int
        Rows trained in this step.

    Returns
    -------
    torch.Tensor
        The advantages, each row divided by ``max(1, rollout_token_count * num_trained_rows)``.
"""
GOOGLE_ARGS = """    Args:
        advantages: Advantages of shape (rows, tokens).
        codes: The rollout of each row.
        tokens_per_rollout: Response tokens per rollout.
        num_trained_rows: Rows trained in this step.

    Returns:
        The advantages, each row divided by ``max(1, rollout_token_count * num_trained_rows)``.
"""
OPTIONS = "          options:\n"


def _numpy_docstring_with_a_renamed_parameter(project: Path) -> None:
    drift(project / DIVIDE, GOOGLE_ARGS, NUMPY_ARGS)
    drift(project / DIVIDE, "    *,\n    num_trained_rows: int,", "    *,\n    trained_rows: int,")
    drift(project / DIVIDE, "* num_trained_rows, min=1)", "* trained_rows, min=1)")


@pytest.mark.parametrize("where", ["mkdocs.yml", "pyproject.toml"])
def test_a_renamed_parameter_is_found_in_the_configured_docstring_style(
    project: Path, where: str
) -> None:
    """With numpy docstrings, set in mkdocs.yml or pyproject.toml, a renamed parameter is found."""
    _numpy_docstring_with_a_renamed_parameter(project)
    if where == "mkdocs.yml":
        drift(project / "mkdocs.yml", OPTIONS, f"{OPTIONS}            docstring_style: numpy\n")
    else:
        with_table(project, 'docstring-style = "numpy"')
    config = load_config(project / PYPROJECT)
    assert config.docstring_style == "numpy"
    messages = [finding.message for finding in check_project(config)]
    assert any("documented as a parameter" in message for message in messages), messages


def test_read_as_google_a_numpy_docstring_hides_the_rename(project: Path) -> None:
    """The default style is google: the numpy section is not read, so the rename goes unseen."""
    _numpy_docstring_with_a_renamed_parameter(project)
    assert load_config(project / PYPROJECT).docstring_style == "google"
    messages = [finding.message for finding in check_project(load_config(project / PYPROJECT))]
    assert not any("documented as a parameter" in message for message in messages)


@pytest.mark.parametrize(
    ("where", "text", "error"),
    [
        ("pyproject", 'docstring-style = "epytext"', "tool.docpact.docstring-style must be one of"),
        ("mkdocs", "docstring_style: epytext", "mkdocstrings' docstring_style is 'epytext'"),
        ("mkdocs", "docstring_style: [", r"mkdocs.yml:\d+: error: is not valid YAML"),
    ],
)
def test_an_unknown_docstring_style_is_a_configuration_error(
    project: Path, where: str, text: str, error: str
) -> None:
    """A style griffe cannot read, or an unreadable mkdocs.yml, is an error naming the file."""
    if where == "mkdocs":
        drift(project / "mkdocs.yml", OPTIONS, f"{OPTIONS}            {text}\n")
    else:
        with_table(project, text)
    with pytest.raises(DocpactError, match=error):
        load_config(project / PYPROJECT)


def test_a_decorated_function_is_checked(project: Path) -> None:
    """Griffe puts a decorated function at its decorator's line; its body is still read."""
    drift(
        project / DIVIDE,
        "def scale_by_rollout(",
        "def _keep(function):\n    return function\n\n\n@_keep\n@_keep\ndef scale_by_rollout(",
    )
    assert findings(project) == []
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    assert [code for code, _, _ in findings(project)] == ["DP023", "DP003"]


def test_a_stub_beside_the_module_does_not_hide_its_body(project: Path) -> None:
    """With a `.pyi` stub, the division is still read from the `.py` module."""
    stub = (project / DIVIDE).with_suffix(".pyi")
    stub.write_text(
        '"""Stub."""\nimport torch\n\ndef scale_by_rollout(advantages: torch.Tensor, codes: '
        "torch.Tensor, tokens_per_rollout: torch.Tensor, *, num_trained_rows: int) "
        "-> torch.Tensor: ...\n",
        "utf-8",
    )
    assert findings(project) == []


def test_a_src_folder_linked_from_outside_the_root_is_searched(project: Path) -> None:
    """A symlinked `src/` is the project's own layout: the default paths follow it."""
    elsewhere = project.parent / "elsewhere"
    shutil.move(project / "src", elsewhere)
    (project / "src").symlink_to(elsewhere, target_is_directory=True)
    assert findings(project) == []


@pytest.mark.parametrize(
    ("section", "error"),
    [
        ("/abs/guide.md#x", r"names /abs/guide\.md, which is absolute or outside"),
        ("docs/../../guide.md#x", r"names docs/\.\./\.\./guide\.md, which is absolute or outside"),
        ("docs/gu\\u0000ide.md#x", r"\.docs must be a list of 'page\.md#anchor' strings"),
    ],
)
def test_a_bad_docs_page_is_a_configuration_error(project: Path, section: str, error: str) -> None:
    """An absolute page, one that climbs out of the root, or a NUL byte never reaches a read."""
    drift(project / PYPROJECT, "docs/guide.md#per-rollout-mean-loss", section)
    with pytest.raises(DocpactError, match=error):
        load_config(project / PYPROJECT)


@pytest.mark.parametrize("paths", ['[""]', '["src\\u0000"]'])
def test_empty_or_nul_paths_are_a_configuration_error(project: Path, paths: str) -> None:
    """An empty folder name or a NUL byte in paths is refused, naming the key."""
    with_table(project, f"paths = {paths}")
    with pytest.raises(DocpactError, match=r"tool\.docpact\.paths must be a non-empty list"):
        load_config(project / PYPROJECT)


@pytest.mark.parametrize(
    ("old", "new", "says", "also"),
    [
        (
            "/ divisor.to(opmath)",
            "* divisor.to(opmath).reciprocal()",
            "multiplies by a reciprocal, which docpact does not follow: write `x / divisor`",
            [],
        ),
        ("/ divisor.to(opmath)", "* (divisor.to(opmath) ** -1)", "multiplies by a reciprocal", []),
        (
            "/ divisor.to(opmath)",
            "* _inverse_of(divisor)",
            "a division inside a helper function",
            [],
        ),
        (
            "clamp(rollout_token_count *",
            "clamp(rollout_token_count.numel() *",
            "(still used at line 34 through a method (`rollout_token_count.numel()`))",
            ["DP023"],
        ),
        (
            "    return scaled.to(",
            "    scaled = advantages.to(opmath)\n    return scaled.to(",
            "no division in ratio._divide.scale_by_rollout reaches the value it returns",
            [],
        ),
    ],
)
def test_a_flagged_rewrite_says_how_to_write_it(
    project: Path, old: str, new: str, says: str, also: list[str]
) -> None:
    """A reciprocal, a helper, a `.numel()` or a dead division: the message says what to do.

    A rewrite that changes the divisor's formula is also a DP023, before it at the divisor.
    """
    drift(project / DIVIDE, old, new)
    *formula, finding = check_project(load_config(project / PYPROJECT))
    assert [found.code for found in formula] == also
    assert says in finding.message


def test_griffes_logging_is_quiet_during_a_check_only(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A package griffe cannot parse logs nothing through griffe, and no logger is switched off."""
    drift(project / DIVIDE, "opmath = torch.float32", "opmath = torch.float32 +")
    griffe_logger = logging.getLogger("griffe")
    with caplog.at_level(logging.DEBUG, logger="griffe"):
        [finding] = check_project(load_config(project / PYPROJECT))
        assert finding.code == "DP001"
        assert not [record for record in caplog.records if record.name.startswith("griffe")]
        assert not griffe_logger.disabled
        griffe_logger.warning("outside a check")
    assert [record.getMessage() for record in caplog.records] == ["outside a check"]


def test_a_nested_check_leaves_griffes_filter_to_the_check_around_it(project: Path) -> None:
    """The filter stays while any check runs: a nested one does not remove it, the last does."""
    from docpact._readers.python.quiet import _drop_while_quiet, _griffe_filtered

    loggers = [logging.getLogger(name) for name in ("griffe", "mkdocs.plugins.griffe")]
    with _griffe_filtered():
        check_project(load_config(project / PYPROJECT))
        assert all(_drop_while_quiet in logger.filters for logger in loggers)
    assert not any(_drop_while_quiet in logger.filters for logger in loggers)
