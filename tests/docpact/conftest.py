# SPDX-License-Identifier: MIT
"""Every docpact test starts with docpact's caches empty.

docpact caches a page's sections and the parse of each mkdocs.yml file. Within one run that
is what makes it fast; across tests it would let a test pass on what an earlier one cached,
and `nox -s mutate` forks each mutant's run from a process whose caches the whole suite
filled, so a mutant in the cached code would never run.
"""

from __future__ import annotations

import pytest

from docpact._readers.markdown.sections import _sections
from docpact._readers.mkdocs_load import _parse


@pytest.fixture(autouse=True)
def empty_caches() -> None:
    """Clear the sections and mkdocs.yml caches before each test."""
    _sections.cache_clear()
    _parse.cache_clear()
