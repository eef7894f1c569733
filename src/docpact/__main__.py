# SPDX-License-Identifier: MIT
"""Run the `docpact` command line: `python -m docpact check`."""

from __future__ import annotations

import sys

from docpact._cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
