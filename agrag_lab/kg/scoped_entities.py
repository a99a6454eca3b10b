"""What a scope shows of the entities: a keyword index of in-scope names, aliases and relation sentences,
and vectors made of in-scope passages only.

Entity records hold text from every document (names, aliases, descriptions,
relation sentences), so a mask over the shared entity keyword index cannot
hide a word that only an out-of-scope document contributed (issue 31). A
search restricted to some documents ranks entities by keyword on the index
:func:`build_entity_view` makes from what the scope shows of them, and
nothing else: the evidence session's ``find_entities`` and the engine's
``entity`` method alike (:func:`scoped_entity_keyword`).

The stored entity vectors mix documents the same way (the mean of an entity's
supporting passages in every document, or a description its builder wrote
from all of them). A restricted search ranks entities in its dense leg by
:func:`scoped_entity_dense`: each visible entity's vector is the normalised
mean of its supporting passages *in scope* (the first
:data:`~agrag_lab.index.records.SOURCES_PER_RECORD` whose vectors are stored,
in natural order, read by id from the vector store); no stored entity or
facet vector is read. An unrestricted search keeps the stored vectors.

Examples
--------
>>> display_name(Entity("ent-x", "Charles Babbage", "Person", forms=(("a", "Babbage"),)))
'Babbage'
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from agrag_lab.kg.facets import FACET_MARK
from agrag_lab.kg.graph_store import GraphStore
from agrag_lab.kg.model import Entity
from agrag_lab.kg.scope import GraphScope
from agrag_lab.storage.keyword import KeywordIndex

__all__ = [
    "PASSAGES_PER_VECTOR",
    "RELATIONS_PER_ENTITY",
    "EntityVectors",
    "EntityView",
    "VectorReader",
    "build_entity_vectors",
    "build_entity_view",
    "display_name",
    "nearest",
    "passage_means",
    "scoped_entity_dense",
    "scoped_entity_keyword",
    "scoped_relation_sentences",
]

#: Relation sentences indexed per entity in a restricted session's keyword index.
RELATIONS_PER_ENTITY = 8
#: Scoped entity keyword indexes (and vector sets) kept per graph store (most recently used).
VIEWS_PER_STORE = 16
#: In-scope passages averaged into a scoped entity vector (the rule of the stored records,
#: :data:`agrag_lab.index.records.SOURCES_PER_RECORD`; kg does not import index).
PASSAGES_PER_VECTOR = 16


class VectorReader(Protocol):
    """Where passage vectors are read by id: a vector store, or a graph store's native vectors."""

    def vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of ``ids`` (ids held nowhere left out)."""
        ...


@dataclass(frozen=True)
class EntityVectors:
    """One unit vector per visible entity, made of its in-scope passages only (rows of ``matrix``)."""

    ids: tuple[str, ...]
    matrix: np.ndarray


@dataclass(frozen=True)
class EntityView:
    """What a restricted session may search of the entities.

    ``visible`` are the entity ids the graph scope shows; ``keyword`` indexes
    their in-scope names and aliases (id ``<entity>``) and in-scope typed
    relation sentences (id ``<entity>#r<n>``).
    """

    visible: frozenset[str]
    keyword: KeywordIndex


def scoped_relation_sentences(
    store: GraphStore, entity: Entity, scope: GraphScope, limit: int = RELATIONS_PER_ENTITY
) -> list[str]:
    """``"Ada Lovelace worked with Charles Babbage."`` for the entity's typed relations visible in ``scope``.

    Names are the ones shown in the scope (:func:`display_name`); strongest
    relations first (more supporting passages, then by key).
    """
    out: list[str] = []
    edges = sorted(store.neighbours(entity.id, scope=scope), key=lambda e: (-e.weight, e.key))
    for edge in edges:
        if edge.type == "RELATED_TO":
            continue
        source, target = store.entity(edge.source, scope), store.entity(edge.target, scope)
        if source is None or target is None:
            continue
        verb = edge.type.lower().replace("_", " ")
        out.append(f"{display_name(source)} {verb} {display_name(target)}.")
        if len(out) == limit:
            break
    return out


def build_entity_view(store: GraphStore, scope: GraphScope) -> EntityView:
    """The visible entities of ``scope`` and a keyword index of what the scope shows of them."""
    ids: list[str] = []
    texts: list[str] = []
    visible: set[str] = set()
    for entity in store.entities(scope):
        visible.add(entity.id)
        ids.append(entity.id)
        texts.append(" ".join([display_name(entity), *entity.aliases]))
        for n, sentence in enumerate(scoped_relation_sentences(store, entity, scope)):
            ids.append(f"{entity.id}{FACET_MARK}{n}")
            texts.append(sentence)
    return EntityView(frozenset(visible), KeywordIndex.build(ids, texts))


def display_name(entity: Entity) -> str:
    """The name to show: the canonical name if it was found in scope, else a form found in scope.

    ``entity`` must already be trimmed to the scope (its ``forms`` are).

    Examples
    --------
    >>> display_name(Entity("ent-x", "Charles Babbage", "Person", forms=(("a", "Babbage"),)))
    'Babbage'
    >>> display_name(Entity("ent-x", "Charles Babbage", "Person"))
    'Charles Babbage'
    """
    forms = [f for _, f in entity.forms]
    if not forms or entity.name in forms:
        return entity.name
    return sorted(forms, key=lambda f: (-forms.count(f), -len(f), f))[0]



_ScopeKey = tuple[frozenset[str] | None, frozenset[str] | None, frozenset[str] | None]
_views: weakref.WeakKeyDictionary[GraphStore, OrderedDict[_ScopeKey, EntityView]] = weakref.WeakKeyDictionary()
_views_lock = threading.Lock()


def _frozen(values: Collection[str] | None) -> frozenset[str] | None:
    return None if values is None else frozenset(values)


def scoped_entity_keyword(store: GraphStore, scope: GraphScope) -> KeywordIndex:
    """The keyword index of what ``scope`` shows of the entities (built once per store and scope, kept for reuse)."""
    key = _scope_key(scope)
    with _views_lock:
        kept = _views.setdefault(store, OrderedDict())
        view = kept.get(key)
        if view is not None:
            kept.move_to_end(key)
            return view.keyword
    view = build_entity_view(store, scope)
    with _views_lock:
        kept[key] = view
        while len(kept) > VIEWS_PER_STORE:
            kept.popitem(last=False)
    return view.keyword


def passage_means(groups: Sequence[tuple[str, Sequence[str]]], reader: VectorReader) -> EntityVectors:
    """Each ``(key, passage ids)`` as the normalised mean of its first :data:`PASSAGES_PER_VECTOR` passages
    whose vectors ``reader`` holds (a key with none is left out)."""
    wanted = list(dict.fromkeys(c for _, chunks in groups for c in chunks))
    found = reader.vectors("chunks", wanted) if wanted else {}
    ids: list[str] = []
    rows: list[np.ndarray] = []
    for key, chunks in groups:
        vectors = [found[c] for c in chunks if c in found][:PASSAGES_PER_VECTOR]
        if not vectors:
            continue
        mean = np.mean(np.asarray(vectors, dtype=np.float32), axis=0)
        ids.append(key)
        rows.append(mean / max(float(np.linalg.norm(mean)), 1e-12))
    width = len(rows[0]) if rows else 0
    return EntityVectors(tuple(ids), np.asarray(rows, dtype=np.float32).reshape(len(rows), width))


def nearest(found: EntityVectors, vector: np.ndarray, limit: int, allowed: frozenset[str] | None = None
            ) -> list[tuple[str, float]]:
    """The ``limit`` rows of ``found`` nearest ``vector`` as ``(key, cosine)``, rounded to 5 decimals, ties by key."""
    if limit <= 0 or not found.ids:
        return []
    scores = found.matrix @ np.asarray(vector, dtype=np.float32)
    pairs = [(i, round(float(s), 5)) for i, s in zip(found.ids, scores, strict=True) if allowed is None or i in allowed]
    pairs.sort(key=lambda p: (-p[1], p[0]))
    return pairs[:limit]


def build_entity_vectors(store: GraphStore, scope: GraphScope, reader: VectorReader) -> EntityVectors:
    """Each entity ``scope`` shows, as the normalised mean of its first :data:`PASSAGES_PER_VECTOR`
    in-scope passages whose vectors ``reader`` holds (an entity with none is left out).

    Examples
    --------
    >>> from agrag_lab.kg.model import KnowledgeGraph
    >>> from agrag_lab.graph_stores.networkx import NetworkXGraphStore
    >>> graph = KnowledgeGraph.create([Entity("ent-ada", "Ada", "Person", chunk_ids=("a#c0", "b#c0"))], [],
    ...                               chunk_documents={"a#c0": "a", "b#c0": "b"}, current_chunks=["a#c0", "b#c0"])
    >>> class Passages:  # passage vectors by id
    ...     table = {"a#c0": np.array([1.0, 0.0]), "b#c0": np.array([0.0, 1.0])}
    ...     def vectors(self, collection, ids):
    ...         return {i: self.table[i] for i in ids}
    >>> build_entity_vectors(NetworkXGraphStore(graph), GraphScope(document_ids={"a"}), Passages()).matrix
    array([[1., 0.]], dtype=float32)
    >>> store = NetworkXGraphStore(graph)
    >>> scoped_entity_dense(store, GraphScope(document_ids={"a", "b"}), Passages(), np.array([1.0, 0.0]), 5)
    [('ent-ada', 0.70711)]
    """
    return passage_means([(e.id, e.chunk_ids) for e in store.entities(scope)], reader)


_vectors: weakref.WeakKeyDictionary[GraphStore, OrderedDict[_ScopeKey, tuple[VectorReader, EntityVectors]]] = (
    weakref.WeakKeyDictionary()
)


def _scope_key(scope: GraphScope) -> _ScopeKey:
    return (_frozen(scope.document_ids), _frozen(scope.labels), _frozen(scope.relation_types))


def scoped_entity_dense(
    store: GraphStore, scope: GraphScope, reader: VectorReader, vector: np.ndarray, limit: int,
    allowed: frozenset[str] | None = None,
) -> list[tuple[str, float]]:
    """The ``limit`` visible entities nearest ``vector`` by their in-scope vectors, as ``(entity id, cosine)``.

    Scores are rounded to 5 decimals, ties broken by id (the vector stores' rule);
    ``allowed`` keeps only these entities (e.g. the labels a search asks for).
    The vectors of a store and scope are built once (:func:`build_entity_vectors`)
    and kept for reuse with the same reader.
    """
    if limit <= 0:
        return []
    key = _scope_key(scope)
    with _views_lock:
        kept = _vectors.setdefault(store, OrderedDict())
        entry = kept.get(key)
        if entry is not None and entry[0] is reader:
            kept.move_to_end(key)
    if entry is None or entry[0] is not reader:
        entry = (reader, build_entity_vectors(store, scope, reader))
        with _views_lock:
            kept[key] = entry
            while len(kept) > VIEWS_PER_STORE:
                kept.popitem(last=False)
    return nearest(entry[1], vector, limit, allowed)
