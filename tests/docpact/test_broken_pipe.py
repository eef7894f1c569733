# SPDX-License-Identifier: MIT
"""`docpact ... | head -1`: a reader that closes the output early ends the command quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from docpact.__main__ import main
from samples.drift import DISTINCT_ROLLOUTS, DIVIDE, copy_project, drift

COMMANDS = {
    "check's findings": ["check"],
    "check's JSON document": ["check", "--format", "json"],
    "coverage's gaps": ["coverage", "ratio"],
    "the top help": ["--help"],
    "a command's help": ["check", "--help"],
}


def run_into_a_closed_pipe(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m docpact ARGS` with stdout a pipe whose reader has already gone."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run(
            [sys.executable, "-m", "docpact", *args],
            cwd=cwd,
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    finally:
        os.close(writer)


@pytest.fixture(scope="module")
def drifted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture project with a finding, so that `check` has a line to print."""
    project = copy_project("contract_project", tmp_path_factory.mktemp("pipe"))
    drift(project / DIVIDE, *DISTINCT_ROLLOUTS)
    return project


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_closed_output_ends_every_command_without_a_traceback(
    drifted: Path, args: list[str]
) -> None:
    """Writing to a pipe nobody reads prints nothing on stderr; a command with output exits 1."""
    result = run_into_a_closed_pipe(drifted, *args)
    assert result.stderr == ""
    assert result.returncode == (0 if "--help" in args else 1)


def test_a_closed_output_in_process_returns_1_and_prints_no_logging_error(
    drifted: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`main` returns 1, not coverage's 0, when its stdout is closed, and leaves it in place."""

    class Closed:
        def write(self, text: str) -> int:
            raise BrokenPipeError

        def flush(self) -> None:
            raise BrokenPipeError

    closed = Closed()
    monkeypatch.chdir(drifted)
    monkeypatch.setattr(sys, "stdout", closed)
    assert main(["coverage", "ratio"]) == 1
    assert sys.stdout is closed
    assert capsys.readouterr().err == ""
