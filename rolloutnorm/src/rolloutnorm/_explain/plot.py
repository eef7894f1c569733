# SPDX-License-Identifier: MIT
"""The plot of an explanation: every rollout's mass as a bar beside its alternative.

matplotlib comes with the ``plot`` extra and is imported only when a plot is asked for; a
rollout with no trained row is marked ``dropped`` under its bar, and its tick label is
shown in red while the rollouts are few enough to label. The legend stands above the axes,
clear of the bars. With ``--modes`` the plot is one panel per aggregation mode instead,
side by side, each on its own scale (``token-sum`` counts tokens), the selected mode's
panel in another colour. An SVG or PDF of the same batch is the same file on every run (no
date, fixed ids), so docs/assets/explain-masses.svg and explain-modes.svg are checked
against what the command writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rolloutnorm._errors import RolloutNormError
from rolloutnorm._explain.explanation import ALTERNATIVE, IMPLEMENTED, Explanation

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["write_plot"]


def write_plot(explanation: Explanation, path: Path) -> Path:
    """Write a bar chart of every rollout's mass, implemented beside the alternative.

    Rollouts with no trained row are marked ``dropped`` under their bar. Where the
    explanation holds the masses of every mode (``--modes``), the chart is one panel per
    mode instead, side by side, the selected mode's marked.

    Args:
        explanation: The explanation.
        path: The image file; its suffix names the format (``.png``, ``.svg``, ``.pdf``);
            without one, ``.png`` is appended, as matplotlib does.

    Returns:
        The file written.

    Raises:
        RolloutNormError: Without matplotlib (the ``plot`` extra), or if the file cannot
            be written.
    """
    try:
        from matplotlib import rc_context
        from matplotlib.figure import Figure
    except ImportError:
        msg = "--plot needs matplotlib: pip install matplotlib"
        raise RolloutNormError(msg) from None
    if explanation.modes is not None:
        figure = _modes_figure(Figure, explanation)
    else:
        figure = _masses_figure(Figure, explanation)
    if not path.suffix:
        path = path.with_name(f"{path.name}.png")
    undated = {".svg": {"Date": None}, ".pdf": {"CreationDate": None}}.get(path.suffix.lower())
    try:
        with rc_context({"svg.hashsalt": "rolloutnorm"}):
            figure.savefig(path, metadata=undated)
    except (OSError, ValueError) as error:
        msg = f"--plot {path}: cannot be written: {error}"
        raise RolloutNormError(msg) from None
    return path


def _masses_figure(figure_class: type[Figure], explanation: Explanation) -> Figure:
    """Every rollout's mass beside its alternative, the dropped ones marked."""
    count = len(explanation.rollout_ids)
    positions = np.arange(count)
    figure = figure_class(figsize=(min(4 + 0.5 * count, 40), 4.5), layout="constrained")
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
    dropped = _label_rollouts(axes, explanation)
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
    figure.legend(loc="outside upper center", fontsize="small")
    return figure


def _label_rollouts(axes: Axes, explanation: Explanation) -> np.ndarray:
    """Label the bars with their rollouts, the dropped ones in red; which are dropped."""
    count = len(explanation.rollout_ids)
    dropped = explanation.trained_rows == 0
    labels = [
        f"{rollout_id}\n(dropped)" if gone else str(rollout_id)
        for rollout_id, gone in zip(explanation.rollout_ids, dropped.tolist(), strict=True)
    ]
    if count <= 60:
        axes.set_xticks(np.arange(count), labels)
        for tick, gone in zip(axes.get_xticklabels(), dropped.tolist(), strict=True):
            if gone:
                tick.set_color("firebrick")
    return dropped


def _modes_figure(figure_class: type[Figure], explanation: Explanation) -> Figure:
    """One panel per aggregation mode, three to a row, the selected mode's bars in orange."""
    modes = explanation.modes
    count, names = len(explanation.rollout_ids), list(modes.masses)
    columns = min(3, len(names))
    rows = -(-len(names) // columns)
    size = (min(columns * (2 + 0.4 * count), 40), 2.8 * rows + 0.8)
    figure = figure_class(figsize=size, layout="constrained")
    panels = figure.subplots(rows, columns, squeeze=False).ravel()
    for axes, mode in zip(panels, names, strict=False):
        selected = mode == modes.selected
        axes.bar(
            np.arange(count),
            modes.masses[mode],
            0.6,
            color="tab:orange" if selected else "tab:blue",
        )
        axes.set_title(f"{mode} (selected)" if selected else mode, fontsize="medium")
        _label_rollouts(axes, explanation)
    for axes in panels[len(names) :]:
        axes.set_visible(False)
    plan = explanation.plan
    figure.supylabel("normalized token mass")
    figure.suptitle(
        f"{explanation.source}: each rollout's mass under each loss aggregation, "
        f"{plan.num_trained_rows} of {plan.num_rows} rows trained"
    )
    return figure
