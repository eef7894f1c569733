# SPDX-License-Identifier: MIT
"""Console blocks run as tests: trees, comparison, status, flags and what is refused."""

from __future__ import annotations

import os
import subprocess
import time
import unittest
from pathlib import Path

import pytest
from sybil.example import SybilFailure

from docpact import check_project, load_config
from docpact.sybil import docs_sybil
from docpact.sybil._console import remove_trees

pytestmark = pytest.mark.slow  # each block's commands run in a shell


def _page(root: Path, text: str) -> Path:
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n', "utf-8")
    page = root / "docs" / "page.md"
    page.write_text(text, "utf-8")
    return page


def _run(root: Path, page: Path) -> list[str]:
    """Each example's end in page order: 'ok', 'skipped' or the failure's message."""
    sybil = docs_sybil(root=root)
    document = sybil.parse(page)
    sybil.setup(document.namespace)
    ends = []
    try:
        for example in document.examples():
            try:
                example.evaluate()
            except unittest.SkipTest:
                ends.append("skipped")
            except SybilFailure as failure:
                ends.append(str(failure.result))
            else:
                ends.append("ok")
    finally:
        remove_trees(document.namespace)
    return ends


def test_a_pages_blocks_of_one_tree_share_it_in_order(tmp_path: Path) -> None:
    """A tmp tree is one folder per page: what a block writes, the next one reads."""
    page = _page(
        tmp_path,
        "<!-- docpact: console tmp -->\n```console\n$ echo one > f.txt\n```\n\n"
        "<!-- docpact: console tmp -->\n```console\n$ cat f.txt\none\n$ ls\nf.txt\n```\n",
    )
    assert _run(tmp_path, page) == ["ok", "ok"]


def test_a_different_output_fails_at_the_commands_line_with_both_outputs(tmp_path: Path) -> None:
    page = _page(tmp_path, "# T\n\n```console\n$ echo ok\nok\n$ echo 3\n2\n```\n")
    assert _run(tmp_path, page) == [
        "line 6: $ echo 3\nExpected:\n    2\nGot:\n    3\n",
    ]


def test_a_command_must_end_with_the_blocks_status(tmp_path: Path) -> None:
    """Status 0 unless the block says otherwise; stderr is part of the output."""
    page = _page(
        tmp_path,
        "```console\n$ ls missing-file 2> /dev/null\n```\n\n"
        "<!-- docpact: console tmp status=3 -->\n```console\n$ echo no >&2; exit 3\nno\n```\n",
    )
    assert _run(tmp_path, page) == [
        "line 2: $ ls missing-file 2> /dev/null\nexited 2, expected 0; it printed:\n",
        "ok",
    ]


def test_doctest_flags_and_continuation_lines(tmp_path: Path) -> None:
    """`+ELLIPSIS` as in a doctest; `> ` lines continue a command, a here-document here."""
    page = _page(
        tmp_path,
        "<!-- docpact: console tmp +ELLIPSIS +NORMALIZE_WHITESPACE -->\n```console\n"
        "$ cat <<'EOF'\n> first line\n> last   line\n> EOF\nfirst ...\nlast line\n```\n",
    )
    assert _run(tmp_path, page) == ["ok"]


def test_the_trees_path_prints_as_a_dot(tmp_path: Path) -> None:
    page = _page(tmp_path, "<!-- docpact: console tmp -->\n```console\n$ pwd\n.\n```\n")
    assert _run(tmp_path, page) == ["ok"]


def test_a_project_tree_is_a_copy_of_what_git_does_not_ignore(tmp_path: Path) -> None:
    """The project tree: the tracked and untracked files, not ignored ones; never the original."""
    root = tmp_path / "project"
    page = _page(
        root,
        "```console\n$ LC_ALL=C ls -a\n.\n..\n.gitignore\ndocs\nkept.txt\npyproject.toml\n"
        "$ rm kept.txt\n```\n",
    )
    (root / ".gitignore").write_text("ignored.txt\n", "utf-8")
    (root / "kept.txt").write_text("x", "utf-8")
    (root / "ignored.txt").write_text("x", "utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "pyproject.toml"], check=True)
    assert _run(root, page) == ["ok"]
    assert (root / "kept.txt").is_file()


def test_a_copy_tree_is_one_folder_of_the_project(tmp_path: Path) -> None:
    (tmp_path / "fixture").mkdir()
    (tmp_path / "fixture" / "a.txt").write_text("a\n", "utf-8")
    page = _page(
        tmp_path, "<!-- docpact: console copy fixture -->\n```console\n$ cat a.txt\na\n```\n"
    )
    assert _run(tmp_path, page) == ["ok"]


def test_a_skip_comment_skips_a_console_block(tmp_path: Path) -> None:
    page = _page(tmp_path, '<!-- skip: next "needs a GPU" -->\n```console\n$ false\n```\n')
    assert _run(tmp_path, page) == ["ok", "skipped"]  # the comment, then the block


def test_a_command_past_its_timeout_fails(tmp_path: Path) -> None:
    page = _page(
        tmp_path, "<!-- docpact: console tmp timeout=0.5 -->\n```console\n$ sleep 5\n```\n"
    )
    assert _run(tmp_path, page) == ["line 3: $ sleep 5\ndid not end within 0.5 s"]


def test_a_block_without_a_prompt_shows_commands_and_is_not_run(tmp_path: Path) -> None:
    page = _page(tmp_path, "```console\npip install docpact\n```\n")
    assert _run(tmp_path, page) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "<!-- docpact: console tmp +NOSUCH -->\n```console\n$ true\n```\n",
            "docs/page.md:2: error: docpact: console takes a tree (project, tmp, copy), "
            "doctest flags (+ELLIPSIS), status=N and timeout=SECONDS (at most 86400), "
            "got '+NOSUCH'",
        ),
        (
            "<!-- docpact: console copy -->\n```console\n$ true\n```\n",
            "docs/page.md:2: error: docpact: console copy needs a folder, as console copy tests/x",
        ),
        (
            "# T\n\n<!-- docpact: console tmp -->\n\nText.\n",
            "docs/page.md:3: error: docpact: console must be followed by a console fence",
        ),
        (
            "```console\nout\n$ true\n```\n",
            "docs/page.md:1: error: console block shows output before its first $ command: 'out'",
        ),
        (
            "<!-- docpact: console copy ../.. -->\n```console\n$ true\n```\n",
            "docs/page.md:2: error: docpact: console copy takes a folder inside the project, "
            "as console copy tests/x, got '../..'",
        ),
        (
            "<!-- docpact: console copy /etc -->\n```console\n$ true\n```\n",
            "docs/page.md:2: error: docpact: console copy takes a folder inside the project, "
            "as console copy tests/x, got '/etc'",
        ),
    ],
    ids=[
        "unknown flag",
        "copy of nothing",
        "no fence after it",
        "output first",
        "copy out of the root",
        "copy of an absolute path",
    ],
)
def test_a_malformed_console_block_is_refused_at_its_line(
    tmp_path: Path, text: str, message: str
) -> None:
    page = _page(tmp_path, text)
    with pytest.raises(ValueError, match="console") as refused:
        docs_sybil(root=tmp_path).parse(page)
    assert str(refused.value) == f"{tmp_path}/{message}"


def test_docpact_check_reads_a_console_comment_as_a_known_directive(tmp_path: Path) -> None:
    """The comment is part of docpact's vocabulary: no unknown-directive finding."""
    _page(tmp_path, "# T\n\n<!-- docpact: console tmp -->\n```console\n$ true\n```\n")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text("utf-8")
        + '\n[tool.docpact]\npaths = ["."]\n\n[[tool.docpact.contract]]\nkind = "claims"\n'
        'pages = ["docs/page.md"]\nproperties = ["docs"]\nwords = ["always"]\n',
        "utf-8",
    )
    assert check_project(load_config(pyproject)) == []


def test_shown_trailing_blanks_are_no_difference(tmp_path: Path) -> None:
    """The output's trailing blanks are dropped from what ran and from what is shown alike."""
    page = _page(tmp_path, "<!-- docpact: console tmp -->\n```console\n$ echo 'a  '\na  \n```\n")
    assert _run(tmp_path, page) == ["ok"]


def test_a_console_comment_shown_in_a_fence_is_not_read(tmp_path: Path) -> None:
    """A page that shows the comment's syntax in a code block is not refused for it."""
    text = "```markdown\n<!-- docpact: console tmp -->\n```\n\nText.\n"
    assert _run(tmp_path, _page(tmp_path, text)) == []


def test_a_console_fence_with_attributes_is_run(tmp_path: Path) -> None:
    """```console title="..." is a console block, run and compared like the others."""
    page = _page(tmp_path, '```console title="Run it"\n$ echo 3\n2\n```\n')
    (failure,) = _run(tmp_path, page)
    assert failure.startswith("line 2: $ echo 3\nExpected:\n    2\nGot:\n    3")


def test_a_timeout_kills_what_the_command_started_too(tmp_path: Path) -> None:
    """At the timeout the command's whole process group ends, its children included."""
    marker = tmp_path / "child.pid"
    script = f"sh -c 'echo $$ > {marker}; exec sleep 30' & wait"
    page = _page(
        tmp_path, f"<!-- docpact: console tmp timeout=1 -->\n```console\n$ {script}\n```\n"
    )
    (failure,) = _run(tmp_path, page)
    assert failure.endswith("did not end within 1 s")
    stat = Path("/proc", marker.read_text(encoding="utf-8").strip(), "stat")

    def ended() -> bool:  # gone, or a zombie until something reaps it (state Z, after the name)
        try:
            return stat.read_text().rpartition(")")[2].split()[0] == "Z"
        except OSError:
            return True

    # SIGKILL reaches the group at once but ends each process in its own time: wait a while.
    deadline = time.monotonic() + 10
    while not ended() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ended(), "the command's child outlived the timeout"


def _evaluated_error(root: Path, page: Path) -> str:
    """The message of the error that evaluating the page's one console block raises."""
    with pytest.raises((ValueError, OSError)) as raised:
        _run(root, page)
    return str(raised.value)


@pytest.mark.parametrize("folder", ["link", "link/sub", "docs/up/outside"])
def test_a_copy_that_resolves_out_of_the_project_is_refused(tmp_path: Path, folder: str) -> None:
    """A symlink, or a folder under one, that leads out of the project root is not copied."""
    root, outside = tmp_path / "project", tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "secret.txt").write_text("secret\n", "utf-8")
    page = _page(
        root, f"<!-- docpact: console copy {folder} -->\n```console\n$ cat secret.txt\n```\n"
    )
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "docs" / "up").symlink_to(tmp_path, target_is_directory=True)
    assert _evaluated_error(root, page) == (
        f"{page}:2: error: docpact: console copy takes a folder inside the project, "
        f"as console copy tests/x, got {folder!r}, which resolves to "
        f"{(root / folder).resolve()}, outside {root.resolve()}"
    )


def test_a_copy_through_a_symlink_inside_the_project_is_that_folder(tmp_path: Path) -> None:
    (tmp_path / "fixture").mkdir()
    (tmp_path / "fixture" / "a.txt").write_text("a\n", "utf-8")
    (tmp_path / "alias").symlink_to("fixture", target_is_directory=True)
    page = _page(
        tmp_path, "<!-- docpact: console copy alias -->\n```console\n$ cat a.txt\na\n```\n"
    )
    assert _run(tmp_path, page) == ["ok"]


@pytest.mark.parametrize("folder", ["missing", "loop", "a.txt"])
def test_a_copy_of_no_folder_fails_at_its_line(tmp_path: Path, folder: str) -> None:
    """A missing folder, a symlink loop or a file: no such folder, at the block's line."""
    page = _page(
        tmp_path, f"# T\n\n<!-- docpact: console copy {folder} -->\n```console\n$ true\n```\n"
    )
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "a.txt").write_text("a\n", "utf-8")
    assert _evaluated_error(tmp_path, page) == (
        f"{page}:4: error: docpact: console copy {folder}: no such folder under {tmp_path}"
    )


@pytest.mark.parametrize(
    "shown",
    [
        "````markdown\n```console\n$ echo 3\n2\n```\n````\n",
        "~~~markdown\n```console\n$ echo 3\n2\n```\n~~~\n",
        # Python-Markdown closes the markdown fence at the first bare ``` line.
        "```markdown\n```console\n$ echo 3\n2\n```\n",
        "> ````markdown\n> ```console\n> $ echo 3\n> 2\n> ```\n> ````\n",
    ],
    ids=["in a longer fence", "in a tilde fence", "in a fence it closes", "quoted"],
)
def test_a_console_fence_shown_in_another_fence_is_not_run(tmp_path: Path, shown: str) -> None:
    """A console example shown as text is not collected; the console blocks around it are."""
    page = _page(
        tmp_path, f"```console\n$ echo 1\n1\n```\n\n{shown}\n```console\n$ echo 2\n2\n```\n"
    )
    assert _run(tmp_path, page) == ["ok", "ok"]


def test_a_console_fence_that_nothing_closes_is_prose_and_not_run(tmp_path: Path) -> None:
    """As Python-Markdown renders it: an unclosed fence is no fence."""
    page = _page(tmp_path, "```console\n$ echo 1\n1\n```\n\n```console\n$ echo 3\n2\n")
    assert _run(tmp_path, page) == ["ok"]


def test_a_nul_byte_in_a_command_is_refused_at_its_line(tmp_path: Path) -> None:
    page = _page(tmp_path, "```console\n$ true\n$ echo a\0b\n```\n")
    with pytest.raises(ValueError, match="NUL") as refused:
        docs_sybil(root=tmp_path).parse(page)
    assert str(refused.value) == (
        f"{page}:1: error: console command holds a NUL byte, which no shell runs: 'echo a\\x00b'"
    )


@pytest.mark.parametrize("timeout", ["86401", "99999999999", "9" * 400])
def test_a_timeout_past_a_day_is_refused(tmp_path: Path, timeout: str) -> None:
    """A timeout no clock can wait for (an overflow, once) is refused at the block's line."""
    page = _page(
        tmp_path, f"<!-- docpact: console tmp timeout={timeout} -->\n```console\n$ true\n```\n"
    )
    with pytest.raises(ValueError, match="timeout") as refused:
        docs_sybil(root=tmp_path).parse(page)
    assert str(refused.value).startswith(f"{page}:2: error: docpact: console takes a tree")
    assert str(refused.value).endswith(f"got 'timeout={timeout}'")


@pytest.mark.parametrize("command", ["head -c 17000000 /dev/zero", "yes"])
def test_a_command_that_prints_past_the_limit_is_stopped(tmp_path: Path, command: str) -> None:
    """Output past 16 MiB stops the command at once, long before its timeout."""
    page = _page(
        tmp_path,
        f"<!-- docpact: console tmp +ELLIPSIS timeout=60 -->\n```console\n$ {command}\n...\n```\n",
    )
    started = time.monotonic()
    assert _run(tmp_path, page) == [
        f"line 3: $ {command}\nprinted more than 16 MiB, and was stopped"
    ]
    assert time.monotonic() - started < 30


def test_output_that_is_not_utf8_is_compared_with_replacement_characters(tmp_path: Path) -> None:
    page = _page(
        tmp_path,
        "<!-- docpact: console tmp -->\n```console\n$ printf 'a\\377b\\n'\na\ufffdb\n```\n",
    )
    assert _run(tmp_path, page) == ["ok"]


def test_output_splits_into_lines_at_line_breaks_only(tmp_path: Path) -> None:
    """A form feed or U+2028 printed is part of its line, as on the page; CRLF is a break."""
    page = _page(
        tmp_path,
        "<!-- docpact: console tmp -->\n```console\n"
        "$ printf 'a\\fb\\n\\342\\200\\250c\\r\\nd\\n'\na\fb\n\u2028c\nd\n```\n",
    )
    assert _run(tmp_path, page) == ["ok"]


def test_a_fifo_in_a_tree_without_git_is_left_out_of_the_copy(tmp_path: Path) -> None:
    """As git lists no FIFO, the copy without git leaves special files out (copying one fails)."""
    page = _page(tmp_path, "```console\n$ ls fx\nkept.txt\n```\n")
    (tmp_path / "fx").mkdir()
    (tmp_path / "fx" / "kept.txt").write_text("x", "utf-8")
    os.mkfifo(tmp_path / "fx" / "pipe")
    assert _run(tmp_path, page) == ["ok"]
