"""FusionInspector: per-step views read from the trace; sliders re-fuse through run.refuse."""

from __future__ import annotations

import math

import pytest

from agrag_lab import Graph
from agrag_lab.charts import rank_contributions
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.widgets.fusion_inspector import FusionInspector, FusionModel, contribution_data


def test_ledger_rows_are_the_trace_ledger(runs: dict[str, SearchRun]) -> None:
    run = runs["GRAPH_EXPAND"]
    view = FusionModel(run).view
    fusion = run.trace.outcome.fusion
    assert view.order == fusion.keys  # no re-rank: final order = fused order
    assert view.keys == run.keys and view.cut == run.trace.outcome.cut.limit
    for row, item in zip(view.ledger, fusion.items, strict=True):
        assert row["score"] == item.score
        terms = [row[f"term:{c.source}"] for c in item.contributions]
        assert math.isclose(sum(terms), row["score"], abs_tol=1e-15)
        assert all(row[f"rank:{c.source}"] == c.rank for c in item.contributions)
    assert [r["kept"] for r in view.ledger].count(True) == len(run)


def test_method_walk_and_community_views(runs: dict[str, SearchRun]) -> None:
    run = runs["GRAPH_EXPAND"]
    model = FusionModel(run)
    caption, rows, legs = model.method_tables["entity"]
    method = run.trace.method("entity")
    assert [r["_key"] for r in rows] == [h.key for h in method.hits]
    assert [r["score"] for r in rows] == [h.score for h in method.hits]
    assert set(legs) == set(method.legs) and "entity: ok" in caption and "ms" in caption
    assert all(r["leg:dense"] is None or r["leg:dense"] >= 1 for r in rows)
    walk = run.trace.outcome.walk
    assert walk is not None and walk.additions
    assert [r["_key"] for r in model.view.walk] == [a.entity for a in walk.additions]
    assert [r["hop"] for r in model.view.walk] == [a.hop for a in walk.additions]
    assert [r["_key"] for r in model.view.seeds] == list(walk.seeds)
    assert all("-[" in r["path"] for r in model.view.walk)
    communities = run.trace.outcome.communities
    assert communities is not None
    assert [r["_key"] for r in model.view.communities] == [c.community for c in communities]
    assert model.view.rerank == ()


def test_rerank_moves_and_cut_after_rerank(runs: dict[str, SearchRun]) -> None:
    run = runs["HYBRID_GD"]
    view = FusionModel(run).view
    rerank = run.trace.outcome.rerank
    assert rerank is not None
    assert [r["_key"] for r in view.rerank] == [m.key for m in rerank.moves]
    assert all(r["moved"] == r["before"] - r["after"] for r in view.rerank)
    # the ledger follows the final (re-ranked) order, so the cut line sits under the results
    assert view.order[: view.cut] == run.keys
    assert all(r["rerank_rank"] == i for i, r in enumerate(view.ledger, 1))


def test_k_slider_refuses_without_queries_and_updates_every_view(runs: dict[str, SearchRun]) -> None:
    run = runs["GRAPH_EXPAND"]
    inspector = FusionInspector(run)
    original = inspector.ledger_table.row_keys
    changed = False
    for k in (1.0, 2.0, 5.0, 200.0):
        inspector.k_slider.value = k
        expected = run.refuse(k=k)
        assert inspector.k == k
        assert inspector.run.keys == expected.keys
        assert inspector.run.trace.methods is run.trace.methods  # the cached lists, not a new search
        assert inspector.ledger_table.row_keys == inspector.view.order
        assert f"k={k:g}" in inspector.ledger_table.caption
        assert inspector.chart.layout.xaxis.title.text == f"RRF contribution (paper, k={k:g})"
        changed |= inspector.ledger_table.row_keys != original
    # the walk votes for entities the entity search found too, so k changes the fused ranking
    assert changed
    inspector.reset()
    assert inspector.k == 60 and inspector.ledger_table.row_keys == original and inspector.run is run


def test_weight_sliders_and_convention(runs: dict[str, SearchRun]) -> None:
    run = runs["HYBRID"]
    inspector = FusionInspector(run)
    assert set(inspector.weight_sliders) == {"entity", "chunk"}
    inspector.weight_sliders["chunk"].value = 0.0
    assert inspector.weights == {"entity": 1.0, "chunk": 0.0}
    assert inspector.run.keys == run.refuse(weights={"entity": 1.0, "chunk": 0.0}).keys
    assert all(r.kind == "entity" for r in inspector.run.results[:5])
    assert not any(s.disabled for s in inspector.weight_sliders.values())
    inspector.convention_dropdown.value = "llamaindex"
    assert inspector.convention == "llamaindex"
    # llamaindex ignores weights: their sliders are disabled and say why
    assert all(s.disabled and "ignores weights" in s.tooltip for s in inspector.weight_sliders.values())
    assert "llamaindex" in inspector.header.value and "weights given were ignored" in inspector.view.description
    first = inspector.view.ledger[0]
    assert first["score"] <= 1 / 60 + 1e-12  # llamaindex: 1/(k + 0-based rank), weights ignored, one vote at most 1/60
    inspector.reset()
    assert inspector.run.keys == run.keys and inspector.weight_sliders["chunk"].value == 1.0
    assert not any(s.disabled for s in inspector.weight_sliders.values())


def test_state_is_rebuilt_from_traits_alone(runs: dict[str, SearchRun]) -> None:
    run = runs["HYBRID"]
    a = FusionInspector(run)
    a.k_slider.value = 7.0
    a.weight_sliders["entity"].value = 2.0
    b = FusionInspector(run)
    with b.hold_trait_notifications():
        b.k, b.weights, b.convention = a.k, a.weights, a.convention
    assert b.view.order == a.view.order and b.ledger_table.rows == a.ledger_table.rows


def test_chart_is_updated_in_place_and_matches_the_chart_function(runs: dict[str, SearchRun]) -> None:
    run = runs["GRAPH_EXPAND"]
    inspector = FusionInspector(run)
    inspector.k = 3.0
    refused = run.refuse(k=3.0)
    expected = rank_contributions(refused)
    drawn = {t.name: t for t in inspector.chart.data if len(t.x)}
    assert list(drawn) == [t.name for t in expected.data]
    assert {t.name for t in inspector.chart.data} == set(inspector.view.sources)  # one trace per source, kept
    for want in expected.data:
        got = drawn[want.name]
        assert list(got.x) == list(want.x) and list(got.y) == list(want.y)
        assert [list(c) for c in got.customdata] == [list(c) for c in want.customdata]
        assert got.marker.color == want.marker.color
    assert list(inspector.chart.layout.yaxis.categoryarray) == list(expected.layout.yaxis.categoryarray)
    # what the page draws after the move: the tab's output shows the updated bars
    shown = inspector.chart_output.outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert {t["name"]: list(t["x"]) for t in shown["data"] if len(t["x"])} == {t.name: list(t.x) for t in expected.data}
    assert shown["layout"]["xaxis"]["title"]["text"] == "RRF contribution (paper, k=3)"
    order, traces = contribution_data(refused, top=3)
    assert len(order) == 3 and all(len(t["x"]) <= 3 for t in traces.values())


def test_selecting_a_row_shows_its_explanation_and_fetched_text(
    runs: dict[str, SearchRun], workshop_graph: Graph
) -> None:
    run = runs["HYBRID"]
    inspector = FusionInspector(run, session=workshop_graph.evidence())
    chunk = next(r for r in run.results if r.kind == "chunk")
    inspector.ledger_table.selected = chunk.id  # what a click does
    assert inspector.selected == chunk.id
    assert "fused score" in inspector.explanation.value
    assert inspector.explanation.value.count("term") >= 1
    assert "fetched, version" in inspector.passages_html.value
    assert chunk.text.split()[0] in inspector.passages_html.value
    entity = next(r for r in run.results if r.kind == "entity")
    inspector.method_tables["entity"].selected = entity.id
    assert inspector.selected == entity.id and inspector.ledger_table.selected == entity.id
    assert "entity search: rank" in inspector.explanation.value
    below = inspector.view.order[-1]
    inspector.selected = below
    assert "below the cut" in inspector.explanation.value
    # moving a slider keeps the selection and updates its explanation
    inspector.k = 10.0
    assert "k=10" in inspector.explanation.value


def test_model_refuse_merges_settings(runs: dict[str, SearchRun]) -> None:
    model = FusionModel(runs["HYBRID"])
    view = model.refuse(k=10)
    assert view.k == 10 and view.convention == "paper"
    view = model.refuse(weights={"chunk": 2.0})
    assert view.k == 10 and view.weights == {"entity": 1.0, "chunk": 2.0}
    assert view.keys == runs["HYBRID"].refuse(k=10, weights={"chunk": 2.0}).keys
    assert model.reset().run is runs["HYBRID"]
    assert "not among" in model.explain("nope")


@pytest.mark.parametrize("name", ["HYBRID", "GRAPH_EXPAND", "HYBRID_GD"])
def test_moved_column_says_how_far_each_item_moved(runs: dict[str, SearchRun], name: str) -> None:
    model = FusionModel(runs[name])
    assert all(r["moved"] == 0 for r in model.view.ledger)
    view = model.refuse(k=1.0)
    before = {k: i for i, k in enumerate(FusionModel(runs[name]).view.order, 1)}
    assert all(r["moved"] == before[r["_key"]] - r["position"] for r in view.ledger)
