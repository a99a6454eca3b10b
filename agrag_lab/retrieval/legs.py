"""The one leg runner: dense and keyword legs of a search, their failures, and their fusion.

A hybrid search asks two stores (a dense leg and a keyword leg) for ranked
``(key, score)`` lists. :func:`run_legs` runs each leg, keeps what each
answered and why each failed: one leg failing never fails the search (the
caller marks it ``partial``); every leg failing is the caller's to raise, in
its own error family (a recipe method raises
:class:`~agrag_lab.errors.RetrievalMethodError`, an evidence function
:class:`~agrag_lab.errors.AllRetrievalMethodsFailedError`).
:meth:`LegOutcome.fused` fuses the legs that answered by RRF, one vote per leg.

The recipe methods (:class:`~agrag_lab.retrieval.methods.HybridMethod`) and
the evidence functions (``discover``, ``find_entities``) all run their legs here.

Examples
--------
>>> def broken() -> list[tuple[str, float]]:
...     raise ConnectionError("vector store unreachable")
>>> out = run_legs([("dense", broken), ("keyword", lambda: [("a", 2.0), ("b", 1.0)])], owner="chunk")
>>> out.partial, list(out.found), out.failed
(True, ['keyword'], {'dense': 'ConnectionError: vector store unreachable'})
>>> out.fused(60.0).keys
('a', 'b')
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from agrag_lab.retrieval.fusion import Fusion, rrf

__all__ = ["Leg", "LegOutcome", "run_legs"]

log = logging.getLogger(__name__)

#: A leg: asks one store, returns ``(key, score)`` best first, or raises.
Leg = Callable[[], list[tuple[str, float]]]


@dataclass(frozen=True)
class LegOutcome:
    """What each leg answered (in the order asked) and why each failed leg failed."""

    found: Mapping[str, list[tuple[str, float]]]
    errors: Mapping[str, BaseException]

    @property
    def failed(self) -> dict[str, str]:
        """Each failed leg and why, ``"Type: message"``."""
        return {leg: f"{type(exc).__name__}: {exc}" for leg, exc in self.errors.items()}

    @property
    def all_failed(self) -> bool:
        """Whether no leg answered (the caller raises)."""
        return not self.found

    @property
    def partial(self) -> bool:
        """Whether a leg failed while another answered (the result says ``partial``)."""
        return bool(self.errors) and bool(self.found)

    def fused(self, k: float) -> Fusion:
        """The legs that answered, fused by RRF with constant ``k`` (one vote per leg at its best rank)."""
        return rrf({leg: [key for key, _ in hits] for leg, hits in self.found.items()}, k=k)


def run_legs(legs: Sequence[tuple[str, Leg]], *, owner: str) -> LegOutcome:
    """Run each ``(name, leg)`` in order, keeping the answers and the failures.

    ``owner`` names the method or function the legs belong to (for the log).
    A leg may fail in any way; the others still answer.
    """
    found: dict[str, list[tuple[str, float]]] = {}
    errors: dict[str, BaseException] = {}
    for name, leg in legs:
        try:
            found[name] = leg()
        except Exception as exc:  # one leg failing must not fail the search
            log.warning("the %s leg of %s failed: %s", name, owner, exc)
            errors[name] = exc
    return LegOutcome(found, errors)
