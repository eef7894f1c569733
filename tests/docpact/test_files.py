# SPDX-License-Identifier: MIT
"""The one reader of text files and Python source: what cannot be read is located, never raised."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docpact._readers.files import Unreadable, parse_python, read_error, read_text


def test_a_page_reads_as_mkdocs_reads_it_its_bom_dropped_and_line_breaks_made_lf(
    tmp_path: Path,
) -> None:
    page = tmp_path / "page.md"
    page.write_bytes(b"\xef\xbb\xbf# Title\r\n\rText\n")
    assert read_text(page) == "# Title\n\nText\n"


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda path: path.mkdir(), "cannot be read: it is a folder, not a file"),
        (os.mkfifo, "cannot be read: it is a FIFO, not a regular file"),
        (lambda path: None, "cannot be read: No such file or directory"),
    ],
    ids=["folder", "fifo", "missing"],
)
def test_what_is_no_regular_file_is_refused_before_it_is_opened(
    tmp_path: Path, make: object, reason: str
) -> None:
    """A FIFO would block a reader for ever: it is refused from its file mode alone."""
    path = tmp_path / "page.md"
    make(path)  # type: ignore[operator]
    with pytest.raises(Unreadable) as caught:
        read_text(path)
    assert (caught.value.line, caught.value.reason) == (1, reason)
    assert caught.value.missing == reason.endswith("No such file or directory")
    assert read_error(path) == reason


def test_a_name_too_long_for_the_file_system_is_unreadable_not_an_os_error(
    tmp_path: Path,
) -> None:
    with pytest.raises(Unreadable) as caught:
        read_text(tmp_path / ("a" * 300 + ".md"))
    assert caught.value.reason == "cannot be read: File name too long"


def test_bytes_that_are_not_utf8_are_located_at_their_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_bytes(b"# Title\n\nok\n\xff\n")
    with pytest.raises(Unreadable) as caught:
        read_text(page)
    assert (caught.value.line, caught.value.reason) == (
        4,
        "cannot be read: not UTF-8 at line 4 (invalid start byte)",
    )
    assert read_error(tmp_path) == "cannot be read: it is a folder, not a file"
    page.write_text("fine\n", "utf-8")
    assert read_error(page) == ""


@pytest.mark.parametrize(
    ("source", "line", "reason"),
    [
        ("x = 1\ny = (\n", 2, "has a syntax error ('(' was never closed)"),
        ("x = 1\n\ny = '\0'\n", 3, "holds a NUL byte"),
        ("x = []\ny = " + "(" * 300 + "1" + ")" * 300 + "\n", 2, "nests too deeply"),
        ("x = [[1]]\n\ny = " + "-" * 100000 + "1\n", 3, "nests too deeply"),
        ("x = 1\ny = " + "+".join(["1"] * 100000) + "\n", 2, "nests too deeply"),
    ],
    ids=["syntax error", "NUL", "brackets", "unary chain", "binary chain"],
)
def test_python_that_does_not_parse_is_located_at_the_line_at_fault(
    source: str, line: int, reason: str
) -> None:
    """Nesting past CPython's parser is at the line nested deepest, never a RecursionError."""
    with pytest.raises(Unreadable) as caught:
        parse_python(source, "m.py")
    assert caught.value.line == line
    assert caught.value.reason.startswith(reason)


def test_python_that_parses_gives_its_tree() -> None:
    assert [type(node).__name__ for node in parse_python("x = 1\n", "m.py").body] == ["Assign"]


def test_a_name_holding_a_nul_byte_is_unreadable_not_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(Unreadable) as caught:
        read_text(tmp_path / "a\0b.md")
    assert caught.value.reason == "cannot be read: its name holds a NUL byte"
