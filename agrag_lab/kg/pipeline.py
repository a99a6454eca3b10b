"""One call from chunks to a ready :class:`~agrag_lab.kg.store.NetworkXGraphStore`.

:func:`extract_chunks` runs an extractor over chunks; :func:`build_store`
builds the graph, its communities and their reports. Caching extractions (by
``extractor.version``) is the caller's business: both steps are pure.

Examples
--------
>>> from agrag_lab.documents import Chunk
>>> from agrag_lab.ids import version_hash
>>> text = "Charles Babbage worked with Ada Lovelace. Babbage designed the Analytical Engine."
>>> chunk = Chunk("bab", version_hash(text), 0, text, 0, len(text), "paragraph", 0, ())
>>> items = extract_chunks([(chunk, DocumentContext("bab", "Charles Babbage"), True)])
>>> store = build_store(items)
>>> [e.name for e in store.entities()]
['Ada Lovelace', 'Analytical Engine', 'Charles Babbage']
>>> store.reports()[0].title
'Charles Babbage, Ada Lovelace and the Analytical Engine'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from agrag_lab.documents import Chunk
from agrag_lab.kg.build import ChunkExtraction, build_knowledge_graph, paused_gc
from agrag_lab.kg.communities import detect_communities
from agrag_lab.kg.confirmation import confirm_names
from agrag_lab.kg.extraction import DocumentContext, Extraction, Extractor, RuleExtractor
from agrag_lab.kg.model import KnowledgeGraph
from agrag_lab.kg.reports import CommunityReporter, build_reports
from agrag_lab.kg.resolution import Resolver, resolve
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.store import NetworkXGraphStore

__all__ = ["build_graph", "build_store", "extract_batch", "extract_chunks"]


def extract_batch(extractor: Extractor, pairs: Sequence[tuple[Chunk, DocumentContext]]) -> list[Extraction]:
    """Extract ``(chunk, document)`` pairs in order; an extractor with ``extract_many`` gets them all at once."""
    many = getattr(extractor, "extract_many", None)
    if callable(many):
        return list(many(pairs))
    return [extractor.extract(chunk, document) for chunk, document in pairs]


def extract_chunks(
    chunks: Iterable[tuple[Chunk, DocumentContext, bool]],
    extractor: Extractor | None = None,
) -> list[ChunkExtraction]:
    """Extract every ``(chunk, document, current)`` triple (with :class:`RuleExtractor` by default)."""
    run = extractor if extractor is not None else RuleExtractor()
    triples = list(chunks)
    with paused_gc():
        done = extract_batch(run, [(chunk, document) for chunk, document, _ in triples])
        return [
            ChunkExtraction(chunk.id, chunk.document_id, current, chunk.text, extraction)
            for (chunk, _document, current), extraction in zip(triples, done, strict=True)
        ]


def build_graph(
    items: Iterable[ChunkExtraction], *, schema: GraphSchema = GENERIC, resolver: Resolver = resolve
) -> KnowledgeGraph:
    """The knowledge graph of ``items``, after the corpus confirmed their initial names (no communities)."""
    return build_knowledge_graph(confirm_names(list(items)), schema, resolver)


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
    """Build graph, communities (hierarchical Leiden, ``seed``) and reports.

    ``chunk_text`` defaults to the texts carried by ``items``.
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
