"""RecipeComparison: lists joined across recipes, rank shift, overlap, metrics and wins on a benchmark."""

from __future__ import annotations

import itertools
import random

import pytest

from agrag_lab import Graph
from agrag_lab.charts import single_votes
from agrag_lab.errors import AgragError, RecipeError, ViewArgumentError
from agrag_lab.eval import workshop
from agrag_lab.eval.metrics import per_query_scores
from agrag_lab.eval.projection import project_run
from agrag_lab.recipes import CHUNK, GRAPH_EXPAND, HYBRID, Recipe
from agrag_lab.retrieval.engine import SearchEngine
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.widgets.citations import CitationModel
from agrag_lab.widgets.comparison import ComparisonModel, RecipeComparison, normalise_queries
from agrag_lab.widgets.fusion_inspector import FusionModel
from agrag_lab.widgets.measures import jaccard, rank_shift, rbo


# -- measures ------------------------------------------------------------------------------
def test_rbo_known_values_and_properties() -> None:
    assert rbo(list("abcdefg"), list("abcdefg")) == pytest.approx(1.0)
    assert rbo(list("abc"), list("xyz")) == 0.0
    # Webber et al.: a swap at the top costs more than a swap at the bottom
    top = rbo(list("bacdefgh"), list("abcdefgh"))
    bottom = rbo(list("abcdefhg"), list("abcdefgh"))
    assert top < bottom < 1.0
    rng = random.Random(7)
    for _ in range(50):
        a = rng.sample("abcdefghijklmnop", rng.randint(1, 10))
        b = rng.sample("abcdefghijklmnop", rng.randint(1, 10))
        assert rbo(a, b) == pytest.approx(rbo(b, a))
        assert 0.0 <= rbo(a, b) <= 1.0
    # a prefix of the other list agrees fully on what it has seen
    assert rbo(list("abc"), list("abcdef")) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        rbo(["a"], ["a"], p=1.0)


def test_jaccard_and_rank_shift() -> None:
    assert jaccard(list("abcd"), list("cdef")) == pytest.approx(2 / 6)
    assert jaccard([], []) == 1.0
    assert rank_shift(list("abc"), list("cab")) == {"a": -1, "b": -1, "c": 2}


def test_normalise_queries() -> None:
    assert normalise_queries(["a?", "b?"]) == {"q1": "a?", "q2": "b?"}


# -- the model -------------------------------------------------------------------------------
QUERIES = {"q01": "Who worked with Babbage?", "q04": "In which city was the inventor of the loom that "
           "inspired the Analytical Engine's punched cards born?", "q05": "Which numbers did Ada Lovelace "
           "show the Analytical Engine could calculate in Note G?"}


@pytest.fixture(scope="module")
def model(widget_engine: SearchEngine) -> ComparisonModel:
    return ComparisonModel.run(widget_engine, [CHUNK, HYBRID, GRAPH_EXPAND], QUERIES, benchmark=workshop())


def test_side_by_side_joins_the_same_item(model: ComparisonModel) -> None:
    for qid in QUERIES:
        rows = model.side_by_side(qid)
        by_key = {r["_key"]: r for r in rows}
        for name in model.names:
            run = model.get(name, qid)
            assert run is not None
            for result in run.results:
                assert by_key[result.id][f"rank:{name}"] == result.rank
        keys = {r.id for n in model.names for r in model.runs[n][qid].results}
        assert set(by_key) == keys
        for row in rows:
            base = row.get("rank:CHUNK")
            for name in ("HYBRID", "GRAPH_EXPAND"):
                mine = row.get(f"rank:{name}")
                assert row[f"shift:{name}"] == (base - mine if base and mine else None)
            assert row["found"] == sum(1 for n in model.names if row.get(f"rank:{n}") is not None)
        assert [r["best"] for r in rows] == sorted(r["best"] for r in rows)


def test_overlap_measures_on_passages_as_evaluated_or_on_items(model: ComparisonModel) -> None:
    for qid in QUERIES:
        for on in ("passages", "items"):
            rows = model.overlap(qid, on)
            assert [(r["a"], r["b"]) for r in rows] == list(itertools.combinations(model.names, 2))
            for r in rows:
                ra, rb = model.runs[r["a"]][qid], model.runs[r["b"]][qid]
                a, b = (project_run(ra), project_run(rb)) if on == "passages" else (ra.keys, rb.keys)
                assert r["jaccard"] == jaccard(a, b) and r["rbo"] == rbo(a, b, 0.9)
                assert r["common"] == len(set(a) & set(b))
    assert model.overlap("q01") == model.overlap("q01", "passages")  # the evaluation's view by default
    # on items, HYBRID's entities make it look unlike CHUNK; on the documents they stand for it is not
    items = {r["_key"]: r["jaccard"] for r in model.mean_overlap("items")}
    docs = {r["_key"]: r["jaccard"] for r in model.mean_overlap("passages")}
    assert docs["CHUNK|HYBRID"] > items["CHUNK|HYBRID"]
    means = model.mean_overlap()
    first = means[0]
    assert first["queries"] == 3
    assert first["jaccard"] == pytest.approx(sum(model.overlap(q)[0]["jaccard"] for q in QUERIES) / 3)
    with pytest.raises(AgragError, match="'passages' or 'items'"):
        model.overlap("q01", "words")  # type: ignore[arg-type]


def test_metrics_and_wins_on_a_benchmark(model: ComparisonModel) -> None:
    result = model.evaluation
    assert result is not None and result.reference == "CHUNK"
    bench = workshop()
    for name in model.names:
        rankings = {q: project_run(model.runs[name][q]) for q in QUERIES}
        expected = per_query_scores({q: bench.qrels[q] for q in QUERIES}, rankings)
        assert dict(result.system(name).per_query["recall@5"]) == expected["recall@5"]
    rows = model.metric_rows()
    assert [r["_key"] for r in rows] == ["CHUNK", "HYBRID", "GRAPH_EXPAND"]
    assert [r["recipe"] for r in rows] == ["CHUNK (a)", "HYBRID (b)", "GRAPH_EXPAND (c)"]
    assert rows[0]["verdict"] == "baseline" and all(0 <= r["recall@5"] <= 1 for r in rows)
    per_query = model.per_query_rows("recall@5")
    assert [r["_key"] for r in per_query] == list(QUERIES)
    counts = model.wins_losses("recall@5")
    for name, (wins, ties, losses) in counts.items():
        outcomes = [r[f"outcome:{name}"] for r in per_query]
        assert (outcomes.count("win"), outcomes.count("tie"), outcomes.count("loss")) == (wins, ties, losses)


def test_statistics_follow_the_chosen_metric_and_warn_with_few_queries(model: ComparisonModel) -> None:
    result = model.evaluation
    assert result is not None
    # three judged queries: no interval, a warning instead
    assert "only 3 judged queries" in model.interval_warning()
    assert {r["ci"] for r in model.metric_rows("ndcg@10")} == {"too few queries"}
    for metric in ("recall@5", "ndcg@10", "mrr"):
        rows = {r["_key"]: r for r in model.metric_rows(metric)}
        for name in ("HYBRID", "GRAPH_EXPAND"):
            p = result.p_values[name][metric]
            assert rows[name]["p"] == f"{p:.3g}"  # the chosen metric's p-value, not Recall@5's
            assert rows[name]["verdict"] == result.verdict(name, metric)
            assert rows[name]["verdict"] in ("better", "worse", "not significant")
        # ranx-style marks: the best mean of every metric in bold, superscripts from the pairwise tests
        for m in result.metrics:
            best = max(s.mean[m] for s in result.systems)
            assert [r["_marks"][m]["best"] for r in rows.values()] == [
                result.system(n).mean[m] == best for n in rows]
            for row in rows.values():  # too few queries for a test to mean much: no significance letters
                assert row["_marks"][m]["sup"] == "" and row["_marks"][m]["title"] == ""
    with pytest.raises(AgragError, match="unknown metric"):
        model.metric_rows("precision@3")


def test_more_queries_give_intervals(widget_engine: SearchEngine) -> None:
    bench = workshop()
    queries = {q: bench.queries[q] for q in bench.judged_queries[:10]}
    model = ComparisonModel.run(widget_engine, [CHUNK, HYBRID], queries, benchmark=bench)
    assert model.interval_warning() == ""
    result = model.evaluation
    assert result is not None
    for metric in ("recall@5", "mrr"):
        row = next(r for r in model.metric_rows(metric) if r["_key"] == "HYBRID")
        low, high = result.system("HYBRID").ci[metric]
        assert row["ci"] == f"{low:.3f} – {high:.3f}"


def test_a_failed_search_is_recorded_not_raised(widget_engine: SearchEngine) -> None:
    broken = Recipe("BROKEN", ("no_such_method",))
    model = ComparisonModel.run(widget_engine, [CHUNK, broken], "Who worked with Babbage?")
    assert model.get("BROKEN", "q1") is None
    assert "UnknownRecipeMethodError" in model.failures["BROKEN"]["q1"]
    assert model.overlap("q1") == []
    assert "the search failed" in model.explain("q1", "anything")


# -- the widget -------------------------------------------------------------------------------
def test_widget_follows_the_query_and_the_selection(model: ComparisonModel) -> None:
    widget = RecipeComparison(None, model=model)
    assert widget.query == "q01"
    assert widget.table.rows == model.side_by_side("q01")
    shift = widget.figures["shift"]
    assert len(shift.data) > 0 and "CHUNK → HYBRID" in shift.layout.title.text
    assert widget.shift_chart.outputs[0]["data"]["application/vnd.plotly.v1+json"]["layout"]["title"]["text"] == (
        shift.layout.title.text
    )
    for name, output in widget.contribution_charts.items():
        votes = single_votes(model.get(name, "q01"))
        if votes:  # CHUNK: one vote per result; a chart of it would only restate the ranks
            assert not output.outputs and f"contributions:{name}" not in widget.figures
            assert "single vote" in widget.contribution_notes[name].value
        else:
            assert len(widget.figures[f"contributions:{name}"].data) > 0 and output.outputs
    for name in model.names:  # "single vote": every result has exactly one source in the ledger
        run = model.get(name, "q01")
        assert run is not None
        sources: dict[str, list[str]] = {}
        for r in run.ledger_rows():
            if r["kept"]:
                sources.setdefault(r["key"], []).append(r["source"])
        one_each = all(len(v) == 1 for v in sources.values())
        assert bool(single_votes(run)) == one_each
        if one_each:
            assert sum(single_votes(run).values()) == len(run)
    assert single_votes(model.get("CHUNK", "q01")) == {"chunk": len(model.get("CHUNK", "q01"))}
    widget.query_dropdown.value = "q05"
    assert widget.table.rows == model.side_by_side("q05")
    assert widget.overlap_table.rows == model.overlap("q05")
    assert "Note G" in widget.header.value
    widget.other_dropdown.value = "GRAPH_EXPAND"
    assert "CHUNK → GRAPH_EXPAND" in widget.figures["shift"].layout.title.text
    key = widget.table.row_keys[0]
    widget.table.selected = key
    assert widget.selected == key and "CHUNK" in widget.detail.value and "fused score" in widget.detail.value


def test_widget_benchmark_views(model: ComparisonModel) -> None:
    widget = RecipeComparison(None, model=model)
    assert widget.metrics_table is not None and widget.metrics_table.rows == model.metric_rows()
    assert widget.metric_chart is not None and "Recall@5" in widget.figures["metric"].layout.title.text
    assert widget.wins_chart is not None and "against CHUNK" in widget.figures["wins"].layout.title.text
    assert "only 3 judged queries" in widget.warning.value
    widget.metric = "ndcg@10"
    assert "nDCG@10" in widget.figures["metric"].layout.title.text
    assert widget.metrics_table.rows == model.metric_rows("ndcg@10")
    assert [c["label"] for c in widget.metrics_table.columns][-3:] == ["ndcg@10 95% CI", "ndcg@10 p", "vs CHUNK"]
    widget.overlap_on = "items"
    assert widget.overlap_table.rows == model.overlap(widget.query, "items")
    assert widget.per_query_table is not None and widget.per_query_table.rows == model.per_query_rows("ndcg@10")


def test_widget_runs_the_searches_itself(widget_engine: SearchEngine, runs: dict[str, SearchRun]) -> None:
    widget = RecipeComparison(widget_engine, [HYBRID, GRAPH_EXPAND], "Who worked with Babbage?")
    assert widget.model.runs["HYBRID"]["q1"].keys == runs["HYBRID"].keys
    assert widget.metrics_table is None


def test_recipes_by_name_and_the_wrong_kinds_of_argument(widget_engine: SearchEngine, workshop_graph: Graph) -> None:
    """Names were an AttributeError ('str' object has no attribute 'name'), and so was a Graph for the engine."""
    model = ComparisonModel.run(widget_engine, ["CHUNK", "hybrid"], "Who built the loom?")
    assert model.names == ("CHUNK", "HYBRID")
    qid = next(iter(model.queries))
    assert model.get("HYBRID", qid).keys == widget_engine.run("Who built the loom?", HYBRID).keys
    with pytest.raises(ViewArgumentError, match=r"engine must be a SearchEngine \(graph.engine\(\)\), not Graph"):
        ComparisonModel.run(workshop_graph, [CHUNK, HYBRID], "loom")  # type: ignore[arg-type]
    with pytest.raises(ViewArgumentError, match=r"recipes must be Recipe objects or names .* not int"):
        ComparisonModel.run(widget_engine, [CHUNK, 3], "loom")  # type: ignore[list-item]
    with pytest.raises(RecipeError, match="unknown recipe 'HYBRD'"):
        ComparisonModel.run(widget_engine, [CHUNK, "HYBRD"], "loom")


def test_the_inspector_and_the_checker_say_what_they_need() -> None:
    with pytest.raises(ViewArgumentError, match=r"shows one SearchRun \(engine.run\(query, recipe\)\), not str"):
        FusionModel("Who built the loom?")  # type: ignore[arg-type]
    with pytest.raises(ViewArgumentError, match=r"needs an evidence session \(graph.evidence\(\).*not int"):
        CitationModel(5)


def test_ten_recipes_fit_letters_head_the_rank_columns(widget_engine: SearchEngine) -> None:
    from agrag_lab import recipes
    from agrag_lab.widgets import RecipeComparison

    ten = [*recipes.RECIPES.values(), *list(recipes.peers().values())[: 10 - len(recipes.RECIPES)]]
    assert len(ten) == 10
    compare = RecipeComparison(widget_engine, ten, {"q": "Who worked with Babbage?"})
    columns = compare.table.columns
    ranks = [c for c in columns if c["key"].startswith("rank:")]
    assert len(ranks) == 10 and not any(c["key"].startswith("shift:") for c in columns)
    assert [c["label"] for c in ranks] == [compare.model.letters[r.name] for r in ten]
    assert all(c["title"] == r.name for c, r in zip(ranks, ten, strict=True))  # the whole name in the hover
    for r in ten:
        assert f"{compare.model.letters[r.name]} = {r.name}" in compare.table.caption
    assert columns[0]["key"] == "title"  # the item first: the sticky column
