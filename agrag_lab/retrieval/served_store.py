"""The search engine's store adapter over a graph server: an index whose graph lives in FalkorDB.

:class:`ServedGraphStore` is :class:`~agrag_lab.retrieval.store.IndexSearchStore`
(what :class:`~agrag_lab.retrieval.engine.SearchEngine` and the evidence
functions need) with every graph read answered by
:class:`~agrag_lab.kg.falkordb_store.FalkorDBGraphStore`: entities, relations,
walks, communities and reports come from the server through parameterised
Cypher; documents, chunk texts, keyword indexes and vectors stay where the
index keeps them (the folder, and a Chroma folder or server). The PageRank
walk reads the graph's entity-passage structure from the server once (batched
Cypher) into the same arrays as the in-process walk, so its scores are equal.

The index's own graph file is read only for the store's native similarity
search (an engine built with ``native=True``); an engine with the index's
vector store (the default) never loads it.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

import numpy as np

from agrag_lab.index.build import IndexBuild
from agrag_lab.index.records import CollectionRecords
from agrag_lab.kg.falkordb_store import CHUNK, IN_COMMUNITY, MENTIONS, FalkorDBGraphStore
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.pagerank import PassageGraph
from agrag_lab.kg.store import Direction, GraphScope, GraphWalks
from agrag_lab.retrieval.store import IndexSearchStore
from agrag_lab.storage.vectors import Where

__all__ = ["ServedGraphStore"]


class ServedGraphStore(FalkorDBGraphStore, IndexSearchStore):  # type: ignore[misc]
    """An index's store whose graph reads go to a FalkorDB server (see the module docstring)."""

    _local: IndexSearchStore | None

    @classmethod
    def bind(cls, server: FalkorDBGraphStore, index: IndexBuild) -> ServedGraphStore:
        """``server``'s graph, read for the index ``index`` (its documents, keywords and vectors)."""
        store = cls(server._graph, server.address)
        store._bind(index)
        store._local = None
        return store

    # the networkx store's shortcuts read its in-memory graph: the shared walks read the server
    def _neighbour_ids(self, entity_id: str, scope: GraphScope) -> list[str]:
        return GraphWalks._neighbour_ids(self, entity_id, scope)

    def neighbours(
        self,
        entity_id: str,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        scope: GraphScope | None = None,
    ) -> list[Edge]:
        return FalkorDBGraphStore.neighbours(self, entity_id, relation_types, direction, scope)

    def _passage_graph(self) -> PassageGraph:
        if self._passages is None:
            self._passages = PassageGraph.from_graph(self.walk_graph())
        return self._passages

    def walk_graph(self) -> KnowledgeGraph:
        """The current entities, relations and passages of the server's graph (what the walk's arrays need)."""
        entities = [_walk_entity(d) for (d,) in self._query("MATCH (e:Entity) RETURN e.data")]
        edges = [_walk_edge(d) for (d,) in self._query(
            f"MATCH (:Entity)-[r]->(:Entity) WHERE NOT type(r) IN ['{MENTIONS}', '{IN_COMMUNITY}'] RETURN r.data")]
        chunks = self._query(f"MATCH (c:{CHUNK}) RETURN c.id, c.document, c.current")
        return KnowledgeGraph.create(
            entities, edges, chunk_documents={c: d for c, d, _ in chunks if d},
            current_chunks=[c for c, _, current in chunks if current],
        )

    # the index's own graph, for what only it holds (the records of native similarity search)
    def _local_store(self) -> IndexSearchStore:
        if self._local is None:
            self._local = IndexSearchStore.wrap(self._index.load_graph(), self._index)
        return self._local

    def records(self, collection: str) -> CollectionRecords:
        return self._local_store().records(collection)

    def similarity_search(
        self, collection: str, vector: np.ndarray, limit: int, where: Where | None = None
    ) -> list[tuple[str, float]]:
        return self._local_store().similarity_search(collection, vector, limit, where)


def _walk_entity(data: str) -> Entity:
    d: dict[str, Any] = json.loads(data)
    return Entity(d["id"], d["name"], d["label"], chunk_ids=tuple(d["chunk_ids"]))


def _walk_edge(data: str) -> Edge:
    d: dict[str, Any] = json.loads(data)
    return Edge(d["source"], d["target"], d["type"], tuple(d["chunk_ids"]))

