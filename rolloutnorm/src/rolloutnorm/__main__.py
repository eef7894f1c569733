# SPDX-License-Identifier: MIT
"""The `rolloutnorm` command line: ``rolloutnorm explain BATCH``, or ``python -m rolloutnorm``."""

from __future__ import annotations

import sys

from rolloutnorm._explain.cli import get_parser, main

__all__ = ["get_parser", "main"]

if __name__ == "__main__":
    sys.exit(main())
