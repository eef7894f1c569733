# SPDX-License-Identifier: MIT
"""The `claim` decorator, which binds a property test to the claim it checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from docpact._model.keys import SESSION
from docpact.claims._page import CLAIM_ID

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["claim"]

_F = TypeVar("_F", bound="Callable[..., Any]")


def claim(claim_id: str, *, session: str = "", reviewed: str = "") -> Callable[[_F], _F]:
    """Bind a property test to the claim it checks, for `docpact check` to read.

    The function is returned unchanged, with the binding in its `__docpact_claim__`
    attribute. The review of the claim against the property lives in the review ledger
    (`docpact claims --update` writes it), never in the test file:

    >>> from docpact import claim
    >>> @claim("mass-per-rollout")
    ... def test_mass_per_rollout():
    ...     pass
    >>> test_mass_per_rollout.__docpact_claim__
    {'claim': 'mass-per-rollout', 'session': ''}

    Args:
        claim_id: The claim's ID, as in its page's `<!-- docpact: claim ID -->`.
        session: The nox session that runs the property, when it is not the claims
            contract's `session`.
        reviewed: A review stamp that an earlier release wrote here, read by
            `docpact claims --migrate`, which moves it into the ledger and removes it;
            `docpact check` reports it (DP014) until then. Ignored by the binding.

    Returns:
        The decorator.

    Raises:
        ValueError: When an argument is malformed.
    """
    if not isinstance(claim_id, str) or CLAIM_ID.fullmatch(claim_id) is None:
        msg = f"claim_id must be a claim ID such as 'mass-per-rollout', got {claim_id!r}"
        raise ValueError(msg)
    if not isinstance(session, str) or (session and SESSION.fullmatch(session) is None):
        msg = f"session must be empty or a nox session name, got {session!r}"
        raise ValueError(msg)

    def bind(function: _F) -> _F:
        function.__docpact_claim__ = {  # type: ignore[attr-defined]
            "claim": claim_id,
            "session": session,
        }
        return function

    return bind
