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

from docpact._readers.python.flow import is_module_path
from docpact._readers.python.trace import chains, divisions


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


def live(source: str) -> list[bool]:
    function = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(function, ast.FunctionDef)
    return [division.live for division in divisions(function)]


ADDING = {
    "attribute assignment": "d.scale = b",
    "item assignment": "d[mask] = b",
    "method on an attribute": "d.scale.add_(b)",
}


@pytest.mark.parametrize("statement", ADDING.values(), ids=ADDING.keys())
def test_changing_part_of_a_value_adds_to_it(statement: str) -> None:
    """`d.scale = b` or `d[mask] = b` changes `d`: both its old value and `b` reach the use."""
    source = f"def f(x, a, b, mask):\n    d = a\n    {statement}\n    return x / d"
    [(_, names)] = traced(source)
    assert {"a", "b"} <= names


def test_changing_part_of_a_value_in_a_loop_reaches_a_use_earlier_in_the_loop() -> None:
    source = """
    def f(x, a, b, items):
        d = a
        for item in items:
            y = x / d
            d.scale = b
    """
    [(_, names)] = traced(source)
    assert {"a", "b"} <= names


def test_a_starred_target_takes_the_whole_value_and_overwrites() -> None:
    source = "def f(x, a, b, c):\n    d = c\n    first, *d = a, b\n    return x / d[0]"
    [(_, names)] = traced(source)
    assert {"a", "b"} <= names
    assert "c" not in names


def test_tuple_unpacking_pairs_targets_with_values_and_overwrites() -> None:
    source = "def f(x, a, b, c):\n    d = c\n    d, e = a, b\n    return x / d"
    [(_, names)] = traced(source)
    assert "a" in names
    assert not {"b", "c"} & names


def test_tuple_unpacking_of_a_starred_value_gives_each_target_the_whole_value() -> None:
    [(_, names)] = traced("def f(x, ps, b):\n    d, e = *ps, b\n    return x / d")
    assert {"ps", "b"} <= names


OVERWRITING = {
    "annotated": "d: int = b",
    "walrus": "if (d := b):\n        pass",
    "with target": "with hold(b) as d:\n        pass",
    "walrus in a while test": "while (d := b) > 0:\n        pass",
}


@pytest.mark.parametrize("statement", OVERWRITING.values(), ids=OVERWRITING.keys())
def test_assignments_that_always_run_overwrite(statement: str) -> None:
    """An annotated assignment, a walrus in a test or a `with` target replaces `d`'s old value."""
    source = f"def f(x, a, b):\n    d = a\n    {statement}\n    return x / d"
    [(_, names)] = traced(source)
    assert "b" in names
    assert "a" not in names


def test_a_for_target_does_not_overwrite_because_the_loop_may_not_run() -> None:
    source = "def f(x, a, items):\n    d = a\n    for d in items:\n        pass\n    return x / d"
    [(_, names)] = traced(source)
    assert {"a", "items"} <= names


def test_an_assignment_in_another_branch_does_not_overwrite() -> None:
    source = """
    def f(x, a, b, p):
        d = a
        if p:
            d = b
        else:
            y = x / d
        return y
    """
    [(_, names)] = traced(source)
    assert "a" in names


def test_an_assignment_in_an_earlier_block_does_not_overwrite() -> None:
    source = """
    def f(x, a, b, p, q):
        d = a
        if p:
            d = b
        if q:
            y = x / d
        return y
    """
    [(_, names)] = traced(source)
    assert {"a", "b"} <= names


def test_an_assignment_after_the_loop_does_not_reach_a_use_in_it() -> None:
    source = """
    def f(x, a, b, c, items):
        d = a
        for item in items:
            y = x / d
            d = b
        d = c
        return y
    """
    [(_, names)] = traced(source)
    assert {"a", "b"} <= names
    assert "c" not in names


CUTTING = {
    "len": ("len(a)", set()),
    "module function": ("torch.numel(a)", set()),
    "module function making a new tensor": ("torch.ones_like(a)", set()),
    "method": ("a.numel()", {"numel"}),
    "attribute": ("stats.count", {"stats", "count"}),
    "local function of a cutting name": ("ones_like(a)", {"ones_like", "a"}),
    "call of an item": ("fs[0](a)", {"fs", "a"}),
    "cut beside a name": ("b * len(a)", {"b"}),
}


@pytest.mark.parametrize(("divisor", "expected"), CUTTING.values(), ids=CUTTING.keys())
def test_a_divisor_stops_at_what_does_not_give_its_values(divisor: str, expected: set[str]) -> None:
    """`len(a)`, `torch.numel(a)`, `a.numel()` cut `a` off; attribute names and others count."""
    assert traced(f"def f(x, a, b, fs, stats):\n    return x / ({divisor})") == [(2, expected)]


def test_a_module_path_is_read_through_its_attributes() -> None:
    assert is_module_path(ast.parse("torch.linalg", mode="eval").body)
    assert not is_module_path(ast.parse("values.linalg", mode="eval").body)


FED = {
    "operator": "y / b",
    "torch.div": "torch.div(y, b)",
    "imported function": "truediv(y, b)",
    "method": "y.div(b)",
    "method keyword": "y.div(other=b)",
    "torch.div keyword": "torch.div(y, other=b)",
    "keywords only": "torch.div(input=y, other=b)",
    "operator module": "operator.truediv(y, b)",
}


@pytest.mark.parametrize("division", FED.values(), ids=FED.keys())
def test_every_division_form_takes_its_dividend_into_a_chain(division: str) -> None:
    source = f"def f(x, a, b):\n    y = x / a\n    return {division}"
    assert chained(source) == [(2, {"a"}), (3, {"b"}), (3, {"a", "b"})]


NOT_DIVISIONS = {
    "module function with one argument": "torch.div(x)",
    "method without an argument": "x.div()",
    "call of an item": "fs[0](x, a)",
    "multiplication": "x * a",
}


@pytest.mark.parametrize("body", NOT_DIVISIONS.values(), ids=NOT_DIVISIONS.keys())
def test_calls_without_a_divisor_are_no_division(body: str) -> None:
    assert traced(f"def f(x, a, fs):\n    return {body}") == []


def test_a_division_with_an_unseen_dividend_is_found_and_chained() -> None:
    """`torch.div(**kwargs, other=a)` divides something docpact cannot see by `a`."""
    source = "def f(a, b, kwargs):\n    y = torch.div(**kwargs, other=a)\n    return y / b"
    assert chained(source) == [(2, {"a"}), (3, {"b"}), (3, {"a", "b"})]


def test_a_chain_of_three_divisions_combines_every_divisor() -> None:
    source = "def f(x, a, b, c):\n    y = x / a\n    z = y / b\n    return z / c"
    assert (4, {"a", "b", "c"}) in chained(source)


def test_two_divisions_that_feed_each_other_in_a_loop_end() -> None:
    source = """
    def f(x, a, b, items):
        for item in items:
            y = x / a
            x = y / b
        return x
    """
    assert chained(source) == [(4, {"a"}), (4, {"a", "b"}), (5, {"b"}), (5, {"a", "b"})]


LIVENESS = {
    "in place, no return": ("def f(x, a):\n    x /= a", [True]),
    "returns None": ("def f(x, a):\n    x /= a\n    return None", [True]),
    "a generator": ("def f(x, a, b):\n    yield x / a\n    return b", [True]),
    "falls off its end": ("def f(x, a, p):\n    y = x / a\n    if p:\n        return p", [True]),
    "returns a reduction": ("def f(x, a):\n    y = x / a\n    return y.sum()", [True]),
    "returns another value": ("def f(x, a, w):\n    y = x / a\n    return w", [False]),
}


@pytest.mark.parametrize(("source", "expected"), LIVENESS.values(), ids=LIVENESS.keys())
def test_a_division_is_live_when_the_function_returns_it_or_works_in_place(
    source: str, expected: list[bool]
) -> None:
    assert live(source) == expected
