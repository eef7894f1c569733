#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docpact's page scans on 2 MB pages of unclosed openers, against a plain 2 MB page.

Each page is read as `docpact check` reads a docs or claims page: its visible prose
(`visible_prose`, the comments, code spans, link targets, tags and math it blanks), its
sections (`sections`) and its claims (`read_page`). The plain page is prose with a heading
every 40 lines; the others are as large, made of `<!--` that nothing closes, of backtick
runs that nothing closes, and of `<` and `](` that nothing closes. The scans are linear when
each ratio to the plain page stays near 1; the regular expressions they replaced took 25 s
on a 112 KB page of unclosed comments. Medians of `--rounds` rounds, interleaved.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from docpact._readers.markdown.prose import visible_prose  # noqa: E402
from docpact._readers.markdown.sections import _sections, sections  # noqa: E402
from docpact.claims._page import read_page  # noqa: E402

SIZE = 2 * 1024 * 1024
LIMIT = 3.0  # the ratio a linear scan stays under on these pages, noise included


def _page(line: str) -> str:
    lines, size, n = [], 0, 0
    while size < SIZE:
        text = f"## Section {n}" if n % 40 == 0 else line
        lines.append(text)
        size += len(text) + 1
        n += 1
    return "\n".join(lines) + "\n"


PAGES = {
    "plain prose": _page("Each row is divided by the rollout's token count, and so on."),
    "unclosed <!--": _page("<!-- a comment that nothing closes, and more words"),
    "unclosed backticks": _page("`` a run `that ``` nothing closes, and more words"),
    "unclosed < and ](": _page("<a tag ](a link that < nothing ]( closes, and words"),
}


def _read(text: str) -> None:
    _sections.cache_clear()
    visible_prose(text)
    sections(text)
    read_page(text)


def main(argv: list[str] | None = None) -> int:
    """Time each page's scans; print each median and its ratio to the plain page's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args(argv).rounds
    times: dict[str, list[float]] = {name: [] for name in PAGES}
    for _ in range(rounds):
        for name, text in PAGES.items():
            start = time.perf_counter()
            _read(text)
            times[name].append(time.perf_counter() - start)
    plain = statistics.median(times["plain prose"])
    worst = 0.0
    for name, spent in times.items():
        ratio = statistics.median(spent) / plain
        worst = max(worst, ratio)
        print(f"{name:>20}: {statistics.median(spent) * 1000:8.1f} ms   ratio {ratio:5.2f}")
    verdict = "met" if worst <= LIMIT else "NOT met"
    print(f"{'worst ratio':>20}: {worst:5.2f} (a linear scan stays <= {LIMIT}: {verdict})")
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
