# SPDX-License-Identifier: MIT
"""What a finding does to the site build that runs docpact, whichever builder runs it.

MkDocs 1.6 and ProperDocs count the errors logged during a build and fail a strict build
on them: docpact's plugin and griffe extension log their findings there. Zensical 0.0.x
does not: its strict mode counts its own link checks only, a build ends with status 0
whatever Python logs, and an exception raised while a page renders ends it with a
traceback. So under Zensical, docpact prints its findings itself, each once per check, as
`docpact: path:line: CODE message` lines on standard error; in a strict build
(`zensical build --strict`, `-s`) with an error among them, it then ends the process with
status 1 at once, before the page being rendered is written or cached, and with no
traceback.

Which builder runs is read from the process's command line, as Zensical documents it
(`zensical build [-f FILE] [-c] [-s]`, `zensical serve`): Zensical exposes its options to
no Python code. A process that merely imported `zensical` (a test run) is no build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from docpact._model.findings import Finding

__all__ = [
    "report",
    "strict_zensical_build",
    "zensical_build",
    "zensical_command",
    "zensical_folder",
]

_STATE: dict[str, object] = {"key": None}
_PRINTED: set[Finding | str] = set()


def zensical_build(argv: Sequence[str] | None = None) -> bool:
    """Whether the process is Zensical's command line (`zensical`, `python -m zensical`).

    Args:
        argv: The command line; `sys.argv` by default.
    """
    argv = sys.argv if argv is None else argv
    if not argv or "zensical" not in sys.modules:
        return False
    program = Path(argv[0])  # `zensical`, a wrapper such as Nix's `.zensical-wrapped`
    return "zensical" in program.name or program.parts[-2:] == ("zensical", "__main__.py")


def zensical_command(argv: Sequence[str] | None = None) -> tuple[str, str, bool]:
    """Zensical's command, the configuration file it names and whether `--strict` is set.

    Read as click reads `zensical build`'s and `serve`'s options: `-f FILE` (or `-fFILE`,
    `--config-file FILE`, `--config-file=FILE`) and serve's `-a ADDRESS` take a value,
    `-c`, `-s` and `-o` do not and may be grouped (`-cs`); the command is the first
    argument that is no option.

    Args:
        argv: The command line; `sys.argv` by default.

    Returns:
        The command (`build`, `serve`; empty when none), the configuration file (empty for
        Zensical's default, `mkdocs.yml` in the current folder), and whether it is strict.
    """
    argv = sys.argv if argv is None else argv
    arguments = list(argv[1:])
    command = next((a for a in arguments if not a.startswith("-")), "")
    rest = arguments[arguments.index(command) + 1 :] if command else []
    config, strict, i = "", False, 0
    while i < len(rest):
        argument = rest[i]
        i += 1
        if argument in {"--config-file", "-f"}:
            config, i = (rest[i] if i < len(rest) else ""), i + 1
        elif argument in {"--dev-addr", "-a"}:
            i += 1
        elif argument.startswith("--config-file="):
            config = argument.partition("=")[2]
        elif argument == "--strict":
            strict = True
        elif argument.startswith("-") and not argument.startswith("--"):
            for index, flag in enumerate(argument[1:], 1):
                if flag in "fa":  # the rest is its value, or the next argument is
                    value = argument[index + 1 :] or (rest[i] if i < len(rest) else "")
                    i += 0 if argument[index + 1 :] else 1
                    config = value if flag == "f" else config
                    break
                strict = strict or flag == "s"
    return command, config, strict


def strict_zensical_build(argv: Sequence[str] | None = None) -> bool:
    """Whether the process is `zensical build --strict` (or `-s`).

    Args:
        argv: The command line; `sys.argv` by default.

    Returns:
        True in a strict Zensical build; False under any other builder, in `serve`
        (whose strict mode Zensical does not support) and without the flag.
    """
    command, _, strict = zensical_command(argv)
    return zensical_build(argv) and command == "build" and strict


def zensical_folder(argv: Sequence[str] | None = None) -> Path:
    """The folder of the configuration file a Zensical command names; else the current one."""
    _, config, _ = zensical_command(argv)
    return Path(config).absolute().parent if config else Path.cwd()


def report(findings: Iterable[Finding | str], key: object = None) -> None:
    """Print the findings this process has not printed, and end a strict Zensical build.

    Each finding is printed once, whichever of docpact's front ends found it (the
    Markdown extension and the griffe extension check the same project). A check of
    changed files (a new `key`, under `zensical serve`) prints its findings again.

    Args:
        findings: The findings, or the messages of errors that stopped a check.
        key: What the check read, as the caller keys it; `None` for a check that is part
            of the last keyed one (the griffe extension's, of a package).
    """
    if key is not None and key != _STATE["key"]:
        _STATE["key"] = key
        _PRINTED.clear()
    found = sorted(findings, key=str)
    for finding in found:
        if finding not in _PRINTED:
            _PRINTED.add(finding)
            print(f"docpact: {finding}", file=sys.stderr)
    errors = [f for f in found if isinstance(f, str) or f.severity == "error"]
    if errors and strict_zensical_build():
        noun = "error" if len(errors) == 1 else "errors"
        print(
            f"docpact: {len(errors)} {noun}; the strict build stops before this page is written",
            file=sys.stderr,
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)  # Zensical turns any exception into a traceback and a half-written site
