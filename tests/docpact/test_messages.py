# SPDX-License-Identifier: MIT
"""Messages for any project: an operand's remaining uses, torch's words, "did you mean"."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from docpact import check_project, load_config
from docpact._readers.python.uses import Use, describe

# The rules whose messages these tests read; the others' findings are left out.
CODES = frozenset({"DP001", "DP003", "DP006"})


def check(root: Path, source: str, *, objects: tuple[str, ...] = ("pkg.f",)) -> list[str]:
    """Check contracts on `objects`, with operands `a` and `b`, in a package `source` defines.

    Returns:
        The findings of `CODES`, as `path:line: CODE message`.
    """
    package = root / "src/pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(source).lstrip("\n"), "utf-8")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        "".join(
            f'[[tool.docpact.contract]]\nobject = "{dotted}"\noperands = ["a", "b"]\n'
            for dotted in objects
        ),
        "utf-8",
    )
    findings = check_project(load_config(pyproject))
    return [str(finding) for finding in findings if finding.code in CODES]


LOST = "src/pkg/__init__.py:{line}: DP003 no division in pkg.f computes its divisor from operand "


def test_an_operand_left_only_in_a_comparison_is_named_with_its_line(tmp_path: Path) -> None:
    """The user's case: `if a == 0` is the operand's last use, and DP003 says so."""
    source = '''
    def f(x, a, b):
        """Divide by `a * b`."""
        if a == 0:
            return x
        return x / b
    '''
    assert check(tmp_path, source) == [
        LOST.format(line=5) + "`a` (still used at line 3 in a comparison (`a == 0`))"
    ]


# Each way a body may still use operand `a`: the code from line 3, the use's line, and how
# DP003 names it.
USES = {
    "a call argument": ("y = log(a)", 3, "as a call argument (`log(a)`)"),
    "a branch that never runs": (
        "if False:\n    print(a)",
        4,
        "in a branch that never runs (`if False:`)",
    ),
    "the else of an always-true test": (
        "if True:\n    pass\nelse:\n    print(a)",
        6,
        "in a branch that never runs (`if True:`)",
    ),
    "a method": ("n = a.numel()", 3, "through a method (`a.numel()`)"),
    "an attribute": ("n = a.shape", 3, "through an attribute (`a.shape`)"),
    "an if's test": ("if a:\n    pass", 3, "in a condition (`if a:`)"),
    "a conditional expression's test": ("y = 1 if a else 2", 3, "in a condition (`1 if a else 2`)"),
    "another division's divisor": ("y = x / a", 3, "in another division's divisor (`x / a`)"),
    "an augmented division": ("y = x\ny /= a", 4, "in another division's divisor (`y /= a`)"),
    "anything else": ("y = x * a", 3, "outside the divisor (`y = x * a`)"),
}


@pytest.mark.parametrize(("code", "line", "says"), USES.values(), ids=USES.keys())
def test_each_remaining_use_of_an_operand_says_how_it_is_used(
    tmp_path: Path, code: str, line: int, says: str
) -> None:
    body = textwrap.indent(f"{code}\nreturn x / b\n", "    ")
    source = f'def f(x, a, b):\n    """Divide by `a * b`."""\n{body}'
    division = 3 + code.count("\n") + 1
    assert check(tmp_path, source) == [
        LOST.format(line=division) + f"`a` (still used at line {line} {says})"
    ]


def test_an_attribute_of_self_counts_as_a_use_of_its_operand(tmp_path: Path) -> None:
    """In a property, `self.a` is operand `a`: its comparison is named as a remaining use."""
    source = '''
    class C:
        @property
        def f(self):
            """Divide by `a * b`."""
            if self.a == 0:
                return 0
            return self.x / self.b
    '''
    assert check(tmp_path, source, objects=("pkg.C.f",)) == [
        "src/pkg/__init__.py:7: DP003 no division in pkg.C.f computes its divisor from "
        "operand `a` (still used at line 5 in a comparison (`self.a == 0`))"
    ]


def test_at_most_three_lines_are_named_and_the_rest_counted(tmp_path: Path) -> None:
    """Each line is named once, in line order; past the third, only their number is given."""
    source = '''
    def f(x, a, b):
        """Divide by `a * b`."""
        assert a > 0, a
        print(a)
        y = x * a
        z = x + a
        w = x - a
        return x / b
    '''
    assert check(tmp_path, source) == [
        LOST.format(line=8) + "`a` (still used at line 3 in a comparison (`a > 0`), line 4 as "
        "a call argument (`print(a)`), line 5 outside the divisor (`y = x * a`), and 2 more lines)"
    ]


def test_a_long_use_is_shortened_to_forty_characters() -> None:
    """The code quoted for a use stays short however long its line is."""
    assert describe([Use(1, "as a call argument", "f(" + "x, " * 20 + "a)")]) == (
        "still used at line 1 as a call argument (`f(x, x, x, x, x, x, x, x, x, x, x, x, x, x, "
        "x, x, x, x, x, x, a)`)"
    )


def test_one_line_past_the_limit_is_counted_in_the_singular() -> None:
    found = [Use(line, "outside the divisor", "a") for line in (1, 2)]
    assert (
        describe(found, limit=1)
        == "still used at line 1 outside the divisor (`a`), and 1 more line"
    )


def test_an_operand_the_body_never_uses_is_named_alone(tmp_path: Path) -> None:
    source = 'def f(x, a, b):\n    """Divide by `a * b`."""\n    return x / b\n'
    assert check(tmp_path, source) == [LOST.format(line=3) + "`a`"]


# DP006's hint and DP006's reciprocal hint, with torch and without.
PLAIN_HINT = (
    " (docpact follows `/`, `//` and `operator.truediv` in this body, through its local "
    "assignments; a division inside a helper function is not followed)"
)
TORCH_HINT = (
    " (docpact follows `/`, `//`, `torch.div` and `.div()` in this body, through its local "
    "assignments; a division inside a helper function is not followed)"
)
NO_DIVISION = "DP006 pkg.f has no division; its divisor must use `a`, `b`"
WITHOUT_TORCH = {
    "plain Python": ("", "return x * a * b", PLAIN_HINT),
    "numpy": ("import numpy as np\n", "return np.multiply(x, a * b)", PLAIN_HINT),
    "a module importing torch": ("import torch\n", "return x * a * b", TORCH_HINT),
    "a module importing from torch": ("from torch import nn\n", "return x * a * b", TORCH_HINT),
    "a body importing torch": ("", "import torch\n    return x * a * b", TORCH_HINT),
    "a body naming torch": ("", "return torch.mul(x, a * b)", TORCH_HINT),
}


@pytest.mark.parametrize(
    ("imports", "body", "hint"), WITHOUT_TORCH.values(), ids=WITHOUT_TORCH.keys()
)
def test_the_hint_names_torch_only_where_the_code_uses_torch(
    tmp_path: Path, imports: str, body: str, hint: str
) -> None:
    source = f'{imports}def f(x, a, b):\n    """Divide by `a * b`."""\n    {body}\n'
    line = 1 + imports.count("\n")
    assert check(tmp_path, source) == [f"src/pkg/__init__.py:{line}: {NO_DIVISION}{hint}"]


@pytest.mark.parametrize(
    ("imports", "write"),
    [("", "`x / divisor`"), ("import torch\n", "`x / divisor` or `torch.div(x, divisor)`")],
    ids=["without torch", "with torch"],
)
def test_the_reciprocal_hint_names_torch_div_only_with_torch(
    tmp_path: Path, imports: str, write: str
) -> None:
    source = (
        f'{imports}def f(x, a, b):\n    """Divide by `a * b`."""\n    return x * (a * b) ** -1\n'
    )
    line = 1 + imports.count("\n")
    assert check(tmp_path, source) == [
        f"src/pkg/__init__.py:{line}: {NO_DIVISION} (line {line + 2} multiplies by a "
        f"reciprocal, which docpact does not follow: write {write})"
    ]


OBJECTS = '''
"""A package."""


def scale(x, a, b):
    """Divide by `a * b`."""
    return x / (a * b)


def scales(x, a, b):
    """Divide by `a * b`."""
    return x / (a * b)


class Table:
    """A table."""

    def share(self, x, a, b):
        """Divide by `a * b`."""
        return x / (a * b)
'''
# A misspelt object, and the hint DP001 gives.
MISSPELT = {
    "a function": ("pkg.scal", " (did you mean `pkg.scale` or `pkg.scales`?)"),
    "a class on the way": ("pkg.Tabel.share", " (did you mean `pkg.Table.share`?)"),
    "a method": ("pkg.Table.shares", " (did you mean `pkg.Table.share`?)"),
    "a class with a wrong path below it": ("pkg.Tabel.x", " (did you mean `pkg.Table`?)"),
    "nothing close": ("pkg.normalize", ""),
    "the package": ("pgk.scale", ": no package pgk under src/, ./ (did you mean `pkg`?)"),
    "the package, nothing close": ("zzz.scale", ": no package zzz under src/, ./"),
}


@pytest.mark.parametrize(("dotted", "hint"), MISSPELT.values(), ids=MISSPELT.keys())
def test_a_misspelt_object_asks_did_you_mean_with_the_closest_paths(
    tmp_path: Path, dotted: str, hint: str
) -> None:
    """DP001 respells the first name griffe lacks, and keeps the rest of the path if it exists."""
    assert check(tmp_path, OBJECTS, objects=(dotted,)) == [
        f"pyproject.toml:1: DP001 {dotted} does not exist{hint}"
    ]


def test_a_method_named_like_the_operand_is_no_use_of_it(tmp_path: Path) -> None:
    """`items.count(x)` calls another object's method: operand `a` is not used there."""
    source = (
        'def f(x, a, b, items):\n    """Divide by `a * b`."""\n'
        "    print(items.a(None))\n    return x / b\n"
    )
    assert check(tmp_path, source) == [LOST.format(line=4) + "`a`"]


def test_did_you_mean_never_offers_the_path_as_written(tmp_path: Path) -> None:
    """An alias griffe cannot resolve exists by name: suggesting that name would say nothing."""
    source = 'from functools import reduce\n\n\ndef f(x, a, b):\n    """Divide by `a * b`."""\n'
    found = check(tmp_path, source + "    return x / (a * b)\n", objects=("pkg.reduce",))
    assert found == ["pyproject.toml:1: DP001 pkg.reduce does not exist"]
