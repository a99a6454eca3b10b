"""The search store of an index: a graph store and the index folder it belongs to, answering every search leg.

:class:`IndexSearchStore` *holds* a :class:`~agrag_lab.kg.graph_store.GraphStore`
(the in-process :class:`~agrag_lab.graph_stores.networkx.NetworkXGraphStore`, or a FalkorDB
server's store: :class:`~agrag_lab.retrieval.served_store.ServedGraphStore`) and an
:class:`~agrag_lab.index.reading.IndexReader` (the opened index folder), and adds
what :class:`~agrag_lab.retrieval.engine.SearchEngine` needs: keyword search (the
bm25s indexes), native vector search (the cached embeddings), item info, the index
stamps, search filters compiled to graph scopes, and walk and distance facts. Every
graph read goes to the held store; the store is a :class:`GraphStore` itself (each
read passed on), so the evidence functions and the views read it as one.

Whole-graph access is a declared capability (:attr:`IndexSearchStore.capabilities`,
:data:`~agrag_lab.kg.graph_store.WHOLE_GRAPH`): :meth:`IndexSearchStore.whole_graph`
gives the in-process graph, or raises :class:`~agrag_lab.errors.MissingCapabilityError`
naming the fix. It writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np

from agrag_lab import scope_compiler
from agrag_lab.documents import Chunk
from agrag_lab.errors import EvidenceIdError
from agrag_lab.ids import EvidenceId
from agrag_lab.importing.aliases import ALIASES_META, Aliases, load_aliases
from agrag_lab.index.reading import IndexReader, IndexStamp
from agrag_lab.index.records import CollectionRecords, relation_facets_of
from agrag_lab.kg.algorithms.pagerank import PassageGraph, WalkMethod, WalkScores, WalkSteps
from agrag_lab.kg.communities import Community
from agrag_lab.kg.graph_store import (
    WHOLE_GRAPH,
    Capability,
    CommunityOverlap,
    Direction,
    GraphStore,
    RelationSource,
    WalkStep,
    WholeGraph,
)
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.paths import PathStep, Reach
from agrag_lab.kg.records import entity_text, relation_phrases
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.kg.scope import GraphScope
from agrag_lab.kg.text import names_in
from agrag_lab.retrieval.capabilities import missing
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.trace import ItemInfo
from agrag_lab.storage.documents_db import DocumentDB
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.vectors import InMemoryVectorIndex, Where

__all__ = ["IndexSearchStore", "chunk_info", "shown_names"]

K = TypeVar("K")
V = TypeVar("V")
#: Unscoped item display infos a store keeps (a store lives until the next sync).
ITEM_INFOS_CACHED = 100_000
#: Walk step matrices a store keeps (one per relation types, direction and document scope).
WALK_STEPS_CACHED = 16


def chunk_info(db: DocumentDB, key: str) -> ItemInfo | None:
    """Display info of a chunk id (any version) stored in ``db``, or None."""
    try:
        eid = EvidenceId.parse(key)
    except EvidenceIdError:
        return None
    if eid.chunk is None:
        return None
    chunk = db.chunk(eid.document_id, eid.version, eid.chunk)
    if chunk is None:
        return None
    record = db.version(eid.document_id, eid.version)
    title = record.title if record else eid.document_id
    return ItemInfo(key, "chunk", title, chunk.text, chunk.document_id, chunk.heading_path)


def shown_names(entity: Entity | None, filters: SearchFilters | None) -> tuple[str, ...]:
    """An entity's name and aliases, () when it is hidden or ``filters`` leave its label out."""
    if entity is None or (filters is not None and filters.labels is not None and entity.label not in filters.labels):
        return ()
    return (entity.name, *entity.aliases)


def _bounded(cache: dict[K, V], key: K, size: int, compute: Callable[[], V]) -> V:
    """``cache[key]``, computed on a miss; the oldest entry goes when ``size`` are held."""
    if key not in cache:
        if len(cache) >= size:
            cache.pop(next(iter(cache)))
        cache[key] = compute()
    return cache[key]


class IndexSearchStore:
    """The search store of one index folder: a graph store it holds, and keyword, vector and item reads.

    Parameters
    ----------
    backend : GraphStore
        The graph every graph read goes to (``backend``, kept as given).
    index : IndexReader
        The opened index folder: documents, keyword indexes, records and their vectors, stamps.
    """

    _native: dict[str, InMemoryVectorIndex]
    _doc_props: dict[str, dict[str, Any]] | None
    _passages: PassageGraph | None
    _walk_steps: dict[tuple[tuple[str, ...] | None, str, frozenset[str] | None], WalkSteps]
    _infos: dict[str, ItemInfo | None]
    _aliases: Aliases | None

    def __init__(self, backend: GraphStore, index: IndexReader) -> None:
        self.backend = backend
        self._index = index
        self._whole: WholeGraph | None = backend if isinstance(backend, WholeGraph) else None
        self._native = {}
        self._doc_props = None
        self._passages = None
        self._walk_steps = {}
        self._infos = {}
        self._aliases = None

    # -- capabilities -------------------------------------------------------------
    @property
    def capabilities(self) -> frozenset[Capability]:
        """What this store offers beyond the :class:`GraphStore` protocol (see :mod:`agrag_lab.retrieval.capabilities`)."""
        return frozenset({WHOLE_GRAPH}) if self._whole is not None else frozenset()

    def whole_graph(self, wanted_by: str = "this read") -> WholeGraph:
        """The held store as a :class:`~agrag_lab.kg.graph_store.WholeGraph` (the graph in this process).

        Raises
        ------
        MissingCapabilityError
            The graph is served (it stays in the server); ``wanted_by`` names who asked.
        """
        if self._whole is None:
            raise missing(wanted_by, WHOLE_GRAPH, type(self).__name__)
        return self._whole

    @property
    def graph(self) -> KnowledgeGraph:
        """The whole knowledge graph (:meth:`whole_graph`; a served store raises ``MissingCapabilityError``)."""
        return self.whole_graph("reading the whole graph").graph

    # -- the GraphStore protocol, each read passed to the held store ---------------------
    def entity(self, entity_id: str, scope: GraphScope | None = None) -> Entity | None:
        return self.backend.entity(entity_id, scope)

    def entity_by_name(self, name: str, scope: GraphScope | None = None) -> Entity | None:
        return self.backend.entity_by_name(name, scope)

    def entities(self, scope: GraphScope | None = None) -> list[Entity]:
        return self.backend.entities(scope)

    def neighbours(
        self,
        entity_id: str,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        scope: GraphScope | None = None,
    ) -> list[Edge]:
        return self.backend.neighbours(entity_id, relation_types, direction, scope)

    def relations(self, scope: GraphScope | None = None) -> list[Edge]:
        return self.backend.relations(scope)

    def bfs(
        self,
        seeds: Sequence[str],
        depth: int = 1,
        limit: int | None = None,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        scope: GraphScope | None = None,
        include_seeds: bool = False,
    ) -> list[WalkStep]:
        return self.backend.bfs(seeds, depth, limit, relation_types, direction, scope, include_seeds)

    def shortest_path_lengths(
        self,
        sources: Iterable[str],
        cutoff: int | None = None,
        scope: GraphScope | None = None,
        relation_types: Collection[str] | None = None,
    ) -> dict[str, int]:
        return self.backend.shortest_path_lengths(sources, cutoff, scope, relation_types)

    def relationship_types(
        self, entity_id: str, direction: Direction = "both", scope: GraphScope | None = None
    ) -> list[str]:
        return self.backend.relationship_types(entity_id, direction, scope)

    def communities(self, level: int | None = None, scope: GraphScope | None = None) -> list[Community]:
        return self.backend.communities(level, scope)

    def community(self, community_id: str, scope: GraphScope | None = None) -> Community | None:
        return self.backend.community(community_id, scope)

    def reports(self, scope: GraphScope | None = None) -> list[CommunityReport]:
        return self.backend.reports(scope)

    def report(self, community_id: str, scope: GraphScope | None = None) -> CommunityReport | None:
        return self.backend.report(community_id, scope)

    def communities_of(
        self, entity_ids: Iterable[str], level: int | None = None, scope: GraphScope | None = None
    ) -> list[CommunityOverlap]:
        return self.backend.communities_of(entity_ids, level, scope)

    def mentions(self, chunk_id: str, scope: GraphScope | None = None) -> list[Entity]:
        return self.backend.mentions(chunk_id, scope)

    def supporting_chunks(self, entity_id: str, scope: GraphScope | None = None) -> list[str]:
        return self.backend.supporting_chunks(entity_id, scope)

    def described_relations(self) -> bool:
        return self.backend.described_relations()

    @property
    def passageless(self) -> bool:
        return self.backend.passageless

    # -- search support -----------------------------------------------------------
    def index_warnings(self) -> tuple[str, ...]:
        """What a reader must be told about the index now (mid-sync), read fresh at each call."""
        return self._index.consistency_warnings()

    def index_stamp(self) -> IndexStamp:
        """Where the index stands now (see :meth:`~agrag_lab.index.reading.IndexReader.stamp`)."""
        return self._index.stamp()

    def index_changes(self, since: IndexStamp) -> tuple[str, ...]:
        """A warning when the index changed (or was mid-sync) since ``since`` was stamped, else ``()``."""
        return self._index.change_warnings(since)

    def keyword_index(self, collection: str) -> KeywordIndex:
        return self._index.keyword_index(collection)

    def relation_passages(self, record_ids: Collection[str]) -> dict[str, frozenset[str]]:
        """The passages of the relation each facet record of ``record_ids`` states (others left out)."""
        facets = relation_facets_of(self.whole_graph("reading relation records"), record_ids)
        return {r: frozenset(edge.chunk_ids) for r, edge in facets.items()}

    def passages(self) -> list[Chunk]:
        """The current passages (chunks) in corpus order: documents as they were ingested, each chunk in its place."""
        return [chunk for chunk, _ in self._index.db.current_chunks()]

    def records(self, collection: str) -> CollectionRecords:
        """The records of a collection, as synced to the vector store (a graph collection's need the whole graph)."""
        if collection == "chunks":
            return self._index.chunk_records()
        return self._index.graph_records(self.whole_graph(f"listing the {collection} records"))[collection]

    def similarity_search(
        self, collection: str, vector: np.ndarray, limit: int, where: Where | None = None
    ) -> list[tuple[str, float]]:
        """Exact cosine search over the collection's cached embeddings (no vector store)."""
        native: dict[str, InMemoryVectorIndex] = self._native
        if collection not in native:
            recs = self.records(collection)
            idx = InMemoryVectorIndex()
            if recs.ids:
                idx.upsert(recs.ids, self._index.record_vectors(recs), recs.metadatas)
            native[collection] = idx
        return native[collection].query(vector, limit, where)

    def vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached embeddings of records (the vectors the native search ranks by); unknown ids left out."""
        recs = self.records(collection)
        row = {rid: n for n, rid in enumerate(recs.ids)}
        rows = [row[i] for i in dict.fromkeys(ids) if i in row]
        if not rows:
            return {}
        found = self._index.record_vectors(recs, rows)
        return {recs.ids[r]: found[n] for n, r in enumerate(rows)}

    def document_properties(self) -> Mapping[str, Mapping[str, Any]]:
        if self._doc_props is None:
            self._doc_props = {d.id: dict(d.metadata) for d in self._index.db.documents()}
        props: Mapping[str, Mapping[str, Any]] = self._doc_props
        return props

    def graph_scope(self, filters: SearchFilters | None) -> GraphScope:
        """The graph scope of search filters (properties resolved to documents)."""
        if filters is None:
            return GraphScope()
        return scope_compiler.graph_scope(filters, self.document_properties() if filters.properties else {})

    def visible_items(self, collection: str, filters: SearchFilters) -> frozenset[str] | None:
        scope = self.graph_scope(filters)
        if collection == "entities":
            labels = filters.labels
            return frozenset(e.id for e in self.entities(scope) if labels is None or e.label in labels)
        if collection == "communities":
            return frozenset(r.community_id for r in self.reports(scope))
        return None

    # -- graph facts for the engine --------------------------------------------------
    def reach(
        self, seed: str, *, depth: int, limit: int | None, relation_types: Sequence[str] | None,
        direction: Direction, filters: SearchFilters | None,
    ) -> tuple[Reach, ...]:
        steps = self.bfs([seed], depth, limit, relation_types, direction, self.graph_scope(filters))
        return tuple(Reach(s.entity_id, s.hop, tuple(PathStep(a, r, b) for a, r, b in s.path)) for s in steps)

    def _document_scope(self, filters: SearchFilters | None) -> GraphScope | None:
        """The graph scope of ``filters`` when they restrict documents, else None (everything)."""
        return self.graph_scope(filters) if filters is not None and filters.restricts_documents else None

    def entity_names(self, entity_id: str, filters: SearchFilters | None = None) -> tuple[str, ...]:
        """The entity's name and aliases as ``filters`` show it; () when they do not show it."""
        return shown_names(self.entity(entity_id, self._document_scope(filters)), filters)

    def names_entity(self, text: str, entity_id: str, filters: SearchFilters | None = None) -> bool:
        """Whether ``text`` names the entity: its name or an alias seen through ``filters``.

        See :func:`~agrag_lab.kg.text.names_in`.
        """
        return any(names_in(text, n) for n in self.entity_names(entity_id, filters))

    def named_entities(
        self, text: str, entity_ids: Sequence[str], filters: SearchFilters | None = None
    ) -> frozenset[str]:
        """The entities among ``entity_ids`` that ``text`` names (:meth:`names_entity`; a served store reads
        them in one query)."""
        return frozenset(e for e in entity_ids if self.names_entity(text, e, filters))

    def _passage_graph(self) -> PassageGraph:
        """The entity-passage arrays of the walk, made once per store."""
        if self._passages is None:
            self._passages = PassageGraph.from_graph(self.whole_graph("the passage walk").graph)
        return self._passages

    def passage_walk(
        self,
        seeds: Sequence[str],
        prior: Sequence[str],
        *,
        restart: float,
        prior_weight: float,
        relation_types: Sequence[str] | None,
        direction: Direction,
        filters: SearchFilters | None,
        method: WalkMethod = "push",
    ) -> WalkScores:
        """Personalised PageRank over entities and passages (see :mod:`agrag_lab.kg.algorithms.pagerank`).

        ``seeds`` weigh alike (times their specificity); ``prior`` passages
        weigh ``1 / rank``. Only passages of the documents ``filters`` allow,
        entities mentioned there, and relations of ``relation_types`` (all
        when None) supported there take part. ``method``: ``"push"`` (local)
        or ``"power"`` (the power iteration over the whole graph).
        """
        passages = self._passage_graph()
        types = tuple(sorted(relation_types)) if relation_types is not None else None
        scope = self._document_scope(filters)
        documents = scope.document_ids if scope is not None else None
        steps = _bounded(
            self._walk_steps, (types, direction, documents), WALK_STEPS_CACHED,
            lambda: passages.steps(relation_types=types, direction=direction, documents=documents),
        )
        return passages.walk(
            dict.fromkeys(seeds, 1.0), {passage: 1.0 / rank for rank, passage in enumerate(prior, 1)}, steps,
            restart=restart, prior_weight=prior_weight, method=method,
        )

    def distances(self, seed: str, cutoff: int, filters: SearchFilters | None) -> dict[str, int]:
        return self.shortest_path_lengths([seed], cutoff, self.graph_scope(filters))

    def memberships(self, entity_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Each entity's most specific (leaf) communities."""
        out: dict[str, tuple[str, ...]] = {}
        for eid in entity_ids:
            found = [o.community for o in self.communities_of([eid])]
            leaves = [c for c in found if not c.children] or found
            out[eid] = tuple(c.id for c in leaves)
        return out

    def mentioned_entities(self, chunk_id: str) -> tuple[str, ...]:
        return tuple(e.id for e in self.mentions(chunk_id))

    def community_members(self, community_id: str) -> tuple[str, ...]:
        community = self.community(community_id)
        return community.members if community is not None else ()

    def members_of(self, community_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """:meth:`community_members` of each community (a served store reads them all at once)."""
        return {c: self.community_members(c) for c in community_ids}

    def item_info(self, key: str, filters: SearchFilters | None = None) -> ItemInfo | None:
        """How to show an entity, chunk or community report, as ``filters`` let it be seen.

        An entity's aliases, description, relations and supporting chunks come
        only from visible documents; an item outside the filters is None.
        """
        scope = self._document_scope(filters)
        if scope is None:  # unscoped display info never changes for this store: keep it
            return _bounded(self._infos, key, ITEM_INFOS_CACHED, lambda: self._item_info(key, None))
        return self._item_info(key, scope)

    def item_infos(self, keys: Sequence[str], filters: SearchFilters | None = None) -> dict[str, ItemInfo]:
        """:meth:`item_info` of each of ``keys`` that ``filters`` let be seen, in ``keys`` order (a served
        store reads the displays of all the entities among them in three queries)."""
        found = {key: self.item_info(key, filters) for key in dict.fromkeys(keys)}
        return {key: info for key, info in found.items() if info is not None}

    def _keep_info(self, key: str, info: ItemInfo | None) -> None:
        """Keep the unscoped display of ``key`` read otherwise (a served store's batch), as :meth:`item_info` does."""
        _bounded(self._infos, key, ITEM_INFOS_CACHED, lambda: info)

    def _item_info(self, key: str, scope: GraphScope | None) -> ItemInfo | None:
        return self._with_builder_id(self._own_item_info(key, scope))

    def _with_builder_id(self, info: ItemInfo | None) -> ItemInfo | None:
        """``info`` with the id its builder gave the item, when the import kept one."""
        if info is None:
            return None
        if self._aliases is None:  # read once per bound index, as the displays it names are cached
            self._aliases = load_aliases(self._index.db.get_meta(ALIASES_META))
        given = self._aliases.shown(info.key)
        return replace(info, builder_id=given) if given else info

    def _relations_reader(self, entity_id: str, scope: GraphScope | None) -> RelationSource:
        """What an entity's display reads its relation phrases from: the held store (a served one batches)."""
        return self.backend

    @staticmethod
    def _entity_item(entity: Entity, relations: RelationSource, scope: GraphScope | None) -> ItemInfo:
        """How to show ``entity`` (seen through ``scope``), its relation phrases read from ``relations``."""
        phrases = relation_phrases(relations, entity.id, scope=scope)
        text = entity_text(entity.name, entity.aliases, entity.description, phrases)
        return ItemInfo(entity.id, "entity", entity.name, text, None, (), entity.label, entity.chunk_ids)

    def _own_item_info(self, key: str, scope: GraphScope | None) -> ItemInfo | None:
        if key.startswith("ent-"):
            entity = self.entity(key, scope)
            return None if entity is None else self._entity_item(entity, self._relations_reader(key, scope), scope)
        if key.startswith("com-"):
            report = self.report(key, scope)
            if report is None:
                return None
            return ItemInfo(key, "community", report.title, report.summary, None, (), None, report.chunk_ids)
        info = chunk_info(self._index.db, key)
        if info is not None and scope is not None and not scope.allows_document(info.document_id or ""):
            return None
        return info
