# SPDX-License-Identifier: MIT
"""What ``rolloutnorm explain`` shows of a batch: the retention plan and every rollout's mass.

The masses come from `retain_and_normalize` itself, run on unit advantages: each rollout's
share is its normalized advantages summed over its trained response tokens. Beside them
stands the mass a divisor counting distinct rollouts would give, the reading the code does
not implement, computed here by hand and labelled as such.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.resources
import json
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rolloutnorm._batch_file import Batch
from rolloutnorm._config import _KEYS, RolloutNormConfig
from rolloutnorm._errors import RolloutNormError
from rolloutnorm._ids import encode_ids
from rolloutnorm._normalize import check_batch
from rolloutnorm._report import _fraction
from rolloutnorm._retention import DropReason, RetentionPlan, plan_retention
from rolloutnorm._step import retain_and_normalize
from rolloutnorm._validate import count_row_tokens

__all__ = [
    "SCHEMA",
    "Explanation",
    "as_data",
    "explain",
    "load_schema",
    "render_json",
    "render_markdown",
    "render_table",
    "significant",
    "write_plot",
]

SCHEMA = "explain.schema.json"
"""The JSON Schema of ``--format json``, shipped in the package."""
IMPLEMENTED = "max(1, rollout_token_count * num_trained_rows)"
ALTERNATIVE = "max(1, rollout_token_count * distinct_trained_rollouts)"
_HOST = torch.device("cpu")


def significant(value: float) -> float:
    """A mass to 15 significant digits, as the JSON output gives it.

    A float64 sum of a row's shares can differ in its last bit from one machine's vector
    width to another's; 15 digits are what every machine agrees on.

    Args:
        value: The mass.

    Returns:
        The nearest float to its first 15 significant digits.
    """
    return float(f"{value:.15g}")


def load_schema() -> dict[str, Any]:
    """The JSON Schema of the JSON output, with its ``version``.

    Returns:
        The parsed schema.
    """
    text = importlib.resources.files("rolloutnorm").joinpath(SCHEMA).read_text("utf-8")
    return json.loads(text)


@dataclasses.dataclass(frozen=True, slots=True)
class Explanation:
    """A batch explained: its plan and, per rollout in order of first appearance, its share.

    Attributes:
        source: The batch file, as named on the command line.
        config: The configuration the batch was retained and normalized with.
        plan: The retention plan.
        rollout_ids: Each rollout's id.
        rows: Each rollout's rows in the batch.
        trained_rows: Each rollout's trained rows.
        tokens: Each rollout's response tokens over its trained rows (its
            `rollout_token_count`).
        mass: Each rollout's normalized token mass, from the code.
        alternative_mass: Each rollout's mass under the divisor the code does not use.
        dropped_rows: ``(row, rollout id, reason)`` for every dropped row, by row.
    """

    source: str
    config: RolloutNormConfig
    plan: RetentionPlan
    rollout_ids: list[str | int]
    rows: np.ndarray
    trained_rows: np.ndarray
    tokens: np.ndarray
    mass: np.ndarray
    alternative_mass: np.ndarray
    dropped_rows: list[tuple[int, str | int, DropReason]]

    @property
    def distinct_trained_rollouts(self) -> int:
        """The rollouts with a trained row: the alternative divisor's count."""
        return int(np.count_nonzero(self.trained_rows))

    def totals(self) -> dict[str, Any]:
        """The batch totals, as the JSON output gives them."""
        return {
            "rollouts": len(self.rollout_ids),
            "trained_rollouts": self.distinct_trained_rollouts,
            "rows": self.plan.num_rows,
            "trained_rows": self.plan.num_trained_rows,
            "tokens": int(self.tokens.sum()),
            "mass": significant(float(self.mass.sum())),
            "alternative_mass": significant(float(self.alternative_mass.sum())),
        }


def explain(batch: Batch, config: RolloutNormConfig, *, source: str) -> Explanation:
    """Retain and normalize a batch with the code a trainer step runs, and sum every share.

    Args:
        batch: The batch, from `read_batch`.
        config: The configuration, from `load_config`.
        source: The file's name, for the output.

    Returns:
        The explanation; with no row trained (fewer candidates than one mini-batch), every
        mass is 0 and the plan says why.

    Raises:
        RolloutNormError: If the batch is malformed; the message names the argument.
    """
    mask = batch.response_mask
    num_rows = mask.shape[0]
    # Unit advantages as a view of one value: the code reads them all, memory holds one.
    ones = torch.ones((1, 1), dtype=torch.float64).expand(mask.shape)
    groups = {"drop": batch.drop, "group_ids": batch.group_ids, "rewards": batch.rewards}
    try:
        trained = retain_and_normalize(ones, mask, batch.rollout_ids, config=config, **groups)
    except RolloutNormError:
        check_batch(ones, mask, batch.rollout_ids)
        plan = plan_retention(
            num_rows,
            mini_batch_size=config.mini_batch_size,
            max_ppo_update_times=config.max_ppo_update_times,
            seed=config.retention_seed,
            ppo_epochs=config.ppo_epochs,
            **groups,
        )
        if plan.num_trained_rows:
            raise
        trained = None
    else:
        plan = trained.plan
    ids = encode_ids(batch.rollout_ids, num_rows=num_rows, device=_HOST)
    codes = ids.codes.numpy()
    _, first_rows = np.unique(codes, return_index=True)
    first_rows.sort()
    position = np.empty(ids.size, dtype=np.int64)
    position[codes[first_rows]] = np.arange(len(first_rows))
    rollout_of_row = position[codes]
    count = len(first_rows)
    kept = np.asarray(plan.kept_indices, dtype=np.int64)
    kept_rollouts = rollout_of_row[kept]
    row_mass = np.zeros(0)
    row_tokens = np.zeros(0, dtype=np.int64)
    if trained is not None:
        # In place: the kept advantages are this call's own copy, and a product of the
        # batch's size would fault in as many fresh pages again (32,768 at 65,536 x 256).
        response = trained.response_mask.bool()
        row_mass = trained.advantages.masked_fill_(~response, 0).sum(-1).numpy()
        if batch.row_tokens is not None:
            row_tokens = batch.row_tokens[kept]
        else:
            row_tokens = count_row_tokens(trained.response_mask).counts.numpy()
    trained_rows = np.bincount(kept_rollouts, minlength=count)
    tokens = np.bincount(kept_rollouts, weights=row_tokens, minlength=count).astype(np.int64)
    distinct = int(np.count_nonzero(trained_rows))
    labels = _values(batch.rollout_ids, first_rows)
    row_labels = _values(batch.rollout_ids, np.asarray(list(plan.drop_reasons), dtype=np.int64))
    return Explanation(
        source=source,
        config=config,
        plan=plan,
        rollout_ids=labels,
        rows=np.bincount(rollout_of_row, minlength=count),
        trained_rows=trained_rows,
        tokens=tokens,
        mass=np.bincount(kept_rollouts, weights=row_mass, minlength=count),
        alternative_mass=tokens / np.maximum(1, tokens * distinct),
        dropped_rows=[
            (row, label, reason)
            for (row, reason), label in zip(plan.drop_reasons.items(), row_labels, strict=True)
        ],
    )


def _values(ids: Any, rows: np.ndarray) -> list[str | int]:
    """The ids of some rows as JSON can hold them: str and int as they are, others as text."""
    if isinstance(ids, torch.Tensor):
        values = ids[torch.from_numpy(rows)].tolist()
    elif isinstance(ids, np.ndarray):
        values = ids[rows].tolist()
    else:
        values = [ids[row] for row in rows.tolist()]
    if all(type(value) is str for value in values):
        return values
    return [_label(value) for value in values]


def _label(value: object) -> str | int:
    """An id of another kind than str and int (bytes, a tuple) as text."""
    if isinstance(value, str | int):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return str(value)


def _numbers(values: np.ndarray) -> list[str]:
    """Masses as JSON numbers to 15 digits; formatted once per distinct value, as few recur."""
    unique, inverse = np.unique(values, return_inverse=True)
    texts = [repr(significant(value)) for value in unique.tolist()]
    return [texts[index] for index in inverse.tolist()]


def _json_id(value: str | int) -> str:
    return encode_basestring(value) if isinstance(value, str) else str(value)


# --- the renderings ------------------------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def _share(value: float, denominator: int) -> str:
    """A mass as a fraction and a decimal; most rollouts share a handful of values."""
    return _fraction(value, denominator)


def _summary(explanation: Explanation) -> list[str]:
    """The lines above the table: why nothing is trained, the plan, the divisor's counts."""
    plan = explanation.plan
    lines = []
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
        f"mass: the code's, divided by rollout_token_count * num_trained_rows ({rows})",
        f"alternative: divided by rollout_token_count * distinct rollouts ({rollouts}); "
        "the code does not use it",
    ]


def _cells(explanation: Explanation) -> list[list[str]]:
    """Rollout lines then the batch line: id, rows, trained, tokens, mass, alternative."""
    rows, distinct = explanation.plan.num_trained_rows, explanation.distinct_trained_rollouts
    lines = [
        [
            str(rollout_id),
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
    if explanation.dropped_rows:
        width = max(len("rollout"), *(len(str(r)) for _, r, _ in explanation.dropped_rows))
        row_width = max(3, len(str(explanation.dropped_rows[-1][0])))
        lines += ["", f"dropped rows ({len(explanation.dropped_rows)}):"]
        lines.append(f"{'row':>{row_width}}  {'rollout':<{width}}  reason")
        lines += [
            f"{row:>{row_width}}  {rollout_id!s:<{width}}  {reason}"
            for row, rollout_id, reason in explanation.dropped_rows
        ]
    return "\n".join(lines) + "\n"


def _markdown_cell(value: str) -> str:
    return value.replace("\\", "\\\\").replace("|", "\\|")


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
    if explanation.dropped_rows:
        lines += ["", "| dropped row | rollout | reason |", "| ---: | --- | --- |"]
        lines += [
            f"| {row} | {_markdown_cell(str(rollout_id))} | {reason} |"
            for row, rollout_id, reason in explanation.dropped_rows
        ]
    return "\n".join(lines) + "\n"


def as_data(explanation: Explanation) -> dict[str, Any]:
    """The JSON output as Python data, rollouts and dropped rows excepted.

    Args:
        explanation: The explanation.

    Returns:
        The data, in the order of the schema's properties.
    """
    plan = explanation.plan
    config = explanation.config
    return {
        "schema_version": load_schema()["version"],
        "source": explanation.source,
        "trained": plan.num_trained_rows > 0,
        "config": {key: getattr(config, field) for field, key in _KEYS.items()},
        "plan": {
            "num_rows": plan.num_rows,
            "num_trained_rows": plan.num_trained_rows,
            "mini_batch_size": plan.mini_batch_size,
            "max_ppo_update_times": plan.max_ppo_update_times,
            "ppo_epochs": plan.ppo_epochs,
            "update_units_per_epoch": plan.update_units_per_epoch,
            "update_units": plan.update_units,
            "dropped": dict(plan.dropped),
            "dropped_from_same_reward_groups": plan.dropped_from_same_reward_groups,
        },
        "divisors": {
            "implemented": IMPLEMENTED,
            "num_trained_rows": plan.num_trained_rows,
            "alternative": ALTERNATIVE,
            "distinct_trained_rollouts": explanation.distinct_trained_rollouts,
            "alternative_is_used": False,
        },
    }


def render_json(explanation: Explanation) -> str:
    """The JSON rendering, valid under `load_schema`'s schema: one rollout per line.

    Args:
        explanation: The explanation.

    Returns:
        The JSON text, ending in a newline.
    """
    encode = json.JSONEncoder(ensure_ascii=False).encode
    data = as_data(explanation)
    parts = ["{"]
    for key, value in data.items():
        if isinstance(value, dict):
            inner = ",\n".join(f"    {encode(k)}: {encode(v)}" for k, v in value.items())
            parts.append(f'  "{key}": {{\n{inner}\n  }},')
        else:
            parts.append(f'  "{key}": {encode(value)},')
    # One f-string per rollout: a tenth of json.dumps's cost per record, the same text.
    rollouts = ",\n".join(
        f'    {{"rollout_id": {rid}, "rows": {rows}, "trained_rows": {trained}, '
        f'"tokens": {tokens}, "mass": {mass}, "alternative_mass": {alt}}}'
        for rid, rows, trained, tokens, mass, alt in zip(
            map(_json_id, explanation.rollout_ids),
            explanation.rows.tolist(),
            explanation.trained_rows.tolist(),
            explanation.tokens.tolist(),
            _numbers(explanation.mass),
            _numbers(explanation.alternative_mass),
            strict=True,
        )
    )
    parts.append(f'  "rollouts": [\n{rollouts}\n  ],')
    dropped = ",\n".join(
        f'    {{"row": {row}, "rollout_id": {encode(rollout_id)}, "stage": "{reason.stage}", '
        f'"same_reward_group": {"true" if reason.same_reward_group else "false"}}}'
        for row, rollout_id, reason in explanation.dropped_rows
    )
    parts.append(f'  "dropped_rows": [\n{dropped}\n  ],' if dropped else '  "dropped_rows": [],')
    totals = ",\n".join(f"    {encode(k)}: {encode(v)}" for k, v in explanation.totals().items())
    parts.append(f'  "batch": {{\n{totals}\n  }}')
    parts.append("}")
    return "\n".join(parts) + "\n"


def write_plot(explanation: Explanation, path: Path) -> None:
    """Write a bar chart of every rollout's mass, implemented beside the alternative.

    Rollouts with no trained row are marked ``dropped`` under their bar.

    Args:
        explanation: The explanation.
        path: The image file; its suffix names the format (``.png``, ``.svg``, ``.pdf``).

    Raises:
        RolloutNormError: Without matplotlib (the ``plot`` extra), or if the file cannot
            be written.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        msg = "--plot needs matplotlib: pip install 'rolloutnorm[plot]'"
        raise RolloutNormError(msg) from None
    count = len(explanation.rollout_ids)
    positions = np.arange(count)
    figure = Figure(figsize=(min(4 + 0.5 * count, 40), 4.5), layout="constrained")
    axes = figure.add_subplot()
    axes.bar(positions - 0.2, explanation.mass, 0.4, label=f"mass, {IMPLEMENTED} (the code)")
    axes.bar(
        positions + 0.2,
        explanation.alternative_mass,
        0.4,
        label=f"alternative, {ALTERNATIVE} (not used)",
        color="lightgray",
        edgecolor="gray",
        hatch="//",
    )
    dropped = explanation.trained_rows == 0
    labels = [
        f"{rollout_id}\n(dropped)" if gone else str(rollout_id)
        for rollout_id, gone in zip(explanation.rollout_ids, dropped.tolist(), strict=True)
    ]
    if count <= 60:
        axes.set_xticks(positions, labels)
        for tick, gone in zip(axes.get_xticklabels(), dropped.tolist(), strict=True):
            if gone:
                tick.set_color("firebrick")
    if dropped.any():
        axes.plot(
            positions[dropped],
            np.zeros(int(dropped.sum())),
            "x",
            color="firebrick",
            label="dropped",
        )
    axes.set_xlabel("rollout")
    axes.set_ylabel("normalized token mass")
    plan = explanation.plan
    axes.set_title(
        f"{explanation.source}: {plan.num_trained_rows} of {plan.num_rows} rows trained, "
        f"{explanation.distinct_trained_rollouts} rollouts"
    )
    axes.legend(loc="upper right", fontsize="small")
    try:
        figure.savefig(path)
    except (OSError, ValueError) as error:
        msg = f"--plot {path}: cannot be written: {error}"
        raise RolloutNormError(msg) from None
