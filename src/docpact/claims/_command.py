# SPDX-License-Identifier: MIT
"""`docpact claims`: each claim with its property and whether they were reviewed; `--update`.

The claims kind adds this command to the `docpact` command line (`Kind.commands`).
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docpact._model.errors import DocpactError
from docpact._model.rules import Subject
from docpact.claims._ledger import FOLDER
from docpact.claims._rules import CLAIM_WORDS, changed

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from docpact._model.config import Config
    from docpact._model.rules import Kind
    from docpact.claims._bindings import Binding
    from docpact.claims._page import Block

__all__ = ["add_command"]

logger = logging.getLogger("docpact")


def analyse(contract: Any, config: Config, *, runs_vouch: bool) -> Any:
    """The claims' analysis of a contract (`analysis.analyse`), imported when a command runs.

    `runs_vouch` as a check reads it, but for what writes the ledger.
    """
    from docpact.claims._analysis import analyse as analysis

    return analysis(contract, config, runs_vouch=runs_vouch)


def add_command(
    commands: argparse._SubParsersAction, kind: Kind
) -> Callable[[argparse.Namespace, Config], int]:
    """Add `docpact claims` to the command line's subcommands.

    Args:
        commands: The subparsers of `docpact`.
        kind: The claims kind.

    Returns:
        What the command runs, given its options and the project's configuration.
    """
    claims = commands.add_parser(
        "claims",
        help="list the claims and their properties; --update re-approves them",
        description=(
            "List every claim of the claims contracts with the property that checks it and "
            "whether they were reviewed against each other as they stand. With --update, "
            f"record each changed claim's review in the ledger ({FOLDER}/): its text, its "
            "property and the code under test that a test run of this commit recorded. Do "
            "it after reading each changed claim against its property."
        ),
        epilog=(
            "exit status: 0 every claim bound and reviewed (after --update: re-approved), "
            "1 a claim unbound, bound twice or not reviewed, 2 usage or configuration error"
        ),
    )
    claims.add_argument(
        "ids", nargs="*", metavar="ID", help="the claims to re-approve (default: every claim)"
    )
    claims.add_argument("--pyproject", type=Path, help="the pyproject.toml to read")
    claims.add_argument(
        "--update",
        action="store_true",
        help=f"record the reviews of the changed claims and suppressions in {FOLDER}/, and "
        "nothing else",
    )
    claims.add_argument(
        "--migrate",
        action="store_true",
        help="move the reviewed= stamps of test files and not-a-claim markers, which earlier "
        f"releases wrote, into {FOLDER}/, and remove them",
    )
    claims.add_argument(
        "--diff",
        metavar="ID",
        help=(
            "print what changed since claim ID was reviewed: its text, its property and its "
            "code under test, as diffs; read them before --update"
        ),
    )
    return functools.partial(_claims, kind=kind)


def _claims(options: argparse.Namespace, config: Config, *, kind: Kind) -> int:
    """Run `docpact claims`: one line per claim, or per re-approval with `--update`."""
    # load_config allows one claims contract: a claim ID names one claim over all pages.
    contract = next((c for c in config.contracts if c.kind == kind.name), None)
    if contract is None:
        msg = f"{config.pyproject.name}: error: no [[tool.docpact.contract]] of kind claims"
        raise DocpactError(msg)
    if options.ids and not options.update:
        msg = "error: claim IDs select what --update re-approves; add --update"
        raise DocpactError(msg)
    if options.diff is not None:
        if options.update:
            msg = "error: --diff shows what --update would approve: run one, then the other"
            raise DocpactError(msg)
        from docpact.claims._diff import claim_diff  # not for a check

        for line in claim_diff(analyse(contract, config, runs_vouch=True), config, options.diff):
            logger.info("%s", line.rstrip("\n"))
        return 0
    if options.update and options.migrate:
        msg = "error: --migrate moves the old stamps, --update reviews: run one, then the other"
        raise DocpactError(msg)
    if options.update or options.migrate:
        from docpact.claims._review import migrate, update  # not for a check

        analysis = analyse(contract, config, runs_vouch=False)  # no run's code in the ledger
        done = (
            migrate(analysis, config) if options.migrate else update(analysis, config, options.ids)
        )
        verb = "migrated" if options.migrate else "reviewed"
        for claim_id, old in done.claims.items():
            page, line = next((p, b.line) for p, b in analysis.claims if b.argument == claim_id)
            logger.warning(
                "%s:%d: %s claim %s%s", page, line, verb, claim_id, "" if old else " (first review)"
            )
        for page in done.pages:
            logger.warning("%s: %s its not-a-claim suppressions", page, verb)
        for path, line, why in done.left:
            logger.warning("%s:%d: left: %s", path, line, why)
        logger.warning(
            "%d claim review%s and %d page review%s written, %d claim%s unchanged, %d file%s "
            "written",
            len(done.claims),
            "" if len(done.claims) == 1 else "s",
            len(done.pages),
            "" if len(done.pages) == 1 else "s",
            len(done.unchanged),
            "" if len(done.unchanged) == 1 else "s",
            len(done.files),
            "" if len(done.files) == 1 else "s",
        )
    analysis = analyse(contract, config, runs_vouch=True)  # again: the ledger changed
    if not analysis.claims:
        logger.info(
            "no claims on the claims pages (%s): mark one with <!-- docpact: claim ID -->",
            ", ".join(contract.pages),
        )
    for page, block in analysis.claims:
        bound = analysis.bound(block.argument)
        checked = ", ".join(
            f"{b.path}:{b.line} {b.function} (run by {analysis.command(b)})" for b in bound
        )
        status = _claim_status(block, bound, analysis.review(block))
        line = f"{page}:{block.line}: {block.argument}: {status}"
        if checked:
            line += f": {checked}"
        logger.info("%s", line)
    for page, read in analysis.read.items():
        reviewed = analysis.ledger.pages.get(page)
        pairs = set(reviewed.suppressions) if reviewed is not None else set()
        for block in read.suppressions:
            status = (
                "reviewed"
                if (block.argument, block.text) in pairs
                else "block changed"
                if block.argument in {reason for reason, _ in pairs}
                else "never reviewed"
            )
            logger.info('%s:%d: not-a-claim "%s": %s', page, block.line, block.argument, status)
    # Every status but `reviewed` comes with a finding of a rule other than the claim
    # words', and those findings settle the exit.
    subject = Subject(contract, config, kind)
    unsettled = [
        finding for rule in kind.rules if rule is not CLAIM_WORDS for finding in rule.run(subject)
    ]
    for finding in unsettled:
        logger.warning("%s", finding)
    return 1 if unsettled else 0


def _claim_status(block: Block, bound: list[Binding], review: Any) -> str:
    """How a claim stands against its properties, in a few words."""
    if not bound:
        return "no property"
    if len(bound) > 1:
        return f"{len(bound)} properties"
    if review is None:
        return "never reviewed"
    stale = [_PARTS[part] for part in changed(block, bound[0], review)]
    return " and ".join(stale) + " changed" if stale else "reviewed"


# How the listing names the parts of a review.
_PARTS = {"text": "text", "code": "property"}
