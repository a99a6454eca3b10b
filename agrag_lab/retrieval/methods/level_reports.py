"""The community reports of the hierarchy down to one level: what a global search maps over.

Microsoft GraphRAG's global search (``graphrag/query/structured_search/global_search/
community_context.py``, ``GlobalCommunityContext.build_context``; reports read by
``graphrag/query/indexer_adapters.py``, ``read_indexer_reports`` with
``community_level`` 2) sends every report of a community at level 2 or above it in
the hierarchy (``level <= 2``) to its map step, shuffled (``random_state`` 86) into
batches. The map-reduce answer needs an LLM; this method is its retrieval part, as a
registry method ``level_reports`` with a ledger: the reports, ordered by GraphRAG's
report ``rank`` (its impact rating), then by level and id, since a seeded shuffle
has no order a reader can check. The query plays no part (as in GraphRAG's map).

Examples
--------
>>> order_reports([("k1", 0, 2.0), ("k2", 1, 8.0), ("k3", 3, 9.0)], max_level=2)
['k2', 'k1']
"""

from __future__ import annotations

from collections.abc import Sequence

from agrag_lab.kg.graph_store import Capability
from agrag_lab.retrieval.methods.protocol import MethodRequest, MethodResult
from agrag_lab.retrieval.trace import Hit

__all__ = ["GLOBAL_COMMUNITY_LEVEL", "LevelReports", "order_reports"]

#: GraphRAG's default ``community_level`` for global search (``graphrag query --method global``).
GLOBAL_COMMUNITY_LEVEL = 2


def order_reports(reports: Sequence[tuple[str, int, float | None]], max_level: int) -> list[str]:
    """Community ids of ``(id, level, rating)`` reports at ``level <= max_level``, highest rating first."""
    kept = [(c, lvl, r or 0.0) for c, lvl, r in reports if lvl <= max_level]
    kept.sort(key=lambda x: (-x[2], x[1], x[0]))
    return [c for c, _, _ in kept]


class LevelReports:
    """Method ``level_reports``: every report down to :data:`GLOBAL_COMMUNITY_LEVEL` (GraphRAG global's map input)."""

    name = "level_reports"
    collection = "communities"
    requires: frozenset[Capability] = frozenset()

    def search(self, request: MethodRequest) -> MethodResult:
        """The reports, by rating (see :func:`order_reports`).

        Every store lists its community reports (the :class:`~agrag_lab.kg.graph_store.GraphStore` protocol).
        """
        limit, filters, graph_store = request.limit, request.filters, request.graph_store
        found = graph_store.reports(graph_store.graph_scope(filters))
        rating = {r.community_id: r.rating for r in found}
        order = order_reports([(r.community_id, r.level, r.rating) for r in found], GLOBAL_COMMUNITY_LEVEL)
        hits = tuple(Hit(c, float(rating[c] or 0.0), rank) for rank, c in enumerate(order[:limit], 1))
        return MethodResult(hits, {"reports": hits})
