"""The graph model: entities, relations, communities, reports, the scope a caller sees, and the store contract.

Pure functions over frozen data, in small modules. It imports no higher floor:
the graph's extraction (:mod:`agrag_lab.kg.extract`), its algorithms
(:mod:`agrag_lab.kg.algorithms`), the graph stores (:mod:`agrag_lab.graph_stores`),
the index build (:mod:`agrag_lab.index`) and the search (:mod:`agrag_lab.retrieval`)
build on it.

- :mod:`~agrag_lab.kg.schema` — :class:`GraphSchema` and :data:`GENERIC`.
- :mod:`~agrag_lab.kg.model` — :class:`Entity`, :class:`Edge`, :class:`KnowledgeGraph`.
- :mod:`~agrag_lab.kg.text` — name keys, slugs, sentences, trimming.
- :mod:`~agrag_lab.kg.communities` — :class:`Community`, one community of the hierarchy.
- :mod:`~agrag_lab.kg.reports` — :class:`CommunityReport`, :class:`CommunityReporter`, :func:`report_text`.
- :mod:`~agrag_lab.kg.scope` — :class:`GraphScope`: what a caller may see.
- :mod:`~agrag_lab.kg.graph_store` — the :class:`GraphStore` protocol, :class:`WalkStep`, :class:`CommunityOverlap`,
  and the orders every store answers in.
- :mod:`~agrag_lab.kg.visibility` — the one visibility rule: :func:`trim_entity`, :func:`trim_edge`, :func:`report_documents`.
- :mod:`~agrag_lab.kg.paths` — :class:`PathStep`, :class:`Reach`: walk paths as values.
- :mod:`~agrag_lab.kg.facets` — relation facets of an entity, :func:`best_per_owner`.
- :mod:`~agrag_lab.kg.records` — :func:`entity_text`, :func:`relation_phrases`: what records say.
- :mod:`~agrag_lab.kg.edits` — edits of a graph as data, and the pure functions that apply them.
- :mod:`~agrag_lab.kg.export` — the part of a graph an export holds; :mod:`~agrag_lab.kg.export_formats` writes it.
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
    from agrag_lab.kg.communities import Community
    from agrag_lab.kg.diagnostics import musique_linkage, summary
    from agrag_lab.kg.errors import KnowledgeGraphError
    from agrag_lab.kg.graph_store import CommunityOverlap, Direction, GraphStore, WalkStep
    from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
    from agrag_lab.kg.reports import CommunityReport, CommunityReporter, report_text
    from agrag_lab.kg.schema import GENERIC, GraphSchema
    from agrag_lab.kg.scope import GraphScope

#: Where each name of ``__all__`` is defined: imported on first use (``import agrag_lab.kg.<module>`` stays light).
_EXPORTS = {
    "Community": "agrag_lab.kg.communities",
    "CommunityOverlap": "agrag_lab.kg.graph_store",
    "CommunityReport": "agrag_lab.kg.reports",
    "CommunityReporter": "agrag_lab.kg.reports",
    "Direction": "agrag_lab.kg.graph_store",
    "Edge": "agrag_lab.kg.model",
    "Entity": "agrag_lab.kg.model",
    "GENERIC": "agrag_lab.kg.schema",
    "GraphSchema": "agrag_lab.kg.schema",
    "GraphScope": "agrag_lab.kg.scope",
    "GraphStore": "agrag_lab.kg.graph_store",
    "KnowledgeGraph": "agrag_lab.kg.model",
    "KnowledgeGraphError": "agrag_lab.kg.errors",
    "WalkStep": "agrag_lab.kg.graph_store",
    "musique_linkage": "agrag_lab.kg.diagnostics",
    "report_text": "agrag_lab.kg.reports",
    "summary": "agrag_lab.kg.diagnostics",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "GENERIC",
    "Community",
    "CommunityOverlap",
    "CommunityReport",
    "CommunityReporter",
    "Direction",
    "Edge",
    "Entity",
    "GraphSchema",
    "GraphScope",
    "GraphStore",
    "KnowledgeGraph",
    "KnowledgeGraphError",
    "WalkStep",
    "musique_linkage",
    "report_text",
    "summary",
]
