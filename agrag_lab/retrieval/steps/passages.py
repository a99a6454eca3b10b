"""Which passages an entity or report hit stands for, and in which order: ranked for the query, as passages are.

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
workshop set (BENCHMARKS.md,
"Imported graphs: the Christmas Carol questions").

A hit stands for the passages of the record that matched. An entity found
through its own record (its description, or our rule graph's entity text)
stands for all its passages; one a method found through one of its relation
records (``Hit.via``: a relationship its builder described, or a typed relation
of our rule graph) stands for the passages of that relation among its own: the
record that matched says which of its passages the question is about. A hub
found through "SCROOGE -> FAN: Fan ... comes to bring him home from school for
Christmas" stands for the text unit that tells it, not for the 24 units of
*SCROOGE*, which filled the first five before (measured: BENCHMARKS.md,
"Imported graphs: the Christmas Carol questions").

Examples
--------
>>> from agrag_lab.retrieval.trace import ItemInfo
>>> infos = {"e1": ItemInfo("e1", "entity", "E", "", chunk_ids=("c1", "c2", "c3")),
...          "c9": ItemInfo("c9", "chunk", "t", "x")}
>>> ordered = order_supporting(infos, {"c3": 1, "c1": 2})
>>> ordered["e1"].chunk_ids, ordered["c9"] is infos["c9"]
(('c3', 'c1', 'c2'), True)
>>> order_supporting(infos, {"c3": 1, "c1": 2}, through={"e1": {"c2", "c3"}})["e1"].chunk_ids
('c3', 'c2')
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np

from agrag_lab.retrieval.fusion import rrf
from agrag_lab.retrieval.legs import Leg, run_legs
from agrag_lab.retrieval.methods import QueryVector, SearchableGraphStore
from agrag_lab.retrieval.steps.capture import Capture
from agrag_lab.retrieval.trace import Hit, ItemInfo, MethodTrace
from agrag_lab.storage.vectors import VectorStore

__all__ = ["PASSAGES_EXACT", "PASSAGES_NEAREST", "PASSAGES_WHOLE", "SUPPORTED_KINDS", "capture", "found_through_passages", "order_supporting", "passage_ranks", "rank_supporting"]

#: The item kinds that stand for supporting passages.
SUPPORTED_KINDS = ("entity", "community")
#: The most passages the dense leg ranks by reading their vectors (an exact rank among them). A run
#: whose entity and report hits stand for more (a hub entity of a large index stands for thousands:
#: 5,319 at 100k passages, whose vectors took 1,137 ms to read over HTTP) ranks them among the
#: query's nearest passages instead (:data:`PASSAGES_WHOLE`, :data:`PASSAGES_NEAREST`): the work no
#: longer grows with a hub's degree. Measured at 100k over HTTP (load 6): 256 vectors read 14 ms.
PASSAGES_EXACT = 256
#: An index of at most this many chunks is read whole when a run stands for more than
#: :data:`PASSAGES_EXACT` passages: the query's nearest this many are every chunk, so the order is the
#: exact one (every benchmark index: the workshop's 211 chunks to MuSiQue's 2,111).
PASSAGES_WHOLE = 5_000
#: On a larger index, how many of the query's nearest passages the dense leg reads: the hits' passages
#: among them get a dense rank, the others their keyword rank only (and those neither leg reaches keep
#: their stored order). One read of the same size whatever the hits and the corpus: at 100k over HTTP
#: the nearest 256 took 6-11 ms where the nearest 5,000 took 32-40 (load 3-6), with recall@5 and
#: nDCG@10 no lower than the exact order's on MuSiQue questions (BENCHMARKS.md, "Scale: 2k to 100k passages").
PASSAGES_NEAREST = 256


def order_supporting(
    infos: Mapping[str, ItemInfo], ranks: Mapping[str, int], through: Mapping[str, Collection[str]] | None = None,
) -> dict[str, ItemInfo]:
    """``infos`` with each entity's and report's ``chunk_ids`` sorted by ``ranks`` (1 = best).

    ``through`` (item key -> passages): an item found through a relation record stands for
    that record's passages among its own (:func:`found_through_passages`); when it holds none
    of them, for all its passages.
    Passages without a rank follow the ranked ones in their stored order (a
    stable sort); chunks and items whose passages do not change are the same objects.
    """
    out = dict(infos)
    lead = through or {}
    for key, info in infos.items():
        if info.kind not in SUPPORTED_KINDS or (len(info.chunk_ids) < 2 and key not in lead):
            continue
        record = lead.get(key, ())
        chunk_ids = tuple(c for c in info.chunk_ids if c in record) or info.chunk_ids
        # the ranked ones by rank, then the rest in stored order: a stable sort by rank, sorting only the ranked
        ordered = (*sorted((c for c in chunk_ids if c in ranks), key=ranks.__getitem__),
                   *(c for c in chunk_ids if c not in ranks))
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

    The dense leg ranks at most :data:`PASSAGES_EXACT` passages by their
    vectors; more are ranked among the query's nearest passages: every chunk
    of an index of at most :data:`PASSAGES_WHOLE` (the exact order), the
    nearest :data:`PASSAGES_NEAREST` of a larger one; it runs only when the query was embedded already
    (by a method of the run). A leg that fails (no query vector, an unreachable store) is left
    out; when both fail the ranks are empty and every item keeps its stored order.
    """
    if not passages:
        return {}

    def dense() -> list[tuple[str, float]]:
        query_vector = QueryVector.of(vector).get()
        if vector_store is not None and len(passages) <= PASSAGES_EXACT:
            return vector_store.query("chunks", query_vector, len(passages), None, ids=sorted(passages))
        chunks = max(len(passages), len(graph_store.keyword_index("chunks")))
        whole = chunks <= PASSAGES_WHOLE  # a limit past the collection's size: a store's exact read of it all
        if vector_store is not None:
            found = vector_store.query("chunks", query_vector, PASSAGES_WHOLE if whole else PASSAGES_NEAREST)
        else:
            found = graph_store.similarity_search("chunks", query_vector, chunks if whole else PASSAGES_NEAREST)
        return [(key, score) for key, score in found if key in passages]

    def keyword() -> list[tuple[str, float]]:
        index = graph_store.keyword_index("chunks")
        return index.search(query, len(passages), mask=index.mask_of(passages))

    # the dense leg only when the run has a query vector already: ordering an item's passages never embeds
    # the query of a recipe that ranks without it (GRAPHRAG_GLOBAL's reports by rating)
    pending = isinstance(vector, QueryVector) and vector.pending
    legs: list[tuple[str, Leg]] = [("keyword", keyword)] if pending else [("dense", dense), ("keyword", keyword)]
    outcome = run_legs(legs, owner="the passage order of entity and report hits")
    if outcome.all_failed:
        return {}
    fused = rrf({leg: [key for key, _ in hits] for leg, hits in outcome.found.items()}, k=k)
    # the keys alone, best first: the ledger's items (a record per vote) are built only when read, and a hub's
    # thousands of passages made building them most of this step at 100k passages
    return {key: rank for rank, key in enumerate(fused.keys, 1)}


def found_through_passages(methods: Sequence[MethodTrace], store: SearchableGraphStore) -> dict[str, frozenset[str]]:
    """Item key -> the passages of the relation record it was found through (its hits' ``via``).

    An entity a method found through one of its relation records (a relation its builder
    described, or a typed relation of our rule graph) stands for the passages that relation
    names: the record that matched says which of the entity's passages the question is
    about. The best-ranked hit with a ``via`` decides; the store reads the relation's passages
    (:meth:`relation_passages`), in process and on a graph server alike (its facet nodes carry them).
    """
    best: dict[str, Hit] = {}
    for method in methods:
        for hit in method.hits:
            if hit.via and (hit.key not in best or hit.rank < best[hit.key].rank):
                best[hit.key] = hit
    if not best:
        return {}
    passages = store.relation_passages({hit.via for hit in best.values()})
    return {key: passages[hit.via] for key, hit in best.items() if hit.via in passages}


def rank_supporting(
    query: str,
    vector: np.ndarray | QueryVector,
    infos: Mapping[str, ItemInfo],
    *,
    graph_store: SearchableGraphStore,
    vector_store: VectorStore | None,
    k: float,
    through: Mapping[str, Collection[str]] | None = None,
) -> dict[str, ItemInfo]:
    """``infos`` with every entity's and report's passages ranked for ``query`` (see the module);
    ``through``: the passages of the record each item was found through (:func:`order_supporting`)."""
    passages = frozenset(
        c for info in infos.values() if info.kind in SUPPORTED_KINDS and len(info.chunk_ids) > 1 for c in info.chunk_ids
    )
    ranks = passage_ranks(query, vector, passages, graph_store=graph_store, vector_store=vector_store, k=k)
    return order_supporting(infos, ranks, through)


def capture(
    cap: Capture, store: SearchableGraphStore, vector_store: VectorStore | None, rrf_k: float,
    methods: Sequence[MethodTrace] = (),
) -> None:
    """Rank the passages of every entity and report ``cap`` has seen for its query (the last read of a run);
    an entity ``methods`` found through a relation record stands for that relation's passages."""
    cap.progress.enter("passage order")
    with cap.tracer.span("context.passages"):
        cap.items = rank_supporting(
            cap.query, cap.vector, cap.items, graph_store=store, vector_store=vector_store, k=rrf_k,
            through=found_through_passages(methods, store),
        )
