# SPDX-License-Identifier: MIT
"""Collect the tests that need verl or Playwright only where a session installs them.

``tests/rolloutnorm/verl_session/`` needs verl (``nox -s verl``), ``tests/browser/`` needs
Playwright (``nox -s site``).

Asked of importlib itself, not of docpact, which ``nox -s mutate`` replaces with mutants.
"""

from __future__ import annotations

from importlib.util import find_spec

collect_ignore = [] if find_spec("verl") is not None else ["rolloutnorm/verl_session"]
# The browser tests need Playwright, which only `nox -s site` installs.
if find_spec("playwright") is None:
    collect_ignore.append("browser")
# The fixture projects are other projects: their tests run inside them, as their own.
collect_ignore_glob = ["samples/*/*"]

# The drift runner's profile (`--hypothesis-profile=drift`): a property that fails stops at its
# first counterexample, neither shrunk nor saved; the runner needs the verdict, not the case.
if find_spec("hypothesis") is not None:
    from hypothesis import Phase, settings

    settings.register_profile("drift", phases=(Phase.explicit, Phase.generate), database=None)
