# SPDX-License-Identifier: MIT
"""docpact's data types, the bottom layer: errors, findings, contracts, rules and kinds.

Nothing here reads a file or imports another layer of docpact; every other layer imports
these.
"""
