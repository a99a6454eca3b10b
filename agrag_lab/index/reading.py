"""The read protocol of an opened index folder: what search reads, apart from what writes it.

:class:`IndexReader` is what the read path (the search stores of
:mod:`agrag_lab.retrieval`, the cached vector store of
:mod:`agrag_lab.index.vectors`) depends on: the documents database, the
keyword indexes, the records of each vector collection and their vectors, the
loaded knowledge graph, and where the index stands (its stamps and warnings).
:class:`~agrag_lab.index.build.IndexBuild`, which writes, syncs, extracts and
embeds, implements it; nothing that only reads imports the build.

Examples
--------
>>> from agrag_lab.index.build import IndexBuild
>>> sorted(set(READS) - set(dir(IndexBuild)))
[]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from agrag_lab.documents import Chunk
    from agrag_lab.graph_stores.networkx import NetworkXGraphStore
    from agrag_lab.index.records import CollectionRecords
    from agrag_lab.kg.graph_store import WholeGraph
    from agrag_lab.storage.documents_db import DocumentDB
    from agrag_lab.storage.keyword import KeywordIndex

__all__ = ["READS", "IndexReader", "IndexStamp"]

#: Where an index stands: its documents' generation, the derived stores' generation, and whether a sync runs.
IndexStamp = tuple[int, int, bool]

#: The methods of :class:`IndexReader` (its attribute ``db`` aside).
READS = ("change_warnings", "chunk_records", "consistency_warnings", "graph", "graph_records", "hosted",
         "keyword_index", "record_vectors", "stamp")


class IndexReader(Protocol):
    """An opened index folder, as search reads it (:class:`~agrag_lab.index.build.IndexBuild` implements it).

    Attributes
    ----------
    db : DocumentDB
        The documents, versions and chunks (the source of truth); read only here.
    """

    db: DocumentDB

    def consistency_warnings(self) -> tuple[str, ...]:
        """What a reader must be told about the index now (mid-sync, another vector space); ``()`` when sound."""
        ...

    def stamp(self) -> IndexStamp:
        """Where the index stands now (see :data:`IndexStamp`)."""
        ...

    def change_warnings(self, before: IndexStamp) -> tuple[str, ...]:
        """A warning when the index changed (or was mid-sync) since ``before`` was stamped, else ``()``."""
        ...

    def keyword_index(self, name: str) -> KeywordIndex:
        """The bm25s index of a collection (``chunks``, ``entities`` or ``communities``)."""
        ...

    def chunk_records(self, current: Sequence[tuple[Chunk, str]] | None = None) -> CollectionRecords:
        """The records of the ``chunks`` collection (``current``: ``db.current_chunks()`` already read)."""
        ...

    def graph_records(self, store: WholeGraph) -> dict[str, CollectionRecords]:
        """The ``entities`` and ``communities`` records of the graph ``store`` in this index."""
        ...

    def record_vectors(self, records: CollectionRecords, rows: Sequence[int] | None = None) -> np.ndarray:
        """The vectors of records (all, or ``rows``): cached embeddings, or means of chunk vectors.

        Raises
        ------
        IndexFormatError
            Some embeddings are not cached (the index is incomplete).
        """
        ...

    def hosted(self, collection: str) -> list[tuple[str, str, dict[str, Any]]]:
        """The records of a graph collection a chunk hosts: ``(record id, chunk id, metadata)``."""
        ...

    def graph(self) -> NetworkXGraphStore:
        """The index's knowledge graph as last written or loaded (loaded on first use; a new object after
        each write, sync or :meth:`~agrag_lab.index.build.IndexBuild.forget_loaded`)."""
        ...
