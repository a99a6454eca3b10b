"""Top-level communities of a graph store, as every graph view colours them.

One rule for the explorer and the walk view: an entity belongs to its
top-level community (the largest first when it is in several), each such
community is named by its report's title, and its colour is keyed by its id
over the whole graph (:func:`agrag_lab.charts.palette.group_colours`), so the
Cratchit family has one colour in the whole graph, in a neighbourhood and in a walk.
"""

from __future__ import annotations

from agrag_lab.charts.palette import group_colours
from agrag_lab.kg.graph_store import GraphStore


def top_groups(store: GraphStore) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Each entity's top-level community, each such community's title, and its colour (by whole-graph size).

    A graph without communities gives three empty maps.
    """
    group: dict[str, str] = {}
    titles: dict[str, str] = {}
    sizes: dict[str, int] = {}
    communities = store.communities()
    top = min((c.level for c in communities), default=0)
    for c in sorted(communities, key=lambda c: (-c.size, c.id)):
        if c.level != top:
            continue
        report = store.report(c.id)
        titles[c.id] = report.title if report is not None and report.title else c.id
        sizes[c.id] = c.size
        for member in c.members:
            group.setdefault(member, c.id)
    return group, titles, group_colours(sizes)
