"""GraphWalkView: kinds told apart, the dense prior in its own column, paths in names, relations on hover."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agrag_lab import Graph
from agrag_lab.errors import AgragError
from agrag_lab.recipes import HYBRID
from agrag_lab.retrieval.engine import SearchEngine
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.retrieval.trace import ItemInfo, PathStep
from agrag_lab.widgets.graph_walk import (
    LEGEND,
    MEMBER_OF,
    PRIOR_X,
    SHAPES,
    GraphWalkView,
    WalkGraph,
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
        assert node.kind == run.trace.items[node.id].kind
        if node.role in ("seed", "prior"):
            assert node.hop == 0
        elif node.role != "report":
            assert node.x == float(max(node.hop, 1))
    for addition in walk.additions:
        node = g.node(addition.entity)
        assert (node.role, node.hop, node.seed) == ("added", addition.hop, addition.seed)
        assert node.kind == "chunk" and node.prior_rank == addition.prior_rank  # the PageRank walk adds passages
        assert g.path_to(addition.entity) == tuple((s.source, s.relation, s.target) for s in addition.path)
    edge_keys = {e.key for e in g.edges if e.relation != MEMBER_OF}
    relations = {(s.source, s.relation, s.target) for a in walk.additions for s in a.path}
    assert edge_keys == relations
    # the reports the run added sit beside their member entities
    for c in run.trace.outcome.communities or ():
        if any(m in {n.id for n in g.nodes} for m in c.entities):
            assert g.node(c.community).role == "report" and g.node(c.community).kind == "community"
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
    for x in {n.x for n in first.nodes}:
        ys = sorted(n.y for n in first.nodes if n.x == x)
        assert ys == [-y for y in reversed(ys)]  # centred


def test_figure_tells_kinds_apart_and_keeps_relation_types_to_the_hover(
    runs: dict[str, SearchRun], workshop_graph: Graph
) -> None:
    g = walk_graph(runs["GRAPH_EXPAND"], graph=workshop_graph)
    fig = walk_figure(g)
    assert fig.data[2].meta == "edge-labels" and fig.data[2].mode == "markers"  # no text drawn over the graph
    walked = [e for e in g.edges if e.relation != MEMBER_OF]
    assert len(fig.data[2].hovertext) == len(walked)
    for e, hover in zip(walked, fig.data[2].hovertext, strict=True):
        assert f"-[{e.relation}]-&gt;" in hover
    nodes = [t for t in fig.data[3:] if t.customdata is not None]
    # after the node traces, one legend entry per community colour (no points)
    colours = [t for t in fig.data[3:] if t.customdata is None]
    assert all(t.name.startswith("community: ") and t.x == (None,) for t in colours)
    assert sorted(i for t in nodes for i in t.customdata) == sorted(n.id for n in g.nodes)
    legend = set(LEGEND.values())
    for trace in nodes:
        assert trace.name in legend
        kinds = {g.node(i).kind for i in trace.customdata}
        assert len(kinds) == 1
        (kind,) = kinds
        assert trace.marker.symbol.startswith(SHAPES[kind])
    colours = {t.name: t.marker.color for t in nodes}
    passage = LEGEND[("chunk", "added")]
    assert colours[passage] != colours[LEGEND[("entity", "seed")]]
    # node names are annotations on a background, one per node; passages named "title > heading #cN"
    names = {a.name.removeprefix("node:"): a.text for a in fig.layout.annotations}
    assert set(names) == {n.id for n in g.nodes}
    assert all(a.bgcolor for a in fig.layout.annotations)
    for n in g.nodes:
        if n.kind == "chunk":
            assert n.title.endswith("#" + n.id.rsplit("#", 1)[1]) and names[n.id].endswith(n.id.rsplit("#", 1)[1])
    assert "seeds" in fig.layout.xaxis.ticktext


def test_the_header_counts_each_kind(runs: dict[str, SearchRun], workshop_graph: Graph) -> None:
    view = GraphWalkView(runs["GRAPH_EXPAND"], graph=workshop_graph)
    added = sum(1 for n in view.graph.nodes if n.role == "added" and n.kind == "chunk")
    assert f"{added} passages added" in view.header.value
    assert "entities added" not in view.header.value  # the PageRank walk adds passages, not entities


def test_dense_prior_passages_get_their_own_column() -> None:
    info = {
        "ent-a": ItemInfo("ent-a", "entity", "Bubye River", ""),
        "d@0123456789ab#c0": ItemInfo("d@0123456789ab#c0", "chunk", "Bubye River", "text", "d"),
        "d@0123456789ab#c1": ItemInfo("d@0123456789ab#c1", "chunk", "Bubye River", "text", "d", ("Bubye River", "Course")),
        "e@0123456789ab#c0": ItemInfo("e@0123456789ab#c0", "chunk", "Limpopo", "text", "e"),
        "ent-b": ItemInfo("ent-b", "entity", "Limpopo", ""),
    }
    to_c0 = (PathStep("ent-a", "MENTIONED_IN", "d@0123456789ab#c0"),)
    from_prior = (PathStep("e@0123456789ab#c0", "MENTIONS", "ent-b"), PathStep("ent-b", "MENTIONED_IN", "d@0123456789ab#c1"))
    g = WalkGraph.build(
        seeds=["ent-a"], prior=["e@0123456789ab#c0", "d@0123456789ab#c1"], info=info, memberships={},
        reached=[("d@0123456789ab#c0", 1, "ent-a", to_c0), ("d@0123456789ab#c1", 2, "e@0123456789ab#c0", from_prior)],
    )
    prior = g.node("e@0123456789ab#c0")
    assert (prior.role, prior.x, prior.kind) == ("prior", PRIOR_X, "chunk")
    assert g.node("ent-a").x == 0.0 and g.node("d@0123456789ab#c1").prior_rank == 2
    # a path reads in names a person can tell apart: the passage is never the entity "mentioned in" itself
    assert g.path_text("d@0123456789ab#c0") == "Bubye River -[MENTIONED_IN]-> Bubye River: text #c0"  # names.display_name: no heading, so its first words
    assert g.path_text("d@0123456789ab#c1") == "Limpopo: text #c0 -[MENTIONS]-> Limpopo -[MENTIONED_IN]-> Bubye River > Course #c1"
    assert "(a dense-prior passage" in g.path_text("e@0123456789ab#c0")
    assert "1 of 2 dense-prior passages drawn" in g.summary() and "2 passages added" in g.summary()
    assert "dense prior" in walk_figure(g).layout.xaxis.ticktext


def test_selecting_a_node_shows_its_path_and_supporting_passages(
    runs: dict[str, SearchRun], workshop_graph: Graph
) -> None:
    view = GraphWalkView(runs["GRAPH_EXPAND"], graph=workshop_graph, session=workshop_graph.evidence())
    target = next(node for node in view.graph.added if view.graph.path_to(node))  # not a restart point itself
    view.node_dropdown.value = target
    assert view.selected == target
    path = view.graph.path_to(target)
    assert len(view.figure.data[1].x) == 3 * len(path)
    # what the page draws: the mime bundle in the view's output carries the highlighted path
    shown = view.output.outputs[0]["data"]["application/vnd.plotly.v1+json"]["data"]
    assert len(shown[1]["x"]) == 3 * len(path) and shown[1]["showlegend"] is True
    assert "path:" in view.info.value and f"-[{path[0][1]}]-&gt;" in view.info.value
    assert view.graph.path_text(target).split(" -[")[0] in view.info.value
    node = view.graph.node(target)
    assert node.chunk_ids
    assert node.chunk_ids[0] in view.passages.value and "fetched, version" in view.passages.value
    view.selected = ""
    assert view.figure.data[1].x in ((), None) and view.passages.value == ""
    # a click on a node in the page (reported by the view's bridge) selects it; an unknown id does not
    view.bridge.clicked = target
    assert view.selected == target
    view.bridge.clicked = "not a node"
    assert view.selected == target


def test_a_traverse_result(widget_engine: SearchEngine, workshop_graph: Graph) -> None:
    seed = widget_engine.find_entity("Charles Babbage")
    assert seed is not None
    results = widget_engine.traverse(seed, depth=2, limit=8)
    assert results
    g = traverse_graph(seed, results, workshop_graph)
    assert g.seeds == (seed.id,)
    entities = [r for r in results if r.kind == "entity"]
    assert set(g.added) == {r.id for r in entities}
    for r in entities:  # the hop and path traverse gave, not decoded from a score nor walked again
        assert r.hop is not None and g.node(r.id).hop == r.hop
        walked = g.path_to(r.id)
        assert len(walked) == len(r.path) == r.hop and r.id in walked[-1]
    view = GraphWalkView(results, seed=seed, graph=workshop_graph)
    assert view.graph == g
    # results that did not come from traverse (no hop) are refused with a clear reason
    with pytest.raises(AgragError, match="no hop"):
        traverse_graph(seed, [replace(r, hop=None) for r in entities], workshop_graph)
    with pytest.raises(AgragError, match="seed"):
        GraphWalkView(results)


def test_a_run_without_a_walk_is_refused(runs: dict[str, SearchRun]) -> None:
    with pytest.raises(AgragError, match="did not walk"):
        walk_graph(runs["HYBRID"])


def test_a_bfs_walk_adds_entities(widget_engine: SearchEngine, workshop_graph: Graph) -> None:
    run = widget_engine.run("Who worked with Babbage?", HYBRID.replace(name="HYBRID_WALK", **{"walk.enabled": True}))
    g = walk_graph(run, graph=workshop_graph)
    assert g.added and all(g.node(n).kind == "entity" for n in g.added)
    assert f"{len(g.added)} entities added" in g.summary()
    with pytest.raises(KeyError, match="not in this walk"):
        g.node("ent-nowhere")
