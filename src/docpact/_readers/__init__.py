# SPDX-License-Identifier: MIT
"""The readers, above the data types: Python code, Markdown pages and `mkdocs.yml`.

A reader knows no kind of contract: it turns a file into what the kinds' rules check.
"""
