"""GraphExplorer: the views of the graph, what a click shows, the tables, the synced state."""

from __future__ import annotations

import polars as pl
import pytest

from agrag_lab import Graph
from agrag_lab.errors import AgragError
from agrag_lab.widgets import GraphExplorer, explorer_view, node_details
from agrag_lab.widgets.graph_explorer import TABLE_ROWS
from agrag_lab.widgets.graph_explorer_model import (
    community_layout,
    community_table,
    entity_table,
    scope_request,
    search,
)


def test_the_whole_graph_holds_every_current_entity_and_relation(workshop_graph: Graph) -> None:
    store = workshop_graph.graph_store
    view = explorer_view(workshop_graph)
    current = {e.id for e in store.entities()}
    assert set(view.ids) == current
    pairs = {frozenset((e.source, e.target)) for e in store.graph.edges
             if e.chunk_ids and e.source != e.target and e.source in current and e.target in current}
    drawn = {frozenset((view.ids[s], view.ids[t])) for s, t, _ in view.edges}
    assert drawn == pairs  # one line per related pair
    degree = [0] * len(view.ids)
    for s, t, _ in view.edges:
        degree[s] += 1
        degree[t] += 1
    assert list(view.degrees) == degree
    top = {c.id for c in store.communities(level=0)}
    assert {g for g in view.groups if g} <= top
    assert view == explorer_view(workshop_graph)  # deterministic, layout included
    assert len(set(zip(view.x, view.y, strict=True))) == len(view.ids)  # no two nodes start on one spot


def test_a_community_a_document_and_a_neighbourhood(workshop_graph: Graph) -> None:
    store = workshop_graph.graph_store
    community = max(store.communities(level=0), key=lambda c: c.size)
    view = explorer_view(workshop_graph, community=community.id)
    assert set(view.ids) == {m for m in community.members if store.entity(m) is not None}
    doc = explorer_view(workshop_graph, document="ada-lovelace")
    in_view = [store.entity(e) for e in doc.ids]
    assert in_view and all(e is not None and "ada-lovelace" in e.document_ids for e in in_view)
    near = explorer_view(workshop_graph, entity="ent-ada-lovelace")
    assert set(near.ids) == {"ent-ada-lovelace", *store.graph.neighbour_ids["ent-ada-lovelace"]} & {e.id for e in store.entities()}
    assert near.scope == {"kind": "entity", "id": "ent-ada-lovelace", "depth": 1}
    wider = explorer_view(workshop_graph, entity="ent-ada-lovelace", depth=2)
    assert set(near.ids) < set(wider.ids)


@pytest.mark.parametrize("kwargs, match", [
    ({"community": "com-nowhere"}, "no community"),
    ({"entity": "ent-nowhere"}, "no current entity"),
    ({"document": "no-such-document"}, "document"),
    ({"community": "com-0-0", "entity": "ent-ada-lovelace"}, "one of"),
    ({"entity": "ent-ada-lovelace", "depth": 0}, "depth"),
])
def test_bad_requests_say_what_to_do(workshop_graph: Graph, kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(AgragError, match=match):
        explorer_view(workshop_graph, **kwargs)  # type: ignore[arg-type]


def test_a_click_shows_description_passages_and_reports(workshop_graph: Graph) -> None:
    d = node_details(workshop_graph, "ent-ada-lovelace")
    entity = workshop_graph.graph_store.entity("ent-ada-lovelace")
    assert entity is not None
    assert d["name"] == "Ada Lovelace" and d["description"] == entity.description
    assert [p["id"] for p in d["passages"]] == list(entity.chunk_ids[:3])
    for p in d["passages"]:
        assert p["name"].endswith("#" + p["id"].rsplit("#", 1)[1]) and p["text"]
    assert d["reports"] and all(r["title"] and r["summary"] for r in d["reports"])
    assert {r["id"] for r in d["reports"]} == {o.community.id for o in workshop_graph.graph_store.communities_of(["ent-ada-lovelace"])}
    assert d["relations"] and all(r["type"] and r["other_name"] for r in d["relations"])
    assert d["has_claims"] is False and d["claims"] == []  # this index has no claims


def test_the_widget_syncs_views_selection_and_tables(workshop_graph: Graph) -> None:
    explorer = GraphExplorer(workshop_graph)
    state = explorer.canvas.view
    n = len(state["ids"])
    assert n == len(explorer.view.ids)
    assert all(len(state[k]) == n for k in ("names", "labels", "groups", "degrees", "x", "y"))
    assert len(state["sources"]) == len(state["targets"]) == len(state["types"]) == len(explorer.view.edges)
    assert explorer.search("lovelace")[0] == "ent-ada-lovelace"
    details = explorer.select("ent-ada-lovelace")
    assert details["name"] == "Ada Lovelace" and explorer.entity_view.selected == "ent-ada-lovelace"
    # a table row click selects the node as well
    explorer.entity_view.selected = "ent-charles-babbage"
    assert explorer.canvas.selected == "ent-charles-babbage" and explorer.canvas.details["name"] == "Charles Babbage"
    assert isinstance(explorer.entities, pl.DataFrame) and explorer.entities.height == n
    assert len(explorer.entity_view.rows) == min(n, TABLE_ROWS)
    assert explorer.entities["degree"].to_list() == sorted(explorer.entities["degree"].to_list(), reverse=True)
    # the browser asks for a neighbourhood ("show its neighbourhood"), then for the whole graph again
    explorer.canvas.scope = {"kind": "entity", "id": "ent-ada-lovelace", "depth": 1, "at": 1}
    assert explorer.view.scope["kind"] == "entity" and len(explorer.canvas.view["ids"]) < n
    explorer.canvas.scope = {"kind": "community", "id": "com-nowhere", "at": 2}
    assert "no community" in explorer.caption.value  # a bad request is shown, the view stays
    explorer.canvas.scope = {"kind": "all", "at": 3}
    assert len(explorer.canvas.view["ids"]) == n
    with pytest.raises(AgragError, match="colour_by"):
        GraphExplorer(workshop_graph, colour_by="size")


def test_tables_and_layout_are_plain_functions(workshop_graph: Graph) -> None:
    view = explorer_view(workshop_graph, community="com-0-0")
    table = entity_table(view, workshop_graph)
    assert set(table["id"].to_list()) == set(view.ids)
    communities = community_table(view, workshop_graph)
    assert "com-0-0" in communities["id"].to_list()
    assert communities.filter(pl.col("id") == "com-0-0")["in_view"].item() == len(view.ids)
    xs, ys = community_layout(["a"] * 5 + ["b"] * 2, [5, 4, 3, 2, 1, 1, 1])
    assert (xs[0], ys[0]) == (0.0, 0.0)  # the best-connected node of the largest group in the middle
    centre_b = ((xs[5] + xs[6]) / 2, (ys[5] + ys[6]) / 2)
    assert (centre_b[0] ** 2 + centre_b[1] ** 2) ** 0.5 > 2.0  # the next group on its own disc


def test_the_model_searches_the_view_by_name_best_connected_first(workshop_graph: Graph) -> None:
    view = explorer_view(workshop_graph)
    found = search(view, "babbage")
    assert found and all("babbage" in view.names[view.index(e)].casefold() for e in found)
    starting = [e for e in found if view.names[view.index(e)].casefold().startswith("babbage")]
    assert found[: len(starting)] == starting  # names that start with the text come first
    rest = found[len(starting):]
    assert [view.degrees[view.index(e)] for e in rest] == sorted((view.degrees[view.index(e)] for e in rest),
                                                                  reverse=True)
    assert search(view, "   ") == [] and len(search(view, "a", limit=3)) == 3


@pytest.mark.parametrize(("asked", "expected"), [
    ({"kind": "community", "id": "com-0-0", "at": 1}, {"community": "com-0-0"}),
    ({"kind": "entity", "id": "ent-ada-lovelace", "depth": "2"}, {"entity": "ent-ada-lovelace", "depth": 2}),
    ({"kind": "entity", "id": "ent-ada-lovelace"}, {"entity": "ent-ada-lovelace", "depth": 1}),
    ({"kind": "document", "id": "ada-lovelace"}, {"document": "ada-lovelace"}),
    ({"kind": "all"}, {}),
    ({"kind": "elsewhere"}, None),
    (None, None),
])
def test_the_model_reads_what_the_browser_asks_to_show(asked: dict[str, object] | None,
                                                        expected: dict[str, object] | None) -> None:
    assert scope_request(asked) == expected


def test_a_bad_depth_from_the_browser_is_refused_with_a_message() -> None:
    with pytest.raises(AgragError, match="whole number"):
        scope_request({"kind": "entity", "id": "ent-a", "depth": "far"})
