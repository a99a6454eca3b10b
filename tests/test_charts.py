"""Charts as data: traces, values, titles, axis labels, hover text, palette."""

from __future__ import annotations

import pytest

from agrag_lab import Graph
from agrag_lab.charts import (
    OKABE_ITO,
    color,
    metric_by_group,
    metric_comparison,
    rank_contributions,
    rank_shift,
    wins_losses,
)
from agrag_lab.eval.result import EXAMPLE, EvalResult
from agrag_lab.recipes import CHUNK, HYBRID
from agrag_lab.retrieval.run import SearchRun


@pytest.fixture(scope="module")
def runs(workshop_graph: Graph) -> tuple[SearchRun, SearchRun]:
    engine = workshop_graph.engine()
    return engine.run("Who worked with Babbage?", CHUNK), engine.run("Who worked with Babbage?", HYBRID)


def test_palette_is_okabe_ito_and_stable() -> None:
    assert len(OKABE_ITO) == 8 and OKABE_ITO[1] == "#E69F00"
    assert color("entity") != color("chunk")
    assert color("anything") == color("anything") and color("anything") in OKABE_ITO


def test_rank_contributions_stacks_the_ledger_terms(runs: tuple[SearchRun, SearchRun]) -> None:
    hybrid = runs[1]
    fig = rank_contributions(hybrid)
    assert fig.layout.barmode == "stack"
    assert {t.name for t in fig.data} <= {"entity", "chunk"}
    # the terms of each bar add up to the result's fused score
    totals: dict[str, float] = {}
    for trace in fig.data:
        for x, y in zip(trace.x, trace.y, strict=True):
            totals[y] = totals.get(y, 0.0) + x
    for result in hybrid.results:
        label = next(y for y in totals if y.startswith(f"#{result.rank} "))
        assert totals[label] == pytest.approx(result.score)
    assert "HYBRID" in fig.layout.title.text
    assert fig.layout.xaxis.title.text.startswith("RRF contribution")
    assert "rank in source" in fig.data[0].hovertemplate
    assert next(iter(fig.layout.yaxis.categoryarray)).startswith("#1 ")
    assert rank_contributions(hybrid.trace, top=3).layout.yaxis.categoryarray[-1].startswith("#3 ")


def test_rank_shift_joins_items_across_recipes(runs: tuple[SearchRun, SearchRun]) -> None:
    chunk, hybrid = runs
    fig = rank_shift(chunk, hybrid)
    both = set(chunk.keys) & set(hybrid.keys)
    lines = [t for t in fig.data if len(t.x) == 2]
    singles = [t for t in fig.data if len(t.x) == 1]
    assert len(lines) == len(both)
    assert len(singles) == len(set(chunk.keys) ^ set(hybrid.keys))
    assert list(fig.layout.xaxis.categoryarray) == ["CHUNK", "HYBRID"]
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]  # rank 1 on top
    assert fig.layout.title.text.startswith("Rank shift: CHUNK → HYBRID")
    for t in lines:
        moved = t.y[1] - t.y[0]
        assert t.legendgroup == ("up" if moved < 0 else "down" if moved > 0 else "same")
    assert sum(1 for t in fig.data if t.showlegend) == len({t.legendgroup for t in fig.data})
    assert "(a)" in rank_shift(chunk, chunk).layout.xaxis.categoryarray[0]


def test_metric_comparison_bars_with_confidence_intervals() -> None:
    result = EvalResult.from_dict(EXAMPLE)
    fig = metric_comparison(result, "recall@2", intervals=True)
    recipe, baseline, reference = fig.data
    assert reference.name == "reference: bm25" and not fig.layout.annotations  # named in the legend, not on a bar
    assert list(recipe.x) == ["HYBRID (a)"] and list(recipe.y) == [1.0]  # named with its letter, as ranx
    assert list(baseline.error_y.arrayminus) == [0.5] and list(baseline.error_y.array) == [0.5]
    assert "p = 0.2" in recipe.customdata[0][2] and "95% CI" in recipe.hovertemplate
    assert fig.layout.yaxis.title.text == "Recall@2" and "95% CI" in fig.layout.title.text
    with pytest.raises(KeyError, match="ndcg@10"):
        metric_comparison(result, "ndcg@10")


def test_wins_losses_counts_per_query() -> None:
    result = EvalResult.from_dict(EXAMPLE)
    fig = wins_losses(result, metric="recall@2")
    wins, losses = fig.data
    assert list(wins.x) == ["HYBRID"] and list(wins.y) == [1] and list(losses.y) == [0]
    assert fig.layout.barmode == "relative" and "bm25" in fig.layout.title.text


def test_metric_by_group_one_bar_group_per_hop() -> None:
    fig = metric_by_group(EvalResult.from_dict(EXAMPLE), "recall@2")
    assert [t.name for t in fig.data] == ["HYBRID", "bm25"]
    assert list(fig.data[1].y) == [0.0, 1.0] and list(fig.data[1].x) == ["1-hop", "2-hop"]
