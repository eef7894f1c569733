# SPDX-License-Identifier: MIT
"""The two renderings of an explanation for people: a plain-text table and Markdown.

Both show the same content: the plan and why nothing is trained where nothing is, one line
per rollout with its rows, trained rows, tokens and both masses as a fraction and a
decimal, the batch line, what each mass divides by, every rollout's mass under each
aggregation mode where asked for, and every dropped row with its reason.
"""

from __future__ import annotations

import functools

from rolloutnorm._config import LOSS_MODE
from rolloutnorm._explain import modes as by_mode
from rolloutnorm._explain.explanation import IMPLEMENTED, Explanation
from rolloutnorm._report import mass_fraction

__all__ = ["render_markdown", "render_table"]


@functools.lru_cache(maxsize=1024)
def _share(value: float, denominator: int) -> str:
    """A mass as a fraction and a decimal; most rollouts share a handful of values."""
    return mass_fraction(value, denominator)


def _summary(explanation: Explanation) -> list[str]:
    """The lines above the table: another mode selected, why nothing is trained, the plan."""
    plan = explanation.plan
    lines = []
    if explanation.selected_mode != LOSS_MODE:
        config = explanation.config
        lines.append(
            f"the config selects loss_mode {config.loss_mode} with loss_agg_mode "
            f"{config.loss_agg_mode};\n  the masses below are {LOSS_MODE}'s, a mode it does not "
            "select"
        )
    if not plan.num_trained_rows:
        lines.append(
            f"no row is trained: {plan.num_rows - plan.dropped['marked']} candidate rows, "
            f"fewer than one mini-batch of {plan.mini_batch_size}"
        )
    epochs = "epoch" if plan.ppo_epochs == 1 else "epochs"
    lines += [
        str(plan),
        f"num_trained_rows: {plan.num_trained_rows}; update units: "
        f"{plan.update_units_per_epoch} per epoch, {plan.update_units} over "
        f"{plan.ppo_epochs} {epochs}",
    ]
    return lines


def _legend(explanation: Explanation) -> list[str]:
    """What the two mass columns divide by: the code's divisor, then the one it does not use."""
    rows, rollouts = explanation.plan.num_trained_rows, explanation.distinct_trained_rollouts
    return [
        f"mass: the code's, divided by {IMPLEMENTED}; num_trained_rows = {rows}",
        f"alternative: divided by rollout_token_count * distinct rollouts ({rollouts}); "
        "the code does not use it",
    ]


def _cells(explanation: Explanation) -> list[list[str]]:
    """Rollout lines then the batch line: id, rows, trained, tokens, mass, alternative."""
    rows, distinct = explanation.plan.num_trained_rows, explanation.distinct_trained_rollouts
    lines = [
        [
            _shown(rollout_id),
            str(total),
            str(trained),
            str(tokens),
            _share(mass, rows),
            _share(alt, distinct),
        ]
        for rollout_id, total, trained, tokens, mass, alt in zip(
            explanation.rollout_ids,
            explanation.rows.tolist(),
            explanation.trained_rows.tolist(),
            explanation.tokens.tolist(),
            explanation.mass.tolist(),
            explanation.alternative_mass.tolist(),
            strict=True,
        )
    ]
    totals = explanation.totals()
    lines.append(
        [
            "batch",
            str(totals["rows"]),
            str(totals["trained_rows"]),
            str(totals["tokens"]),
            _share(totals["mass"], rows),
            _share(totals["alternative_mass"], distinct),
        ]
    )
    return lines


HEADER = ("rollout", "rows", "trained", "tokens", "mass", "alternative")


def render_table(explanation: Explanation) -> str:
    """The plain-text rendering: plan, one line per rollout, the batch line, dropped rows.

    Args:
        explanation: The explanation.

    Returns:
        The text, ending in a newline.
    """
    cells = _cells(explanation)
    widths = [max(len(HEADER[i]), *(len(line[i]) for line in cells)) for i in range(6)]

    def line(values: list[str] | tuple[str, ...]) -> str:
        first = f"{values[0]:<{widths[0]}}"
        numbers = (
            f"{value:>{width}}" for value, width in zip(values[1:4], widths[1:4], strict=True)
        )
        shares = (f"{value:<{width}}" for value, width in zip(values[4:], widths[4:], strict=True))
        return "  ".join((first, *numbers, *shares)).rstrip()

    lines = [*_summary(explanation), "", line(HEADER), *map(line, cells), ""]
    lines += [text.replace("; ", ";\n  ") for text in _legend(explanation)]
    if explanation.modes is not None:
        lines += ["", *_modes_table(explanation)]
    if explanation.dropped_rows:
        width = max(len("rollout"), *(len(_shown(r)) for _, r, _ in explanation.dropped_rows))
        row_width = max(3, len(str(explanation.dropped_rows[-1][0])))
        lines += ["", f"dropped rows ({len(explanation.dropped_rows)}):"]
        lines.append(f"{'row':>{row_width}}  {'rollout':<{width}}  reason")
        lines += [
            f"{row:>{row_width}}  {_shown(rollout_id):<{width}}  {reason}"
            for row, rollout_id, reason in explanation.dropped_rows
        ]
    return "\n".join(lines) + "\n"


# The text view's modes per table: two tables of three fit 80 columns, one of six does not.
_MODES_PER_TABLE = 3


def _modes_table(explanation: Explanation) -> list[str]:
    """The ``--modes`` tables: a column per mode, three modes a table, left-aligned."""
    modes = explanation.modes
    header = by_mode.header(modes)
    rows = [[_shown(line[0]), *line[1:]] for line in by_mode.cells(explanation.rollout_ids, modes)]
    lines: list[str] = []
    for first in range(1, len(header), _MODES_PER_TABLE):
        shown = [0, *range(first, min(first + _MODES_PER_TABLE, len(header)))]
        table = [[row[i] for i in shown] for row in [header, *rows]]
        widths = [max(len(row[i]) for row in table) for i in range(len(shown))]
        if lines:
            lines.append("")
        lines += [
            "  ".join(
                f"{value:<{width}}" for value, width in zip(row, widths, strict=True)
            ).rstrip()
            for row in table
        ]
    return [*lines, "", *(text.replace("; ", ";\n  ") for text in by_mode.legend(modes))]


def _shown(value: object) -> str:
    """An id as one line of text: a control character (a newline) shown as its escape."""
    text = str(value)
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def _markdown_cell(value: str) -> str:
    return _shown(value).replace("\\", "\\\\").replace("|", "\\|")


def render_markdown(explanation: Explanation) -> str:
    """The Markdown rendering: the same content as the table, as Markdown tables.

    Args:
        explanation: The explanation.

    Returns:
        The Markdown, ending in a newline.
    """
    lines = [f"### `{explanation.source}`", ""]
    lines += [f"- {text}" for text in _summary(explanation)[:-2]]
    plan = explanation.plan
    dropped = plan.dropped
    lines += [
        f"- rows: {plan.num_rows} given, {plan.num_trained_rows} trained (`num_trained_rows`)",
        f"- dropped: {dropped['marked']} marked, {dropped['mini_batch_floor']} at the "
        f"mini-batch floor, {dropped['max_ppo_update_times']} at the update cap",
        f"- update units: {plan.update_units_per_epoch} per epoch, {plan.update_units} over "
        f"{plan.ppo_epochs} epoch{'' if plan.ppo_epochs == 1 else 's'}",
    ]
    if plan.dropped_from_same_reward_groups:
        lines.append(
            f"- same-reward groups first: {plan.dropped_from_same_reward_groups} of the floor "
            "and cap drops"
        )
    lines += [
        "",
        "| rollout | rows | trained | tokens | mass | alternative (not used) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    cells = _cells(explanation)
    cells[-1][0] = "**batch**"
    lines += ["| " + " | ".join(_markdown_cell(value) for value in line) + " |" for line in cells]
    lines += ["", *(f"- {text}" for text in _legend(explanation))]
    if explanation.modes is not None:
        modes = explanation.modes
        header = by_mode.header(modes, mark=" (selected)")
        lines += ["", "| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
        cells = by_mode.cells(explanation.rollout_ids, modes)
        cells[-1][0] = "**batch**"
        lines += [
            "| " + " | ".join(_markdown_cell(value) for value in line) + " |" for line in cells
        ]
        lines += ["", *(f"- {text}" for text in by_mode.legend(modes, mark="(selected)"))]
    if explanation.dropped_rows:
        lines += ["", "| dropped row | rollout | reason |", "| ---: | --- | --- |"]
        lines += [
            f"| {row} | {_markdown_cell(str(rollout_id))} | {reason} |"
            for row, rollout_id, reason in explanation.dropped_rows
        ]
    return "\n".join(lines) + "\n"
