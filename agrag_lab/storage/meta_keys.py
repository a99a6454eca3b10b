"""Every key of an index's SQLite ``meta`` table, spelled once.

The ``meta`` table (:class:`~agrag_lab.storage.documents_db.DocumentDB`,
``get_meta`` / ``set_meta``) holds an index's small facts. Each module that
reads or writes one imports its key from here, so a key is never spelled
twice and two modules cannot disagree on it.

Examples
--------
>>> GENERATION, DERIVED_GENERATION
('generation', 'derived_generation')
"""

from __future__ import annotations

__all__ = [
    "DERIVED_GENERATION",
    "EMBEDDING_MODEL",
    "EXTRACTORS",
    "GENERATION",
    "GIVEN_GRAPH",
    "GRAPH_EXTRACTOR",
    "GRAPH_PUSHES",
    "IMPORT_ALIASES",
    "IMPORT_EMBEDDING",
    "IMPORT_SOURCE",
    "LAYOUT",
    "SCHEMA_VERSION",
    "SYNCING",
    "VECTOR_SERVER",
]

#: The version of the SQLite schema the index was written with.
SCHEMA_VERSION = "schema_version"
#: The generation of the documents: raised by every committed ingest or removal.
GENERATION = "generation"
#: The generation the derived stores (vectors, keyword indexes, graph) were completed for.
DERIVED_GENERATION = "derived_generation"
#: The generation a sync of the derived stores is writing (absent when none is under way).
SYNCING = "syncing"
#: The layout of the derived stores; a writable open converts an older one.
LAYOUT = "derived_layout"
#: The Chroma server (``{"host", "port"}``) the vectors were last synced to.
VECTOR_SERVER = "vector_server"
#: The model (and its dimension) the derived stores were last built with.
EMBEDDING_MODEL = "embedding_model"
#: A knowledge graph written as given (JSON of ``NetworkXGraphStore.dumps``).
GIVEN_GRAPH = "given_graph"
#: Completed pushes of the index's graph to its graph server: a reader whose graph is served reads the
#: server's graph (its relation types, walk arrays) anew when this changes.
GRAPH_PUSHES = "graph_pushes"
#: The extractor whose graph the index holds.
GRAPH_EXTRACTOR = "graph_extractor"
#: The graph builders an index can record by name under :data:`GRAPH_EXTRACTOR` (``linear``: LinearRAG's tri-graph).
EXTRACTORS = ("rules", "llm", "linear")
#: ``{"source": ..., "format": ...}`` of the import an index holds.
IMPORT_SOURCE = "import_source"
#: An imported index's builder ids, as JSON ``{alias: [kind, our id]}``.
IMPORT_ALIASES = "import_aliases"
#: Which model searches an imported index, against its builder's (a sentence, shown by ``agrag-lab doctor``).
IMPORT_EMBEDDING = "import_embedding"
