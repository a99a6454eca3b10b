"""One colour per community in every view of one index: the explorer and the walk view colour a node alike.

Both views take the colour from one rule (:func:`agrag_lab.charts.palette.community_colour`); these tests read
what each view draws (the explorer's synced state, the walk figure's markers and its name list) and compare
them node by node. The browser gallery compares the same in Chromium, light and dark.
"""

from __future__ import annotations

import re
from dataclasses import replace

from agrag_lab import Graph
from agrag_lab.charts.palette import GROUP_PALETTE, OTHER_GROUP
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.widgets import explorer_view
from agrag_lab.widgets.walk_figure import names_html, walk_figure
from agrag_lab.widgets.walk_model import traverse_graph, walk_graph


def _walk_colours(fig: object) -> dict[str, str]:
    """Each entity node of a walk figure -> the fill colour its marker is drawn with."""
    colours: dict[str, str] = {}
    for trace in fig.data:  # type: ignore[attr-defined]
        if trace.customdata is None or not str(trace.marker.symbol).startswith("circle"):
            continue  # edge hover points, passages (squares) and reports (diamonds)
        fills = trace.marker.color
        for i, node in enumerate(trace.customdata):
            colours[str(node)] = fills[i] if isinstance(fills, list | tuple) else fills
    return colours


def test_a_node_has_one_colour_in_the_explorer_and_the_walk_view(
    workshop_graph: Graph, runs: dict[str, SearchRun]
) -> None:
    explorer = explorer_view(workshop_graph)
    state = explorer.state()
    drawn = dict(zip(state["ids"], state["colours"], strict=True))  # what the explorer's script paints
    walk = walk_graph(runs["GRAPH_EXPAND"], graph=workshop_graph)
    in_walk = _walk_colours(walk_figure(walk))
    assert len(in_walk) >= 2, "the walk draws entities"
    assert {drawn[n] for n in in_walk} & set(GROUP_PALETTE), "the walk's entities are in coloured communities"
    for node, colour in in_walk.items():
        assert colour == drawn[node], f"{node}: {colour} in the walk view, {drawn[node]} in the explorer"
    # the side list's dots are the markers' colours
    dots = dict(re.findall(r"title='([^']+)'><span class='agrag-walk-dot' style='background:(#[0-9A-Fa-f]{6})", names_html(walk)))
    assert dots and all(in_walk[n] == c for n, c in dots.items() if n in in_walk)


def test_a_traversal_colours_its_nodes_as_the_explorer(workshop_graph: Graph) -> None:
    engine = workshop_graph.engine()
    explorer = explorer_view(workshop_graph)
    hub = max(range(len(explorer.ids)), key=lambda i: (explorer.degrees[i], explorer.ids[i]))
    seed = engine.find_entity(explorer.names[hub])
    assert seed is not None
    walk = traverse_graph(seed, engine.traverse(seed, depth=2, limit=15), workshop_graph)
    in_walk = _walk_colours(walk_figure(walk))
    drawn = dict(zip(explorer.ids, explorer.colours, strict=True))
    assert len(in_walk) > 3
    assert all(in_walk[n] == drawn[n] for n in in_walk), {n: (in_walk[n], drawn[n]) for n in in_walk if in_walk[n] != drawn[n]}


def test_an_entity_in_no_community_is_the_explorers_grey_in_the_walk(
    workshop_graph: Graph, runs: dict[str, SearchRun]
) -> None:
    walk = walk_graph(runs["GRAPH_EXPAND"], graph=workshop_graph)
    entity = next(n for n in walk.nodes if n.kind == "entity" and n.community)
    # the same walk with that entity outside every community, its index's colours kept
    lonely = replace(walk, nodes=tuple(replace(n, community=None, community_title="") if n is entity else n
                                       for n in walk.nodes))
    colours = _walk_colours(walk_figure(lonely))
    assert colours[entity.id] == OTHER_GROUP  # not the entity-kind blue: the explorer draws it grey
    assert any(t.name == "community: none" for t in walk_figure(lonely).data)
