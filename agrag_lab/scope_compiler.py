"""The one home where a search scope is compiled to every store's own filter.

The evidence layer resolves a user's :class:`~agrag_lab.evidence.scope.Scope`
once into document ids; the engine takes them (and labels, properties and
relation types) as :class:`~agrag_lab.retrieval.filters.SearchFilters`. This
module turns such filters, read through the narrow :class:`Filters`
protocol, into:

* a Chroma ``where`` (:func:`chunk_where`, :func:`item_where`, :func:`id_where`;
  the native in-memory index evaluates the same ``where``);
* a keyword predicate and the bm25s weight mask over a keyword index
  (:func:`chunk_predicate`, :func:`item_predicate`, :func:`keyword_mask`);
* a :class:`~agrag_lab.kg.scope.GraphScope` (:func:`graph_scope`), and
* the parameters of the FalkorDB store's generated Cypher (:func:`cypher_params`),

so that each restricts *before* a limit is applied. It lives below
``retrieval/`` because the graph stores use it too.

Examples
--------
>>> from agrag_lab.retrieval.filters import SearchFilters
>>> f = SearchFilters(document_ids={"ada"}, properties={"era": "victorian"})
>>> chunk_where(f)
{'$and': [{'document_id': {'$in': ['ada']}}, {'p_era': {'$eq': 'victorian'}}]}
>>> graph_scope(f, {"ada": {"era": "victorian"}, "bab": {"era": "victorian"}}).document_ids
frozenset({'ada'})
>>> cypher_params(graph_scope(f, {}))
{'docs': [], 'labels': None, 'types': None}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import numpy as np

from agrag_lab.kg.facets import facet_owner
from agrag_lab.kg.scope import GraphScope
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.where import Where, where_clause

__all__ = [
    "NO_ITEM",
    "Filters",
    "VisibilityStore",
    "chunk_predicate",
    "chunk_where",
    "compile_filters",
    "cypher_params",
    "graph_scope",
    "id_where",
    "item_predicate",
    "item_where",
    "keyword_mask",
]

#: An ``item_id`` no record has: an empty allowlist compiles to a ``where`` that matches nothing.
NO_ITEM = "\x00none"

Predicate = Callable[[str], bool]


class Filters(Protocol):
    """What a scope compiles from (:class:`~agrag_lab.retrieval.filters.SearchFilters` has it)."""

    @property
    def labels(self) -> frozenset[str] | None: ...

    @property
    def document_ids(self) -> frozenset[str] | None: ...

    @property
    def properties(self) -> Mapping[str, Any]: ...

    @property
    def relation_types(self) -> frozenset[str] | None: ...

    @property
    def restricts_documents(self) -> bool: ...


class VisibilityStore(Protocol):
    """What compiling a scope reads of a graph store: document metadata, and the items a scope shows."""

    def document_properties(self) -> Mapping[str, Mapping[str, Any]]: ...

    def visible_items(self, collection: str, filters: Any) -> frozenset[str] | None: ...


def _chunk_conditions(filters: Filters) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if filters.document_ids is not None:
        out["document_id"] = sorted(filters.document_ids)
    for key, value in filters.properties.items():
        out[f"p_{key}"] = value
    return out


def chunk_where(filters: Filters | None) -> Where | None:
    """The Chroma ``where`` of chunks (``document_id`` and ``p_<property>`` metadata); None lets all through."""
    return None if filters is None else where_clause(_chunk_conditions(filters))


def _document_of(chunk_id: str) -> str:
    return chunk_id.split("@", 1)[0]


def chunk_predicate(
    filters: Filters | None, properties: Mapping[str, Mapping[str, Any]] | None = None
) -> Predicate | None:
    """Whether a chunk id passes ``filters`` (its document, its document's metadata); None lets all through.

    ``properties`` maps each document to its metadata; it is read only when
    the filters name properties.

    Examples
    --------
    >>> from agrag_lab.retrieval.filters import SearchFilters
    >>> ok = chunk_predicate(SearchFilters(document_ids={"ada"}))
    >>> ok("ada@3f9a1c2b0d4e#c1"), ok("bab@3f9a1c2b0d4e#c1")
    (True, False)
    """
    if filters is None or not filters.restricts_documents:
        return None
    docs = filters.document_ids
    wanted = dict(filters.properties)
    props = properties if properties is not None else {}

    def chunk_ok(key: str) -> bool:
        doc = _document_of(key)
        if docs is not None and doc not in docs:
            return False
        p = props.get(doc, {})
        return all(p.get(k) == v for k, v in wanted.items())

    return chunk_ok


def item_where(labels: frozenset[str] | None, visible: frozenset[str] | None) -> Where | None:
    """The Chroma ``where`` of entity or report records: their label, and their owner in ``visible``."""
    conditions: dict[str, Any] = {}
    if labels is not None:
        conditions["label"] = sorted(labels)
    if visible is not None:
        conditions["item_id"] = sorted(visible) or [NO_ITEM]
    return where_clause(conditions)


def item_predicate(visible: frozenset[str] | None) -> Predicate:
    """Whether a record (an entity, one of its relation facets, or a report) belongs to a visible item."""
    shown = visible if visible is not None else frozenset()
    return lambda key: facet_owner(key) in shown


def id_where(key: str, allowed: frozenset[str] | None) -> Where | None:
    """The Chroma ``where`` of records whose ``key`` metadata is in ``allowed`` (None: no filter).

    Examples
    --------
    >>> id_where("item_id", frozenset({"ent-b", "ent-a"}))
    {'item_id': {'$in': ['ent-a', 'ent-b']}}
    """
    return None if allowed is None else {key: {"$in": sorted(allowed)}}


def keyword_mask(index: KeywordIndex, allowed: Predicate) -> np.ndarray:
    """The bm25s weight mask of the rows of ``index`` that ``allowed`` lets through."""
    return index.mask(allowed)


def compile_filters(collection: str, filters: Filters, store: VisibilityStore) -> tuple[Where | None, Predicate | None]:
    """A Chroma ``where`` and a keyword predicate for ``filters`` on ``collection``.

    Chunks carry ``document_id`` and ``p_<property>`` metadata. Entities and
    community reports are visible through their supporting chunks, which the
    graph store resolves to an id allowlist (``item_id`` metadata).
    """
    if collection == "chunks":
        if not _chunk_conditions(filters):
            return None, None
        props = store.document_properties() if filters.properties else {}
        return chunk_where(filters), chunk_predicate(filters, props)
    labels = filters.labels if collection == "entities" else None
    if labels is None and not filters.restricts_documents:
        return None, None
    allowed = store.visible_items(collection, filters)
    return item_where(labels, allowed), item_predicate(allowed)


def graph_scope(filters: Filters | None, properties: Mapping[str, Mapping[str, Any]]) -> GraphScope:
    """The graph scope of ``filters``: property filters resolved to the documents whose metadata matches."""
    if filters is None:
        return GraphScope()
    docs = filters.document_ids
    if filters.properties:
        matching = frozenset(
            d for d, p in properties.items() if all(p.get(k) == v for k, v in filters.properties.items())
        )
        docs = matching if docs is None else docs & matching
    return GraphScope(document_ids=docs, relation_types=filters.relation_types)


def cypher_params(scope: GraphScope) -> dict[str, Any]:
    """The parameters the FalkorDB store's generated Cypher reads a scope from (``$docs``, ``$labels``, ``$types``)."""
    return {
        "docs": None if scope.document_ids is None else sorted(scope.document_ids),
        "labels": None if scope.labels is None else sorted(scope.labels),
        "types": None if scope.relation_types is None else sorted(scope.relation_types),
    }
