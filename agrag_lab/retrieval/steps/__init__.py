"""The optional steps after the methods, one module each, its store read and its pure part side by side.

- :mod:`~agrag_lab.retrieval.steps.walk`: the graph walk (one class per ``walk.strategy``);
- :mod:`~agrag_lab.retrieval.steps.communities`: community reports;
- :mod:`~agrag_lab.retrieval.steps.rerank`: the re-rank (graph distance, cross-encoder);
- :mod:`~agrag_lab.retrieval.steps.cut`: the cut to the limit;
- :mod:`~agrag_lab.retrieval.steps.passages`: each entity's and report's passages ranked for the query.

At query time the engine records every item's display info and lets each step
read the store into one :class:`~agrag_lab.retrieval.steps.capture.Capture`
(:func:`capture`); the pure parts then run from the frozen
:class:`~agrag_lab.retrieval.trace.GraphContext` in
:func:`agrag_lab.retrieval.pipeline.assemble`, which ``SearchRun.refuse``
calls again with other fusion settings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from agrag_lab.retrieval.methods import SearchableGraphStore
from agrag_lab.retrieval.rerank import CrossEncoderReranker
from agrag_lab.retrieval.steps import communities, passages, rerank, walk
from agrag_lab.retrieval.steps.capture import Capture, Progress
from agrag_lab.retrieval.trace import MethodTrace
from agrag_lab.storage.vectors import VectorStore

__all__ = ["Capture", "Progress", "StepStore", "capture"]


class StepStore(walk.WalkStore, communities.CommunityStore, rerank.RerankStore, SearchableGraphStore, Protocol):
    """What all the steps read of a graph store."""


def capture(
    cap: Capture,
    methods: Sequence[MethodTrace],
    store: StepStore,
    vector_store: VectorStore | None,
    rrf_k: float,
    reranker: Callable[[str | None], CrossEncoderReranker],
) -> None:
    """Let every step the recipe asks for read the stores, in order, into ``cap``.

    The methods' hits are seen first (the entity hits are what the walk and
    the distances start from), then the walk's additions, then the
    communities; the cross-encoder scores the cut's neighbourhood.
    """
    cap.see(store, list(dict.fromkeys(h.key for m in methods for h in m.hits)))
    entities = cap.of_kind("entity")
    walk.capture(cap, store, vector_store, entities, rrf_k)
    rerank.capture_distances(cap, store, entities)
    communities.capture(cap, store)
    rerank.capture_scores(cap, reranker, methods, rrf_k)
    passages.capture(cap, store, vector_store, rrf_k, methods)
