"""Write an :class:`~agrag_lab.importing.model.ImportedIndex` into an index folder, through the index build.

The import hands its values to the index build's entry point for ready-made
values (:meth:`agrag_lab.index.build.IndexBuild.write`, which
:meth:`Graph.write_index <agrag_lab.graph.Graph.write_index>` forwards to)
through :class:`ImportTarget`, the narrow part of an index an import needs: document versions with their
chunks, and the finished knowledge graph (kept as given, never extracted).
That build embeds everything (chunks, entity records, report records) in
batches with progress *before* committing, commits versions and graph in one
SQLite transaction, then syncs Chroma, bm25s and the graph file: a crash at
any point leaves the folder reading as before, and reopening completes a sync.

Re-importing the same source changes nothing. An index that holds other
documents (or another import) is refused: an import needs a folder of its own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from agrag_lab.importing.aliases import ALIASES_META, Aliases, load_aliases
from agrag_lab.importing.errors import ImportConflictError, ImportSourceError
from agrag_lab.importing.model import ImportedIndex
from agrag_lab.importing.report import ImportReport
from agrag_lab.index.build import PreparedVersion, WriteResult
from agrag_lab.index.records import DESCRIBED_BY, graph_records, relation_facets
from agrag_lab.storage.meta_keys import GIVEN_GRAPH, IMPORT_EMBEDDING, IMPORT_SOURCE

if TYPE_CHECKING:
    from agrag_lab.embedding import Embedder
    from agrag_lab.graph_stores.networkx import NetworkXGraphStore
    from agrag_lab.progress import Progress
    from agrag_lab.storage.documents_db import DocumentDB

__all__ = ["IMPORT_SOURCE", "ImportTarget", "builder_aliases", "embedded_texts", "imported_source", "write_import"]


class ImportTarget(Protocol):
    """What an import needs of an index (:class:`~agrag_lab.graph.Graph` has it): its folder, its
    documents database, its embedder, and the index build's write of ready-made values."""

    @property
    def path(self) -> Path: ...

    @property
    def db(self) -> DocumentDB: ...

    @property
    def embedder(self) -> Embedder: ...

    def write_index(  # the import writes new versions and its graph, never removes
        self, versions: Sequence[PreparedVersion], *, knowledge_graph: NetworkXGraphStore | None = ...,
        progress: Progress | None = ...,
    ) -> WriteResult: ...



def imported_source(graph: ImportTarget) -> dict[str, str] | None:
    """``{"source", "format"}`` of the import an index holds, or ``None`` for an index we built."""
    raw = graph.db.get_meta(IMPORT_SOURCE)
    if raw is None:
        return None
    data: dict[str, str] = json.loads(raw)
    return data


def builder_aliases(graph: ImportTarget) -> Aliases:
    """The builder ids an index answers to (empty for an index we built)."""
    return load_aliases(graph.db.get_meta(ALIASES_META))


def embedded_texts(imported: ImportedIndex) -> list[str]:
    """Every distinct text the import embeds (chunks, entity records, report records), as the index build embeds them."""
    texts = {h: t for v in imported.documents for h, t in zip(v.hashes, v.texts, strict=True)}
    chunk_hashes = {c.id: h for v in imported.documents for c, h in zip(v.chunks, v.hashes, strict=True)}
    titles = {v.document.id: v.document.title for v in imported.documents}
    for recs in graph_records(imported.store, chunk_hashes, titles).values():
        texts.update(recs.embedded())
    return list(texts.values())


def _holds(graph: ImportTarget, imported: ImportedIndex) -> bool:
    """Whether the index holds exactly this import: its documents' current versions and its graph."""
    current = {(r.id, r.current_version) for r in graph.db.documents(include_removed=True) if not r.removed}
    wanted = {(v.document.id, v.version) for v in imported.documents}
    return current == wanted and graph.db.get_meta(GIVEN_GRAPH) == imported.store.dumps()


def _refuse(graph: ImportTarget, held: Sequence[str], imported: ImportedIndex) -> ImportConflictError:
    source = imported_source(graph)
    what = (
        f"the import of {source['source']} ({source['format']})" if source else
        f"{len(held)} documents ({', '.join(held[:3])}{', ...' if len(held) > 3 else ''})"
    )
    name = Path(imported.source).name or "import"
    return ImportConflictError(
        f"{graph.path} already holds {what}; an import needs an index folder of its own: pass a new "
        f"folder, e.g. --index {graph.path.parent / (graph.path.name + '-' + name)} "
        f"(Graph.open of a path that does not exist yet)"
    )


def write_import(
    graph: ImportTarget,
    imported: ImportedIndex,
    *,
    progress: Progress | None = None,
    measure_raw_encode: bool = False,
) -> ImportReport:
    """Write ``imported`` into ``graph``'s folder (see the module docstring).

    Parameters
    ----------
    graph : ImportTarget
        An index (a :class:`~agrag_lab.graph.Graph`) opened for writing, empty or holding this same import.
    imported : ImportedIndex
        From :func:`~agrag_lab.importing.graphrag.read_graphrag` or
        :func:`~agrag_lab.importing.graphml.read_graphml`.
    progress : callable, optional
        ``progress(iterable, total, description)`` around each embedding loop
        (``"embedding chunks"``, ``"embedding entities"``, ``"embedding communities"``).
    measure_raw_encode : bool
        Also time one plain ``embedder.embed`` of the same texts (for benchmarks).

    Raises
    ------
    ImportConflictError
        The folder holds other documents or another import.
    """
    started = time.perf_counter()
    store = imported.store
    report = ImportReport(
        source=imported.source, format=imported.format, rows=imported.rows,
        documents=len(imported.documents), chunks=sum(len(d.chunks) for d in imported.documents),
        entities=len(store.graph.entities), relations=len(store.graph.edges),
        communities=len(store.communities()), reports=len(store.reports()), claims=imported.claims,
        placement=imported.placement, aliases=len(imported.aliases), skipped=imported.skipped, notes=imported.notes,
    )
    held = [r.id for r in graph.db.documents(include_removed=True)]
    if held or graph.db.get_meta(GIVEN_GRAPH) is not None:
        if _holds(graph, imported):
            return replace(report, unchanged=True, seconds=time.perf_counter() - started)
        raise _refuse(graph, held, imported)
    reused, note = _builder_vectors(graph, imported)
    if note:
        report = replace(report, notes=(*report.notes, note))
    written = graph.write_index(imported.documents, knowledge_graph=store, progress=progress)
    with graph.db.transaction() as conn:  # what the messages name; the index reads the same without it
        graph.db.set_meta(IMPORT_SOURCE, json.dumps({"source": imported.source, "format": imported.format}), conn)
        if len(imported.aliases):
            graph.db.set_meta(ALIASES_META, imported.aliases.dumps(), conn)
        searched = (f"searched by {_searched_by(graph.embedder)}"
                    + (f", the builder's model; {reused} of its stored vectors reused" if reused else "")
                    + (f": {note}" if note else ""))
        graph.db.set_meta(IMPORT_EMBEDDING, searched, conn)
    seconds = time.perf_counter() - started
    raw = None
    if measure_raw_encode:
        texts = embedded_texts(imported)
        began = time.perf_counter()
        graph.embedder.embed(texts)
        raw = time.perf_counter() - began
    return replace(
        report, embedded=written.embedded + written.graph_embedded, embedding_seconds=written.embed_seconds,
        raw_encode_seconds=raw, seconds=seconds, searched_by=_searched_by(graph.embedder), reused=reused,
    )


def _searched_by(embedder: Embedder) -> str:
    from agrag_lab.embedding import EndpointEmbedder

    if isinstance(embedder, EndpointEmbedder):
        return f"{embedder.name} through {embedder.url}"
    return f"{embedder.name} (local)"


def stored_by_hash(imported: ImportedIndex) -> dict[str, np.ndarray]:
    """The builder's stored vectors keyed as the index build keys the records they belong to (content hashes):
    a chunk's, an entity's own record's, a relation's records' (one per end), a report's. Records the builder
    did not embed are not in it (the index embeds them with the same model)."""
    stored = imported.stored
    if stored is None:
        return {}
    out: dict[str, np.ndarray] = {}
    chunk_hashes = {c.id: h for v in imported.documents for c, h in zip(v.chunks, v.hashes, strict=True)}
    out.update({chunk_hashes[c]: vec for c, vec in stored.chunks.items() if c in chunk_hashes})
    titles = {v.document.id: v.document.title for v in imported.documents}
    collections = graph_records(imported.store, chunk_hashes, titles)
    records = collections["entities"]
    facets = relation_facets(imported.store)
    for row, rid in enumerate(records.ids):
        if records.source_of(row):
            continue  # a mean of chunk vectors, not an embedded text
        edge = facets.get(rid)
        vector = stored.relations.get(frozenset((edge.source, edge.target))) if edge else stored.entities.get(rid)
        if vector is not None:
            out[records.hashes[row]] = vector
    reports = collections["communities"]
    for row, cid in enumerate(reports.ids):
        if not reports.source_of(row) and cid in stored.reports:
            out[reports.hashes[row]] = stored.reports[cid]
    return out


def _lost(imported: ImportedIndex) -> list[tuple[str, int, str]]:
    """What the builder embeds but stored no vector for: ``(kind, how many, the first)`` per kind."""
    stored = imported.stored
    if stored is None:
        return []
    store = imported.store
    wanted: dict[str, list[str]] = {
        "described entities": [e.name for e in store.entities() if e.attributes and dict(e.attributes).get(DESCRIBED_BY)
                               and e.id not in stored.entities] if "entities" in stored.kinds else [],
        "chunks": [c.id for v in imported.documents for c in v.chunks if c.id not in stored.chunks]
        if "chunks" in stored.kinds else [],
        "community reports": [r.community_id for r in store.reports() if r.full_content
                              and r.community_id not in stored.reports] if "reports" in stored.kinds else [],
    }
    return [(kind, len(names), names[0]) for kind, names in wanted.items() if names]


def _not_embedded(imported: ImportedIndex) -> list[str]:
    """The kinds of records the builder embeds none of (GraphRAG's relationship descriptions, by default)."""
    stored = imported.stored
    if stored is None or imported.format == "lightrag":
        return []
    out = []
    if "reports" not in stored.kinds and any(r.full_content for r in imported.store.reports()):
        out.append("community reports")
    if "chunks" not in stored.kinds and any(v.chunks for v in imported.documents):
        out.append("text units")
    if "relations" not in stored.kinds and any(dict(e.attributes).get(DESCRIBED_BY) for e in imported.store.graph.edges):
        out.append("relationship descriptions")
    return out


def _builder_vectors(graph: ImportTarget, imported: ImportedIndex) -> tuple[int, str]:
    """Put the builder's stored vectors in the embedding cache when the index is searched by the builder's model
    (an endpoint embedder of the vectors' length): ``(vectors reused, a note for the report)``.

    Raises
    ------
    MissingExtraError
        The index is searched through an endpoint (the builder's model) and the builder's vectors could not be
        read for want of a package (GraphRAG's LanceDB tables without ``lancedb``): nothing is embedded again
        behind the user's back.
    """
    from agrag_lab.embedding import EndpointEmbedder
    from agrag_lab.errors import MissingExtraError

    stored = imported.stored
    embedder = graph.embedder
    if imported.vectors_unread and isinstance(embedder, EndpointEmbedder):
        raise MissingExtraError(
            f"{imported.vectors_unread}. Install it and import again, or import without --embedding-model/"
            "--embedding-url to embed every text with a local model (the report says so)"
        )
    if stored is None or not len(stored):
        return 0, ""
    if not isinstance(embedder, EndpointEmbedder):
        how = "--embedding-model NAME --embedding-url URL"
        if imported.format.startswith("graphrag"):
            from agrag_lab.importing.graphrag_settings import builder_embedding

            named = builder_embedding(Path(imported.source))
            if named.model:  # its settings.yaml says which: the flags it takes
                how = f"--embedding-url {named.url or 'URL'} (its settings.yaml names the model, {named.model})"
        return 0, (
            f"the builder stored {len(stored)} vectors of length {stored.dimension} ({stored.source}); this index is "
            f"searched by {embedder.name}, another model than its builder's, so they are not used: every text is "
            "embedded again, scores and order can differ from the builder's own search, and a question in another "
            f"language than the model's misses. To search with the builder's model, import with {how} "
            "(key in AGRAG_EMBEDDING_API_KEY)"
        )
    if embedder.dimension != stored.dimension:
        raise ImportSourceError(
            f"{imported.source}: the builder's stored vectors ({stored.source}) are {stored.dimension} long, "
            f"{embedder.name} at {embedder.url} answers vectors of {embedder.dimension}: it is not the model that "
            f"built the index, and a query it embeds cannot be compared with them. Pass --embedding-model with the "
            f"builder's own model (one of {stored.dimension} dimensions), or leave out --embedding-model and "
            "--embedding-url to embed everything again with a local model; nothing was written"
        )
    vectors = stored_by_hash(imported)
    graph.db.put_embeddings(embedder.name, vectors)
    notes = []
    how = (f"GraphRAG's own search cannot find them by vector; here they are embedded with {embedder.name}"
           if imported.format.startswith("graphrag") else
           f"they are embedded with {embedder.name}, as the builder embeds a record it is missing")
    notes += [f"{count} {kind} have no vector record of the builder (first: {first!r}); {how}"
              for kind, count, first in _lost(imported)]
    never = _not_embedded(imported)
    if never:
        notes.append(f"the builder embedded no {', no '.join(never)}; those records are embedded with {embedder.name}")
    return len(vectors), "; ".join(notes)
