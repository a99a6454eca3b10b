"""Write an :class:`~agrag_lab.importing.model.ImportedIndex` into an index folder, through the index build.

The order keeps the folder readable at every moment:

1. everything the import embeds (chunks, entity records, report records) is
   embedded by the index's :class:`~agrag_lab.embedding.Embedder`, in
   batches with progress, into the embedding cache (a cache: the folder
   reads as before while this runs, and a crash here changes nothing it shows);
2. one SQLite transaction writes documents, versions, chunks and the
   imported graph, and bumps the generation;
3. :meth:`Graph.sync <agrag_lab.graph.Graph.sync>` (the index build) brings
   Chroma, bm25s and ``graph.json`` in line; it publishes the imported graph
   instead of extracting one. Interrupted, it completes on the next open.

Re-importing the same source changes nothing. An index that holds other
documents (or another import) is refused: an import needs a folder of its own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from agrag_lab.importing.errors import ImportConflictError
from agrag_lab.importing.model import ImportedIndex
from agrag_lab.importing.report import ImportReport
from agrag_lab.kg.index import IMPORTED_GRAPH, graph_records

if TYPE_CHECKING:
    from agrag_lab.graph import Graph, Progress

__all__ = ["IMPORT_FINGERPRINT", "IMPORT_SOURCE", "embedded_texts", "imported_source", "write_import"]

#: Meta key of the fingerprint of the import an index holds.
IMPORT_FINGERPRINT = "import_fingerprint"
#: Meta key of ``{"source": ..., "format": ...}`` of the import an index holds.
IMPORT_SOURCE = "import_source"


def imported_source(graph: Graph) -> dict[str, str] | None:
    """``{"source", "format"}`` of the import an index holds, or ``None`` for an index we built."""
    raw = graph.db.get_meta(IMPORT_SOURCE)
    if raw is None:
        return None
    data: dict[str, str] = json.loads(raw)
    return data


def embedded_texts(imported: ImportedIndex) -> list[tuple[str, list[tuple[str, str]]]]:
    """``(what, [(content hash, text)])`` per collection (chunks, entities, communities), exactly as
    the index build embeds them."""
    from agrag_lab.graph import content_hash, embed_text

    chunks = [
        (content_hash(text), text)
        for doc in imported.documents
        for text in (embed_text(doc.document.title, c) for c in doc.chunks)
    ]
    out = [("chunks", chunks)]
    for name, recs in graph_records(imported.store).items():
        out.append((name, list(zip(recs.hashes, recs.texts, strict=True))))
    return out


def _refuse(graph: Graph, held: Sequence[str], imported: ImportedIndex) -> ImportConflictError:
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
    graph: Graph,
    imported: ImportedIndex,
    *,
    progress: Progress | None = None,
    measure_raw_encode: bool = False,
) -> ImportReport:
    """Write ``imported`` into ``graph``'s folder (see the module docstring).

    Parameters
    ----------
    graph : Graph
        An index opened for writing, empty or holding this same import.
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
    graph._require_writable()
    started = time.perf_counter()
    fingerprint = imported.fingerprint()
    held = [r.id for r in graph.db.documents(include_removed=True)]
    texts = embedded_texts(imported)
    store = imported.store
    report = ImportReport(
        source=imported.source, format=imported.format, rows=imported.rows,
        documents=len(imported.documents), chunks=sum(len(d.chunks) for d in imported.documents),
        entities=len(store.graph.entities), relations=len(store.graph.edges),
        communities=len(store.communities()), reports=len(store.reports()), claims=imported.claims,
        skipped=imported.skipped, notes=imported.notes,
    )
    if held or graph.db.get_meta(IMPORTED_GRAPH) is not None:
        if graph.db.get_meta(IMPORT_FINGERPRINT) == fingerprint:
            return replace(report, unchanged=True, seconds=time.perf_counter() - started)
        raise _refuse(graph, held, imported)
    began = time.perf_counter()
    embedded = sum(graph._embed_missing(items, progress, what) for what, items in texts)
    embedding_seconds = time.perf_counter() - began
    raw = None
    if measure_raw_encode:
        plain = [t for _, items in texts for _, t in dict(items).items()]
        began = time.perf_counter()
        graph.embedder.embed(plain)
        raw = time.perf_counter() - began
    from agrag_lab.graph import content_hash, embed_text

    with graph.db.transaction() as conn:
        for doc in imported.documents:
            d = doc.document
            graph.db.put_version(
                conn, document_id=d.id, title=d.title, fmt=d.format, metadata=d.metadata, version=doc.version,
                text=d.text, sections=doc.sections, chunks=doc.chunks,
                content_hashes=[content_hash(embed_text(d.title, c)) for c in doc.chunks],
            )
        graph.db.set_meta(IMPORTED_GRAPH, store.dumps(), conn)
        graph.db.set_meta(IMPORT_FINGERPRINT, fingerprint, conn)
        graph.db.set_meta(IMPORT_SOURCE, json.dumps({"source": imported.source, "format": imported.format}), conn)
        graph.db.bump_generation(conn)
    graph.sync(progress)
    return replace(
        report, embedded=embedded, embedding_seconds=embedding_seconds, raw_encode_seconds=raw,
        seconds=time.perf_counter() - started,
    )
