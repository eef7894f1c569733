# SPDX-License-Identifier: MIT
from docpact.sybil import docs_sybil

pytest_collect_file = docs_sybil().pytest()
