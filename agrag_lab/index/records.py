"""What each searchable collection holds, as plain values: :class:`CollectionRecords`.

An index folder has three collections (``chunks``, ``entities``,
``communities``), each synced to the vector store and given a bm25s keyword
index by :class:`~agrag_lab.index.build.IndexBuild`. This module says what
their records are: ids, the texts embedded, the store metadata (scope
filters read it) and content hashes (the embedding cache's keys).

Examples
--------
>>> from agrag_lab.documents import Chunk
>>> c = Chunk("a", "0123456789ab", 0, "Born 1791.", 0, 10, "paragraph", 1, ("Charles Babbage", "Life"))
>>> embed_text("Charles Babbage", c)
'Charles Babbage > Life\\nBorn 1791.'
>>> sorted(chunk_metadata(c, {"era": "victorian"}, "fp"))
['document_id', 'fp', 'kind', 'p_era', 'version']
"""

from __future__ import annotations

import hashlib
import json
import weakref
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agrag_lab.documents import Chunk
from agrag_lab.kg.described import DESCRIBED_BY as DESCRIBED_BY  # their home: agrag_lab.kg.described
from agrag_lab.kg.described import KEYWORDS as KEYWORDS
from agrag_lab.kg.described import described_by as described_by
from agrag_lab.kg.described import described_relation, relation_keywords
from agrag_lab.kg.facets import FACET_MARK, facet_owner
from agrag_lab.kg.graph_store import WholeGraph
from agrag_lab.kg.model import Edge, Entity
from agrag_lab.kg.records import entity_text, record_text, relation_sentences
from agrag_lab.kg.reports import report_text
from agrag_lab.kg.tri_vocabulary import embeds_name

#: The collections built from the knowledge graph (``chunks`` comes from SQLite).
GRAPH_COLLECTIONS = ("entities", "communities")
#: Chunk vectors a graph record's vector averages at most (see :func:`graph_records`).
SOURCES_PER_RECORD = 16
#: Prefix of the text a derived vector key hashes (it cannot collide with an embedded text's hash).
DERIVED_MARK = "mean of chunks:"
#: How LightRAG joins the descriptions it merged (the import keeps them as lines; its vectors embed them so).
LIGHTRAG_SEP = "<SEP>"
#: Document property an import sets to say what its builder embedded for each chunk.
BUILDER_EMBEDS = "builder_embeds"
#: :data:`BUILDER_EMBEDS`'s value when the builder embedded each chunk's text alone (LightRAG, GraphRAG).
CHUNK_ALONE = "chunk text"
#: Document property: ``{chunk index: text}`` as JSON, the chunks whose builder embedded another text than their
#: place in the document holds (a token window that split a character, placed approximately).
BUILDER_TEXTS = "builder_texts"


@dataclass(frozen=True)
class CollectionRecords:
    """What one searchable collection holds: ids, texts, store metadata, vector keys.

    ``hashes[i]`` keys record ``i``'s vector: the content hash of ``texts[i]``
    when that text is embedded, else :func:`derived_key` of ``sources[i]``,
    the content hashes of the chunks whose mean vector it is (``sources`` is
    empty, or holds ``()`` for every embedded record). ``hosts[i]`` is the
    chunk whose vector record ``i``'s is, when it is exactly one chunk's
    (``""`` otherwise; ``hosts`` may be empty): the vector store keeps no
    copy of it, and finds it through that chunk (:func:`with_hosts`,
    :mod:`agrag_lab.index.vectors`).
    """

    ids: tuple[str, ...]
    texts: tuple[str, ...]
    metadatas: tuple[Mapping[str, Any], ...]
    hashes: tuple[str, ...]
    sources: tuple[tuple[str, ...], ...] = ()
    hosts: tuple[str, ...] = ()

    def source_of(self, row: int) -> tuple[str, ...]:
        """The chunk hashes record ``row``'s vector is the mean of (``()``: its text is embedded)."""
        return self.sources[row] if self.sources else ()

    def host_of(self, row: int) -> str:
        """The chunk whose vector record ``row``'s is exactly (``""``: it has a vector of its own)."""
        return self.hosts[row] if self.hosts else ""

    def stored(self) -> CollectionRecords:
        """The records the vector collection holds itself: those no chunk hosts."""
        rows = [k for k in range(len(self.ids)) if not self.host_of(k)]
        if len(rows) == len(self.ids):
            return self
        return CollectionRecords(
            tuple(self.ids[k] for k in rows), tuple(self.texts[k] for k in rows),
            tuple(self.metadatas[k] for k in rows), tuple(self.hashes[k] for k in rows),
            tuple(self.source_of(k) for k in rows) if self.sources else (),
        )

    def hosted(self) -> list[tuple[str, str, Mapping[str, Any]]]:
        """``(record id, host chunk id, metadata)`` of every record a chunk hosts, in record order."""
        return [(self.ids[k], self.host_of(k), self.metadatas[k]) for k in range(len(self.ids)) if self.host_of(k)]

    def embedded(self) -> list[tuple[str, str]]:
        """``(hash, text)`` of the records whose text is embedded (not derived from chunks)."""
        return [(h, t) for k, (h, t) in enumerate(zip(self.hashes, self.texts, strict=True)) if not self.source_of(k)]


def content_hash(text: str) -> str:
    """sha256 of a text, the key of the embedding cache.

    Examples
    --------
    >>> content_hash("a")[:12]
    'ca978112ca1b'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def embed_text(title: str, chunk: Chunk) -> str:
    """The text keyword-indexed for a chunk, and embedded for a chunk of ours: title, headings, then the text.

    A chunk an import took from a builder that embedded its text alone is
    embedded as that text (:func:`vector_text`).
    """
    heads = [title] + [h for h in chunk.heading_path if h != title]
    return " > ".join(h for h in heads if h) + "\n" + chunk.text


def vector_text(title: str, properties: Mapping[str, Any], chunk: Chunk) -> str:
    """The text a chunk's vector embeds: the chunk's own text when its document says its builder embedded
    it so (:data:`BUILDER_EMBEDS` is :data:`CHUNK_ALONE`), else :func:`embed_text`'s.

    LightRAG embeds a chunk's ``content`` alone, GraphRAG a text unit's
    ``text`` alone; re-embedding an imported chunk with our title and
    headings would give it another vector than the builder's. A document
    imported before the flag existed has none, and keeps the vectors it has.

    Examples
    --------
    >>> c = Chunk("a", "0123456789ab", 0, "Born 1791.", 0, 10, "paragraph", 0, ("Babbage",))
    >>> vector_text("Babbage", {BUILDER_EMBEDS: CHUNK_ALONE}, c), vector_text("Babbage", {}, c)
    ('Born 1791.', 'Babbage\\nBorn 1791.')
    """
    if properties.get(BUILDER_EMBEDS) == CHUNK_ALONE:
        given = properties.get(BUILDER_TEXTS)
        return str(json.loads(given).get(str(chunk.index), chunk.text)) if isinstance(given, str) else chunk.text
    return embed_text(title, chunk)


def builder_embeds(embedded: Sequence[tuple[Chunk, str]]) -> dict[str, Any]:
    """The document properties saying that its builder embedded each chunk's text alone (:func:`vector_text`),
    given each chunk with the text its builder embedded for it.

    Examples
    --------
    >>> c = Chunk("a", "0123456789ab", 0, "Born 1791.", 0, 10, "paragraph", 0, ())
    >>> builder_embeds([(c, "Born 1791.")]), vector_text("", builder_embeds([(c, "?orn 1791.")]), c)
    ({'builder_embeds': 'chunk text'}, '?orn 1791.')
    """
    differ = {str(chunk.index): text for chunk, text in embedded if text != chunk.text}
    return {BUILDER_EMBEDS: CHUNK_ALONE, **({BUILDER_TEXTS: json.dumps(differ, ensure_ascii=False)} if differ else {})}


def fingerprint(key: str) -> str:
    """A record's ``fp`` metadata: what a sync compares to tell a changed record (16 hex digits of a hash).

    It stays in the vector store, next to what it describes, so that a sync
    sees what the store really holds (after a crash, or in a server another
    index folder synced); 16 digits instead of 64 are a third of Chroma's
    metadata bytes, and a chance collision (2**-64) can only skip one rewrite.

    Examples
    --------
    >>> fingerprint(content_hash("a"))
    'ca978112ca1bbdca'
    """
    return key[:16]


def chunk_metadata(chunk: Chunk, properties: Mapping[str, Any], fp: str) -> dict[str, str | int | float | bool]:
    """Store metadata of a chunk: ids for scope filters, ``p_<key>`` for properties."""
    meta: dict[str, str | int | float | bool] = {
        "document_id": chunk.document_id,
        "version": chunk.version,
        "kind": chunk.kind,
        "fp": fp,
    }
    for key, value in properties.items():
        if key in (BUILDER_EMBEDS, BUILDER_TEXTS):  # what the import says of the builder, not a property to filter by
            continue
        if isinstance(value, (str, int, float, bool)):
            meta[f"p_{key}"] = value
    return meta


def chunk_records(current: Sequence[tuple[Chunk, str]], documents: Mapping[str, Any]) -> CollectionRecords:
    """Records of the ``chunks`` collection.

    Parameters
    ----------
    current : sequence of (Chunk, str)
        The current chunks with their content hashes (``DocumentDB.current_chunks()``).
    documents : mapping
        Document records by id (``title`` and ``metadata`` are read).
    """
    ids, texts, metas, hashes = [], [], [], []
    for chunk, h in current:
        record = documents[chunk.document_id]
        ids.append(chunk.id)
        texts.append(vector_text(record.title, record.metadata, chunk))
        metas.append(chunk_metadata(chunk, record.metadata, fingerprint(h)))
        hashes.append(h)
    return CollectionRecords(tuple(ids), tuple(texts), tuple(metas), tuple(hashes))


def chunk_keyword_texts(current: Sequence[tuple[Chunk, str]], documents: Mapping[str, Any]) -> list[str]:
    """What the keyword index of the chunks reads, in ``current``'s order: :func:`embed_text` of every chunk
    (title, headings, then the text, an imported chunk's too: a question naming a document finds its chunks)."""
    return [embed_text(documents[chunk.document_id].title, chunk) for chunk, _ in current]


def derived_key(sources: Sequence[str]) -> str:
    """The vector key of a record embedded as the mean of chunk vectors (``sources``: their content hashes).

    Examples
    --------
    >>> derived_key(["a", "b"]) == derived_key(["a", "b"]) != derived_key(["b", "a"])
    True
    """
    return content_hash(DERIVED_MARK + " ".join(sources))


def _current(chunk_ids: Sequence[str], chunk_hashes: Mapping[str, str]) -> list[str]:
    return [c for c in chunk_ids if c in chunk_hashes][:SOURCES_PER_RECORD]


def host_flag(collection: str) -> str:
    """The chunk metadata key saying a chunk hosts records of a graph collection (``True`` when it does).

    Examples
    --------
    >>> host_flag("entities")
    'hosts_entities'
    """
    return f"hosts_{collection}"


def with_hosts(chunks: CollectionRecords, graph: Mapping[str, CollectionRecords]) -> CollectionRecords:
    """The chunk records with :func:`host_flag` of each graph collection: ``True`` on a chunk that hosts
    one of its records, else ``None`` (a vector store upsert merges metadata: ``None`` removes a flag).

    A chunk's fingerprint changes with its flags, so a sync rewrites exactly
    the chunks whose flags changed (their vectors come from the cache).
    """
    flags: dict[str, set[str]] = {}
    for name, records in graph.items():
        for _, host, _ in records.hosted():
            flags.setdefault(host, set()).add(host_flag(name))
    every = [host_flag(name) for name in graph]
    metas = []
    for cid, meta in zip(chunks.ids, chunks.metadatas, strict=True):
        mine = sorted(flags.get(cid, ()))
        fp = fingerprint(content_hash(f"{meta['fp']} {mine}")) if mine else meta["fp"]
        metas.append({**meta, **{f: (True if f in mine else None) for f in every}, "fp": fp})
    return CollectionRecords(chunks.ids, chunks.texts, tuple(metas), chunks.hashes, chunks.sources, chunks.hosts)


def own_chunks(entity: Entity, chunk_documents: Mapping[str, str], titles: Mapping[str, str]) -> tuple[str, ...]:
    """The chunks an entity's vector averages: those of documents titled by its name or an alias, if any,
    else every chunk that mentions it.

    A hub's many mentions average to a vague vector; its own article is what a
    question naming it is closest to (MuSiQue's passages and the workshop's
    documents are titled by what they are about).

    Examples
    --------
    >>> e = Entity("ent-ada", "Ada Lovelace", "Person", chunk_ids=("a#c0", "b#c0"))
    >>> own_chunks(e, {"a#c0": "a", "b#c0": "b"}, {"a": "Charles Babbage", "b": "Ada Lovelace"})
    ('b#c0',)
    >>> own_chunks(e, {"a#c0": "a", "b#c0": "b"}, {})
    ('a#c0', 'b#c0')
    """
    names = {n.casefold() for n in (entity.name, *entity.aliases)}
    own = tuple(c for c in entity.chunk_ids if titles.get(chunk_documents.get(c, ""), "").casefold() in names)
    return own or entity.chunk_ids


def builder_text(builder: str, name: str, description: str) -> str:
    r"""The text a builder embeds for an entity: GraphRAG ``title:description`` (its local search's
    entity description embedding), LightRAG and the rest the name, a newline, the description.

    Examples
    --------
    >>> builder_text("graphrag", "SCROOGE", "A miser.")
    'SCROOGE:A miser.'
    >>> builder_text("lightrag", "Scrooge", "A miser.")
    'Scrooge\nA miser.'
    """
    if builder == "lightrag":  # the merged descriptions, joined as LightRAG's vector text joins them
        description = description.replace("\n", LIGHTRAG_SEP)
    return f"{name}:{description}" if builder == "graphrag" else f"{name}\n{description}"


def relation_text(source: str, target: str, keywords: str, description: str) -> str:
    r"""The text a relation its builder described embeds: LightRAG's keywords, source, target,
    description; without keywords, source, target, description.

    Examples
    --------
    >>> relation_text("Scrooge", "Marley", "partnership", "Partners for years.").split("\n")
    ['partnership\tScrooge', 'Marley', 'Partners for years.']
    >>> relation_text("SCROOGE", "FAN", "", "His sister.").split("\n")
    ['SCROOGE', 'FAN', 'His sister.']
    """
    head = f"{keywords}\t{source}" if keywords else source
    return f"{head}\n{target}\n{description.replace(chr(10), LIGHTRAG_SEP)}"


def graph_records(
    store: WholeGraph,
    chunk_hashes: Mapping[str, str] | None = None,
    titles: Mapping[str, str] | None = None,
) -> dict[str, CollectionRecords]:
    """Records of the ``entities`` and ``communities`` collections of a graph.

    An entity is one record (name, aliases, relations, description) plus one
    *facet* record per typed relation ("Ada Lovelace worked with Charles
    Babbage."), id ``<entity>#r<n>``: a short sentence embeds close to a
    question about that relation, where the long record is diluted. Entity
    search scores an entity by its best record (see :func:`facet_owner`).

    With ``chunk_hashes`` (current chunk id -> content hash), a record whose
    item has current supporting chunks is *not* embedded from its text: its
    vector is the normalised mean of those chunks' vectors (at most
    :data:`SOURCES_PER_RECORD`, natural order; an entity's mentioning chunks,
    a facet's and a report's supporting ones), and its hash is
    :func:`derived_key` of their hashes. The chunks are embedded anyway, so the
    graph costs no model time; the text is still what the record shows and
    what its keyword leg reads. A record whose vector is exactly one chunk's
    is *hosted* by that chunk (``hosts``): the vector store holds no copy. Without supporting chunks (e.g. an imported
    entity no text unit names) the text is embedded as before.

    An entity with a document titled by its name (``titles``: document id ->
    title) averages that document's chunks only (:func:`own_chunks`).

    What an LLM wrote is embedded as its builder embeds it, never averaged
    (a description says what its chunks do not; the mean of an imported
    graph's few long text units gave every entity the same vector): an
    entity whose description its builder wrote (:data:`DESCRIBED_BY`) embeds
    :func:`builder_text`; a relation its builder described (LightRAG's
    keywords, or an edge marked :data:`DESCRIBED_BY`: GraphRAG's relationship
    descriptions) gets a record per end, :func:`relation_text`, as LightRAG
    embeds its relations; relation searches (LightRAG's high-level keywords,
    HippoRAG 2's facts) read them, and an entity found through one stands for
    that relation's passages (measured in BENCHMARKS.md, "Imported graphs: the
    Christmas Carol questions"); a report with full content (written by an LLM) embeds
    its title, summary and findings. An entity whose own text is
    only its name keeps the chunks' mean (measured: BENCHMARKS.md, "Ingestion:
    build cost and index size").
    """
    out: dict[str, CollectionRecords] = {}
    ids: list[str] = []
    texts: list[str] = []
    metas: list[dict[str, Any]] = []
    hashes: list[str] = []
    sources: list[tuple[str, ...]] = []
    hosts: list[str] = []

    def add(rid: str, text: str, meta: dict[str, Any], chunk_ids: Sequence[str]) -> None:
        current = _current(chunk_ids, chunk_hashes) if chunk_hashes is not None else []
        src = tuple(chunk_hashes[c] for c in current) if chunk_hashes is not None else ()
        key = derived_key(src) if src else content_hash(text)
        ids.append(rid)
        texts.append(text)
        # the fingerprint changes with anything Chroma holds: the vector, the text, the metadata
        metas.append({**meta, "fp": fingerprint(content_hash(f"{key} {sorted(meta.items())} {text}") if src else key)})
        hashes.append(key)
        sources.append(src)
        hosts.append(current[0] if len(src) == 1 else "")

    described_edges = _described_edges(store)
    for e in store.entities():
        meta: dict[str, Any] = {"item_id": e.id, "label": e.label}
        builder = described_by(e.attributes)
        relations = relation_sentences(store, e.id)
        if embeds_name(e.attributes):  # the tri-graph: an entity's text, a sentence, embedded alone (LinearRAG)
            add(e.id, e.name, meta, ())
            continue
        if builder and e.description.strip():
            add(e.id, builder_text(builder, e.name, e.description), meta, ())
        else:
            add(e.id, record_text(entity_text(e.name, e.aliases, e.description, [s for s, _ in relations])),
                meta, own_chunks(e, store.graph.chunk_documents, titles or {}))
        for n, (text, _, chunk_ids) in enumerate(_entity_facets(store, e.id, described_edges, relations)):
            add(f"{e.id}{FACET_MARK}{n}", text, meta, chunk_ids)
    out["entities"] = CollectionRecords(
        tuple(ids), tuple(texts), tuple(metas), tuple(hashes), tuple(sources), tuple(hosts)
    )
    ids, texts, metas, hashes, sources, hosts = [], [], [], [], [], []
    for r in store.reports():
        meta = {"item_id": r.community_id, "level": r.level}
        if r.full_content:  # an LLM wrote it: its own text, as GraphRAG embeds a report's content
            add(r.community_id, report_text(r), meta, ())
        else:
            add(r.community_id, record_text(report_text(r)), meta, r.chunk_ids)
    out["communities"] = CollectionRecords(
        tuple(ids), tuple(texts), tuple(metas), tuple(hashes), tuple(sources), tuple(hosts)
    )
    return out


def _described_edges(store: WholeGraph) -> dict[str, list[Edge]]:
    """Each entity's relations its builder described (LightRAG's keywords, or a description marked
    :data:`DESCRIBED_BY`), in the graph's edge order; empty when none is."""
    out: dict[str, list[Edge]] = {}
    for edge in store.graph.edges:
        if described_relation(edge):
            out.setdefault(edge.source, []).append(edge)
            out.setdefault(edge.target, []).append(edge)
    return out


def _entity_facets(
    store: WholeGraph, entity_id: str, described_edges: Mapping[str, list[Edge]],
    relations: Sequence[tuple[str, Edge]],
) -> list[tuple[str, Edge, tuple[str, ...]]]:
    """``(text, edge, chunks averaged)`` of each relation facet of an entity, facet ``n`` at index ``n``.

    A graph with described relations (LightRAG) gets a record per end, :func:`relation_text`;
    otherwise the typed relations among the strongest, as ``relation_phrases(..., typed_only=True)``
    writes them (``relations``: the entity's :func:`relation_sentences`).
    """
    if described_edges:
        entities = store.graph.entities
        return [(relation_text(entities[edge.source].name, entities[edge.target].name,
                               relation_keywords(edge.attributes), edge.description), edge, ())
                for edge in described_edges.get(entity_id, ())]
    if not any(edge.type != "RELATED_TO" for _, edge in relations):
        return []
    return [(s, edge, edge.chunk_ids) for s, edge in relation_sentences(store, entity_id, typed_only=True)]


def relation_facets(store: WholeGraph) -> dict[str, Edge]:
    """The relation each facet record of the ``entities`` collection states: record id -> edge.

    The same enumeration :func:`graph_records` writes the facets with (one home), so a
    search over the entities collection can read a facet hit as a relation hit. Computed
    once per store object (the searches of one open index share it).
    """
    if store not in _RELATION_FACETS:
        _RELATION_FACETS[store] = _relation_facets(store)
    return _RELATION_FACETS[store]


_RELATION_FACETS: weakref.WeakKeyDictionary[Any, dict[str, Edge]] = weakref.WeakKeyDictionary()


def relation_facets_of(store: WholeGraph, record_ids: Collection[str]) -> dict[str, Edge]:
    """:func:`relation_facets` for the facet records ``record_ids`` only (record id -> edge; others left out).

    Reads only the owners of the asked records (:func:`facet_owner`), each enumerated as
    :func:`graph_records` writes its facets, and keeps them per store object: a query that meets a
    relation record pays for its entities, not for every entity of the index (the whole build took
    16.8 s at 100k passages, once per open index, in the first query that met one).
    """
    owners = _ENTITY_FACETS.setdefault(store, {})
    out: dict[str, Edge] = {}
    for record in record_ids:
        owner = facet_owner(record)
        number = record[len(owner) + len(FACET_MARK):]
        if owner == record or not number.isdigit() or f"{owner}{FACET_MARK}{int(number)}" != record:
            continue
        if owner not in owners:
            owners[owner] = _owner_facets(store, owner)
        edges = owners[owner]
        if int(number) < len(edges):
            out[record] = edges[int(number)]
    return out


_ENTITY_FACETS: weakref.WeakKeyDictionary[Any, dict[str, list[Edge]]] = weakref.WeakKeyDictionary()
_DESCRIBED_EDGES: weakref.WeakKeyDictionary[Any, dict[str, list[Edge]]] = weakref.WeakKeyDictionary()


def _owner_facets(store: WholeGraph, entity_id: str) -> list[Edge]:
    """The edge of each facet of one entity, facet ``n`` at index ``n`` (none for an unknown entity)."""
    if store.entity(entity_id) is None:
        return []
    if store not in _DESCRIBED_EDGES:  # whether any relation is described decides the facets of every entity
        _DESCRIBED_EDGES[store] = _described_edges(store)
    return _facet_edges(store, entity_id, _DESCRIBED_EDGES[store])


def _facet_edges(store: WholeGraph, entity_id: str, described_edges: Mapping[str, list[Edge]]) -> list[Edge]:
    """The edge of each facet record of an entity, facet ``n`` at index ``n`` (:func:`_entity_facets`)."""
    relations = [] if described_edges else relation_sentences(store, entity_id)
    return [edge for _, edge, _ in _entity_facets(store, entity_id, described_edges, relations)]


def _relation_facets(store: WholeGraph) -> dict[str, Edge]:
    described_edges = _described_edges(store)
    return {f"{e.id}{FACET_MARK}{n}": edge
            for e in store.entities() for n, edge in enumerate(_facet_edges(store, e.id, described_edges))}


def keyword_texts(store: WholeGraph, name: str, records: CollectionRecords) -> list[str]:
    """What the keyword index of a graph collection reads for each record.

    An entity record by its names and aliases; a facet by its relation
    sentence; a community by its whole report, in record order.
    """
    if name == "entities":
        out = []
        for rid, text in zip(records.ids, records.texts, strict=True):
            entity = store.graph.entities[facet_owner(rid)]
            out.append(text if FACET_MARK in rid else " ".join([entity.name, *entity.aliases]))
        return out
    return [report_text(r) for r in store.reports()]
