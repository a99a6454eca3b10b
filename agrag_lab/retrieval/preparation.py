"""A retrieval method's one-time load (a model), done before its search and outside the method deadline.

The engine gives each method ``method_timeout`` seconds
(:class:`~agrag_lab.retrieval.settings.RetrievalSettings`) to guard against a
runaway search, not against a model loading once per process: LINEARRAG's
first question imports spaCy and loads its English pipeline (8-9 s on 2
shared cores, more under load), which could exceed the deadline and fail a
search that takes 0.2 s once loaded. A method with such a load declares
:class:`Preparing`; the engine calls its ``prepare`` for each method of a
run before it starts the methods' clock, so the load counts against the run's
deadline only, like the query's embedding. The load is the method's own to
cache: a second call returns at once.

Examples
--------
>>> class Loads:
...     def prepare(self, query: str) -> None:
...         pass
>>> isinstance(Loads(), Preparing), isinstance(object(), Preparing)
(True, False)
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["Preparing"]


@runtime_checkable
class Preparing(Protocol):
    """A retrieval method with a one-time load before its first search."""

    def prepare(self, query: str) -> None:
        """Load what a search of ``query`` needs (once per process); a failure is left for the search to report."""
        ...

