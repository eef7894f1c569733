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

from docpact._trace import divisions


def traced(source: str) -> list[tuple[int, set[str]]]:
    function = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(function, ast.FunctionDef)
    return [(division.line, set(division.names)) for division in divisions(function)]


FORMS = {
    "operator": "return x / (a * b)",
    "floor division": "return x // (a * b)",
    "augmented": "x /= a * b\nreturn x",
    "torch.div": "return torch.div(x, a * b)",
    "method": "return x.div(a * b)",
    "method keyword": "return x.div(other=a * b)",
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
