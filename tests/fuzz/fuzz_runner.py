# SPDX-License-Identifier: MIT
"""Run a command line as a child process with a timeout and classify how it ended.

One runner for every command fuzzed: ``rolloutnorm explain`` and docpact's commands.
A command is named by its ``main`` (``"rolloutnorm.__main__:main"``). ``fork`` runs it in a
child forked from this process, where the package is imported once (many cases a second);
``exec`` starts a fresh interpreter per case, as a user's shell does. Either way the child has
its own memory limit and timeout, so a crash, a signal or a hang ends the child only.
"""

from __future__ import annotations

import dataclasses
import faulthandler
import importlib
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["DEFECTS", "OUTCOMES", "Result", "classify", "run"]

OUTCOMES = (
    "ok",
    "finding",
    "usage error",
    "traceback",
    "hang",
    "signal",
    "unlocated error",
    "corrupted file",
    "wrong answer",
)
"""How a case can end: the first three are a command's promise, the others its defects."""
DEFECTS = OUTCOMES[3:]

# A child may allocate this much: a batch that asks for more than a real one needs is a defect.
MEMORY_LIMIT = 6 * 2**30
# Python's own recursion limit, as a user's interpreter has it: hypothesis raises it while a
# test runs, and a forked child would inherit the raised one.
_RECURSION_LIMIT = sys.getrecursionlimit()
_STACK_SIGNAL = signal.SIGUSR1  # at its timeout a child writes its stack, then is killed
_STACK_WAIT = 0.3  # seconds the stack is given to be written
_LOCATED = re.compile(r"^(?P<path>[^\n]+?)(?::(?P<line>[0-9]+))?: [^\n]+$")


@dataclasses.dataclass(frozen=True)
class Result:
    """One case's end: its outcome class, exit status, output, time, and what was wrong."""

    outcome: str
    status: int | None
    stdout: str
    stderr: str
    seconds: float
    detail: str = ""  # for a wrong answer or a corrupted file: what a check of the output found


def classify(
    status: int | None, stderr: str, paths: Sequence[str], prog: str, stdout: str = ""
) -> str:
    """The outcome class of an exit status and output; status ``None``: killed at its timeout.

    Args:
        status: The exit status; negative for a signal, None for a timeout.
        stderr: What the command wrote on stderr.
        paths: The files and folders the command was given: a usage error names one.
        prog: The program's name, as argparse prefixes its usage errors.
        stdout: What it wrote on stdout, where exit 1 with nothing on stderr and a
            ``path:LINE: message`` line naming one of ``paths`` is a finding.

    Returns:
        One of `OUTCOMES`, but ``corrupted file`` and ``wrong answer``, which only a check
        of the files and the output gives.
    """
    if status is None:
        return "hang"
    if status < 0:
        return "signal"
    if "Traceback (most recent call last)" in stderr:
        return "traceback"
    if status == 0:
        return "ok"
    lines = stderr.splitlines()
    if status == 1 and not stderr.strip():
        for line in stdout.splitlines():
            located = _LOCATED.match(line)
            if located and located["line"] and located["path"] in paths:
                return "finding"
    if status == 2 and lines:
        if lines[-1].startswith(f"{prog}: error: argument "):
            return "usage error"  # argparse: the usage, then one line naming the argument
        located = _LOCATED.match(lines[0])
        if len(lines) == 1 and located and located["path"] in paths:
            return "usage error"
    return "unlocated error"


def _target(spec: str) -> Callable[[list[str]], int]:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _child(spec: str, args: list[str], out: int, err: int) -> None:
    """In the forked child: run ``main(args)`` on the two files, then leave with its status.

    Given `_STACK_SIGNAL` at its timeout, the child writes its stack on stderr: where a hang
    waits.
    """
    status = 1
    try:
        faulthandler.disable()  # a crash is the parent's to report, from the signal
        _limit_memory()
        sys.setrecursionlimit(_RECURSION_LIMIT)
        os.dup2(out, 1)
        os.dup2(err, 2)
        faulthandler.register(_STACK_SIGNAL, file=2)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        try:
            status = _target(spec)(args)
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()
        status = 1
    finally:
        os._exit(status)


def run(
    spec: str,
    args: Sequence[str],
    *,
    cwd: Path,
    paths: Sequence[str],
    prog: str,
    timeout: float = 20.0,
    mode: str = "fork",
) -> Result:
    """Run ``main(args)`` of ``spec`` in a child within ``cwd`` and classify its end.

    Args:
        spec: ``module:function``, the command's ``main``.
        args: Its arguments.
        cwd: The folder it runs in.
        paths: The paths among ``args``, which a located error names.
        prog: The program's name (``rolloutnorm explain``).
        timeout: Seconds before the child is killed and the case is a hang.
        mode: ``fork`` or ``exec``.

    Returns:
        The result.
    """
    if mode == "fork":
        _target(spec)  # imported here once: each forked child has it
    start = time.monotonic()
    if mode == "exec":
        code = (
            f"import faulthandler, sys; faulthandler.register({int(_STACK_SIGNAL)}); "
            f"from {spec.replace(':', ' import ')} as m; sys.exit(m(sys.argv[1:]))"
        )
        with subprocess.Popen(
            [sys.executable, "-c", code, *args],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_limit_memory,
        ) as child:
            try:
                stdout, stderr = child.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                child.send_signal(_STACK_SIGNAL)
                time.sleep(_STACK_WAIT)
                child.kill()
                stderr = child.communicate()[1]
                text = stderr.decode("utf-8", "replace")
                return Result("hang", None, "", text, time.monotonic() - start)
        out, err = stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace")
        status = child.returncode
    else:
        with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
            sys.stdout.flush()
            sys.stderr.flush()
            here = os.getcwd()
            os.chdir(cwd)
            try:
                pid = os.fork()
                if pid == 0:
                    _child(spec, list(args), out_file.fileno(), err_file.fileno())
            finally:
                os.chdir(here)
            status = _wait(pid, timeout)
            out_file.seek(0)
            err_file.seek(0)
            out = out_file.read().decode("utf-8", "replace")
            err = err_file.read().decode("utf-8", "replace")
    outcome = classify(status, err, paths, prog, out)
    return Result(outcome, status, out, err, time.monotonic() - start)


def _wait(pid: int, timeout: float) -> int | None:
    """The child's exit status (negative for a signal), or None once killed at the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, _STACK_SIGNAL)
            time.sleep(_STACK_WAIT)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.005)
