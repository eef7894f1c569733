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
from docpact.claims._ledger import DEFAULT_REVIEWS
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


def analyse(contract: Any, config: Config) -> Any:
    """The claims' analysis of a contract (`analysis.analyse`), imported when a command runs."""
    from docpact.claims._analysis import analyse as analysis

    return analysis(contract, config)


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
            "record the claims' and properties' fingerprints as reviewed: do it after "
            "reading each changed claim against its property."
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
        help="rewrite the reviewed= fingerprints of the properties, and nothing else",
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

        for line in claim_diff(analyse(contract, config), config, options.diff):
            logger.info("%s", line.rstrip("\n"))
        return 0
    if options.update:
        from docpact.claims._review import (  # not for a check
            reviews,
            suppression_reviews,
            write_reviews,
            write_suppression_reviews,
        )

        analysis = analyse(contract, config)
        found = reviews(analysis, options.ids)
        suppressed = [] if options.ids else suppression_reviews(analysis)
        write_suppression_reviews(config, suppressed)  # independent of the test files
        write_reviews(config, found)
        for stamp in suppressed:
            logger.warning(
                '%s:%d: re-approved not-a-claim "%s": %s -> %s',
                stamp.page,
                stamp.line,
                stamp.reason,
                stamp.old or "never reviewed",
                stamp.new,
            )
        for review in found:
            binding = review.binding
            was = review.old or "never reviewed"
            logger.warning(
                "%s:%d: re-approved %s against claim %s (%s:%d): %s -> %s",
                binding.path,
                binding.line,
                binding.function,
                binding.claim,
                review.page,
                review.line,
                was,
                review.new,
            )
        logger.warning("%d re-approved", len(found))
    analysis = analyse(contract, config)  # again: --update rewrote the test files
    if options.update:
        from docpact.claims._review import missing_records

        for claim_id in missing_records(config, analysis):
            logger.warning("%s: recorded the review of claim %s", DEFAULT_REVIEWS, claim_id)
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
        line = f"{page}:{block.line}: {block.argument}: {_claim_status(block, bound)}"
        if checked:
            line += f": {checked}"
        logger.info("%s", line)
        for binding in bound:  # where the code under test may hide more: for its reviewer
            for where in binding.reach.unresolved:
                logger.info("  not resolved: %s", where)
    for page, read in analysis.read.items():
        for block in read.suppressions:
            status = (
                "never reviewed"
                if not block.reviewed
                else "reviewed"
                if block.reviewed == block.fingerprint
                else "block changed"
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


def _claim_status(block: Block, bound: list[Binding]) -> str:
    """How a claim stands against its properties, in a few words."""
    if not bound:
        return "no property"
    if len(bound) > 1:
        return f"{len(bound)} properties"
    if not bound[0].reviewed:
        return "never reviewed"
    stale = [_PARTS[part] for part in changed(block, bound[0])]
    return " and ".join(stale) + " changed" if stale else "reviewed"


# How the listing names the parts of a review stamp.
_PARTS = {"text": "text", "code": "code", "tested": "code under test"}
