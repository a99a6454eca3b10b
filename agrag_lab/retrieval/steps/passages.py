"""Which passages of an entity or report hit come first: ranked for the query, as passages are.

An entity (or community report) hit stands for its supporting passages: the
evaluation projects it onto them, the CLI and the widgets list them, an answer
cites them. Their stored order (the order the builder listed its text units, or
the order chunks were ingested) says nothing about the question: a hub entity
of an imported GraphRAG graph lists 24 text units from the table of contents on,
and the one that answers came twelfth. So a run ranks every entity's and
report's passages for its query, the way the ``chunk`` method ranks passages:
a dense leg (cosine similarity to the query) and a keyword leg (bm25s), fused
by RRF, over the passages of the run's entity and report items only. Passages
neither leg reaches keep their stored order after the ranked ones.

This makes sense on every kind of index: on our rule graph too, an entity
mentioned by hundreds of passages stands for those the question is about.
Measured on the judged Christmas Carol questions, MuSiQue-100 and the
workshop set (BENCHMARKS.md, "How an entity hit maps to passages").

Examples
--------
>>> from agrag_lab.retrieval.trace import ItemInfo
>>> infos = {"e1": ItemInfo("e1", "entity", "E", "", chunk_ids=("c1", "c2", "c3")),
...          "c9": ItemInfo("c9", "chunk", "t", "x")}
>>> ordered = order_supporting(infos, {"c3": 1, "c1": 2})
>>> ordered["e1"].chunk_ids, ordered["c9"] is infos["c9"]
(('c3', 'c1', 'c2'), True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from agrag_lab.retrieval.fusion import rrf
from agrag_lab.retrieval.legs import Leg, run_legs
from agrag_lab.retrieval.methods import QueryVector, SearchableGraphStore
from agrag_lab.retrieval.steps.capture import Capture
from agrag_lab.retrieval.trace import ItemInfo
from agrag_lab.storage.vectors import VectorStore

__all__ = ["SUPPORTED_KINDS", "capture", "order_supporting", "passage_ranks", "rank_supporting"]

#: The item kinds that stand for supporting passages.
SUPPORTED_KINDS = ("entity", "community")


def order_supporting(infos: Mapping[str, ItemInfo], ranks: Mapping[str, int]) -> dict[str, ItemInfo]:
    """``infos`` with each entity's and report's ``chunk_ids`` sorted by ``ranks`` (1 = best).

    Passages without a rank follow the ranked ones in their stored order (a
    stable sort); chunks and items whose order does not change are the same objects.
    """
    out = dict(infos)
    last = len(ranks) + 1
    for key, info in infos.items():
        if info.kind not in SUPPORTED_KINDS or len(info.chunk_ids) < 2:
            continue
        ordered = tuple(sorted(info.chunk_ids, key=lambda c: ranks.get(c, last)))
        if ordered != info.chunk_ids:
            out[key] = replace(info, chunk_ids=ordered)
    return out


def passage_ranks(
    query: str,
    vector: np.ndarray | QueryVector,
    passages: frozenset[str],
    *,
    graph_store: SearchableGraphStore,
    vector_store: VectorStore | None,
    k: float,
) -> dict[str, int]:
    """Ranks (from 1) of ``passages`` for ``query``: dense and keyword legs among them only, fused by RRF.

    A leg that fails (no query vector, an unreachable store) is left out; when
    both fail the ranks are empty and every item keeps its stored order.
    """
    if not passages:
        return {}
    wanted = sorted(passages)

    def dense() -> list[tuple[str, float]]:
        query_vector = QueryVector.of(vector).get()
        if vector_store is not None:
            return vector_store.query("chunks", query_vector, len(wanted), None, ids=wanted)
        everything = max(len(wanted), len(graph_store.keyword_index("chunks").ids))
        found = graph_store.similarity_search("chunks", query_vector, everything)
        return [(key, score) for key, score in found if key in passages]

    def keyword() -> list[tuple[str, float]]:
        return graph_store.keyword_index("chunks").search(query, len(wanted), allowed=passages.__contains__)

    legs: list[tuple[str, Leg]] = [("dense", dense), ("keyword", keyword)]
    outcome = run_legs(legs, owner="the passage order of entity and report hits")
    if outcome.all_failed:
        return {}
    fused = rrf({leg: [key for key, _ in hits] for leg, hits in outcome.found.items()}, k=k)
    return {item.key: rank for rank, item in enumerate(fused.items, 1)}


def rank_supporting(
    query: str,
    vector: np.ndarray | QueryVector,
    infos: Mapping[str, ItemInfo],
    *,
    graph_store: SearchableGraphStore,
    vector_store: VectorStore | None,
    k: float,
) -> dict[str, ItemInfo]:
    """``infos`` with every entity's and report's passages ranked for ``query`` (see the module)."""
    passages = frozenset(
        c for info in infos.values() if info.kind in SUPPORTED_KINDS and len(info.chunk_ids) > 1 for c in info.chunk_ids
    )
    ranks = passage_ranks(query, vector, passages, graph_store=graph_store, vector_store=vector_store, k=k)
    return order_supporting(infos, ranks)


def capture(cap: Capture, store: SearchableGraphStore, vector_store: VectorStore | None, rrf_k: float) -> None:
    """Rank the passages of every entity and report ``cap`` has seen for its query (the last read of a run)."""
    cap.progress.enter("passage order")
    with cap.tracer.span("context.passages"):
        cap.items = rank_supporting(
            cap.query, cap.vector, cap.items, graph_store=store, vector_store=vector_store, k=rrf_k
        )
