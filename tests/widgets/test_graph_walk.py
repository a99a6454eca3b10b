"""GraphWalkView: seeds marked, nodes placed by hop (deterministic), labelled edges, communities, passages."""

from __future__ import annotations

import pytest

from agrag_lab import Graph
from agrag_lab.errors import AgragError
from agrag_lab.retrieval.engine import SearchEngine
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.widgets.graph_walk import (
    NO_COMMUNITY,
    GraphWalkView,
    community_colours,
    traverse_graph,
    walk_figure,
    walk_graph,
)


def test_walk_graph_reads_the_trace(runs: dict[str, SearchRun], workshop_graph: Graph) -> None:
    run = runs["GRAPH_EXPAND"]
    walk = run.trace.outcome.walk
    assert walk is not None
    g = walk_graph(run, graph=workshop_graph)
    assert g.seeds == walk.seeds
    assert g.added == tuple(a.entity for a in walk.additions)
    for node in g.nodes:
        assert node.x == float(node.hop)
        if node.id in walk.seeds:
            assert (node.role, node.hop) == ("seed", 0)
    for addition in walk.additions:
        node = g.node(addition.entity)
        assert (node.role, node.hop, node.seed) == ("added", addition.hop, addition.seed)
        assert g.path_to(addition.entity) == tuple((s.source, s.relation, s.target) for s in addition.path)
    edge_keys = {e.key for e in g.edges}
    relations = {(s.source, s.relation, s.target) for a in walk.additions for s in a.path}
    assert edge_keys == relations
    # every path node is in the graph, one hop further than the step before
    for a in walk.additions:
        for i, step in enumerate(a.path, 1):
            assert g.node(step.target).hop <= i


def test_layout_is_deterministic_and_spread_by_hop(runs: dict[str, SearchRun], workshop_graph: Graph) -> None:
    run = runs["GRAPH_EXPAND"]
    first = walk_graph(run, graph=workshop_graph)
    again = walk_graph(run, graph=workshop_graph)
    assert first == again
    placed = [(n.x, n.y) for n in first.nodes]
    assert len(set(placed)) == len(placed)  # no two nodes on one spot
    for hop in {n.hop for n in first.nodes}:
        ys = sorted(n.y for n in first.nodes if n.hop == hop)
        assert ys == [-y for y in reversed(ys)]  # centred


def test_figure_marks_seeds_labels_edges_and_colours_communities(
    runs: dict[str, SearchRun], workshop_graph: Graph
) -> None:
    g = walk_graph(runs["GRAPH_EXPAND"], graph=workshop_graph)
    fig = walk_figure(g)
    labels = fig.data[2]
    assert sorted(labels.text) == sorted(e.relation for e in g.edges)
    nodes = [t for t in fig.data[3:]]
    ids = [i for t in nodes for i in t.customdata]
    assert sorted(ids) == sorted(n.id for n in g.nodes)
    colours = community_colours(g)
    for trace in nodes:
        for node_id, symbol, hover in zip(trace.customdata, trace.marker.symbol, trace.hovertext, strict=True):
            node = g.node(node_id)
            assert symbol == {"seed": "star", "added": "circle", "path": "circle-open"}[node.role]
            assert node.title.split()[0] in hover
            assert trace.marker.color == colours[node.community] or trace.marker.color == NO_COMMUNITY
    coloured = [c for c, v in colours.items() if c is not None and v != NO_COMMUNITY]
    assert len({colours[c] for c in coloured}) == len(coloured)  # distinct colours for distinct communities
    assert "hops from the seeds" in fig.layout.xaxis.title.text


def test_selecting_a_node_shows_its_path_and_supporting_passages(
    runs: dict[str, SearchRun], workshop_graph: Graph
) -> None:
    view = GraphWalkView(runs["GRAPH_EXPAND"], graph=workshop_graph, session=workshop_graph.evidence())
    target = next(node for node in view.graph.added if view.graph.path_to(node))  # not a restart point itself
    view.node_dropdown.value = target
    assert view.selected == target
    path = view.graph.path_to(target)
    assert len(view.figure.data[1].x) == 3 * len(path)
    assert "path:" in view.info.value and path[0][1] in view.info.value
    node = view.graph.node(target)
    assert node.chunk_ids
    assert node.chunk_ids[0] in view.passages.value and "fetched, version" in view.passages.value
    view.selected = ""
    assert view.figure.data[1].x in ((), None) and view.passages.value == ""


def test_a_traverse_result(widget_engine: SearchEngine, workshop_graph: Graph) -> None:
    seed = widget_engine.find_entity("Charles Babbage")
    assert seed is not None
    results = widget_engine.traverse(seed, depth=2, limit=8)
    assert results
    g = traverse_graph(seed, results, workshop_graph)
    assert g.seeds == (seed.id,)
    entities = [r for r in results if r.kind == "entity"]
    assert set(g.added) == {r.id for r in entities}
    for r in entities:
        assert g.node(r.id).hop == round(1 / r.score - 1)
    view = GraphWalkView(results, seed=seed, graph=workshop_graph)
    assert view.graph == g
    with pytest.raises(AgragError, match="seed"):
        GraphWalkView(results)


def test_a_run_without_a_walk_is_refused(runs: dict[str, SearchRun]) -> None:
    with pytest.raises(AgragError, match="did not walk"):
        walk_graph(runs["HYBRID"])
