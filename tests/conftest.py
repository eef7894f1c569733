# SPDX-License-Identifier: MIT
"""Collect ``tests/rolloutnorm/verl_session/`` only where verl is installed: in ``nox -s verl``.

Asked of importlib itself, not of docpact, which ``nox -s mutate`` replaces with mutants.
"""

from __future__ import annotations

from importlib.util import find_spec

collect_ignore = [] if find_spec("verl") is not None else ["rolloutnorm/verl_session"]
