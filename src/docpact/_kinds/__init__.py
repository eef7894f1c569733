# SPDX-License-Identifier: MIT
"""The kinds of contract, above the readers: each module defines one `Kind` and its rules.

`objects` and `docs` hold the rules that several kinds share.
"""
