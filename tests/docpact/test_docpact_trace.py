# SPDX-License-Identifier: MIT
"""Division tracing: which divisions docpact finds and which names each divisor uses."""

from __future__ import annotations

import ast
import keyword
import textwrap
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docpact._trace import chains, divisions


def traced(source: str) -> list[tuple[int, set[str]]]:
    function = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(function, ast.FunctionDef)
    return [(division.line, set(division.names)) for division in divisions(function)]


def chained(source: str) -> list[tuple[int, set[str]]]:
    function = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(function, ast.FunctionDef)
    return [(chain.line, set(chain.names)) for chain in chains(divisions(function))]


FORMS = {
    "operator": "return x / (a * b)",
    "floor division": "return x // (a * b)",
    "augmented": "x /= a * b\nreturn x",
    "torch.div": "return torch.div(x, a * b)",
    "method": "return x.div(a * b)",
    "method keyword": "return x.div(other=a * b)",
    "torch.div keyword": "return torch.div(x, other=a * b)",
    "keywords only": "return torch.div(input=x, other=a * b)",
    "method with rounding mode": "return x.div(a * b, rounding_mode='floor')",
    "operator module": "return operator.truediv(x, a * b)",
    "chain": "return x / a / b",
}


@pytest.mark.parametrize("body", FORMS.values(), ids=FORMS.keys())
def test_every_division_form_is_found_with_its_divisor(body: str) -> None:
    source = "def f(x, a, b):\n" + textwrap.indent(body, "    ")
    [(line, names)] = traced(source)
    assert line == 2
    assert {"a", "b"} <= names
    assert "x" not in names


def test_the_dividend_is_not_the_divisor() -> None:
    assert traced("def f(a, b):\n    return (a * b) / 2") == [(2, set())]


def test_names_are_traced_through_local_assignments() -> None:
    source = """
    def f(x, tokens, codes, *, rows):
        count = tokens[codes]
        (scale, unused) = (count * rows, 0)
        if (divisor := clamp(scale, min=1)) is not None:
            pass
        return x / divisor.unsqueeze(-1)
    """
    [(line, names)] = traced(source)
    assert line == 7
    assert {"divisor", "scale", "count", "tokens", "codes", "rows"} <= names
    assert "unused" not in names
    assert "x" not in names


def test_subscript_assignment_and_loops_count_as_assignments() -> None:
    source = """
    def f(x, a, items):
        d = ones()
        d[mask] = a
        for item in items:
            d = d + item
        return x / d
    """
    [(_, names)] = traced(source)
    assert {"a", "items"} <= names


def test_nested_functions_are_another_scope() -> None:
    source = """
    def f(x, a):
        def g(y):
            return y / a
        d = a
        return g(x)
    """
    assert traced(source) == []


def test_a_later_assignment_overwrites_the_divisor() -> None:
    source = """
    def f(x, a, b, c):
        d = clamp(a * b)
        d = clamp(c * b)
        return x / d
    """
    [(_, names)] = traced(source)
    assert {"b", "c"} <= names
    assert "a" not in names


def test_an_assignment_after_the_division_does_not_reach_it() -> None:
    source = "def f(x, a, b):\n    d = a\n    y = x / d\n    d = b\n    return y"
    [(_, names)] = traced(source)
    assert "a" in names
    assert "b" not in names


def test_assignments_in_both_branches_are_kept() -> None:
    source = """
    def f(x, a, b, c, p):
        if p:
            d = a * b
        else:
            d = a * c
        return x / d
    """
    [(_, names)] = traced(source)
    assert {"a", "b", "c"} <= names


def test_straight_line_code_after_a_branch_overwrites_it() -> None:
    source = """
    def f(x, a, b, p):
        if p:
            d = a
        d = b
        return x / d
    """
    [(_, names)] = traced(source)
    assert "b" in names
    assert "a" not in names


def test_a_loop_carries_a_later_assignment_back_to_the_division() -> None:
    source = """
    def f(x, a, b, items):
        d = a
        for item in items:
            y = x / d
            d = b
    """
    [(_, names)] = traced(source)
    assert {"a", "b"} <= names


def test_an_assignment_at_the_top_of_a_loop_overwrites_on_every_pass() -> None:
    source = """
    def f(x, a, b, items):
        d = a
        for item in items:
            d = b
            y = x / d
    """
    [(_, names)] = traced(source)
    assert "b" in names
    assert "a" not in names


def test_a_comprehension_variable_reaches_the_division_before_it() -> None:
    [(_, names)] = traced("def f(x, ds):\n    return [x / d for d in ds]")
    assert "ds" in names


def test_divisions_that_feed_one_another_form_a_chain() -> None:
    source = "def f(x, a, b):\n    y = x / a\n    z = 2 * y\n    return z / b"
    assert chained(source) == [(2, {"a"}), (4, {"b"}), (4, {"a", "b"})]


def test_augmented_divisions_in_a_row_form_a_chain() -> None:
    source = "def f(x, a, b):\n    x /= a\n    x /= b\n    return x"
    assert (3, {"a", "b"}) in chained(source)


def test_divisions_of_unrelated_values_stay_apart() -> None:
    source = "def f(x, w, a, b):\n    y = x / a\n    return w / b"
    assert chained(source) == [(2, {"a"}), (3, {"b"})]


def test_a_division_that_feeds_itself_in_a_loop_ends() -> None:
    source = "def f(x, a, items):\n    for item in items:\n        x = x / a\n    return x"
    assert chained(source) == [(3, {"a"})]


def test_divisions_come_in_source_order() -> None:
    source = "def f(x, a, b):\n    y = x / a\n    return y / b"
    assert [line for line, _ in traced(source)] == [2, 3]


names = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8).filter(
    lambda name: not keyword.iskeyword(name)
)


@given(chain=st.lists(names, min_size=1, max_size=8, unique=True), operand=names)
def test_an_operand_is_found_through_any_chain_of_assignments(
    chain: list[str], operand: str
) -> None:
    """However long the chain of locals between an operand and the divisor, it is traced."""
    if operand in chain:
        chain.remove(operand)
    lines = [f"    {target} = {source} + 1" for source, target in pairwise([operand, *chain])]
    last = chain[-1] if chain else operand
    source = "\n".join([f"def f(x, {operand}):", *lines, f"    return x / {last}"])
    [(_, traced_names)] = traced(source)
    assert operand in traced_names


@given(chain=st.lists(names, min_size=2, max_size=8, unique=True))
def test_a_broken_chain_loses_the_operand(chain: list[str]) -> None:
    """Once one link no longer reads the previous name, the operand is not traced."""
    operand, *locals_ = ["operand_", *chain]
    lines = [f"    {target} = {source} + 1" for source, target in pairwise([operand, *locals_])]
    lines[len(lines) // 2] = f"    {locals_[len(lines) // 2]} = 1"
    source = "\n".join([f"def f(x, {operand}):", *lines, f"    return x / {locals_[-1]}"])
    [(_, traced_names)] = traced(source)
    assert operand not in traced_names
