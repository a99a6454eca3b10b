"""Top-level communities of a graph store, as every graph view colours them.

One rule for the explorer and the walk view: an entity belongs to its
top-level community (the largest first when it is in several), each such
community is named by its report's title, and its colour is keyed by its id
over the whole graph (:func:`agrag_lab.charts.palette.group_colours`), so the
Cratchit family has one colour in the whole graph, in a neighbourhood and in a walk.
"""

from __future__ import annotations

from typing import Any

from agrag_lab.charts.palette import group_colours


def top_groups(store: Any) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Each entity's top-level community, each such community's title, and its colour (by whole-graph size).

    ``store`` is a graph store (``communities()``, ``report(id)``); a store
    without communities gives three empty maps.
    """
    group: dict[str, str] = {}
    titles: dict[str, str] = {}
    sizes: dict[str, int] = {}
    communities = store.communities() if hasattr(store, "communities") else []
    top = min((c.level for c in communities), default=0)
    for c in sorted(communities, key=lambda c: (-c.size, c.id)):
        if c.level != top:
            continue
        report = store.report(c.id) if hasattr(store, "report") else None
        titles[c.id] = report.title if report is not None and report.title else c.id
        sizes[c.id] = c.size
        for member in c.members:
            group.setdefault(member, c.id)
    return group, titles, group_colours(sizes)
