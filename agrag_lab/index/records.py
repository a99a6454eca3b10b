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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agrag_lab.documents import Chunk
from agrag_lab.kg.facets import FACET_MARK, facet_owner
from agrag_lab.kg.records import RELATIONS_IN_TEXT, entity_text, record_text, relation_phrases
from agrag_lab.kg.reports import report_text
from agrag_lab.kg.store import NetworkXGraphStore

#: The collections built from the knowledge graph (``chunks`` comes from SQLite).
GRAPH_COLLECTIONS = ("entities", "communities")


@dataclass(frozen=True)
class CollectionRecords:
    """What one searchable collection holds: ids, texts, store metadata, content hashes."""

    ids: tuple[str, ...]
    texts: tuple[str, ...]
    metadatas: tuple[Mapping[str, Any], ...]
    hashes: tuple[str, ...]


def content_hash(text: str) -> str:
    """sha256 of a text, the key of the embedding cache.

    Examples
    --------
    >>> content_hash("a")[:12]
    'ca978112ca1b'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def embed_text(title: str, chunk: Chunk) -> str:
    """The text embedded and keyword-indexed for a chunk: title, headings, then the text."""
    heads = [title] + [h for h in chunk.heading_path if h != title]
    return " > ".join(h for h in heads if h) + "\n" + chunk.text


def chunk_metadata(chunk: Chunk, properties: Mapping[str, Any], fp: str) -> dict[str, str | int | float | bool]:
    """Store metadata of a chunk: ids for scope filters, ``p_<key>`` for properties."""
    meta: dict[str, str | int | float | bool] = {
        "document_id": chunk.document_id,
        "version": chunk.version,
        "kind": chunk.kind,
        "fp": fp,
    }
    for key, value in properties.items():
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
        texts.append(embed_text(record.title, chunk))
        metas.append(chunk_metadata(chunk, record.metadata, h))
        hashes.append(h)
    return CollectionRecords(tuple(ids), tuple(texts), tuple(metas), tuple(hashes))


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
            metas.append({"item_id": e.id, "label": e.label, "fp": content_hash(text)})
    out["entities"] = CollectionRecords(tuple(ids), tuple(texts), tuple(metas), tuple(m["fp"] for m in metas))
    reports = store.reports()
    rtexts = [record_text(report_text(r)) for r in reports]
    out["communities"] = CollectionRecords(
        tuple(r.community_id for r in reports), tuple(rtexts),
        tuple({"item_id": r.community_id, "level": r.level, "fp": content_hash(t)} for r, t in zip(reports, rtexts, strict=True)),
        tuple(content_hash(t) for t in rtexts),
    )
    return out


def keyword_texts(store: NetworkXGraphStore, name: str, records: CollectionRecords) -> list[str]:
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
