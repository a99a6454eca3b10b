"""One call from extractions to a ready :class:`~agrag_lab.graph_stores.networkx.NetworkXGraphStore`.

:func:`build_store` builds the graph of the extractions
(:func:`~agrag_lab.kg.extract.pipeline.build_graph`), its communities and their
reports. It lives beside the store it returns, apart from it, so that opening a
store imports no extraction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.algorithms.communities import detect_communities
from agrag_lab.kg.extract.build import ChunkExtraction, paused_gc
from agrag_lab.kg.extract.pipeline import build_graph
from agrag_lab.kg.extract.reports import build_reports
from agrag_lab.kg.extract.resolution import Resolver, resolve
from agrag_lab.kg.reports import CommunityReporter
from agrag_lab.kg.schema import GENERIC, GraphSchema

__all__ = ["build_store"]


def build_store(
    items: Iterable[ChunkExtraction],
    *,
    schema: GraphSchema = GENERIC,
    resolver: Resolver = resolve,
    seed: int = 42,
    max_cluster_size: int = 10,
    reporter: CommunityReporter | None = None,
    chunk_text: Callable[[str], str] | None = None,
) -> NetworkXGraphStore:
    """The in-process store of ``items``: their graph, its communities (hierarchical Leiden, ``seed``) and reports.

    ``chunk_text`` defaults to the texts carried by ``items``.

    Examples
    --------
    >>> from agrag_lab.documents import Chunk
    >>> from agrag_lab.ids import version_hash
    >>> from agrag_lab.kg.extract.extraction import DocumentContext
    >>> from agrag_lab.kg.extract.pipeline import extract_chunks
    >>> text = "Charles Babbage worked with Ada Lovelace. Babbage designed the Analytical Engine."
    >>> chunk = Chunk("bab", version_hash(text), 0, text, 0, len(text), "paragraph", 0, ())
    >>> store = build_store(extract_chunks([(chunk, DocumentContext("bab", "Charles Babbage"), True)]))
    >>> [e.name for e in store.entities()]
    ['Ada Lovelace', 'Analytical Engine', 'Charles Babbage']
    >>> store.reports()[0].title
    'Charles Babbage, Ada Lovelace and the Analytical Engine'
    """
    extractions = list(items)
    graph = build_graph(extractions, schema=schema, resolver=resolver)
    communities = detect_communities(graph, seed=seed, max_cluster_size=max_cluster_size)
    if chunk_text is None:
        texts = {x.chunk_id: x.text for x in extractions}

        def chunk_text(chunk_id: str) -> str:
            return texts.get(chunk_id, "")

    with paused_gc():
        reports = build_reports(communities, graph, chunk_text, reporter)
    return NetworkXGraphStore(graph, communities, reports)
