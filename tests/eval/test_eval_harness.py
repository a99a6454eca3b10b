"""evaluate() on the workshop index, the report files, and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from agrag_lab import Graph
from agrag_lab.cli import main as cli_main
from agrag_lab.eval import EvalResult, evaluate, workshop, write_report
from agrag_lab.eval.harness import graph_distance_variant, resolve_recipes
from agrag_lab.eval.indexing import ensure_index, missing_documents
from agrag_lab.eval.projection import project_run
from agrag_lab.recipes import HYBRID


@pytest.fixture(scope="module")
def result(workshop_graph: Graph) -> EvalResult:
    return evaluate(workshop_graph, workshop(), ["CHUNK", "HYBRID", "GRAPH_EXPAND"])


def test_every_system_is_scored_on_every_judged_query(result: EvalResult) -> None:
    assert result.names == ("CHUNK", "HYBRID", "GRAPH_EXPAND", "bm25", "dense", "bm25+dense")
    assert len(result.queries) == 20
    for s in result.systems:
        assert set(s.mean) == set(result.metrics) == {"recall@2", "recall@5", "recall@10", "ndcg@10", "mrr"}
        for m in result.metrics:
            assert 0.0 <= s.ci[m][0] <= s.mean[m] + 1e-9 <= s.ci[m][1] + 2e-9
            assert len(s.per_query[m]) == 20
            assert s.mean[m] == pytest.approx(sum(s.per_query[m].values()) / 20)
        assert all(len(r) <= 10 for r in s.rankings.values())


def test_reference_is_the_best_baseline_and_p_values_cover_the_others(result: EvalResult) -> None:
    baselines = [s for s in result.systems if s.kind == "baseline"]
    assert result.reference == max(baselines, key=lambda s: s.mean["recall@5"]).name
    assert set(result.p_values) == set(result.names) - {result.reference}
    assert all(0.0 <= p <= 1.0 for ps in result.p_values.values() for p in ps.values())
    assert result.groups["q01"] == "1-hop"
    assert set(result.by_group()["group"].to_list()) == {"1-hop", "2-hop"}


def test_the_scored_ranking_is_the_projection_of_a_fresh_run(result: EvalResult, workshop_graph: Graph) -> None:
    run = workshop_graph.engine().run(workshop().queries["q01"], HYBRID)
    assert result.system("HYBRID").rankings["q01"] == project_run(run)
    first = run.results[0].passages()[0]
    assert result.system("HYBRID").rankings["q01"][0] == first.split("@", 1)[0]


def test_result_round_trips_and_tabulates(result: EvalResult) -> None:
    again = EvalResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again == result
    frame = result.to_polars()
    assert frame.height == 6 and {"system", "recall@5", "recall@5 ci_low", "recall@5 p"} <= set(frame.columns)
    long = result.per_query_frame()
    assert long.height == 6 * 5 * 20 and long.schema["score"] == pl.Float64
    text = result.table()
    assert "reference = " + result.reference in text and "HYBRID" in text
    w, t, lo = result.wins_losses("HYBRID", "recall@5")
    assert w + t + lo == 20


def test_report_files(result: EvalResult, tmp_path: Path) -> None:
    paths = write_report(result, tmp_path / "out")
    assert {p.name for p in paths.values()} == {
        "workshop.csv",
        "workshop.per_query.csv",
        "workshop.json",
        "workshop.html",
    }
    assert pl.read_csv(paths["csv"]).height == 6
    assert json.loads(paths["json"].read_text())["reference"] == result.reference
    page = paths["html"].read_text()
    assert page.count("plotly.js v") <= 2 and "Plotly.newPlot" in page  # plotly.js inlined once, charts drawn
    assert "Wins and losses against" in page and "Recall@5 per system" in page and "By query group" in page


def test_recipes_resolve_with_the_offline_stand_in() -> None:
    recipes, skipped = resolve_recipes(None)
    names = [r.name for r in recipes]
    assert {"ENTITY", "CHUNK", "HYBRID", "GRAPH_EXPAND", "THEMATIC"} <= set(names)
    if "HYBRID_RERANKED" in skipped:
        assert "cross-encoder" in skipped["HYBRID_RERANKED"]
        assert graph_distance_variant().name in names
    assert graph_distance_variant().rerank.kind == "graph_distance"


def test_ensure_index_is_idempotent(workshop_path: Path, embedder: object) -> None:
    assert ensure_index(workshop_path, workshop(), embedder=embedder) == []  # type: ignore[arg-type]
    with Graph.open(workshop_path, embedder=embedder, read_only=True) as graph:  # type: ignore[arg-type]
        assert missing_documents(graph, workshop()) == []


def test_cli_eval_prints_the_table_and_writes_the_report(
    workshop_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli_main(
        [
            "eval",
            "--benchmark",
            "workshop",
            "--index",
            str(workshop_path),
            "--recipes",
            "CHUNK,HYBRID",
            "--queries",
            "6",
            "--out",
            str(tmp_path / "r"),
            "--stat-test",
            "fisher",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "workshop: 6 queries; reference = " in out and "bm25+dense" in out
    assert (tmp_path / "r" / "workshop.html").exists() and (tmp_path / "r" / "workshop.json").exists()


def test_cli_eval_bad_benchmark_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["eval", "--benchmark", str(tmp_path / "none"), "--index", str(tmp_path / "idx")])
    assert code == 2
    assert "unknown benchmark" in capsys.readouterr().err
