"""A retrieval method's one-time load (a model), done before its search and outside the method deadline.

The engine gives each method ``method_timeout`` seconds
(:class:`~agrag_lab.retrieval.settings.RetrievalSettings`) to guard against a
runaway search, not against a model loading once per process: LINEARRAG's
first question imports spaCy and loads its English pipeline (8-9 s on 2
shared cores, more under load), which could exceed the deadline and fail a
search that takes 0.2 s once loaded. A method with such a load declares
:class:`Preparing`; the engine calls :func:`prepare` for each method of a run
before it starts the methods' clock, so the load counts against the run's
deadline only, like the query's embedding. The load is the method's own to
cache: a second call returns at once.

Examples
--------
>>> class Loads:
...     loaded = []
...     def prepare(self, query: str) -> None:
...         self.loaded.append(query)
>>> method = Loads()
>>> prepare(method, "who?"), prepare(object(), "who?"), method.loaded
(True, False, ['who?'])
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["Preparing", "prepare"]


@runtime_checkable
class Preparing(Protocol):
    """A retrieval method with a one-time load before its first search."""

    def prepare(self, query: str) -> None:
        """Load what a search of ``query`` needs (once per process); a failure is left for the search to report."""
        ...


def prepare(method: object, query: str) -> bool:
    """Run ``method``'s one-time load for ``query`` when it declares one (:class:`Preparing`); whether it did."""
    if not isinstance(method, Preparing):
        return False
    method.prepare(query)
    return True
