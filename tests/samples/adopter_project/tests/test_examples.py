# SPDX-License-Identifier: MIT
"""The Python fences of the package's docstrings, run by pytest-examples."""

import pytest

pytest_examples = pytest.importorskip("pytest_examples")


@pytest.mark.parametrize("example", list(pytest_examples.find_examples("agentrl")), ids=str)
def test_docstring_examples_run(example, eval_example):
    eval_example.run(example)
