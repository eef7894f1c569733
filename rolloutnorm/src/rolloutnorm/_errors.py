# SPDX-License-Identifier: MIT
"""The one exception type that rolloutnorm raises for bad input."""

from __future__ import annotations

__all__ = ["RolloutNormError"]


class RolloutNormError(ValueError):
    """An argument or configuration value that rolloutnorm cannot use.

    The message starts with what is wrong and names the argument or configuration key,
    for example ``num_trained_rows must be a positive int, got 0``. It subclasses
    ``ValueError`` so callers that already catch bad values keep working.

    Examples:
        >>> from rolloutnorm import load_config
        >>> try:
        ...     load_config(overrides={"actor_rollout_ref.rollout.n": 0})
        ... except RolloutNormError as error:
        ...     print(error)
        actor_rollout_ref.rollout.n must be a positive int, got 0
    """

    # Named where users import it: a traceback shows rolloutnorm.RolloutNormError.
    __module__ = "rolloutnorm"
