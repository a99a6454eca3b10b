"""From chunks to a knowledge graph: :func:`extract_chunks`, then :func:`build_graph`.

:func:`extract_chunks` runs an extractor over chunks; :func:`build_graph`
builds the graph of their extractions, after the corpus confirmed their names
(:func:`~agrag_lab.graph_stores.build.build_store` adds communities and
reports and returns a ready store). Caching extractions (by
``extractor.version``) is the caller's business: both steps are pure.

Examples
--------
>>> from agrag_lab.documents import Chunk
>>> from agrag_lab.ids import version_hash
>>> text = "Charles Babbage worked with Ada Lovelace. Babbage designed the Analytical Engine."
>>> chunk = Chunk("bab", version_hash(text), 0, text, 0, len(text), "paragraph", 0, ())
>>> items = extract_chunks([(chunk, DocumentContext("bab", "Charles Babbage"), True)])
>>> sorted(e.name for e in build_graph(items).entities.values())
['Ada Lovelace', 'Analytical Engine', 'Charles Babbage']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agrag_lab.documents import Chunk
from agrag_lab.kg.extract.build import ChunkExtraction, build_knowledge_graph, paused_gc
from agrag_lab.kg.extract.confirmation import confirm_names
from agrag_lab.kg.extract.extraction import BatchExtractor, DocumentContext, Extraction, Extractor, RuleExtractor
from agrag_lab.kg.extract.resolution import Resolver, resolve
from agrag_lab.kg.model import KnowledgeGraph
from agrag_lab.kg.schema import GENERIC, GraphSchema

__all__ = ["build_graph", "extract_batch", "extract_chunks"]


def extract_batch(extractor: Extractor, pairs: Sequence[tuple[Chunk, DocumentContext]]) -> list[Extraction]:
    """Extract ``(chunk, document)`` pairs in order; a :class:`BatchExtractor` gets them all at once."""
    if isinstance(extractor, BatchExtractor):
        return list(extractor.extract_many(pairs))
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
