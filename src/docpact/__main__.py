# SPDX-License-Identifier: MIT
"""Run the `docpact` command line: `python -m docpact check`."""

from __future__ import annotations

import atexit
import gc
import sys
from typing import TYPE_CHECKING

from docpact._cli import main as run

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


def main(args: Sequence[str] | None = None) -> int:
    """Run the command line with the cyclic garbage collector paused.

    While griffe loads the packages and docpact parses the tests, the collector would
    traverse every object made so far, over and over, for a tenth of a check's time
    (`scripts/bench_checks.py`), and find almost nothing: a syntax tree has no cycles,
    and griffe's model lives to the end. The trade-off: what cyclic garbage a command
    makes is freed only after it returns, when the collector is enabled again if it was.

    Nor does the collector's last pass, when the interpreter exits, traverse what the
    command made (an eighth of a check's time): an `atexit` handler moves every object into
    the collector's permanent generation first (`gc.freeze`), as mypy's default fast exit
    skips that pass. Files are closed and `atexit` handlers run as usual; a caller that
    runs the command in its own process (a test) keeps collecting until it exits.

    Args:
        args: The arguments, without the program name; `sys.argv[1:]` by default.

    Returns:
        The exit status of `docpact._cli.main`.
    """
    atexit.unregister(gc.freeze)  # once, however many commands a process runs
    atexit.register(gc.freeze)
    paused = gc.isenabled()
    gc.disable()
    try:
        return run(args)
    finally:
        if paused:
            gc.enable()


if __name__ == "__main__":
    sys.exit(main())
