"""The index build: the one owner of embedding, collection sync and keyword indexes.

- :mod:`~agrag_lab.index.records` — :class:`CollectionRecords`: what the
  ``chunks``, ``entities`` and ``communities`` collections hold.
- :mod:`~agrag_lab.index.build` — :class:`IndexBuild`: embeds (cached per
  content hash), syncs the vector collections, writes the bm25s keyword
  indexes and the graph file (``graph.json.gz``). :meth:`IndexBuild.write` is the entry point for
  writing an index from ready-made values (:class:`PreparedVersion` plus an
  optional finished knowledge graph); ``Graph.write_index`` calls it.
- :mod:`~agrag_lab.index.versions` — :class:`PreparedVersion`: a document
  version ready to write (:func:`prepare_document`, :func:`prepare_version`).
- :mod:`~agrag_lab.index.ingest` — :func:`plan_ingest`, :class:`IngestReport`:
  what an ingest writes, and what it did.
- :mod:`~agrag_lab.index.opening` — what opening a folder decides (embedder,
  local Chroma store, graph builders, derived stores completed or reported).

Examples
--------
>>> from agrag_lab.index import CollectionRecords
>>> CollectionRecords((), (), (), ()).ids
()
"""

from typing import TYPE_CHECKING

from agrag_lab.imports import lazy_exports

if TYPE_CHECKING:
    from agrag_lab.index.build import (
        GIVEN_GRAPH,
        GRAPH_FILE,
        LEGACY_GRAPH_FILE,
        IndexBuild,
        PreparedVersion,
        WriteResult,
        graph_file,
        outdated_layout,
        prepare_document,
        prepare_version,
    )
    from agrag_lab.index.records import (
        GRAPH_COLLECTIONS,
        CollectionRecords,
        chunk_metadata,
        chunk_records,
        content_hash,
        embed_text,
        graph_records,
        keyword_texts,
    )

#: Where each name of ``__all__`` is defined: imported on first use (``import agrag_lab.index.<module>`` stays light).
_EXPORTS = {
    "CollectionRecords": "agrag_lab.index.records",
    "GIVEN_GRAPH": "agrag_lab.index.build",
    "GRAPH_COLLECTIONS": "agrag_lab.index.records",
    "GRAPH_FILE": "agrag_lab.index.build",
    "IndexBuild": "agrag_lab.index.build",
    "LEGACY_GRAPH_FILE": "agrag_lab.index.build",
    "PreparedVersion": "agrag_lab.index.build",
    "WriteResult": "agrag_lab.index.build",
    "chunk_metadata": "agrag_lab.index.records",
    "chunk_records": "agrag_lab.index.records",
    "content_hash": "agrag_lab.index.records",
    "embed_text": "agrag_lab.index.records",
    "graph_file": "agrag_lab.index.build",
    "graph_records": "agrag_lab.index.records",
    "keyword_texts": "agrag_lab.index.records",
    "outdated_layout": "agrag_lab.index.build",
    "prepare_document": "agrag_lab.index.build",
    "prepare_version": "agrag_lab.index.build",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "GIVEN_GRAPH",
    "GRAPH_COLLECTIONS",
    "GRAPH_FILE",
    "LEGACY_GRAPH_FILE",
    "CollectionRecords",
    "IndexBuild",
    "PreparedVersion",
    "WriteResult",
    "chunk_metadata",
    "chunk_records",
    "content_hash",
    "embed_text",
    "graph_file",
    "graph_records",
    "keyword_texts",
    "outdated_layout",
    "prepare_document",
    "prepare_version",
]
