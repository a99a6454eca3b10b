"""Choose the part of an index's graph to export (:func:`choose`), then :func:`write` it: what ``Graph.export`` and ``agrag-lab export`` run.

The part is one of: the whole graph (default), a community
(``community=``), an entity's neighbourhood (``around=``, ``depth=``), or the
subgraph a search used (``run=``, a :class:`~agrag_lab.retrieval.run.SearchRun`
or its trace; ``cited=`` adds an answer's cited passages). The formats are
:data:`agrag_lab.kg.export_formats.FORMATS`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from agrag_lab.errors import ArgumentError
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg import export as parts
from agrag_lab.kg.export_formats import write as write

if TYPE_CHECKING:
    from agrag_lab.retrieval.run import SearchRun
    from agrag_lab.retrieval.trace import SearchTrace

__all__ = ["choose", "write"]


def choose(
    store: NetworkXGraphStore,
    *,
    community: str | None = None,
    around: str | None = None,
    depth: int = 1,
    run: SearchRun | SearchTrace | None = None,
    cited: Iterable[str] = (),
    with_communities: bool = False,
) -> parts.Subgraph:
    """The part of ``store``'s graph asked for (see the module's docstring).

    Raises
    ------
    ArgumentError
        More than one part is asked for.
    NotFoundError
        The community or entity does not exist.
    """
    asked = [name for name, value in (("community", community), ("around", around), ("run", run)) if value is not None]
    if len(asked) > 1:
        raise ArgumentError(f"export one part at a time: {' and '.join(asked)} were both given; leave all but one out")
    graph = store.graph
    communities, reports = store.stored()
    if community is not None:
        return parts.community(graph, communities, reports, community)
    if around is not None:
        found = graph.entities.get(around) or store.entity_by_name(around)
        if found is None:
            return parts.neighbourhood(graph, around, depth)  # raises NotFoundError naming it
        return parts.neighbourhood(graph, found.id, depth)
    if run is not None:
        from agrag_lab.retrieval.run import SearchRun
        from agrag_lab.retrieval.used import used_subgraph

        return used_subgraph(run.trace if isinstance(run, SearchRun) else run, graph, cited)
    return parts.whole(graph, communities, reports, with_communities=with_communities)

