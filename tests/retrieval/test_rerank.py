"""Re-ranking: a real CrossEncoder built from the bundled MiniLM weights, graph distance,
the community-report slots, and a clear error for a model that cannot be loaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrag_lab import Graph
from agrag_lab.errors import RerankerError
from agrag_lab.recipes import HYBRID_RERANKED, Recipe

QUERY = "Who worked with Babbage?"


def test_cross_encoder_rerank_runs_the_real_model_and_keeps_report_slots(
    workshop_graph: Graph, cross_encoder_path: Path
) -> None:
    recipe = HYBRID_RERANKED.replace(**{"rerank.model": str(cross_encoder_path)})
    run = workshop_graph.engine().run(QUERY, recipe)
    rerank = run.trace.outcome.rerank
    assert rerank is not None and rerank.kind == "cross_encoder"
    pool = run.trace.outcome.fusion.keys
    assert {m.key for m in rerank.moves} == set(pool)
    scores = run.trace.context.rerank_scores
    assert set(pool) <= set(scores)
    reports_in_pool = [k for k in pool if run.trace.items[k].kind == "community"]
    kept_reports = [r for r in run.results if r.kind == "community"]
    assert len(kept_reports) == min(recipe.rerank.community_slots, len(reports_in_pool))
    assert len(run.results) == recipe.limit
    # non-report results are in cross-encoder order
    others = [r.id for r in run.results if r.kind != "community"]
    assert others == sorted(others, key=lambda k: -scores[k])
    assert "re-rank (cross_encoder)" in run.explain(0)


def test_report_slots_can_be_turned_off(workshop_graph: Graph, cross_encoder_path: Path) -> None:
    recipe = HYBRID_RERANKED.replace(**{"rerank.model": str(cross_encoder_path), "rerank.community_slots": 0})
    run = workshop_graph.engine().run(QUERY, recipe)
    scores = run.trace.context.rerank_scores
    assert [r.id for r in run.results] == sorted(run.trace.outcome.fusion.keys, key=lambda k: -scores[k])[: recipe.limit]


def test_a_configured_cross_encoder_that_cannot_be_loaded_says_how_to_configure_one(
    workshop_graph: Graph, tmp_path: Path
) -> None:
    missing = HYBRID_RERANKED.replace(**{"rerank.model": str(tmp_path / "no-such-cross-encoder")})
    with pytest.raises(RerankerError, match=r"rerank\.model.*graph_distance"):
        workshop_graph.engine().run(QUERY, missing)


def test_the_builtin_without_a_configured_cross_encoder_reranks_by_graph_distance_and_says_so(
    workshop_graph: Graph,
) -> None:
    """No cross-encoder on this machine: nothing is downloaded, the graph distance orders, the trace says why."""
    run = workshop_graph.engine().run(QUERY, HYBRID_RERANKED)
    rerank = run.trace.outcome.rerank
    assert rerank is not None and rerank.kind == "graph_distance" and rerank.model is None
    assert "no cross-encoder is configured" in rerank.fallback and rerank.fallback in run.trace.warnings
    assert run.trace.context.rerank_scores == {}
    after = sorted(rerank.moves, key=lambda m: m.after)
    assert [m.score for m in after] == sorted((m.score for m in after), reverse=True)
    # the recipe's community-report slots still hold
    offered = [k for k in run.trace.outcome.fusion.keys if run.trace.items[k].kind == "community"]
    kept = [r for r in run.results if r.kind == "community"]
    assert len(kept) == min(HYBRID_RERANKED.rerank.community_slots, len(offered))
    assert "re-rank (graph_distance)" in run.explain(0)
    # re-fusing keeps the fallback (it is captured in the context)
    assert run.refuse(k=10).trace.outcome.rerank.fallback == rerank.fallback  # type: ignore[union-attr]


def test_graph_distance_rerank_orders_by_hops_to_the_top_entities(workshop_graph: Graph) -> None:
    recipe = Recipe.load(Path(__file__).resolve().parents[2] / "recipes" / "examples" / "hybrid_graph_distance.toml")
    run = workshop_graph.engine().run(QUERY, recipe)
    rerank = run.trace.outcome.rerank
    assert rerank is not None and rerank.kind == "graph_distance"
    after = sorted(rerank.moves, key=lambda m: m.after)
    scores = [m.score for m in after]
    assert scores == sorted(scores, reverse=True)
    assert run.results[0].score == max(scores)
