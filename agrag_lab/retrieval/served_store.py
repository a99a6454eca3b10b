"""The search engine's store adapter over a graph server: an index whose graph lives in FalkorDB.

:class:`ServedGraphStore` is an :class:`~agrag_lab.retrieval.store.IndexSearchStore`
(what :class:`~agrag_lab.retrieval.engine.SearchEngine` and the evidence
functions need) that holds a
:class:`~agrag_lab.graph_stores.falkordb.store.FalkorDBGraphStore`, so every graph read is answered by the server: entities, relations,
walks, communities and reports come from the server through parameterised
Cypher; documents, chunk texts and keyword indexes stay in the index folder.
The PageRank walk reads the graph's entity-passage structure from the server
once (batched Cypher: ids, chunk ids and relation ends only) straight into the
same arrays as the in-process walk (no graph is built in the client), so its
scores are equal.

Vectors: an engine with the index's vector store (Chroma, in the folder or a
server) searches there; an engine without one (``Graph.engine(native=True)``,
or a server connected with ``vectors=True``) searches the server's own vector
indexes (:meth:`similarity_search`), one per entity label, with the filters
run in the server. The index's own graph file is never loaded.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
from agrag_lab.index.reading import IndexReader
from agrag_lab.kg.algorithms.pagerank import PassageGraph
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.graph_store import Direction, RelationSource
from agrag_lab.kg.model import Edge, Entity
from agrag_lab.kg.scope import GraphScope
from agrag_lab.kg.text import names_in
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.store import IndexSearchStore, shown_names
from agrag_lab.retrieval.trace import ItemInfo
from agrag_lab.storage.vectors import Where

__all__ = ["ServedGraphStore", "where_conditions"]

#: Entities an entity's display reads per round trip (the relation phrases name up to eight).
ENDS_BATCH = 16


class ServedGraphStore(IndexSearchStore):
    """An index's search store holding a FalkorDB server's store: every graph read goes to the server.

    It has not the :data:`~agrag_lab.kg.graph_store.WHOLE_GRAPH` capability (the graph
    stays in the server). What the in-process store reads from its graph, this one reads
    in batches: an entity's display, memberships, the entities a text names, and the
    walk's arrays (see the module docstring).

    Parameters
    ----------
    backend : FalkorDBGraphStore
        The server's graph (kept as given: :meth:`bind` gives a fresh one).
    index : IndexReader
        The index folder (documents, keyword indexes, cached vectors).
    """

    backend: FalkorDBGraphStore

    def __init__(self, backend: FalkorDBGraphStore, index: IndexReader) -> None:
        super().__init__(backend, index)

    @classmethod
    def bind(cls, server: FalkorDBGraphStore, index: IndexReader) -> ServedGraphStore:
        """``server``'s graph, read anew (nothing cached) for the index ``index`` (its documents, keywords and vectors)."""
        return cls(server.fresh(), index)

    @property
    def relation_types(self) -> tuple[str, ...]:
        """The relationship types of the served graph's relations (as the server recorded them at its push)."""
        return self.backend.relation_types

    def relation_passages(self, record_ids: Collection[str]) -> dict[str, frozenset[str]]:
        return self.backend.relation_passages(record_ids)

    def memberships(self, entity_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Each entity's most specific (leaf) communities, read in one query."""
        return self.backend.memberships(entity_ids)

    def members_of(self, community_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The members of each community, read in one query."""
        return self.backend.members_of(community_ids)

    def named_entities(
        self, text: str, entity_ids: Sequence[str], filters: SearchFilters | None = None
    ) -> frozenset[str]:
        """The entities among ``entity_ids`` that ``text`` names, read in one query (see the in-process store)."""
        found = self.backend.entities_by_id(entity_ids, self._document_scope(filters))
        return frozenset(e.id for e in found.values() if any(names_in(text, n) for n in shown_names(e, filters)))

    def _relations_reader(self, entity_id: str, scope: GraphScope | None) -> RelationSource:
        """The entity's relations and their ends read in batches (``entity_id`` is visible to ``scope``)."""
        relations = self.backend.neighbourhoods([entity_id], "both", scope).get(entity_id, [])
        return _RelationReader(self.backend, entity_id, scope, relations, {})

    def item_infos(self, keys: Sequence[str], filters: SearchFilters | None = None) -> dict[str, ItemInfo]:
        """:meth:`item_info` of each of ``keys`` that ``filters`` let be seen, in ``keys`` order.

        The displays of the entities among them not yet cached are read together: the entities
        (one query), all their relations (one), and the first :data:`ENDS_BATCH` ends of each
        entity's relations, strongest first (one); an entity whose phrases need more ends reads
        the next batch of its own. The other keys are read one by one (chunks from the index
        folder, reports by id). What they return is :meth:`item_info`'s.
        """
        scope = self._document_scope(filters)
        wanted = list(dict.fromkeys(keys))
        unread = [k for k in wanted if k.startswith("ent-") and (scope is not None or k not in self._infos)]
        read = self._entity_displays(unread, scope) if len(unread) > 1 else {}
        if scope is None:
            for key, info in read.items():
                self._keep_info(key, info)
        found = {key: read[key] if key in read else self.item_info(key, filters) for key in wanted}
        return {key: info for key, info in found.items() if info is not None}

    def _entity_displays(self, keys: Sequence[str], scope: GraphScope | None) -> dict[str, ItemInfo | None]:
        """The display of each entity of ``keys`` as ``scope`` shows it (None: not shown), in three queries."""
        server = self.backend
        entities = server.entities_by_id(keys, scope)
        relations = server.neighbourhoods(list(entities), "both", scope) if entities else {}
        known: dict[str, Entity | None] = {}
        readers = {k: _RelationReader(server, k, scope, relations.get(k, []), known) for k in entities}
        first = list(dict.fromkeys(end for reader in readers.values() for end in reader.first_ends()))
        found = server.entities_by_id(first)
        known.update({k: found.get(k) for k in first})
        return {key: self._with_builder_id(self._entity_item(entities[key], readers[key], scope))
                if key in entities else None for key in keys}

    def _passage_graph(self) -> PassageGraph:
        """The walk's arrays, read from the server once (ids, chunk ids and relation ends only; no graph built)."""
        if self._passages is None:
            self._passages = self.backend.passage_graph()
        return self._passages

    def vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The server's vectors when it holds them (``vectors=True``), else the index's cached ones."""
        if self.backend.serves_vectors:
            return self.backend.vectors(collection, ids)
        return super().vectors(collection, ids)

    def similarity_search(
        self, collection: str, vector: np.ndarray, limit: int, where: Where | None = None
    ) -> list[tuple[str, float]]:
        """The server's native vector search (one index per entity label, one for chunks and reports).

        ``where`` (the filters compiled for a vector store: ``label``,
        ``item_id``, ``document_id``, ``p_<property>``) becomes the index
        choice and server-side filters of
        :meth:`~agrag_lab.graph_stores.falkordb.store.FalkorDBGraphStore.vector_search`.
        """
        conditions = where_conditions(where)
        labels = conditions.pop("label", None)
        ids = conditions.pop("item_id", None)
        documents = conditions.pop("document_id", None)
        properties = {k[2:]: v for k, v in conditions.items() if k.startswith("p_")}
        if len(properties) != len(conditions):
            raise KnowledgeGraphError(
                f"the graph server's vector search cannot filter on {sorted(set(conditions) - set(properties))}: "
                "filter on labels, documents or document properties")
        if properties:
            matching = {d for d, p in self.document_properties().items()
                        if all(p.get(k) in v for k, v in properties.items())}
            documents = matching if documents is None else documents & matching
        return self.backend.vector_search(collection, vector, limit, labels=labels, ids=ids, documents=documents)


class _RelationReader:
    """One entity's relations and the entities at their other ends, read in batches (an entity's display).

    :func:`~agrag_lab.kg.records.relation_phrases` asks for the entity's
    relations, then for the entity at the other end of each, strongest first,
    until it has its phrases: one round trip each through the plain store.
    Here the relations are read once and each miss reads the next
    :data:`ENDS_BATCH` unread ends in that order with it, so a display takes
    a few queries; what they return is the plain store's. It holds the store
    and reads through it: a :class:`~agrag_lab.kg.records.RelationSource`, not a store.
    """

    def __init__(
        self, store: FalkorDBGraphStore, entity_id: str, scope: GraphScope | None, relations: Sequence[Edge],
        known: dict[str, Entity | None],
    ) -> None:
        self._store = store
        self._id, self._scope = entity_id, scope
        # the entity is visible to ``scope`` (its display read it): ``relations`` are its relations there
        self._relations = list(relations)
        strongest = sorted(self._relations, key=lambda e: (e.type == "RELATED_TO", -e.weight, e.key))
        self._order = list(dict.fromkeys([entity_id, *(e.other(entity_id) for e in strongest)]))
        self._position = {key: n for n, key in enumerate(self._order)}
        # unscoped entities read so far (shared by the readers of one batch of displays)
        self._known = known

    def first_ends(self) -> list[str]:
        """The entity and the first ends of its relations, strongest first: what its display reads first."""
        return self._order[:ENDS_BATCH]

    def neighbours(
        self,
        entity_id: str,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        scope: GraphScope | None = None,
    ) -> list[Edge]:
        if (entity_id, relation_types, direction, scope) == (self._id, None, "both", self._scope):
            return list(self._relations)
        return self._store.neighbours(entity_id, relation_types, direction, scope)

    def entity(self, entity_id: str, scope: GraphScope | None = None) -> Entity | None:
        if scope is not None or entity_id not in self._position:
            return self._store.entity(entity_id, scope)
        if entity_id not in self._known:
            start = self._position[entity_id]
            batch = [k for k in self._order[start : start + ENDS_BATCH] if k not in self._known]
            found = self._store.entities_by_id(batch)
            self._known.update({k: found.get(k) for k in batch})
        return self._known[entity_id]


def where_conditions(where: Where | None) -> dict[str, set[Any]]:
    """A vector-store ``where`` (``$and`` of ``$eq`` / ``$in``) as ``{key: allowed values}``.

    Examples
    --------
    >>> found = where_conditions({"$and": [{"document_id": {"$in": ["a", "b"]}}, {"p_year": {"$eq": 1843}}]})
    >>> {key: sorted(values) for key, values in found.items()}
    {'document_id': ['a', 'b'], 'p_year': [1843]}
    >>> where_conditions(None)
    {}
    """
    if not where:
        return {}
    parts = where.get("$and", [where])
    out: dict[str, set[Any]] = {}
    for part in parts:
        ((key, test),) = part.items()
        ((op, value),) = test.items()
        if op not in ("$eq", "$in"):
            raise KnowledgeGraphError(f"the graph server's vector search cannot filter with {op}: use $eq or $in")
        allowed = set(value) if op == "$in" else {value}
        out[key] = out[key] & allowed if key in out else allowed
    return out
