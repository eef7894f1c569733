# SPDX-License-Identifier: MIT
"""What a finding does to the site build that runs docpact, whichever builder runs it.

MkDocs 1.6 and ProperDocs count the errors logged during a build and fail a strict build
on them: docpact's plugin and griffe extension log their findings there. Zensical 0.0.x
does not: its strict mode counts its own link checks only, a build ends with status 0
whatever Python logs, and an exception raised while a page renders ends it with a
traceback. So under Zensical, docpact prints its findings itself, each once per check, as
`docpact: path:line: CODE message` lines on standard error; in a strict build
(`zensical build --strict`, `-s`) with an error among them, it then ends the process with
status 1 at once, before the page being rendered is written or cached, and with no
traceback.

Which builder runs is read from the process: Zensical's command line imports the
`zensical` package, and its `build` command takes `--strict` or `-s` (alone or with `-c`,
as click groups short flags). Zensical exposes its options to no Python code.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from docpact._model.findings import Finding

__all__ = ["report", "strict_zensical_build", "zensical_build"]

_STRICT_SHORT = re.compile(r"-[a-z]*s[a-z]*")  # `-s`, `-cs`: click's grouped short flags
_STATE: dict[str, object] = {"key": None}
_PRINTED: set[Finding | str] = set()


def zensical_build() -> bool:
    """Whether the process is a Zensical build or server: it imported `zensical`."""
    return "zensical" in sys.modules


def strict_zensical_build(argv: Sequence[str] | None = None) -> bool:
    """Whether the process is `zensical build --strict` (or `-s`).

    Args:
        argv: The command line; `sys.argv` by default.

    Returns:
        True in a strict Zensical build; False under any other builder, in `serve`
        (whose strict mode Zensical does not support) and without the flag.
    """
    argv = sys.argv if argv is None else argv
    arguments = list(argv[1:])
    if not zensical_build() or "build" not in arguments:
        return False
    after = arguments[arguments.index("build") + 1 :]
    return any(a == "--strict" or _STRICT_SHORT.fullmatch(a) is not None for a in after)


def report(findings: Iterable[Finding | str], key: object = None) -> None:
    """Print the findings this process has not printed, and end a strict Zensical build.

    Each finding is printed once, whichever of docpact's front ends found it (the
    Markdown extension and the griffe extension check the same project). A check of
    changed files (a new `key`, under `zensical serve`) prints its findings again.

    Args:
        findings: The findings, or the messages of errors that stopped a check.
        key: What the check read, as the caller keys it; `None` for a check that is part
            of the last keyed one (the griffe extension's, of a package).
    """
    if key is not None and key != _STATE["key"]:
        _STATE["key"] = key
        _PRINTED.clear()
    found = sorted(findings, key=str)
    for finding in found:
        if finding not in _PRINTED:
            _PRINTED.add(finding)
            print(f"docpact: {finding}", file=sys.stderr)
    errors = [f for f in found if isinstance(f, str) or f.severity == "error"]
    if errors and strict_zensical_build():
        noun = "error" if len(errors) == 1 else "errors"
        print(
            f"docpact: {len(errors)} {noun}; the strict build stops before this page is written",
            file=sys.stderr,
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)  # Zensical turns any exception into a traceback and a half-written site
