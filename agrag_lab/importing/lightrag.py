"""Map a LightRAG working directory to our frozen values, passages included (pure functions).

A working directory holds the graph (``graph_chunk_entity_relation.graphml``)
and the texts it was built from: ``kv_store_text_chunks.json`` (every chunk:
``content``, ``full_doc_id``, ``chunk_order_index``, ``tokens``, ``file_path``)
and, when present, ``kv_store_full_docs.json`` (every document's ``content``).

- Documents keep LightRAG's text; without ``kv_store_full_docs.json`` each is
  rebuilt from its chunks in ``chunk_order_index`` order, separated by blank
  lines (overlapping windows then repeat their overlap; the report says so).
  A document's id is its file name when that is a valid id, else LightRAG's.
- Chunks are located in their document like GraphRAG's text units
  (:func:`~agrag_lab.importing.locate.locate_unit`: exact, or approximately when
  a token window split a multi-byte character); one that cannot be placed is
  kept byte-exact as an unplaced chunk of its own.
- Nodes become entities: name (``entity_id``, else the node id), type,
  description (LightRAG joins the descriptions it merged with ``<SEP>``; kept as
  lines), their chunks (``source_id``, ``<SEP>``-joined) and ``file_path``.
- Edges become ``RELATED_TO`` relations with description, ``keywords`` and
  ``weight``, their ends in the order of the builder's vector record
  (``vdb_relationships.json``: ``src_id``, ``tgt_id``), else sorted by name as
  lightrag-hku 1.5.7 writes them (GraphML's edge direction is arbitrary there); an entity embeds ``name`` + description and a relation
  ``keywords`` + ends + description, as LightRAG embeds them
  (:func:`~agrag_lab.index.records.graph_records`).
- Both layouts read: 2024-2025 (``chunk-<md5>`` chunk ids, nodes without
  ``entity_id``, names in literal quotes ``"NAME"``: the quotes are stripped, the
  quoted name kept as an alias) and the current one (``entity_id``, ``created_at``,
  ``truncate``, ``doc-<md5>-chunk-<n>`` ids), and graphs inserted with
  ``insert_custom_kg`` (chunk ids of the user's choosing, no documents).
- Every chunk id, document id and entity name is an alias of ours
  (:mod:`~agrag_lab.importing.aliases`).

LightRAG keeps no communities or reports: the index has none.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agrag_lab.documents import Chunk, Document, Section
from agrag_lab.errors import EvidenceIdError
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.ids import check_document_id, version_hash
from agrag_lab.importing.aliases import alias_key, merged
from agrag_lab.importing.errors import ImportSourceError
from agrag_lab.importing.graphml import _read as read_graphml_file
from agrag_lab.importing.graphml import adjacency_order
from agrag_lab.importing.graphrag import UNPLACED_REASON, unplaced_document
from agrag_lab.importing.lightrag_vectors import RELATIONS_VDB, read_vdb, relation_ends, stored_vectors
from agrag_lab.importing.locate import locate_unit
from agrag_lab.importing.model import ImportedIndex
from agrag_lab.importing.report import Skipped
from agrag_lab.importing.validate import (
    FieldKind,
    ImportLimits,
    check_bytes,
    check_graph,
    check_record,
    check_rows,
)
from agrag_lab.index.build import PreparedVersion, prepare_version
from agrag_lab.index.records import DESCRIBED_BY, KEYWORDS, builder_embeds
from agrag_lab.kg.described import BUILDER_ORDER
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph, assign_entity_ids
from agrag_lab.kg.schema import GraphSchema
from agrag_lab.kg.text import natural_key, slugify
from agrag_lab.names import first_words

__all__ = ["CHUNKS_FILE", "CHUNK_FIELDS", "DOCS_FILE", "DOC_FIELDS", "GRAPH_FILE", "SEP", "is_lightrag_dir", "read_lightrag"]

#: The graph of a LightRAG working directory.
GRAPH_FILE = "graph_chunk_entity_relation.graphml"
#: Every chunk's text.
CHUNKS_FILE = "kv_store_text_chunks.json"
#: Every document's text (optional).
DOCS_FILE = "kv_store_full_docs.json"
#: What LightRAG joins merged values with.
SEP = "<SEP>"
#: What LightRAG's custom-KG API writes for a source it cannot map and a node it adds for a relation's end.
UNKNOWN = "UNKNOWN"


def is_lightrag_dir(folder: Path) -> bool:
    """Whether ``folder`` is a LightRAG working directory (its graph and its chunks side by side)."""
    return (folder / GRAPH_FILE).is_file() and (folder / CHUNKS_FILE).is_file()


def _split(value: Any) -> list[str]:
    return [part.strip() for part in str(value or "").split(SEP) if part.strip()]


def _text(value: Any) -> str:
    """A ``<SEP>``-joined description as lines."""
    return "\n".join(_split(value))


def clean_name(raw: str) -> str:
    """An entity name without the literal quotes LightRAG's 2024-2025 layout wrapped it in.

    Examples
    --------
    >>> clean_name('"SCROOGE"'), clean_name("Scrooge"), clean_name('"')
    ('SCROOGE', 'Scrooge', '"')
    """
    text = raw.strip()
    return text[1:-1].strip() or text if len(text) > 2 and text[0] == text[-1] == '"' else text


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ImportSourceError(
            f"{path} cannot be read as JSON ({type(exc).__name__}: {str(exc)[:200]}); copy it again from the "
            "LightRAG working directory"
        ) from None
    if not isinstance(data, dict):
        raise ImportSourceError(f"{path} holds {type(data).__name__}, not LightRAG's {{id: record}} object")
    return data


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _document_id(name: str, given: str, taken: set[str]) -> str:
    base = Path(name).name if name and name not in ("unknown_source", "custom_kg") else ""
    try:
        candidate = check_document_id(base) if base else ""
    except EvidenceIdError:
        candidate = slugify(base)
    candidate = candidate or given
    try:
        check_document_id(candidate)
    except EvidenceIdError:
        candidate = slugify(candidate) or f"doc-{len(taken)}"
    while candidate in taken:
        candidate += "-1"
    taken.add(candidate)
    return candidate


class _Mapper:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.notes: list[str] = []
        self.skipped: list[Skipped] = []

    def documents(
        self, chunks: Mapping[str, Mapping[str, Any]], docs: Mapping[str, Mapping[str, Any]] | None,
    ) -> tuple[list[PreparedVersion], dict[str, str], dict[str, str], dict[str, int]]:
        """Versions with their chunks; LightRAG chunk id -> ours, LightRAG doc id -> ours, placement counts."""
        by_doc: dict[str, list[tuple[str, Mapping[str, Any]]]] = defaultdict(list)
        for cid, given in chunks.items():
            by_doc[str(given.get("full_doc_id") or given.get("source_id") or cid)].append((cid, given))
        for ordered in by_doc.values():
            ordered.sort(key=lambda u: (_int(u[1].get("chunk_order_index")), natural_key(u[0])))
        out: list[PreparedVersion] = []
        chunk_ids: dict[str, str] = {}
        doc_ids: dict[str, str] = {}
        taken: set[str] = set()
        lost: list[tuple[str, str, list[Mapping[str, Any]]]] = []
        approximate = rebuilt = 0
        for gid in sorted(set(by_doc) | set(docs or {}), key=natural_key):
            units = by_doc.get(gid, [])
            record = (docs or {}).get(gid)
            file_path = str((record or {}).get("file_path") or (units[0][1].get("file_path") if units else "") or "")
            doc_id = _document_id(file_path, gid, taken)
            doc_ids[gid] = doc_id
            if record is not None:
                text = str(record.get("content") or "")
            else:
                rebuilt += 1
                text = "\n\n".join(str(u.get("content") or "") for _, u in units)
            # a person reads a document's own name: its file, else its first words (LightRAG's id is a hash)
            named = file_path and file_path not in ("unknown_source", "custom_kg")
            title = Path(file_path).name if named else (first_words(text, words=8, chars=16) or gid)
            if not text.strip():
                self.notes.append(f"document {gid!r} has no text: its chunks are kept unplaced")
                lost.append((doc_id, title, [{"id": c, "text": str(u.get("content") or "")} for c, u in units]))
                continue
            version = version_hash(text)
            found: list[tuple[Any, str]] = []
            missing: list[Mapping[str, Any]] = []
            hint = 0
            for cid, unit in units:
                loc = locate_unit(text, str(unit.get("content") or ""), hint)
                if loc is None:
                    missing.append({"id": cid, "text": str(unit.get("content") or "")})
                    continue
                approximate += loc.approximate
                found.append((loc, cid))
                hint = loc.start + 1
            if missing:
                lost.append((doc_id, title, missing))
            found.sort(key=lambda lc: (lc[0].start, lc[0].end, lc[1]))
            heading = (title,)
            made = []
            for index, (loc, cid) in enumerate(found):
                chunk = Chunk(doc_id, version, index, text[loc.start : loc.end], loc.start, loc.end, "paragraph", 0, heading)
                made.append(chunk)
                chunk_ids[cid] = chunk.id
            content = {cid: str(unit.get("content") or "") for cid, unit in units}
            embeds = builder_embeds([(c, content[cid]) for c, (_, cid) in zip(made, found, strict=True)])
            metadata = {"source": "lightrag", "lightrag_id": gid, **embeds, **({"file_path": file_path} if file_path else {})}
            out.append(prepare_version(Document(doc_id, title, text, "text", metadata),
                                       (Section(0, title, 0, 0, len(text), None, heading),), made))
        kept = 0
        for doc_id, title, homeless in lost:
            if homeless:
                home, ids = unplaced_document(doc_id, title, homeless, UNPLACED_REASON.replace("GraphRAG", "LightRAG"), taken)
                out.append(home)
                chunk_ids.update(ids)
                kept += len(homeless)
        if rebuilt:
            self.notes.append(
                f"{rebuilt} documents are not in {DOCS_FILE}: each is rebuilt from its chunks in chunk_order_index "
                "order, separated by blank lines (overlapping chunks repeat their overlap)"
            )
        if kept:
            self.notes.append(f"{kept} chunks could not be placed in their document's text; each is kept byte-exact "
                              "as a chunk of its own in a document '<document>.unplaced'")
        if approximate:
            self.notes.append(
                f"{approximate} chunks were cut inside a multi-byte character by LightRAG's token windows (they "
                "start or end with U+FFFD); each chunk holds the document's text there, whole characters"
            )
        placement = {"exact": len(chunk_ids) - kept - approximate, "approximate": approximate, "unplaced": kept}
        return out, chunk_ids, doc_ids, placement

    def graph(
        self, g: Any, chunk_ids: Mapping[str, str], chunk_docs: Mapping[str, str],
        ends: Mapping[frozenset[str], tuple[str, str]],
    ) -> tuple[KnowledgeGraph, dict[str, str]]:
        nodes = sorted(g.nodes(data=True), key=lambda n: str(n[0]))
        raw_names = [str(a.get("entity_id") or n) for n, a in nodes]
        names = [clean_name(n) for n in raw_names]
        ids = assign_entity_ids([(name, str(n), len(_split(a.get("source_id")))) for (n, a), name in zip(nodes, names, strict=True)])
        by_node = {str(n): eid for (n, _), eid in zip(nodes, ids, strict=True)}
        unknown: set[str] = set()
        raw_of = {str(n): raw for (n, _), raw in zip(nodes, raw_names, strict=True)}
        entities = []
        for (node, attrs), name, raw, eid in zip(nodes, names, raw_names, ids, strict=True):
            given = _split(attrs.get("source_id"))
            unknown.update(c for c in given if c not in chunk_ids)
            chunks = sorted({chunk_ids[c] for c in given if c in chunk_ids}, key=natural_key)
            docs = sorted({chunk_docs[c] for c in chunks})
            description = _text(attrs.get("description"))
            extra: dict[str, str | int | float | bool] = {"lightrag_id": str(node)}
            for key in ("file_path", "created_at", "truncate"):
                value = attrs.get(key)
                if isinstance(value, (str, int, float, bool)) and value != "":
                    extra[key] = value
            if description and description != UNKNOWN:  # UNKNOWN: LightRAG's placeholder, not a description
                extra[DESCRIBED_BY] = "lightrag"
            first = {d: next(c for c in chunks if chunk_docs[c] == d) for d in docs}
            entities.append(Entity(
                eid, name, str(attrs.get("entity_type") or "").strip() or "Entity", description=description,
                chunk_ids=tuple(chunks), document_ids=tuple(docs),
                descriptions=tuple((first[d], description) for d in docs) if description else (),
                forms=tuple((d, n) for d in docs for n in dict.fromkeys((name, raw))), attributes=tuple(sorted(extra.items())),
                aliases=(raw,) if raw != name else (),
            ))
        edges: dict[tuple[str, str, str], Edge] = {}
        repeated = 0
        node_of = {raw: node for node, raw in raw_of.items()}
        order = adjacency_order(g)
        for u, v, attrs in g.edges(data=True):
            head, tail = ends.get(frozenset((raw_of[str(u)], raw_of[str(v)])),
                                     tuple(sorted((raw_of[str(u)], raw_of[str(v)]))))
            pair = (by_node[node_of[head]], by_node[node_of[tail]], "RELATED_TO")
            if pair in edges or (pair[1], pair[0], pair[2]) in edges:
                repeated += 1
                continue
            named = _split(attrs.get("source_id"))
            unknown.update(c for c in named if c not in chunk_ids)
            support = tuple(sorted({chunk_ids[c] for c in named if c in chunk_ids}, key=natural_key))
            said = _text(attrs.get("description"))
            kept_attrs: dict[str, str | int | float | bool] = {KEYWORDS: str(attrs.get("keywords") or "").strip()}
            if frozenset((str(u), str(v))) in order:  # LightRAG reads a node's relations in this order
                kept_attrs[BUILDER_ORDER] = order[frozenset((str(u), str(v)))]
            for name in ("weight", "file_path", "created_at", "truncate"):
                value = attrs.get(name)
                if isinstance(value, (str, int, float, bool)) and value != "":
                    kept_attrs[name] = value
            edges[pair] = Edge(
                pair[0], pair[1], pair[2], support, (), tuple((c, said) for c in support) if said else (), said,
                tuple(sorted((k, val) for k, val in kept_attrs.items() if val != "")),
            )
        if UNKNOWN in unknown:
            unknown.discard(UNKNOWN)
            self.notes.append(
                f"some entities or relations have source_id {UNKNOWN!r}: LightRAG's custom-KG API stores it when "
                "the chunk alias it was given names no chunk; they are kept without that supporting chunk"
            )
        if unknown:
            self.notes.append(
                f"{len(unknown)} chunk ids named in source_id are not in {CHUNKS_FILE} (first: {sorted(unknown)[0]!r}); "
                "the entities and relations naming them keep their other chunks"
            )
        self.skip("edges", repeated, "they repeat a pair of entities already imported (a multigraph)")
        mentions: dict[str, set[str]] = {c: set() for c in chunk_docs}
        for e in entities:
            for c in e.chunk_ids:
                mentions[c].add(e.id)
        labels = sorted({e.label for e in entities} | {"Entity"})
        schema = GraphSchema(tuple(labels), ("RELATED_TO",), "Entity", "RELATED_TO", ())
        return KnowledgeGraph.create(entities, edges.values(), (), (), mentions, chunk_docs, chunk_docs, schema), by_node

    def skip(self, table: str, count: int, reason: str) -> None:
        if count:
            self.skipped.append(Skipped(table, count, reason))


#: The fields of a chunk record the import reads, with their kinds.
CHUNK_FIELDS: Mapping[str, FieldKind] = {
    "content": "text", "full_doc_id": "text?", "source_id": "text?", "chunk_order_index": "int?", "file_path": "text?",
}
#: The fields of a document record the import reads, with their kinds.
DOC_FIELDS: Mapping[str, FieldKind] = {"content": "text", "file_path": "text?"}


def _checked(path: Path, records: Mapping[str, Any], fields: Mapping[str, FieldKind], limits: ImportLimits) -> None:
    """Every record of a kv_store file an object whose fields hold their kinds (else the record is named)."""
    check_rows(str(path), len(records), limits)
    fix = (f"LightRAG writes {{id: {{{', '.join(fields)}}}}}: fix or remove that record, or copy {path.name} "
           "again from the working directory")
    for key, record in records.items():
        check_record(str(path), key, record, fields, fix)


def read_lightrag(folder: str | Path, *, limits: ImportLimits | None = None) -> ImportedIndex:
    """Read and map a LightRAG working directory (see the module docstring); nothing is written.

    Every chunk and document record is checked (an object with a string
    ``content``, see :data:`CHUNK_FIELDS`), and the files' size, the records
    and the graph's nodes, edges and descriptions are held to ``limits``
    (the size before anything is read).

    Raises
    ------
    ImportSourceError
        ``folder`` is not a LightRAG working directory, one of its files is
        not readable (the file named), or a record is not an object or has a
        field of another type (file, record and field named).
    ImportLimitError
        The files, the records or a description are past ``limits``.

    Examples
    --------
    >>> imported = read_lightrag("tests/fixtures/peers/lightrag")      # doctest: +SKIP
    >>> imported.format, imported.placement["unplaced"]                 # doctest: +SKIP
    ('lightrag', 0)
    """
    path = Path(folder)
    if path.is_file() and path.name == GRAPH_FILE:
        path = path.parent
    if not path.is_dir() or not (path / GRAPH_FILE).is_file():
        raise ImportSourceError(
            f"{path} is not a LightRAG working directory: it holds no {GRAPH_FILE}; pass the folder LightRAG "
            f"wrote (working_dir), holding {GRAPH_FILE} and {CHUNKS_FILE}"
        )
    if not (path / CHUNKS_FILE).is_file():
        raise ImportSourceError(
            f"{path} holds {GRAPH_FILE} but no {CHUNKS_FILE}: the chunks' text is missing; copy the whole working "
            f"directory, or import the graph alone with `agrag-lab import graphml {path / GRAPH_FILE}`"
        )
    limits = limits or ImportLimits()
    check_bytes((path / GRAPH_FILE, path / CHUNKS_FILE, path / DOCS_FILE), limits, f"LightRAG working directory {path}")
    mapper = _Mapper(path)
    chunks = _json(path / CHUNKS_FILE)
    _checked(path / CHUNKS_FILE, chunks, CHUNK_FIELDS, limits)
    docs = _json(path / DOCS_FILE) if (path / DOCS_FILE).is_file() else None
    if docs is not None:
        _checked(path / DOCS_FILE, docs, DOC_FIELDS, limits)
    g = read_graphml_file(path / GRAPH_FILE)
    check_graph(str(path / GRAPH_FILE), g, limits)
    versions, chunk_ids, doc_ids, placement = mapper.documents(chunks, docs)
    chunk_docs = {c.id: v.document.id for v in versions for c in v.chunks}
    graph, by_node = mapper.graph(g, chunk_ids, chunk_docs, relation_ends(read_vdb(path / RELATIONS_VDB)))
    aliases = merged(
        ((cid, ("source", ours)) for cid, ours in chunk_ids.items()),
        ((gid, ("document", ours)) for gid, ours in doc_ids.items()),
        ((alias_key("entity", node), ("entity", eid)) for node, eid in by_node.items()),
        ((alias_key("entity", graph.entities[eid].name), ("entity", eid)) for eid in by_node.values()),
    )
    entity_of = {str(a.get("entity_id") or n): by_node[str(n)] for n, a in g.nodes(data=True)}
    stored = stored_vectors(path, entity_of, chunk_ids)
    rows = {"chunks": len(chunks), "documents": len(docs) if docs is not None else 0,
            "nodes": g.number_of_nodes(), "edges": g.number_of_edges()}
    layout = "current" if any("entity_id" in a for _, a in g.nodes(data=True)) else "2024-2025"
    mapper.notes.insert(0, f"LightRAG working directory, {layout} layout")
    return ImportedIndex(
        str(path), "lightrag", tuple(versions), NetworkXGraphStore(graph), rows, tuple(mapper.skipped),
        tuple(mapper.notes), 0, placement, aliases, stored,
    )
