"""The knowledge-graph layer: extraction, resolution, graph, communities, reports, store.

Pure functions over frozen data, in small modules. It returns plain graph
values and stores; it imports no higher floor (no ``retrieval/``, no
``index/``): the index build (:mod:`agrag_lab.index`) and the search engine's
store adapter (:mod:`agrag_lab.retrieval.store`) build on it.

- :mod:`~agrag_lab.kg.schema` — :class:`GraphSchema` and :data:`GENERIC`.
- :mod:`~agrag_lab.kg.extraction` — :class:`Extractor` protocol, :class:`RuleExtractor`.
- :mod:`~agrag_lab.kg.rules` — the rule extractor's sentence patterns.
- :mod:`~agrag_lab.kg.lexicon` — the word lists the rules and names read.
- :mod:`~agrag_lab.kg.text` — name keys, slugs, sentences, trimming.
- :mod:`~agrag_lab.kg.resolution` — one entity per thing named, across documents.
- :mod:`~agrag_lab.kg.model` — :class:`Entity`, :class:`Edge`, :class:`KnowledgeGraph`.
- :mod:`~agrag_lab.kg.build` — :func:`build_knowledge_graph` → :class:`KnowledgeGraph`.
- :mod:`~agrag_lab.kg.communities` — hierarchical Leiden (graspologic-native).
- :mod:`~agrag_lab.kg.reports` — :class:`ExtractiveReporter`, :func:`report_text`.
- :mod:`~agrag_lab.kg.scope` — :class:`GraphScope`: what a caller may see.
- :mod:`~agrag_lab.kg.graph_store` — the :class:`GraphStore` protocol, :class:`WalkStep`, :class:`CommunityOverlap`.
- :mod:`~agrag_lab.kg.visibility` — the one visibility rule: :func:`trim_entity`, :func:`trim_edge`, :func:`report_documents`.
- :mod:`~agrag_lab.kg.walks` — :class:`GraphWalks`: the walks every store shares.
- :mod:`~agrag_lab.kg.store` — :class:`NetworkXGraphStore`, the in-process store.
- :mod:`~agrag_lab.kg.persistence` — atomic, stable JSON of a graph, gzip-compressed in an index folder (``graph.json.gz``).
- :mod:`~agrag_lab.kg.pipeline` — :func:`extract_chunks`, :func:`build_store`.
- :mod:`~agrag_lab.kg.paths` — :class:`PathStep`, :class:`Reach`: walk paths as values.
- :mod:`~agrag_lab.kg.pagerank` — personalised PageRank over entities and passages.
- :mod:`~agrag_lab.kg.facets` — relation facets of an entity, :func:`best_per_owner`.
- :mod:`~agrag_lab.kg.records` — :func:`entity_text`, :func:`relation_phrases`: what records say.
- :mod:`~agrag_lab.kg.diagnostics` — :func:`summary`, :func:`musique_linkage`.
- :mod:`~agrag_lab.kg.errors` — :class:`KnowledgeGraphError` (from :mod:`agrag_lab.errors`).

Examples
--------
>>> from agrag_lab.kg import GENERIC, GraphScope
>>> GENERIC.normalise_label("person"), GraphScope().document_ids is None
('Person', True)
"""

from typing import TYPE_CHECKING

from agrag_lab.imports import lazy_exports

if TYPE_CHECKING:
    from agrag_lab.kg.build import ChunkExtraction, build_knowledge_graph
    from agrag_lab.kg.communities import Community, detect_communities
    from agrag_lab.kg.diagnostics import musique_linkage, summary
    from agrag_lab.kg.errors import KnowledgeGraphError
    from agrag_lab.kg.extraction import (
        DocumentContext,
        EntityMention,
        Extraction,
        Extractor,
        RelationMention,
        RuleExtractor,
    )
    from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
    from agrag_lab.kg.pipeline import build_store, extract_chunks
    from agrag_lab.kg.reports import (
        CommunityReport,
        CommunityReporter,
        ExtractiveReporter,
        build_reports,
        report_text,
    )
    from agrag_lab.kg.resolution import MentionRecord, Resolution, ResolvedEntity, resolve
    from agrag_lab.kg.schema import GENERIC, GraphSchema
    from agrag_lab.kg.store import (
        CommunityOverlap,
        Direction,
        GraphScope,
        GraphStore,
        NetworkXGraphStore,
        WalkStep,
    )

#: Where each name of ``__all__`` is defined: imported on first use (``import agrag_lab.kg.<module>`` stays light).
_EXPORTS = {
    "ChunkExtraction": "agrag_lab.kg.build",
    "Community": "agrag_lab.kg.communities",
    "CommunityOverlap": "agrag_lab.kg.store",
    "CommunityReport": "agrag_lab.kg.reports",
    "CommunityReporter": "agrag_lab.kg.reports",
    "Direction": "agrag_lab.kg.store",
    "DocumentContext": "agrag_lab.kg.extraction",
    "Edge": "agrag_lab.kg.model",
    "Entity": "agrag_lab.kg.model",
    "EntityMention": "agrag_lab.kg.extraction",
    "Extraction": "agrag_lab.kg.extraction",
    "ExtractiveReporter": "agrag_lab.kg.reports",
    "Extractor": "agrag_lab.kg.extraction",
    "GENERIC": "agrag_lab.kg.schema",
    "GraphSchema": "agrag_lab.kg.schema",
    "GraphScope": "agrag_lab.kg.store",
    "GraphStore": "agrag_lab.kg.store",
    "KnowledgeGraph": "agrag_lab.kg.model",
    "KnowledgeGraphError": "agrag_lab.kg.errors",
    "MentionRecord": "agrag_lab.kg.resolution",
    "NetworkXGraphStore": "agrag_lab.kg.store",
    "RelationMention": "agrag_lab.kg.extraction",
    "Resolution": "agrag_lab.kg.resolution",
    "ResolvedEntity": "agrag_lab.kg.resolution",
    "RuleExtractor": "agrag_lab.kg.extraction",
    "WalkStep": "agrag_lab.kg.store",
    "build_knowledge_graph": "agrag_lab.kg.build",
    "build_reports": "agrag_lab.kg.reports",
    "build_store": "agrag_lab.kg.pipeline",
    "detect_communities": "agrag_lab.kg.communities",
    "extract_chunks": "agrag_lab.kg.pipeline",
    "musique_linkage": "agrag_lab.kg.diagnostics",
    "report_text": "agrag_lab.kg.reports",
    "resolve": "agrag_lab.kg.resolution",
    "summary": "agrag_lab.kg.diagnostics",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "GENERIC",
    "ChunkExtraction",
    "Community",
    "CommunityOverlap",
    "CommunityReport",
    "CommunityReporter",
    "Direction",
    "DocumentContext",
    "Edge",
    "Entity",
    "EntityMention",
    "Extraction",
    "ExtractiveReporter",
    "Extractor",
    "GraphSchema",
    "GraphScope",
    "GraphStore",
    "KnowledgeGraph",
    "KnowledgeGraphError",
    "MentionRecord",
    "NetworkXGraphStore",
    "RelationMention",
    "Resolution",
    "ResolvedEntity",
    "RuleExtractor",
    "WalkStep",
    "build_knowledge_graph",
    "build_reports",
    "build_store",
    "detect_communities",
    "extract_chunks",
    "musique_linkage",
    "report_text",
    "resolve",
    "summary",
]
