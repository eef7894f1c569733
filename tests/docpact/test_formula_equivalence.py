# SPDX-License-Identifier: MIT
"""The equivalence of formulas, on drawn expression trees written as Python and as LaTeX.

A tree is drawn over three operands, small numbers and the guard; it is written out as a
code span would write it and as LaTeX math would, and both are read back. Every reordering
the normal form allows reads equal; every single-node mutation (an operator, an operand, the
guard, a number) reads different.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docpact._readers.markdown.latex import read_latex
from docpact._readers.python.formula import read_python

OPERANDS = ("rollout_token_count", "num_trained_rows", "dp_size")
NAMES = {name: name for name in OPERANDS}


@dataclass(frozen=True)
class Node:
    """A drawn formula: an operand, a number, a binary operator or the guard."""

    op: str  # "name", "number", "+", "*", "-", "/", "guard"
    args: tuple[Node, ...] = ()
    value: str | int = ""


leaves = st.one_of(
    st.sampled_from(OPERANDS).map(lambda name: Node("name", value=name)),
    st.integers(min_value=1, max_value=9).map(lambda n: Node("number", value=n)),
)


def _extend(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    binary = st.tuples(st.sampled_from(["+", "*", "-", "/"]), children, children).map(
        lambda t: Node(t[0], (t[1], t[2]))
    )
    # A guard around a number alone guards nothing: `max(1, 2)` is no divisor's guard.
    guarded = children.filter(lambda child: child.op != "number").map(
        lambda child: Node("guard", (child,), 1)
    )
    return st.one_of(binary, guarded)


trees = st.recursive(leaves, _extend, max_leaves=6)


def python(node: Node, spelling: int = 0) -> str:
    """The tree as Python, every subexpression in parentheses; `spelling` picks the guard's."""
    if node.op == "name":
        return str(node.value)
    if node.op == "number":
        return f"{node.value}.0" if spelling % 2 else str(node.value)
    if node.op == "guard":
        inner = python(node.args[0], spelling)
        return [
            f"max(1, {inner})",
            f"torch.clamp({inner}, min=1)",
            f"({inner}).clamp_min(1)",
            f"max({inner}, 1.0)",
            f"torch.maximum({inner}, torch.tensor(1))",
        ][spelling % 5]
    left, right = (python(arg, spelling) for arg in node.args)
    return f"({left} {node.op} {right})"


def latex(node: Node) -> str:
    r"""The tree as LaTeX: `\mathrm` names applied to `(r)`, `\cdot`, `\frac`, `\max`."""
    if node.op == "name":
        escaped = str(node.value).replace("_", r"\_")
        return rf"\mathrm{{{escaped}}}(r)"
    if node.op == "number":
        return str(node.value)
    if node.op == "guard":
        return rf"\max\left(1,\ {latex(node.args[0])}\right)"
    left, right = (latex(arg) for arg in node.args)
    if node.op == "/":
        return rf"\frac{{{left}}}{{{right}}}"
    op = {"+": "+", "-": "-", "*": r"\cdot"}[node.op]
    return rf"\left({left} {op} {right}\right)"


def read_py(text: str) -> object:
    return read_python(ast.parse(text, mode="eval").body, NAMES)


def read_tex(text: str) -> object:
    sides = read_latex(text, frozenset(OPERANDS)).sides
    assert len(sides) == 1
    return sides[0][0]


def reordered(node: Node, data: st.DataObject) -> Node:
    """The tree with the arguments of some `+` and `*` swapped, as the normal form allows."""
    args = tuple(reordered(arg, data) for arg in node.args)
    if node.op in {"+", "*"} and data.draw(st.booleans()):
        args = args[::-1]
    return Node(node.op, args, node.value)


def mutations(node: Node) -> list[Node]:
    """Every tree that differs from `node` in one node: an operator, an operand, the guard."""
    found = []
    if node.op == "name":
        found += [Node("name", value=other) for other in OPERANDS if other != node.value]
        found.append(Node("guard", (node,), 1))
    elif node.op == "number":
        found.append(Node("number", value=int(node.value) + 1))
    elif node.op == "guard":
        found.append(node.args[0])  # the guard dropped
    else:
        others = [op for op in ("+", "*", "-", "/") if op != node.op]
        found += [Node(op, node.args, node.value) for op in others]
        found.append(Node("guard", (node,), 1))
    for i, arg in enumerate(node.args):
        for changed in mutations(arg):
            args = list(node.args)
            args[i] = changed
            found.append(Node(node.op, tuple(args), node.value))
    return found


@settings(max_examples=150, deadline=None)
@given(tree=trees, spelling=st.integers(min_value=0, max_value=9), data=st.data())
def test_every_allowed_reordering_reads_equal_in_python_and_latex(
    tree: Node, spelling: int, data: st.DataObject
) -> None:
    """Reordered `+` and `*`, any spelling of the guard, 1 or 1.0: the same formula, both ways."""
    expected = read_py(python(tree))
    other = reordered(tree, data)
    assert read_py(python(other, spelling)) == expected
    assert read_tex(latex(other)) == expected


@settings(max_examples=100, deadline=None)
@given(tree=trees, data=st.data())
def test_every_single_node_mutation_reads_different(tree: Node, data: st.DataObject) -> None:
    """An operator, an operand, a number or the guard changed: a different formula, both ways."""
    mutant = data.draw(st.sampled_from(mutations(tree)))
    original = read_py(python(tree))
    assert read_py(python(mutant)) != original
    assert read_tex(latex(mutant)) != original
    assert read_tex(latex(mutant)) == read_py(python(mutant))


@pytest.mark.parametrize(
    ("written", "same_as"),
    [
        (r"\frac12", r"\frac{1}{2}"),
        (r"L = \frac12 x", r"L = \frac{1}{2} x"),
        (r"\tfrac12 + x", r"\tfrac{1}{2} + x"),
        (r"x^23", r"x^{2} 3"),
        (r"x_12", r"x_{1} 2"),
        (r"\frac 1 2", r"\frac{1}{2}"),
        (r"D = \max(1, \mathrm{ num\_rows })", r"D = \max(1, \mathrm{num\_rows})"),
        (r"T_{\mathrm{r}}", r"T_r"),
        (r"\hat{\mathrm{A}}", r"\hat{A}"),
        (r"\mathbb{R} x", r"R x"),
        (r"\operatorname*{argmax} x", r"\operatorname{argmax} x"),
        (r"x_{i}^{2} + 2.5", r"x_i^2 + 2.5"),
        (r"x^ab", r"x^{a} b"),
        (r"2^kn", r"2^{k} n"),
        (r"\frac ab", r"\frac{a}{b}"),
        (r"\frac a2", r"\frac{a}{2}"),
    ],
)
def test_latex_is_read_as_tex_groups_its_arguments(written: str, same_as: str) -> None:
    """A digit argument is one digit, a math alphabet's spaces and single letters fold."""
    names = frozenset({"num_rows"})
    assert read_latex(written, names).sides[0][0] == read_latex(same_as, names).sides[0][0]
    assert [d[:2] for d in read_latex(written, names).divisions] == [
        d[:2] for d in read_latex(same_as, names).divisions
    ]
