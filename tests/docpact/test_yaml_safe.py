# SPDX-License-Identifier: MIT
"""docpact's one YAML reader: a safe load that refuses, at a line, what is too costly to build."""

from __future__ import annotations

import time

import pytest

from docpact._readers.yaml_safe import MAX_DEPTH, MAX_NODES, YamlProblem, safe_load

LAUGHS = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]\n"
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True)
)


def refusal(text: str) -> tuple[int, str]:
    """The line and the problem of the refusal of a text."""
    with pytest.raises(YamlProblem) as raised:
        safe_load(text)
    return raised.value.line, raised.value.problem


def test_the_limits_are_stated_once() -> None:
    """The nesting and size limits are the module's constants."""
    assert (MAX_DEPTH, MAX_NODES) == (100, 1_000_000)


def test_plain_yaml_loads_as_data() -> None:
    """Mappings, lists, anchors and `.nan` load as PyYAML's safe loader loads them."""
    data = safe_load("a: &x [1, 2.5, true]\nb: *x\nc: .nan\n")
    assert data["a"] == data["b"] == [1, 2.5, True]
    assert data["c"] != data["c"]


def test_nesting_up_to_the_limit_loads_and_one_level_more_is_refused_at_its_line() -> None:
    """100 nested lists load; 101 are refused at the line of the list that goes too deep."""
    assert safe_load("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert refusal("x:\n  - " + "[" * MAX_DEPTH + "]" * MAX_DEPTH) == (
        2,
        f"nests deeper than {MAX_DEPTH} levels, its aliases expanded",
    )


def test_nesting_made_by_aliases_counts_as_expanded() -> None:
    """An alias of a list 60 deep, inside 40 more lists, goes past the limit."""
    deep = "[" * 60 + "]" * 60
    assert safe_load(f"a: &a {deep}\nb: {'[' * 39}*a{']' * 39}\n") is not None
    line, problem = refusal(f"a: &a {deep}\nb: {'[' * 40}*a{']' * 40}\n")
    assert (line, problem) == (2, f"nests deeper than {MAX_DEPTH} levels, its aliases expanded")


def test_a_billion_laughs_is_refused_fast_at_the_line_past_the_bound() -> None:
    """Levels of ten aliases each are refused at the first past a million nodes, at once."""
    start = time.perf_counter()
    line, problem = refusal(LAUGHS)
    assert time.perf_counter() - start < 1
    assert (line, problem) == (6, "has more than 1,000,000 nodes, its aliases expanded")


def test_an_integer_over_pythons_limit_names_the_limit_and_the_variable() -> None:
    """A 5000-digit integer is refused at its line, naming 4300 and PYTHONINTMAXSTRDIGITS."""
    assert refusal("a: 1\nb: " + "9" * 5000 + "\n") == (
        2,
        "has an integer of 5000 digits, over Python's limit of 4300 digits for converting "
        "text to an int (set PYTHONINTMAXSTRDIGITS to raise it)",
    )


def test_text_that_is_not_yaml_is_refused_at_pyyamls_line_on_one_line() -> None:
    """PyYAML's error is kept, its reason joined into one line, at the line it names."""
    line, problem = refusal("a: 1\nb: [\n")
    assert line == 3
    assert problem.startswith("is not valid YAML: while parsing a flow node")
    assert "\n" not in problem


@pytest.mark.parametrize(
    ("text", "located", "about"),
    [
        (
            "a: [\n",
            "f.yml:2: error: is not valid YAML: ",
            "f.yml is not valid YAML: ",
        ),
        (
            "a: " + "9" * 5000,
            "f.yml:1: error: has an integer of 5000 digits",
            "f.yml, line 1, has an integer of 5000 digits",
        ),
    ],
)
def test_a_refusal_reads_as_a_located_error_or_after_a_name(
    text: str, located: str, about: str
) -> None:
    """`located` gives `file:LINE: error:`; `about` names the line only where PyYAML did not."""
    with pytest.raises(YamlProblem) as raised:
        safe_load(text)
    assert raised.value.located("f.yml").startswith(located)
    assert raised.value.about("f.yml").startswith(about)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: 1\nb: 2001-02-30\n", "is not valid YAML: '2001-02-30' is not a valid timestamp"),
        ("a: !!bool maybe\n", "is not valid YAML: 'maybe' is not a valid bool"),
        ("a: !!float abc\n", "is not valid YAML: 'abc' is not a valid float"),
        ("a: !!int abc\n", "is not valid YAML: 'abc' is not a valid int"),
        ("a: &a [*a]\n", "holds an alias inside its own anchor: data that contains itself"),
        (
            "a:\n  b: &x {c: *x}\n",
            "holds an alias inside its own anchor: data that contains itself",
        ),
    ],
)
def test_a_value_its_tag_does_not_take_or_data_that_contains_itself_is_refused(
    text: str, problem: str
) -> None:
    """Refused at its line: what PyYAML's constructors raise on, and a self-alias's cycle.

    Every reader after the load would recurse into a cycle.
    """
    with pytest.raises(YamlProblem) as raised:
        safe_load(text)
    assert (raised.value.line, raised.value.problem) == (text.count("\n"), problem)
