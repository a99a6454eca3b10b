"""The knowledge graph of an index folder: rebuilt from cached extractions, searchable.

:func:`rebuild_knowledge_graph` runs after every committed ingest (from
``Graph.sync``): it extracts new chunks (extractions are cached in SQLite by
extractor version and chunk), builds graph, communities and reports from
*all* chunks (superseded ones feed history only), saves ``graph.json``
atomically, and syncs the ``entities`` and ``communities`` collections
(Chroma and bm25s). :class:`IndexedGraphStore` adds to
:class:`~agrag_lab.kg.store.NetworkXGraphStore` what the search engine needs:
native similarity search, keyword indexes, filter compilation and item display.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from agrag_lab.documents import Chunk
from agrag_lab.kg.build import ChunkExtraction
from agrag_lab.kg.extraction import DocumentContext, Extraction, Extractor, RuleExtractor
from agrag_lab.kg.facets import FACET_MARK, facet_owner
from agrag_lab.kg.pagerank import PassageGraph, WalkScores, WalkSteps
from agrag_lab.kg.pipeline import build_store, extract_batch
from agrag_lab.kg.reports import CommunityReporter, report_text
from agrag_lab.kg.store import Direction, GraphScope, NetworkXGraphStore
from agrag_lab.kg.text import names_in, trim_text
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.trace import ItemInfo, PathStep, Reach
from agrag_lab.serialize import from_data, to_data
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.vectors import InMemoryVectorIndex, Where

if TYPE_CHECKING:
    from agrag_lab.graph import Graph, Progress

GRAPH_FILE = "graph.json"
K = TypeVar("K")
V = TypeVar("V")
#: Unscoped item display infos a store keeps (a store lives until the next sync).
ITEM_INFOS_CACHED = 100_000
#: Walk step matrices a store keeps (one per relation types, direction and document scope).
WALK_STEPS_CACHED = 16


@dataclass(frozen=True)
class CollectionRecords:
    """What one searchable collection holds: ids, texts, store metadata, content hashes."""

    ids: tuple[str, ...]
    texts: tuple[str, ...]
    metadatas: tuple[Mapping[str, Any], ...]
    hashes: tuple[str, ...]


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: Relations written into an entity's embedded text, strongest first.
RELATIONS_IN_TEXT = 8
#: Longest embedded text of an entity or report record, in characters (about 64 tokens):
#: name, aliases and relations come first, and embedding cost grows with length
#: (the graph's records outnumber the chunks about 7 to 1; MuSiQue: 416 s -> ~220 s).
RECORD_CHARS = 280


def record_text(text: str) -> str:
    """``text`` as embedded: unchanged when short, else cut at a word near :data:`RECORD_CHARS`.

    Examples
    --------
    >>> record_text("Ada Lovelace") == "Ada Lovelace"
    True
    >>> len(record_text("word " * 200)) <= RECORD_CHARS
    True
    """
    return text if len(text) <= RECORD_CHARS else trim_text(text, RECORD_CHARS)


def entity_text(name: str, aliases: Sequence[str], description: str, relations: Sequence[str] = ()) -> str:
    """What is embedded for an entity: name and aliases, its key relations as
    plain sentences, then its description.

    Relations come first and as sentences ("Ada Lovelace worked with Charles
    Babbage."): a question about a relation ("Who worked with Babbage?") then
    finds the entities on its ends, which a name or a description alone would not.

    Examples
    --------
    >>> print(entity_text("Ada Lovelace", ["Lovelace"], "Wrote Note G.", ["Ada Lovelace worked with Charles Babbage."]))
    Ada Lovelace (also: Lovelace)
    Ada Lovelace worked with Charles Babbage.
    Wrote Note G.
    """
    also = f" (also: {', '.join(aliases)})" if aliases else ""
    lines = [f"{name}{also}", " ".join(relations), description]
    return "\n".join(line for line in lines if line).strip()


def relation_phrases(
    store: NetworkXGraphStore,
    entity_id: str,
    limit: int = RELATIONS_IN_TEXT,
    *,
    typed_only: bool = False,
    scope: GraphScope | None = None,
) -> list[str]:
    """``"Ada Lovelace worked with Charles Babbage."``-style sentences for an entity's
    strongest relations: typed ones first, then by support, one per neighbour."""
    # typed relations first, then by support; one phrase per neighbour
    edges = sorted(store.neighbours(entity_id, scope=scope), key=lambda e: (e.type == "RELATED_TO", -e.weight, e.key))
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for edge in edges:
        other_id = edge.other(entity_id)
        other = store.graph.entities.get(other_id)
        # every typed relation counts; RELATED_TO only for a neighbour with no typed one
        key = ("RELATED_TO" if edge.type == "RELATED_TO" else edge.type, other_id)
        if other is None or key in seen or (edge.type == "RELATED_TO" and (typed_only or ("typed", other_id) in seen)):
            continue
        seen.update({key, ("typed", other_id)})
        verb = edge.type.lower().replace("_", " ")
        name = store.graph.entities[entity_id].name
        source, target = (name, other.name) if edge.source == entity_id else (other.name, name)
        out.append(f"{source} {verb} {target}.")
        if len(out) == limit:
            break
    return out


def graph_records(store: NetworkXGraphStore) -> dict[str, CollectionRecords]:
    """Records of the ``entities`` and ``communities`` collections of a graph.

    An entity is one record (name, aliases, relations, description) plus one
    *facet* record per typed relation ("Ada Lovelace worked with Charles
    Babbage."), id ``<entity>#r<n>``: a short sentence embeds close to a
    question about that relation, where the long record is diluted. Entity
    search scores an entity by its best record (see :func:`facet_owner`).
    """
    out: dict[str, CollectionRecords] = {}
    ids: list[str] = []
    texts: list[str] = []
    metas: list[dict[str, Any]] = []
    for e in store.entities():
        relations = relation_phrases(store, e.id)
        records = [(e.id, record_text(entity_text(e.name, e.aliases, e.description, relations)))]
        typed = relation_phrases(store, e.id, limit=RELATIONS_IN_TEXT, typed_only=True)
        records += [(f"{e.id}{FACET_MARK}{n}", sentence) for n, sentence in enumerate(typed)]
        for rid, text in records:
            ids.append(rid)
            texts.append(text)
            metas.append({"item_id": e.id, "label": e.label, "fp": _hash(text)})
    out["entities"] = CollectionRecords(tuple(ids), tuple(texts), tuple(metas), tuple(m["fp"] for m in metas))
    reports = store.reports()
    rtexts = [record_text(report_text(r)) for r in reports]
    out["communities"] = CollectionRecords(
        tuple(r.community_id for r in reports), tuple(rtexts),
        tuple({"item_id": r.community_id, "level": r.level, "fp": _hash(t)} for r, t in zip(reports, rtexts, strict=True)),
        tuple(_hash(t) for t in rtexts),
    )
    return out


def _extraction_key(extractor: Extractor, chunk: Chunk, context: DocumentContext) -> str:
    given = {k: context.metadata.get(k) for k in ("entities", "relations") if k in context.metadata}
    raw = json.dumps([extractor.version, chunk.id, context.title, given, chunk.text], sort_keys=True, default=str)
    return _hash(raw)


def extract_all(
    graph: Graph, chunks: Sequence[tuple[Chunk, bool]], records: Mapping[str, Any], extractor: Extractor
) -> list[ChunkExtraction]:
    """Extractions of every chunk, from the SQLite cache where possible."""
    contexts = {}
    for chunk, _ in chunks:
        if chunk.document_id not in contexts:
            rec = records.get(chunk.document_id) or graph.db.document(chunk.document_id)
            contexts[chunk.document_id] = DocumentContext(chunk.document_id, rec.title if rec else "", dict(rec.metadata) if rec else {})
    keys = [_extraction_key(extractor, c, contexts[c.document_id]) for c, _ in chunks]
    cached = graph.db.cached_extractions(extractor.version, keys)
    missing = [(chunk, contexts[chunk.document_id]) for (chunk, _), key in zip(chunks, keys, strict=True) if key not in cached]
    made = iter(extract_batch(extractor, missing))  # all at once: an LLM extractor runs them concurrently
    fresh: dict[str, str] = {}
    items = []
    for (chunk, current), key in zip(chunks, keys, strict=True):
        if key in cached:
            extraction = from_data(Extraction, json.loads(cached[key]))
        else:
            extraction = next(made)
            if not extraction.failure:  # a failed chunk is tried again next time
                fresh[key] = json.dumps(to_data(extraction))
        items.append(ChunkExtraction(chunk.id, chunk.document_id, current, chunk.text, extraction))
    if fresh:
        graph.db.put_extractions(extractor.version, fresh)
    return items


def rebuild_knowledge_graph(
    graph: Graph, current: Sequence[tuple[Chunk, str]], records: Mapping[str, Any],
    extractor: Extractor | None = None,
    progress: Progress | None = None,
    reporter: CommunityReporter | None = None,
) -> IndexedGraphStore:
    """Rebuild graph, communities and reports; save; sync their collections.

    Parameters
    ----------
    graph : Graph
        The index folder whose derived stores are rebuilt.
    current : sequence of (Chunk, str)
        Its current chunks (with their content hashes).
    records : mapping
        Document records by id (titles and metadata for extraction).
    extractor : Extractor, optional
        Default: :class:`~agrag_lab.kg.extraction.RuleExtractor`.
    progress : callable, optional
        Wraps the embedding of new records (see :meth:`Graph.sync`).
    reporter : CommunityReporter, optional
        Writes the community reports (default: the extractive reporter).
    """
    run = extractor or RuleExtractor()
    chunks = [(c, True) for c, _ in current] + [(c, False) for c, _ in graph.db.superseded_chunks()]
    items = extract_all(graph, chunks, records, run)
    base = build_store(items, reporter=reporter)
    base.save(graph.path / GRAPH_FILE)
    store = IndexedGraphStore.wrap(base, graph)
    for name, recs in graph_records(base).items():
        graph._embed_missing(list(zip(recs.hashes, recs.texts, strict=True)), progress, name)
        graph._sync_collection(name, recs.ids, recs.texts, recs.metadatas, recs.hashes)
        keyword = KeywordIndex.build(recs.ids, _keyword_texts(base, name, recs))
        keyword.save(graph.path / "keyword" / name)
        graph._keyword[name] = keyword
    return store


def _keyword_texts(store: NetworkXGraphStore, name: str, recs: CollectionRecords) -> list[str]:
    if name == "entities":  # an entity record by its names and aliases; a facet by its relation sentence
        out = []
        for rid, text in zip(recs.ids, recs.texts, strict=True):
            entity = store.graph.entities[facet_owner(rid)]
            out.append(text if FACET_MARK in rid else " ".join([entity.name, *entity.aliases]))
        return out
    return [report_text(r) for r in store.reports()]  # keywords read the whole report, in record order


def _bounded(cache: dict[K, V], key: K, size: int, compute: Callable[[], V]) -> V:
    """``cache[key]``, computed on a miss; the oldest entry goes when ``size`` are held."""
    if key not in cache:
        if len(cache) >= size:
            cache.pop(next(iter(cache)))
        cache[key] = compute()
    return cache[key]


def load_graph_store(graph: Graph) -> IndexedGraphStore:
    """The saved graph of an index (an empty one before the first ingest)."""
    path = graph.path / GRAPH_FILE
    base = NetworkXGraphStore.load(path) if path.exists() else build_store([])
    return IndexedGraphStore.wrap(base, graph)


class IndexedGraphStore(NetworkXGraphStore):
    """A graph store bound to an index: native search, keywords, filters, display."""

    _index: Graph
    _native: dict[str, InMemoryVectorIndex]
    _doc_props: dict[str, dict[str, Any]] | None
    _passages: PassageGraph | None
    _walk_steps: dict[tuple[tuple[str, ...] | None, str, frozenset[str] | None], WalkSteps]
    _infos: dict[str, ItemInfo | None]

    @classmethod
    def wrap(cls, base: NetworkXGraphStore, index: Graph) -> IndexedGraphStore:
        store = cls(base.graph, base.communities(), base.reports())
        store._index = index
        store._native = {}
        store._doc_props = None
        store._passages = None
        store._walk_steps = {}
        store._infos = {}
        return store

    # -- search support -----------------------------------------------------------
    def keyword_index(self, collection: str) -> KeywordIndex:
        return self._index.keyword_index(collection)

    def records(self, collection: str) -> CollectionRecords:
        """The records of a collection, as synced to the vector store."""
        if collection == "chunks":
            ids, texts, metas, hashes = self._index.chunk_records()
            return CollectionRecords(tuple(ids), tuple(texts), tuple(metas), tuple(hashes))
        return graph_records(self)[collection]

    def similarity_search(
        self, collection: str, vector: np.ndarray, limit: int, where: Where | None = None
    ) -> list[tuple[str, float]]:
        """Exact cosine search over the collection's cached embeddings (no vector store)."""
        native: dict[str, InMemoryVectorIndex] = self._native
        if collection not in native:
            recs = self.records(collection)
            idx = InMemoryVectorIndex()
            if recs.ids:
                idx.upsert(recs.ids, self._index.embeddings(list(recs.hashes)), recs.metadatas)
            native[collection] = idx
        return native[collection].query(vector, limit, where)

    def document_properties(self) -> Mapping[str, Mapping[str, Any]]:
        if self._doc_props is None:
            self._doc_props = {d.id: dict(d.metadata) for d in self._index.db.documents()}
        props: Mapping[str, Mapping[str, Any]] = self._doc_props
        return props

    def graph_scope(self, filters: SearchFilters | None) -> GraphScope:
        """The graph scope of search filters (properties resolved to documents)."""
        if filters is None:
            return GraphScope()
        docs: frozenset[str] | None = filters.document_ids
        if filters.properties:
            matching = frozenset(
                d for d, p in self.document_properties().items()
                if all(p.get(k) == v for k, v in filters.properties.items())
            )
            docs = matching if docs is None else docs & matching
        return GraphScope(document_ids=docs, relation_types=filters.relation_types)

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
        self, seed: str, *, depth: int, limit: int, relation_types: Sequence[str] | None,
        direction: Direction, filters: SearchFilters | None,
    ) -> tuple[Reach, ...]:
        steps = self.bfs([seed], depth, limit, relation_types, direction, self.graph_scope(filters))
        return tuple(Reach(s.entity_id, s.hop, tuple(PathStep(a, r, b) for a, r, b in s.path)) for s in steps)

    def _document_scope(self, filters: SearchFilters | None) -> GraphScope | None:
        """The graph scope of ``filters`` when they restrict documents, else None (everything)."""
        return self.graph_scope(filters) if filters is not None and filters.restricts_documents else None

    def names_entity(self, text: str, entity_id: str, filters: SearchFilters | None = None) -> bool:
        """Whether ``text`` names the entity: its name or an alias seen through ``filters``.

        See :func:`~agrag_lab.kg.text.names_in`.
        """
        entity = self.entity(entity_id, self._document_scope(filters))
        return entity is not None and any(names_in(text, n) for n in (entity.name, *entity.aliases))

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
    ) -> WalkScores:
        """Personalised PageRank over entities and passages (see :mod:`agrag_lab.kg.pagerank`).

        ``seeds`` weigh alike (times their specificity); ``prior`` passages
        weigh ``1 / rank``. Only passages of the documents ``filters`` allow,
        entities mentioned there, and relations of ``relation_types`` (all
        when None) supported there take part.
        """
        if self._passages is None:
            self._passages = PassageGraph.from_graph(self.graph)
        passages = self._passages
        types = tuple(sorted(relation_types)) if relation_types is not None else None
        scope = self._document_scope(filters)
        documents = scope.document_ids if scope is not None else None
        steps = _bounded(
            self._walk_steps, (types, direction, documents), WALK_STEPS_CACHED,
            lambda: passages.steps(relation_types=types, direction=direction, documents=documents),
        )
        return passages.walk(
            dict.fromkeys(seeds, 1.0), {passage: 1.0 / rank for rank, passage in enumerate(prior, 1)}, steps,
            restart=restart, prior_weight=prior_weight,
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

    def item_info(self, key: str, filters: SearchFilters | None = None) -> ItemInfo | None:
        """How to show an entity, chunk or community report, as ``filters`` let it be seen.

        An entity's aliases, description, relations and supporting chunks come
        only from visible documents; an item outside the filters is None.
        """
        scope = self._document_scope(filters)
        if scope is None:  # unscoped display info never changes for this store: keep it
            return _bounded(self._infos, key, ITEM_INFOS_CACHED, lambda: self._item_info(key, None))
        return self._item_info(key, scope)

    def _item_info(self, key: str, scope: GraphScope | None) -> ItemInfo | None:
        if key.startswith("ent-"):
            entity = self.entity(key, scope)
            if entity is None:
                return None
            text = entity_text(entity.name, entity.aliases, entity.description, relation_phrases(self, key, scope=scope))
            return ItemInfo(key, "entity", entity.name, text, None, (), entity.label, entity.chunk_ids)
        if key.startswith("com-"):
            report = self.report(key, scope)
            if report is None:
                return None
            return ItemInfo(key, "community", report.title, report.summary, None, (), None, report.chunk_ids)
        info = self._index.chunk_info(key)
        if info is not None and scope is not None and not scope.allows_document(info.document_id or ""):
            return None
        return info
