# SPDX-License-Identifier: MIT
"""The formula rules end to end: the code's divisor, the statements, where findings land.

What the code's divisor traces to in each shape docpact follows, what counts as a statement,
and where DP022, DP023 and DP024 land.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from docpact import check_project, load_config
from docpact.__main__ import main

DOCSTRING = "Scale by `a` and `b`: the divisor is ``{formula}``."
PAGE = "# Guide\n\n## Scale\n\nThe divisor is `a` with `b`:\n\n{statement}\n"


def write(
    root: Path,
    body: str,
    *,
    formula: str = "max(1, a * b)",
    statement: str = "$$\n\\max(1, \\mathrm{a} \\cdot \\mathrm{b})\n$$",
    keys: str = "",
    signature: str = "def f(x, a, b):",
) -> Path:
    """A project whose contract on `pkg.f` (operands `a`, `b`) has `body` and one docs page."""
    package = root / "src/pkg"
    package.mkdir(parents=True)
    docstring = DOCSTRING.format(formula=formula)
    source = f'{signature}\n    """{docstring}"""\n' + textwrap.indent(
        textwrap.dedent(body).strip("\n"), "    "
    )
    (package / "__init__.py").write_text(source + "\n", "utf-8")
    (root / "docs").mkdir()
    (root / "docs/guide.md").write_text(PAGE.format(statement=statement), "utf-8")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        '[[tool.docpact.contract]]\nobject = "pkg.f"\noperands = ["a", "b"]\n'
        f'docs = ["docs/guide.md#scale"]\n{keys}',
        "utf-8",
    )
    return pyproject


def check(root: Path, body: str, **kwargs: str) -> list[str]:
    return [str(finding) for finding in check_project(load_config(write(root, body, **kwargs)))]


# Each code shape the trace follows, with a body whose divisor is max(1, a * b).
SHAPES = {
    "the guard inline": "return x / max(1, a * b)",
    "torch.clamp through a local": """
        divisor = torch.clamp(a * b, min=1)
        return x / divisor
    """,
    "a reassignment in an if branch keeping the value": """
        divisor = torch.clamp(a * b, min=1)
        if x.dtype.itemsize < 4:
            divisor = divisor.to(torch.float32)
        return x / divisor.unsqueeze(-1)
    """,
    "clamp_min as a method, operands reordered": "return x / (b * a).clamp_min(1)",
    "torch.maximum with a tensor bound": "return x / torch.maximum(a * b, torch.tensor(1.0))",
    "a comprehension over zip": """
        divisors = [max(1, count * b) for count in a]
        return [value / divisor for value, divisor in zip(x, divisors, strict=True)]
    """,
    "a dict lookup": """
        counts = {rid: max(1, a[rid] * b) for rid in a}
        return {rid: x[rid] / counts[rid] for rid in x}
    """,
    "a list filled by append": """
        out = []
        for value in a:
            out.append(max(1, value * b))
        return [v / d for v, d in zip(x, out, strict=True)]
    """,
    "a chain of two divisions": "return x / max(1, a * b) / 1",
    "an in-place clamp": """
        divisor = a * b
        divisor.clamp_(min=1)
        return x / divisor
    """,
    "enumerate over zip": """
        out = []
        for i, (value, count) in enumerate(zip(x, a, strict=True)):
            out.append(value / max(1, count * b))
        return out
    """,
    "an augmented multiplication": """
        divisor = a
        divisor *= b
        return x / max(1, divisor)
    """,
}


@pytest.mark.parametrize("body", SHAPES.values(), ids=SHAPES.keys())
def test_each_traced_shape_agrees_with_the_stated_formula(tmp_path: Path, body: str) -> None:
    """Every shape the trace follows reads as `max(1, a * b)`: no finding at all."""
    formula = "max(1, a * b) * 1" if "/ 1" in body else "max(1, a * b)"
    statement = (
        "$$\\max(1, \\mathrm{a} \\cdot \\mathrm{b}) \\cdot 1$$"
        if "/ 1" in body
        else "$$\n\\max(1, \\mathrm{a} \\cdot \\mathrm{b})\n$$"
    )
    assert check(tmp_path, body, formula=formula, statement=statement) == []


def test_a_property_divides_by_self_attributes_read_as_operands(tmp_path: Path) -> None:
    """`self.a` and `self.b` in a @property's body are the operands `a` and `b`."""
    package = tmp_path / "src/pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        textwrap.dedent('''
        class Stats:
            @property
            def share(self):
                """The hits over `a` and `b`: ``hits / max(1, a * b)``."""
                return self.hits / max(1, self.a * self.b)
        '''),
        "utf-8",
    )
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.docpact.contract]]\nobject = "pkg.Stats.share"\noperands = ["a", "b"]\n', "utf-8"
    )
    assert check_project(load_config(tmp_path / "pyproject.toml")) == []
    source = package / "__init__.py"
    source.write_text(source.read_text("utf-8").replace("``hits / max(1, a * b)``", "``hits / b``"))
    assert [str(f) for f in check_project(load_config(tmp_path / "pyproject.toml"))] == [
        "src/pkg/__init__.py:5: DP023 `hits / b` states `b`, but pkg.Stats.share divides by "
        "`max(1, a * b)`"
    ]


def test_a_code_change_alone_is_one_finding_at_the_divisor_line(tmp_path: Path) -> None:
    """Docstring and page agree with each other, not with the code: the code's line is named."""
    body = """
        divisor = a + b
        return x / divisor
    """
    assert check(tmp_path, body) == [
        "src/pkg/__init__.py:3: DP023 pkg.f divides by `a + b`, but its docstring and docs "
        "state `max(1, a * b)` (src/pkg/__init__.py:2, docs/guide.md:8): change the code back, "
        "or the statements"
    ]


def test_a_wrong_page_statement_lands_on_its_own_line_not_the_dollars(tmp_path: Path) -> None:
    statement = "$$\n\\max\\left(1,\\ \\mathrm{a} + \\mathrm{b}\\right)\n$$"
    assert check(tmp_path, "return x / max(1, a * b)", statement=statement) == [
        "docs/guide.md:8: DP023 `\\max\\left(1,\\ \\mathrm{a} + \\mathrm{b}\\right)` states "
        "`max(1, a + b)`, but pkg.f divides by `max(1, a * b)`"
    ]


def test_a_dropped_operand_under_the_guard_is_still_a_statement(tmp_path: Path) -> None:
    """`max(1, a)` holds one operand only, but the guard makes it a statement, and it is wrong."""
    assert check(tmp_path, "return x / max(1, a * b)", formula="max(1, a)") == [
        "src/pkg/__init__.py:2: DP023 `max(1, a)` is stated, but pkg.f divides by `max(1, a * b)`"
    ]


def test_a_place_without_statement_is_told_the_formula_to_write(tmp_path: Path) -> None:
    statement = "Both operands, `a` and `b`, divide the advantages."
    assert check(tmp_path, "return x / max(1, a * b)", statement=statement) == [
        "docs/guide.md:3: DP022 section #scale states no formula of the divisor: state it as "
        "inline code or math, e.g. `max(1, a * b)`"
    ]


def test_the_missing_guard_is_a_finding_where_the_code_has_one(tmp_path: Path) -> None:
    statement = "$$\\mathrm{a} \\cdot \\mathrm{b}$$"
    assert check(tmp_path, "return x / max(1, a * b)", statement=statement) == [
        "docs/guide.md:7: DP023 `\\mathrm{a} \\cdot \\mathrm{b}` states `a * b`, but pkg.f "
        "divides by `max(1, a * b)`"
    ]


NOT_STATEMENTS = {
    "another formula of the place": (
        "Each rollout carries $1 / \\mathrm{b}$, and $T_r = \\sum_i T_i$."
    ),
    "a fenced block": "```python\nx / (a + b)\n```\n\n$$\\max(1, \\mathrm{a} \\cdot \\mathrm{b})$$",
    "an HTML comment": "<!-- `a + b` -->\n$$\\max(1, \\mathrm{a} \\cdot \\mathrm{b})$$",
    "a call with keywords": "Call `g(a, b=b)`; the divisor is `max(1, a * b)`.",
}


@pytest.mark.parametrize("statement", NOT_STATEMENTS.values(), ids=NOT_STATEMENTS.keys())
def test_text_that_is_no_statement_is_neither_compared_nor_reported(
    tmp_path: Path, statement: str
) -> None:
    found = check(tmp_path, "return x / max(1, a * b)", statement=statement)
    if "max(1" in statement:
        assert found == []
    else:
        assert [line.split(" ")[1] for line in found] == ["DP022"]


def test_a_numerator_matching_the_codes_makes_its_denominator_a_statement(tmp_path: Path) -> None:
    """`x / c` divides the code's numerator by something else: a wrong divisor, reported."""
    statement = "Each value is $\\mathrm{x} / \\mathrm{c}$, with `a` and `b` unused."
    assert check(tmp_path, "return x / max(1, a * b)", statement=statement) == [
        "docs/guide.md:7: DP023 `\\mathrm{x} / \\mathrm{c}` states `c`, but pkg.f divides by "
        "`max(1, a * b)`"
    ]


def test_an_unknown_macro_in_a_statement_is_named(tmp_path: Path) -> None:
    statement = "$$\\max(1, \\mathrm{a} \\odot \\mathrm{b})$$"
    assert check(tmp_path, "return x / max(1, a * b)", statement=statement) == [
        "docs/guide.md:7: DP022 `\\max(1, \\mathrm{a} \\odot \\mathrm{b})` uses the LaTeX macro "
        "`\\odot`, which docpact does not read"
    ]


def test_unbalanced_math_holding_every_operand_is_reported_with_the_reason(tmp_path: Path) -> None:
    statement = "$$\\max(1, \\mathrm{a} \\cdot \\mathrm{b}$$"
    assert check(tmp_path, "return x / max(1, a * b)", statement=statement) == [
        "docs/guide.md:7: DP022 `\\max(1, \\mathrm{a} \\cdot \\mathrm{b}` cannot be read as "
        "math: expected `)`, got the end"
    ]


def test_a_code_span_that_is_not_python_is_reported(tmp_path: Path) -> None:
    assert check(tmp_path, "return x / max(1, a * b)", formula="max(1, a ** * b)") == [
        "src/pkg/__init__.py:2: DP022 `max(1, a ** * b)` is not a Python expression "
        "(invalid syntax)"
    ]


def test_untraceable_code_asks_for_a_formula_and_a_declared_one_checks_the_docs(
    tmp_path: Path,
) -> None:
    body = """
        if x.sum() > 0:
            divisor = max(1, a * b)
        else:
            divisor = max(1, a + b)
        return x / divisor
    """
    assert check(tmp_path / "1", body) == [
        "src/pkg/__init__.py:4: DP024 docpact cannot read the divisor of pkg.f as one formula: "
        "`divisor` takes different values: line 4 `max(1, a * b)`, line 6 `max(1, a + b)`; "
        'declare it in the contract: formula = "..."'
    ]
    declared = 'formula = "max(1, a * b)"\n'
    assert check(tmp_path / "2", body, keys=declared) == []
    wrong = check(tmp_path / "3", body, keys=declared, formula="max(1, b + a)")
    assert wrong == [
        "src/pkg/__init__.py:2: DP023 `max(1, b + a)` states `max(1, a + b)`, but the "
        "contract's formula is `max(1, a * b)`"
    ]


def test_a_declared_formula_is_held_against_code_that_traces(tmp_path: Path) -> None:
    found = check(tmp_path, "return x / max(1, a + b)", keys='formula = "max(1, a * b)"\n')
    assert found[0] == (
        "src/pkg/__init__.py:3: DP023 pkg.f divides by `max(1, a + b)`, but the contract's "
        "formula is `max(1, a * b)`"
    )


def test_statements_false_keeps_only_the_naming_rules(tmp_path: Path) -> None:
    statement = "Both operands, `a` and `b`, divide the advantages."
    found = check(
        tmp_path,
        "return x / (a + b)",
        formula="a times b",
        statement=statement,
        keys="statements = false\n",
    )
    assert found == []


BAD_KEYS = {
    "not an expression": ('formula = "max(1, a *"', 5, "formula must be a Python expression"),
    "not a string": ("formula = 3", 5, "formula must be a string holding a Python expression"),
    "no operand": (
        'formula = "x + y"',
        5,
        "formula must be an expression of the operands ['a', 'b']",
    ),
    "a division": (
        'formula = "x / max(1, a * b)"',
        5,
        "formula is the divisor alone, without what it divides",
    ),
    "too deep": ('formula = "' + "a - " * 3000 + 'b"', 5, "formula is nested too deeply to read"),
    "statements not a bool": ('statements = "no"', 5, "statements must be true or false, got 'no'"),
    "formula without statements": (
        'statements = false\nformula = "a * b"',
        6,
        "formula is compared with the statements",
    ),
}


@pytest.mark.parametrize(("keys", "line", "message"), BAD_KEYS.values(), ids=BAD_KEYS.keys())
def test_a_bad_formula_key_is_a_configuration_error_at_its_line(
    tmp_path: Path, keys: str, line: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = write(tmp_path, "return x / max(1, a * b)", keys=keys + "\n")
    assert main(["check", "--pyproject", str(pyproject)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"pyproject.toml:{line}: error: tool.docpact.contract[0].{message}" in err


def test_a_closed_pipe_ends_a_check_with_findings_quietly(tmp_path: Path) -> None:
    """`docpact check | head -1` on findings prints one line and no traceback."""
    pyproject = write(tmp_path, "return x / (a + b)", formula="a * b")
    command = f"{sys.executable} -m docpact check --pyproject {pyproject} | head -1"
    result = subprocess.run(command, shell=True, capture_output=True, text=True, check=False)
    assert result.stdout.count("\n") == 1
    assert "DP023" in result.stdout
    assert result.stderr == ""


def write_restated(root: Path, extra: str, restated: str) -> Path:
    """The project of `write`, whose module also holds `extra` and restates per `restated`."""
    pyproject = write(root, "return x / max(1, a * b)", keys=f"restated = {restated}\n")
    module = root / "src/pkg/__init__.py"
    module.write_text(extra + module.read_text("utf-8"), "utf-8")
    return pyproject


RESTATED = '"""The package: it divides by ``max(1, a * b)``."""\nSHOWN = "max(1, b * a)"\n'


def test_restated_objects_are_places_held_to_the_formula(tmp_path: Path) -> None:
    """The package docstring and a string constant restate the formula; each drift is found."""
    pyproject = write_restated(tmp_path, RESTATED, '["pkg", "pkg.SHOWN"]')
    assert check_project(load_config(pyproject)) == []
    module = tmp_path / "src/pkg/__init__.py"
    text = module.read_text("utf-8")
    module.write_text(
        text.replace("``max(1, a * b)``", "``a * b``", 1).replace('"max(1, b * a)"', '"a + b"'),
        "utf-8",
    )
    assert [str(f) for f in check_project(load_config(pyproject))] == [
        "src/pkg/__init__.py:1: DP023 `a * b` is stated, but pkg.f divides by `max(1, a * b)`",
        "src/pkg/__init__.py:2: DP023 `a + b` is stated, but pkg.f divides by `max(1, a * b)`",
    ]


def test_a_restated_object_that_is_gone_or_silent_is_dp022(tmp_path: Path) -> None:
    pyproject = write_restated(tmp_path, "COUNT = 3\n", '["pkg.GONE", "pkg.COUNT"]')
    assert [str(f) for f in check_project(load_config(pyproject))] == [
        "pyproject.toml:1: DP022 restated object pkg.GONE of pkg.f does not exist",
        "src/pkg/__init__.py:1: DP022 pkg.COUNT, which has no docstring, states no formula "
        "of the divisor: state it as inline code or math, e.g. `max(1, a * b)`",
    ]


BAD_RESTATED = {
    '"pkg"': "restated must be a non-empty list of dotted Python paths, got 'pkg'",
    '["other.x"]': "restated may list objects of package pkg only, got 'other.x'",
    '["pkg", "pkg"]': "restated lists an object twice: ['pkg', 'pkg']",
    '["pkg"]\nstatements = false': "restated lists places of the formula, which statements",
}


@pytest.mark.parametrize(("value", "message"), BAD_RESTATED.items(), ids=BAD_RESTATED.keys())
def test_a_bad_restated_key_is_a_configuration_error(
    tmp_path: Path, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = write(tmp_path, "return x / max(1, a * b)", keys=f"restated = {value}\n")
    assert main(["check", "--pyproject", str(pyproject)]) == 2
    assert f"pyproject.toml:5: error: tool.docpact.contract[0].{message}" in capsys.readouterr().err


def test_a_restructuredtext_math_role_in_the_docstring_is_read_as_latex(tmp_path: Path) -> None:
    # Escaped twice: the docstring is written into a module's source, which unescapes it.
    formula = "max(1, a * b)`` and :math:`\\\\max(1, \\\\mathrm{a} + \\\\mathrm{b})`, ``a"
    assert check(tmp_path, "return x / max(1, a * b)", formula=formula) == [
        "src/pkg/__init__.py:2: DP023 `\\max(1, \\mathrm{a} + \\mathrm{b})` states "
        "`max(1, a + b)`, but pkg.f divides by `max(1, a * b)`"
    ]


def test_the_formula_to_write_for_a_lone_operand_is_a_division(tmp_path: Path) -> None:
    """A name alone is a mention, so a divisor that is one operand is offered as `x / n`."""
    package = tmp_path / "src/pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        'def f(y, n):\n    """Divide `y` by `n`."""\n    return y / n\n', "utf-8"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.docpact.contract]]\nobject = "pkg.f"\noperands = ["n"]\n', "utf-8"
    )
    assert [str(f) for f in check_project(load_config(tmp_path / "pyproject.toml"))] == [
        "src/pkg/__init__.py:2: DP022 docstring of pkg.f states no formula of the divisor: "
        "state it as inline code or math, e.g. `y / n`"
    ]


def test_absolute_values_and_applied_functions_read_alike_in_latex_and_python(
    tmp_path: Path,
) -> None:
    r"""`\left|...\right|` is `abs(...)`; `\mathrm{log}(a)` keeps its argument (not an operand)."""
    body = "return x / max(1, abs(a - b) * torch.log(a))"
    statement = r"$$\max(1, \left|\mathrm{a} - \mathrm{b}\right| \cdot \mathrm{log}(\mathrm{a}))$$"
    found = check(tmp_path, body, formula="max(1, abs(a - b) * log(a))", statement=statement)
    assert found == []


# Review fixes: shapes that once passed a drift, or failed a clean page.
CODE_DRIFTS = {
    "a method of an operand is not the operand": "return x / max(1, a.sqrt() * b)",
    "a keyword argument counts": "return x / torch.clamp(a * b, min=1, max=10)",
    "a second division through a local": "y = x / max(1, a * b)\nreturn y / m",
}


@pytest.mark.parametrize("body", CODE_DRIFTS.values(), ids=CODE_DRIFTS.keys())
def test_a_code_drift_once_missed_is_a_finding_at_the_code(tmp_path: Path, body: str) -> None:
    found = check(tmp_path, body, signature="def f(x, a, b, m=1):")
    assert [line.split(" ")[1] for line in found] == ["DP023"]
    assert "but its docstring and docs state `max(1, a * b)`" in found[0]


def test_a_helper_in_the_divisor_is_untraced_and_a_declared_formula_settles_it(
    tmp_path: Path,
) -> None:
    body = "return x / _den(a, b)"
    extra = "\n\ndef _den(a, b):\n    return max(1, a * b)\n"
    pyproject = write(tmp_path / "1", body)
    module = tmp_path / "1/src/pkg/__init__.py"
    module.write_text(module.read_text("utf-8") + extra, "utf-8")
    assert [str(f) for f in check_project(load_config(pyproject))] == [
        "src/pkg/__init__.py:3: DP024 docpact cannot read the divisor of pkg.f as one formula: "
        "line 3 divides by what `_den(a, b)` returns, and docpact does not follow into `_den`; "
        'declare it in the contract: formula = "..."'
    ]
    pyproject = write(tmp_path / "2", body, keys='formula = "max(1, a * b)"\n')
    module = tmp_path / "2/src/pkg/__init__.py"
    module.write_text(module.read_text("utf-8") + extra, "utf-8")
    assert check_project(load_config(pyproject)) == []


@pytest.mark.parametrize(
    ("imports", "body", "formula", "statement"),
    [
        (
            "import torch as th",
            "return x / th.clamp(a * b, min=1)",
            "max(1, a * b)",
            "$$\\max(1, a \\cdot b)$$",
        ),
        (
            "from torch import sqrt as root",
            "return x / max(1, root(a) * b)",
            "max(1, sqrt(a) * b)",
            "$$\\max(1, \\sqrt{\\mathrm{a}} \\cdot \\mathrm{b})$$",
        ),
    ],
    ids=["a module alias", "a function imported from the module"],
)
def test_a_module_by_the_names_its_imports_give_is_read_as_the_module(
    tmp_path: Path, imports: str, body: str, formula: str, statement: str
) -> None:
    """What a module imports from torch is torch's, not a helper of the project's."""
    pyproject = write(tmp_path, body, formula=formula, statement=statement)
    module = tmp_path / "src/pkg/__init__.py"
    module.write_text(f"{imports}\n\n" + module.read_text("utf-8"), "utf-8")
    assert check_project(load_config(pyproject)) == []


CLEAN_PAGES = {
    "a symbol defined apart": "$\\frac{x}{D}$, where $D = \\max(1, a \\cdot b)$.",
    "a definition in code": "`d = max(1, a * b)`, then `x / d`.",
    "aligned, tagged, with prose": (
        "$$\n\\begin{aligned} d &= \\max(1, a \\cdot b) \\\\ y &= \\frac{x}{d}"
        " \\end{aligned} \\tag{1} \\text{ where } b > 0.\n$$"
    ),
    "unicode operators and a subscripted operand": "$$\\max(1, a_i \u00b7 b)$$",
    "a call signature and a contrast": (
        "Call `f(x, a, b)`; not `max(1, a * c)`, but `max(1, a * b)`."
    ),
    "a block quote": "> The divisor is\n> $\\max(1,\n> a \\cdot b)$.",
    "a conditional in a code span": "`max(1, a * b)`, or `x if a else b` for none.",
}


@pytest.mark.parametrize("statement", CLEAN_PAGES.values(), ids=CLEAN_PAGES.keys())
def test_pages_written_as_people_write_math_pass(tmp_path: Path, statement: str) -> None:
    assert check(tmp_path, "return x / max(1, a * b)", statement=statement) == []


def test_a_doctest_in_the_docstring_is_no_statement(tmp_path: Path) -> None:
    """A doctest's prompt, continuation and output lines are code, not prose."""
    formula = 'max(1, a * b)``.\n\n    >>> print(\n    ...     "`a + b`")\n    `a + b`\n\n    ``a'
    assert check(tmp_path, "return x / max(1, a * b)", formula=formula) == []


def test_a_multiline_statement_is_quoted_on_one_line_at_its_first_line(tmp_path: Path) -> None:
    statement = "$$\n\\max\\left(1,\n\\mathrm{a} + \\mathrm{b}\\right)\n$$"
    assert check(tmp_path, "return x / max(1, a * b)", statement=statement) == [
        "docs/guide.md:8: DP023 `\\max\\left(1, \\mathrm{a} + \\mathrm{b}\\right)` states "
        "`max(1, a + b)`, but pkg.f divides by `max(1, a * b)`"
    ]


def test_deep_math_is_a_finding_not_a_lost_package(tmp_path: Path) -> None:
    deep = "\\frac{1}{" * 400 + "a \\cdot b" + "}" * 400
    found = check(tmp_path, "return x / max(1, a * b)", statement=f"$${deep}$$")
    assert [line.split(" ")[1] for line in found] == ["DP022"]
    assert found[0].endswith("is nested too deeply to read")


def test_a_setext_heading_and_a_restated_docstring_after_a_blank_line_keep_their_lines(
    tmp_path: Path,
) -> None:
    pyproject = write(tmp_path, "return x / max(1, a * b)", keys='restated = ["pkg"]\n')
    module = tmp_path / "src/pkg/__init__.py"
    module.write_text(
        '"""\nThe package.\n\nIt divides by `a + b`.\n"""\n' + module.read_text("utf-8")
    )
    page = tmp_path / "docs/guide.md"
    page.write_text("Guide\n=====\n\nScale\n-----\n\n`a` and `b`, in $\\max(1, a + b)$.\n", "utf-8")
    assert [str(f) for f in check_project(load_config(pyproject))] == [
        "docs/guide.md:7: DP023 `\\max(1, a + b)` states `max(1, a + b)`, but pkg.f divides by "
        "`max(1, a * b)`",
        "src/pkg/__init__.py:4: DP023 `a + b` is stated, but pkg.f divides by `max(1, a * b)`",
    ]


def test_restated_may_not_list_the_contracts_own_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = write(tmp_path, "return x / max(1, a * b)", keys='restated = ["pkg.f"]\n')
    assert main(["check", "--pyproject", str(pyproject)]) == 2
    assert "restated lists the contract's object 'pkg.f'" in capsys.readouterr().err


SECOND_REVIEW = {
    "a divisor of another function, stated as itself": (
        "return x / torch.log1p(a * b)",
        "torch.log1p(a * b)",
        "$$\\mathrm{log1p}(a \\cdot b)$$",
    ),
    "an example's value for an operand": (
        "return x / max(1, a * b)",
        "max(1, a * b)",
        "$\\frac{x}{\\max(1, a \\cdot b)}$: when $b = 0$ the divisor is 1, with `a = 3`.",
    ),
    "a builtin and a function imported under another name": (
        "return x / root(max(1, a * b * len(list(x))))",
        "sqrt(max(1, a * b * len(list(x))))",
        "$$\\sqrt{\\max(1, a \\cdot b \\cdot \\mathrm{len}(\\mathrm{list}(x)))}$$",
    ),
    "keyword arguments in another order": (
        "return x / torch.clamp(a * b, min=1, max=10)",
        "torch.clamp(a * b, max=10, min=1)",
        "`torch.clamp(a * b, min=1, max=10)`",
    ),
    "a prose line that opens with dots": (
        "return x / max(1, a * b)",
        "max(1, a * b)",
        "The divisor is `max(1, a * b)`, per batch\n... and per step: `max(1, a * b)`.",
    ),
}


@pytest.mark.parametrize(
    ("body", "formula", "statement"), SECOND_REVIEW.values(), ids=SECOND_REVIEW.keys()
)
def test_shapes_of_the_second_review_pass(
    tmp_path: Path, body: str, formula: str, statement: str
) -> None:
    pyproject = write(tmp_path, body, formula=formula, statement=statement)
    module = tmp_path / "src/pkg/__init__.py"
    module.write_text("from math import sqrt as root\n\n" + module.read_text("utf-8"), "utf-8")
    assert [str(f) for f in check_project(load_config(pyproject))] == []


def test_a_prose_line_of_dots_still_holds_its_statement(tmp_path: Path) -> None:
    """Only a doctest's `...` lines are blanked: a drift on a prose line is still found."""
    statement = "The divisor is `max(1, a * b)`, per batch\n... and per step `max(1, a + b)`."
    found = check(tmp_path, "return x / max(1, a * b)", statement=statement)
    assert [line.split(" ")[1] for line in found] == ["DP023"]


def test_a_definition_by_itself_is_read_once_as_a_statement(tmp_path: Path) -> None:
    """`d = ... d * d ...` defines nothing (no blow-up); its value is a wrong statement."""
    statement = "`d = max(1, a * b * d * d * d * d * d * d)`, and `x / d`."
    found = check(tmp_path, "return x / max(1, a * b)", statement=statement)
    assert [line.split(" ")[1] for line in found] == ["DP023", "DP023"]
