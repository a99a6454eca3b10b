"""The dense legs the methods share: the nearest records of a collection, and of the entities under a scope."""

from __future__ import annotations

import numpy as np

from agrag_lab.kg.scoped_entities import VectorReader, scoped_entity_dense
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.methods.protocol import QueryVector, SearchableGraphStore
from agrag_lab.scope_compiler import graph_scope
from agrag_lab.storage.vectors import VectorStore, Where

__all__ = ["FACETS_PER_ITEM", "dense_search", "entity_dense_search"]

#: Entity records per entity (the entity and its relation facets) a dense query may
#: return before they are collapsed to one hit per entity.
FACETS_PER_ITEM = 4


def dense_search(
    collection: str,
    vector: np.ndarray | QueryVector,
    limit: int,
    where: Where | None,
    graph_store: SearchableGraphStore,
    vector_store: VectorStore | None,
) -> list[tuple[str, float]]:
    """Nearest records of ``collection``: in the vector store when one is given, else natively.

    Raises
    ------
    EmbedderError
        ``vector`` is a :class:`QueryVector` that could not be made.
    """
    query_vector = QueryVector.of(vector).get()
    if vector_store is not None:
        return vector_store.query(collection, query_vector, limit, where)
    return graph_store.similarity_search(collection, query_vector, limit, where)


def entity_dense_search(
    vector: np.ndarray | QueryVector,
    limit: int,
    where: Where | None,
    filters: SearchFilters,
    graph_store: SearchableGraphStore,
    vector_store: VectorStore | None,
) -> list[tuple[str, float]]:
    """The dense leg over entities: the stored records, or under a document scope the scope's own vectors.

    Stored entity vectors average passages of every document, so a search
    restricted to some documents ranks the entities it can see by vectors made
    of their in-scope passages only (:func:`~agrag_lab.kg.scoped_entities.scoped_entity_dense`,
    passages read by id from ``vector_store``, else from the graph store's own vectors):
    no out-of-scope text moves a scoped ranking (issue 31). Unscoped, this is
    :func:`dense_search` of the ``entities`` collection, records and facets.

    Raises
    ------
    EmbedderError
        ``vector`` is a :class:`QueryVector` that could not be made.
    """
    if not filters.restricts_documents:
        return dense_search("entities", vector, limit, where, graph_store, vector_store)
    query_vector = QueryVector.of(vector).get()
    scope = graph_scope(filters, graph_store.document_properties())
    allowed = graph_store.visible_items("entities", filters) if filters.labels is not None else None
    reader: VectorReader = vector_store if vector_store is not None else graph_store
    return scoped_entity_dense(graph_store, scope, reader, query_vector, limit, allowed)
