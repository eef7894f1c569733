# SPDX-License-Identifier: MIT
"""Markdown read as the site renders it: prose, sections, `docpact:` directives, claims."""
