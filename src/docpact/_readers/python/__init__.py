# SPDX-License-Identifier: MIT
"""Python read statically: griffe's objects, divisions traced in a body, claim properties."""
