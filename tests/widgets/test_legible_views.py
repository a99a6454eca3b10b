"""What the browser gallery measures, held as data: the fixes of issue 28 that need no browser.

Tables print no internal columns; a bar chart's value axis starts at zero; the
benchmark chart draws no interval it says it does not show; a community keeps
its colour between the whole graph, a neighbourhood and a walk; a click's
details count every relation and carry weights and descriptions; an edited
built-in is no longer named as the built-in; the walk view lists every whole
name; one document makes the overlap be measured on items.
"""

from __future__ import annotations

import html
import json

from agrag_lab import Graph
from agrag_lab.charts import metric_comparison, rank_contributions
from agrag_lab.eval.result import EXAMPLE, EvalResult
from agrag_lab.recipes import HYBRID
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.widgets import GraphWalkView, RecipeEditorModel, explorer_view, node_details, table_frame
from agrag_lab.widgets.walk_model import walk_graph


def test_table_frame_prints_no_internal_column() -> None:
    rows = [{"_key": "a", "_tone": "win", "_hover": "id-a", "_marks": {"m": {"best": True, "sup": "", "title": ""}},
             "recipe": "A", "m": 0.5}, {"_key": "b", "recipe": "B", "m": 0.25}]
    frame = table_frame(rows)
    assert frame.columns == ["recipe", "m"]
    assert frame["m"].to_list() == [0.5, 0.25]
    assert "_marks" not in str(frame) and "{" not in str(frame)


def test_contribution_bars_start_at_zero(runs: dict[str, SearchRun]) -> None:
    fig = rank_contributions(runs["GRAPH_EXPAND"].refuse(k=1))
    assert fig.layout.xaxis.rangemode == "tozero"
    assert fig.layout.xaxis.automargin and fig.layout.yaxis.automargin  # long labels grow the margin, uncut


def test_the_benchmark_chart_draws_no_interval_it_says_it_does_not_show() -> None:
    result = EvalResult.from_dict(EXAMPLE)  # a handful of queries: too few for an interval
    fig = metric_comparison(result, "recall@2")
    bars = [t for t in fig.data if t.type == "bar"]
    assert bars and all(t.error_y.visible is False for t in bars)
    assert "95% CI" not in fig.layout.title.text and "too few" in fig.layout.title.text
    assert not fig.layout.annotations  # "reference: ..." sat on a bar; it is a legend entry now
    assert any((t.name or "").startswith("reference: ") for t in fig.data)
    shown = metric_comparison(result, "recall@2", intervals=True)
    assert all(t.error_y.visible for t in shown.data if t.type == "bar")


def test_a_community_keeps_its_colour_in_a_neighbourhood_and_a_walk(
    workshop_graph: Graph, runs: dict[str, SearchRun]
) -> None:
    whole = explorer_view(workshop_graph)
    assert whole.group_colours, "the workshop graph has communities"
    hub = max(range(len(whole.ids)), key=lambda i: whole.degrees[i])
    near = explorer_view(workshop_graph, entity=whole.ids[hub])
    colour_of = {e: whole.group_colours.get(g) for e, g in zip(whole.ids, whole.groups, strict=True) if g}
    for e, g in zip(near.ids, near.groups, strict=True):
        if g:
            assert near.group_colours[g] == colour_of[e], e
    state = near.state()
    assert state["scope"]["kind"] == "entity" and state["group_colours"] == dict(near.group_colours)
    walk = walk_graph(runs["GRAPH_EXPAND"], graph=workshop_graph)
    for n in walk.nodes:
        if n.kind == "entity" and n.community:
            assert walk.colours[n.community] == colour_of[n.id], n.id


def test_details_count_every_relation_with_weights_and_descriptions(workshop_graph: Graph) -> None:
    store = workshop_graph.graph_store
    hub = max(store.entities(), key=lambda e: len(store.neighbours(e.id)))
    details = node_details(workshop_graph, hub.id, relations=3)
    assert details["relation_count"] == len(store.neighbours(hub.id)) > 3
    assert len(details["relations"]) == 3
    assert all({"weight", "description", "support"} <= set(r) for r in details["relations"])
    json.dumps(details)  # synced to the browser as it is


def test_an_edited_builtin_takes_another_name_and_gets_its_own_back() -> None:
    model = RecipeEditorModel(HYBRID)
    model.update({"walk.enabled": True, "walk.strategy": "ppr"})
    assert model.recipe.name == "HYBRID_EDITED"
    model.update({"walk.enabled": False, "walk.strategy": HYBRID.walk.strategy})
    assert model.recipe.name == "HYBRID"
    model.set("name", "MINE")
    model.set("walk.enabled", True)
    assert model.recipe.name == "MINE"  # a typed name is never changed


def test_the_walk_view_lists_every_whole_name(workshop_graph: Graph, runs: dict[str, SearchRun]) -> None:
    view = GraphWalkView(runs["GRAPH_EXPAND"], graph=workshop_graph)
    listed = view.names.value
    for n in view.graph.nodes:
        assert html.escape(n.title) in listed, n.title
    # a dense-prior passage the walk proposed itself is drawn as a prior passage, not as a step of the walk
    assert all(not (n.x == -1.0 and n.role == "added") for n in view.graph.nodes)
