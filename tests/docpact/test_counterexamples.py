# SPDX-License-Identifier: MIT
"""Hypothesis's failing input, read from a pytest failure report as Hypothesis printed it."""

from __future__ import annotations

from docpact.claims._pytest_plugin import falsifying_example

REPORT = """\
rows = 1, data = data(...)

    @given(rows=st.integers(1, 5), data=st.data())
>   def test_x(rows, data):
E       assert 1 > 1
E       Failing test case: test_x(
E           rows=1,
E           data=data(...),
E       )
E       Draw 1 (extra): 0

test_h.py:5: AssertionError
"""


def test_the_failing_case_comes_with_its_draws_and_without_pytests_margin() -> None:
    assert falsifying_example(REPORT) == (
        "Failing test case: test_x(\n    rows=1,\n    data=data(...),\n)\nDraw 1 (extra): 0"
    )


def test_the_older_wording_on_one_line_is_read_too() -> None:
    text = "E   Falsifying example: test_y(x=1)\nE   Draw 1: 2\n\nother"
    assert falsifying_example(text) == "Falsifying example: test_y(x=1)\nDraw 1: 2"


def test_a_failure_without_hypothesis_has_none() -> None:
    assert falsifying_example("E   assert 1 == 2\n\nt.py:3: AssertionError") == ""


def test_a_marker_inside_other_text_is_not_an_example() -> None:
    assert falsifying_example("    msg = 'Failing test case: quoted'") == ""


def test_a_long_example_is_cut_at_4000_characters() -> None:
    text = "E   Failing test case: test_z(\nE       x=" + "9" * 5000 + ",\nE   )"
    found = falsifying_example(text)
    assert len(found) == 4000
    assert found.endswith("...")
