"""Re-ranking: a real CrossEncoder built from the bundled MiniLM weights, graph distance,
the community-report slots, and a clear error for a model that cannot be loaded."""

from __future__ import annotations

from pathlib import Path

import numpy as np
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
    # the cross-encoder scores the fused first 2 x limit (the default pool), not every candidate; the rest
    # follow in fused order (what each pool holds: test_rerank_levers.py)
    assert rerank.pool == "fused"
    scored = {m.key for m in rerank.moves if m.scored}
    assert scored == set(scores) & set(pool) and scored < set(pool)
    after = sorted(rerank.moves, key=lambda m: m.after)
    assert [m.scored for m in after] == sorted((m.scored for m in after), reverse=True)
    unscored = [m.key for m in after if not m.scored]
    assert unscored == [k for k in pool if k in unscored]
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
    scored = [k for k in run.trace.outcome.fusion.keys if k in scores]
    assert [r.id for r in run.results] == sorted(scored, key=lambda k: -scores[k])[: recipe.limit]


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
    # the pool is what a cross-encoder scores: the fallback never reads it (either pool, the same run)
    assert rerank.pool == "" and run.trace.outcome.rerank == workshop_graph.engine().run(
        QUERY, HYBRID_RERANKED.replace(**{"rerank.pool": "neighbourhood"})
    ).trace.outcome.rerank


def test_graph_distance_rerank_orders_by_hops_to_the_top_entities(workshop_graph: Graph) -> None:
    recipe = Recipe.load(Path(__file__).resolve().parents[2] / "recipes" / "examples" / "hybrid_graph_distance.toml")
    run = workshop_graph.engine().run(QUERY, recipe)
    rerank = run.trace.outcome.rerank
    assert rerank is not None and rerank.kind == "graph_distance"
    after = sorted(rerank.moves, key=lambda m: m.after)
    scores = [m.score for m in after]
    assert scores == sorted(scores, reverse=True)
    assert run.results[0].score == max(scores)


def test_onnx_cross_encoder_scores_equal_the_sentence_transformers_ones(cross_encoder_path: Path) -> None:
    """A local CrossEncoder folder runs on ONNX Runtime with CrossEncoder.predict's scores; pairs are cached."""
    from sentence_transformers import CrossEncoder

    from agrag_lab.retrieval.rerank import CrossEncoderReranker

    query = "Who designed the Analytical Engine?"
    texts = ["Charles Babbage designed the Analytical Engine.", "Ada Lovelace wrote Note G.", "loom " * 600, ""]
    reranker = CrossEncoderReranker(str(cross_encoder_path))
    ours = reranker.score(query, texts)
    theirs = CrossEncoder(str(cross_encoder_path), device="cpu").predict([(query, t) for t in texts])
    assert reranker._onnx
    assert np.allclose(ours, np.asarray(theirs, dtype=np.float32), atol=1e-5)
    assert len(reranker._pairs) == len(texts)
    # batches of similar lengths (2 pairs each here): each score still goes to its own text
    batched = CrossEncoderReranker(str(cross_encoder_path), batch_size=2).score(query, texts)
    assert np.allclose(batched, ours, atol=1e-5)
    again = reranker.score(query, texts[1::-1])  # from the cache, in the order asked
    assert again.tolist() == ours[1::-1].tolist() and len(reranker._pairs) == len(texts)
