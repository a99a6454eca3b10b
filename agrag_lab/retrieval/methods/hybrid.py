"""Methods ``entity``, ``chunk``, ``community``, ``passage`` and ``keyword``: a hybrid search over one collection.

Each is a hybrid search over one collection: a dense leg (the vector store's
``query`` when one is configured, otherwise the graph store's native
similarity search) and a keyword leg (bm25s), fused by RRF. Both legs are
kept for the ledger. Filters are compiled into a ``where`` for the dense leg
and a weight mask for the keyword leg, so they restrict inside the queries.

Every method follows the spec's rule: with a positive limit it returns an
empty list only when the search ran and found nothing, and it raises on any
failure it cannot recover from. A hybrid method recovers from one failed leg:
when the query could not be embedded, or the vector store is unreachable, the
dense leg fails and the keyword leg still answers; the result names the failed
leg and why (:attr:`MethodResult.failed_legs`), and the engine marks the run
``partial``. When every leg fails the method raises
:class:`~agrag_lab.errors.RetrievalMethodError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agrag_lab.errors import RetrievalMethodError
from agrag_lab.kg.facets import best_per_owner, found_through
from agrag_lab.kg.graph_store import Capability
from agrag_lab.kg.scoped_entities import scoped_entity_keyword
from agrag_lab.retrieval.legs import Leg, run_legs
from agrag_lab.retrieval.methods.dense import FACETS_PER_ITEM, dense_search, entity_dense_search
from agrag_lab.retrieval.methods.protocol import MethodRequest, MethodResult
from agrag_lab.retrieval.trace import Hit
from agrag_lab.scope_compiler import compile_filters, graph_scope

__all__ = ["HybridMethod"]


def _hits(pairs: Sequence[tuple[str, float]], via: Mapping[str, str] | None = None) -> tuple[Hit, ...]:
    through = via or {}
    return tuple(Hit(key, float(score), rank, through.get(key, "")) for rank, (key, score) in enumerate(pairs, 1))


def _via(legs: Mapping[str, Sequence[Hit]]) -> dict[str, str]:
    """The record each fused item was found through: its record in the leg that ranked it best
    (the first leg on a tie); ``""`` (left out) when that leg found it through its own record."""
    best: dict[str, Hit] = {}
    for hits in legs.values():
        for hit in hits:
            if hit.key not in best or hit.rank < best[hit.key].rank:
                best[hit.key] = hit
    return {key: hit.via for key, hit in best.items() if hit.via}


class HybridMethod:
    """A hybrid (dense + bm25s) search over one collection (or one of its two legs alone)."""

    #: Capabilities it requires of the store beyond :class:`SearchableGraphStore`: none.
    requires: frozenset[Capability] = frozenset()

    def __init__(self, name: str, collection: str, *, keyword: bool = True, dense: bool = True) -> None:
        self.name = name
        self.collection = collection
        #: False: the dense leg alone (the nearest records), no keyword leg and no fusion.
        self.keyword = keyword
        #: False: the keyword leg alone (bm25s), no dense leg and no fusion.
        self.dense = dense

    def search(self, request: MethodRequest) -> MethodResult:
        """Run the legs for up to ``limit`` candidates each and fuse them.

        A leg that fails is left out and named in ``failed_legs``; the other
        leg answers alone.

        Raises
        ------
        RetrievalMethodError
            Every leg failed; ``causes`` holds each leg's exception.
        """
        query, vector, limit = request.query, request.vector, request.limit
        filters, graph_store, vector_store, k = request.filters, request.graph_store, request.vector_store, request.k
        where, allowed = compile_filters(self.collection, filters, graph_store)
        want = limit * FACETS_PER_ITEM if self.collection == "entities" else limit
        entities = self.collection == "entities"
        through: dict[str, dict[str, str]] = {}  # leg -> entity -> the relation record it was found through

        def collapsed(leg: str, found: list[tuple[str, float]]) -> list[tuple[str, float]]:
            through[leg] = found_through(found)
            return best_per_owner(found)[:limit]

        def dense() -> list[tuple[str, float]]:
            if entities:
                return collapsed("dense", entity_dense_search(vector, want, where, filters, graph_store, vector_store))
            return dense_search(self.collection, vector, want, where, graph_store, vector_store)

        def keyword() -> list[tuple[str, float]]:
            index = graph_store.keyword_index(self.collection)
            if entities and filters.restricts_documents:  # entity records hold text of every document (issue 31)
                index = scoped_entity_keyword(graph_store, graph_scope(filters, graph_store.document_properties()))
            # scoped: BM25's statistics over what the scope shows, so no score counts a document outside it
            found = index.search(query, want, allowed=allowed, scoped=filters.restricts_documents)
            return collapsed("keyword", found) if entities else found

        runs: list[tuple[str, Leg]] = []
        if self.dense:
            runs.append(("dense", dense))
        if self.keyword:
            runs.append(("keyword", keyword))
        outcome = run_legs(runs, owner=f"the {self.name} method")
        if outcome.all_failed:
            raise RetrievalMethodError(self.name, dict(outcome.errors))
        legs = {leg: _hits(found, through.get(leg, {})) for leg, found in outcome.found.items()}
        if len(legs) == 1:
            (only,) = legs.values()
            return MethodResult(only[:limit], legs, outcome.failed)
        fused = outcome.fused(k)
        via = _via(legs)
        # from the fused keys and scores: building the ledger's items (a record per vote) for every candidate
        # only to keep the first ``limit`` grew with the candidates
        best = zip(fused.keys[:limit], fused.fused_scores[:limit], strict=True)
        hits = tuple(Hit(key, score, rank, via.get(key, "")) for rank, (key, score) in enumerate(best, 1))
        return MethodResult(hits, legs, outcome.failed)
