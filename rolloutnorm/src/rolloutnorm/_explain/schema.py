# SPDX-License-Identifier: MIT
"""The JSON rendering of an explanation, and the JSON Schema shipped with it.

The output is valid under the packaged schema, which carries its ``version``: the
configuration, the plan and the divisors as objects, then one rollout a line, the dropped
rows and the batch totals, and with ``--modes`` every rollout's mass under each mode, one
rollout a line; every mass to the 15 significant digits all machines agree on.
"""

from __future__ import annotations

import importlib.resources
import json
from json.encoder import encode_basestring
from typing import Any

import numpy as np

from rolloutnorm._config import KEYS
from rolloutnorm._explain import modes as by_mode
from rolloutnorm._explain.explanation import ALTERNATIVE, IMPLEMENTED, Explanation, significant

__all__ = ["SCHEMA", "as_data", "load_schema", "render_json"]

SCHEMA = "explain.schema.json"
"""The JSON Schema of ``--format json``, shipped in the package."""


def load_schema() -> dict[str, Any]:
    """The JSON Schema of the JSON output, with its ``version``.

    Returns:
        The parsed schema.
    """
    text = importlib.resources.files("rolloutnorm").joinpath(SCHEMA).read_text("utf-8")
    return json.loads(text)


def _numbers(values: np.ndarray) -> list[str]:
    """Masses as JSON numbers to 15 digits; formatted once per distinct value, as few recur."""
    unique, inverse = np.unique(values, return_inverse=True)
    texts = [repr(significant(value)) for value in unique.tolist()]
    return [texts[index] for index in inverse.tolist()]


def _json_id(value: str | int) -> str:
    return encode_basestring(value) if isinstance(value, str) else str(value)


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
        "config": {key: getattr(config, field) for field, key in KEYS.items()},
        "selected_mode": explanation.selected_mode,
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
    if explanation.modes is not None:
        parts[-1] += ","
        parts.append(_modes_json(explanation, encode))
    parts.append("}")
    return "\n".join(parts) + "\n"


def _modes_json(explanation: Explanation, encode: Any) -> str:
    """The ``modes`` object: its settings, then one rollout a line, then the batch's masses."""
    data = by_mode.as_data(explanation.rollout_ids, explanation.modes)
    rollouts, totals = data.pop("rollouts"), data.pop("batch")
    names = data["names"]
    columns = [_numbers(np.asarray([rollout[mode] for rollout in rollouts])) for mode in names]
    lines = [f"    {encode(key)}: {encode(value)}," for key, value in data.items()]
    entries = ",\n".join(
        f'      {{"rollout_id": {_json_id(rollout["rollout_id"])}, '
        + ", ".join(
            f"{encode(mode)}: {column[at]}" for mode, column in zip(names, columns, strict=True)
        )
        + "}"
        for at, rollout in enumerate(rollouts)
    )
    lines.append(f'    "rollouts": [\n{entries}\n    ],')
    batch = ", ".join(f"{encode(mode)}: {encode(significant(totals[mode]))}" for mode in names)
    lines.append(f'    "batch": {{{batch}}}')
    return '  "modes": {\n' + "\n".join(lines) + "\n  }"
