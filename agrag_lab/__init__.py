"""agrag_lab: a Jupyter-first workbench for GraphRAG retrieval.

Ingest documents into an index (:class:`Graph`), search it with recipes
(:class:`~agrag_lab.retrieval.engine.SearchEngine`), read the ledger of
every step (:class:`~agrag_lab.retrieval.run.SearchRun`), and cite evidence
verifiably (:mod:`agrag_lab.evidence`).

Examples
--------
>>> from agrag_lab import Document, EvidenceId
>>> EvidenceId.parse("doc-7@3f9a1c2b0d4e#c12").chunk
12
"""

from typing import TYPE_CHECKING, Any

from agrag_lab.documents import Chunk, Document, Section
from agrag_lab.errors import AgragError, EvidenceIdError
from agrag_lab.ids import EvidenceId

if TYPE_CHECKING:
    from agrag_lab.graph import Graph, IngestReport


def __getattr__(name: str) -> Any:
    """``Graph`` and ``IngestReport`` are imported on first use.

    The index stack (Chroma, bm25s, the graph builders) takes seconds to
    import; a command that needs none of it before its first call (``agrag-lab
    mcp`` answering ``initialize``) does not pay for it.
    """
    if name in ("Graph", "IngestReport"):
        from agrag_lab import graph

        return getattr(graph, name)
    raise AttributeError(f"module 'agrag_lab' has no attribute {name!r}")

__all__ = [
    "AgragError",
    "Chunk",
    "Document",
    "EvidenceId",
    "EvidenceIdError",
    "Graph",
    "IngestReport",
    "Section",
]
__version__ = "0.1.0"
