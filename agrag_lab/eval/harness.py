"""Run recipes and baselines side by side on one index and score them.

:func:`evaluate` runs every recipe (default: the built-ins) and the three
baselines of :mod:`agrag_lab.eval.systems` on a benchmark's judged queries,
projects each run onto documents (:mod:`agrag_lab.eval.projection`), scores
them with ranx, attaches bootstrap confidence intervals and the p-value of
each system against the **best baseline** on the primary metric (Recall@5),
and returns an :class:`~agrag_lab.eval.result.EvalResult`.

HYBRID_RERANKED needs a cross-encoder, which cannot be downloaded on an
offline machine. When it cannot be loaded, it is skipped with a note, and the
offline variant ``recipes/examples/hybrid_graph_distance.toml`` (the same
recipe re-ranked by graph distance) is evaluated in its place, under its own
name.

Examples
--------
Evaluate two recipes on the workshop questions (the index must hold the
workshop corpus)::

    from agrag_lab import Graph
    from agrag_lab.eval import evaluate, workshop
    with Graph.open(".agrag/workshop", read_only=True) as graph:
        result = evaluate(graph, workshop(), ["CHUNK", "HYBRID"])
    print(result.table())
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from agrag_lab import recipes as recipe_lib
from agrag_lab.errors import AgragError, DatasetError, EvaluationError, RerankerError
from agrag_lab.eval.benchmark import Benchmark
from agrag_lab.eval.metrics import CI_METHOD, METRICS, bootstrap_ci, compare, per_query_scores
from agrag_lab.eval.projection import DEFAULT_DEPTH
from agrag_lab.eval.result import EvalResult, SystemScores
from agrag_lab.eval.runcache import RunCache, index_fingerprint
from agrag_lab.eval.systems import (
    BASELINE_CANDIDATES,
    BASELINES,
    QueryCache,
    SystemRun,
    run_baselines,
    run_recipe,
)
from agrag_lab.progress import StatusLog
from agrag_lab.recipes import Recipe
from agrag_lab.recipes.builtins import RECIPES_DIR
from agrag_lab.retrieval.settings import RetrievalSettings

if TYPE_CHECKING:
    from agrag_lab.graph import Graph
    from agrag_lab.retrieval.engine import SearchEngine

#: The metric that picks the reference baseline and the headline comparison.
PRIMARY = "recall@5"
#: The offline stand-in for HYBRID_RERANKED.
GRAPH_DISTANCE_TOML = RECIPES_DIR / "examples" / "hybrid_graph_distance.toml"


def graph_distance_variant() -> Recipe:
    """HYBRID_RERANKED re-ranked by graph distance (no model needed): ``recipes/examples/hybrid_graph_distance.toml``."""
    return recipe_lib.get(GRAPH_DISTANCE_TOML)


def cross_encoder_problem(recipe: Recipe) -> str | None:
    """Why ``recipe``'s cross-encoder cannot run here, or None when it loads."""
    if recipe.rerank.kind != "cross_encoder":
        return None
    model = recipe.rerank.model or "cross-encoder/ms-marco-MiniLM-L-6-v2"
    if _loads(model):
        return None
    return (
        f"needs the cross-encoder {model!r}, which is not available offline; "
        "HYBRID_GRAPH_DISTANCE (graph-distance re-rank) is evaluated instead"
    )


@lru_cache(maxsize=8)
def _loads(model: str) -> bool:
    """Whether a cross-encoder is on this machine (a local folder or in the Hugging Face cache) and loads."""
    if not Path(model).exists():
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:  # pragma: no cover - sentence-transformers depends on it
            return False
        if not isinstance(try_to_load_from_cache(model, "config.json"), str):
            return False  # not cached, and nothing can be downloaded: fail fast
    from agrag_lab.retrieval.rerank import CrossEncoderReranker

    try:
        _ = CrossEncoderReranker(model).model
    except RerankerError:
        return False
    return True


def resolve_recipes(names: Sequence[str | Recipe] | None) -> tuple[list[Recipe], dict[str, str]]:
    """The recipes to run (default: every built-in) and the ones skipped, with why.

    A recipe whose cross-encoder cannot be loaded is skipped; when it is
    HYBRID_RERANKED, the graph-distance variant takes its place.
    """
    wanted = (
        list(recipe_lib.BUILTINS.values())
        if names is None
        else [n if isinstance(n, Recipe) else recipe_lib.get(n) for n in names]
    )
    out: list[Recipe] = []
    skipped: dict[str, str] = {}
    for recipe in wanted:
        problem = cross_encoder_problem(recipe)
        if problem is None:
            out.append(recipe)
            continue
        skipped[recipe.name] = problem
        if recipe.name == "HYBRID_RERANKED":
            variant = graph_distance_variant()
            if variant.name not in {r.name for r in wanted}:
                out.append(variant)
    return out, skipped


def _scores(run: SystemRun, benchmark: Benchmark, queries: Sequence[str], metrics: Sequence[str]) -> SystemScores:
    qrels = {q: benchmark.qrels[q] for q in queries}
    per_query = per_query_scores(qrels, run.rankings, metrics)
    mean = {m: sum(v.values()) / len(v) for m, v in per_query.items()}
    ci = {m: bootstrap_ci(list(v.values())) for m, v in per_query.items()}
    return SystemScores(
        run.name,
        run.kind,
        mean,
        ci,
        per_query,
        dict(run.rankings),
        run.ms_per_query,
        dict(run.failures),
        run.description,
    )


def warm_up(engine: SearchEngine, recipes: Sequence[Recipe], query: str) -> float:
    """Run each recipe once on ``query``, untimed; return the seconds it took.

    The first search of a process loads what every later one reuses (index
    files, the keyword indexes, the first forward pass); without this, the
    system that runs first would absorb that cost in its time per query.
    A recipe that fails here is left to fail (and be reported) in its timed run.
    """
    started = time.perf_counter()
    for recipe in recipes:
        try:
            engine.run(query, recipe)
        except AgragError:
            continue
    return time.perf_counter() - started


def evaluate(
    graph: Graph,
    benchmark: Benchmark,
    recipes: Sequence[str | Recipe] | None = None,
    *,
    baselines: bool = True,
    metrics: Sequence[str] = METRICS,
    depth: int = DEFAULT_DEPTH,
    per_hit: int | None = None,
    stat_test: str = "student",
    primary: str = PRIMARY,
    progress: StatusLog | None = None,
    cache: RunCache | str | Path | None = None,
) -> EvalResult:
    """Run ``recipes`` and the baselines on ``benchmark``'s judged queries and score them.

    Parameters
    ----------
    graph : Graph
        An index holding the benchmark's documents (read-only is enough).
    benchmark : Benchmark
        Queries and qrels; only queries with a relevant document are run.
    recipes : sequence of str or Recipe, optional
        Built-in names, ``.toml`` paths or recipes (default: every built-in).
    baselines : bool
        Also run ``bm25``, ``dense`` and ``bm25+dense``.
    metrics : sequence of str
        ranx metric names (default Recall@2/5/10, nDCG@10, MRR).
    depth : int
        Documents kept per projected ranking (MRR therefore reads the top ``depth``).
    per_hit : int, optional
        Cap on the supporting passages an entity or report hit contributes.
    stat_test : {"student", "fisher"}
        ranx's paired test: two-sided paired t-test or Fisher's randomization test.
    primary : str
        The metric that picks the reference (best) baseline.
    progress : callable, optional
        Receives one line per finished system (e.g. print to stderr).
    cache : RunCache or path, optional
        Keep each system's rankings there and read them back while the recipe, the index, the
        queries and the projection are unchanged (:mod:`agrag_lab.eval.runcache`), so adding a
        recipe to a comparison runs only that recipe.

    Raises
    ------
    DatasetError
        The benchmark has no judged query.
    EvaluationError
        The primary metric is not evaluated, nothing could be run, or every query of a recipe failed.
    """

    if primary not in metrics:
        raise EvaluationError(f"primary metric {primary!r} must be one of the metrics {list(metrics)}")
    queries = benchmark.judged_queries
    if not queries:
        raise DatasetError(f"benchmark {benchmark.name!r} has no query with a relevant document; check its qrels")
    texts = {q: benchmark.queries[q] for q in queries}
    chosen, skipped = resolve_recipes(recipes)
    store = RunCache(cache) if isinstance(cache, str | Path) else cache
    cached: dict[str, SystemRun] = {}
    keys: dict[str, str] = {}
    if store is not None:
        common = {"index": index_fingerprint(graph), "queries": texts, "depth": depth, "per_hit": per_hit}
        for recipe in chosen:
            keys[recipe.name] = store.key(
                recipe.name, {**common, "recipe": recipe.to_dict(), "rrf_k": RetrievalSettings.from_env().rrf_k}
            )
        for name in BASELINES if baselines else ():
            keys[name] = store.key(name, {**common, "baseline": name, "candidates": BASELINE_CANDIDATES})
        cached = {name: run for name, key in keys.items() if (run := store.get(key)) is not None}
    to_run = [r for r in chosen if r.name not in cached]
    cache_model = QueryCache(graph.embedder)
    engine = graph.engine(embedder=cache_model)
    warmup = warm_up(engine, to_run, benchmark.queries[queries[0]]) if to_run else 0.0
    if progress is not None:
        progress(f"warm-up: embedding model {engine.model_load_seconds:.1f} s, first searches {warmup:.1f} s "
                 "(a step of its own: no system's time includes it)")
        if cached:
            progress(f"read back from the run cache: {', '.join(cached)}")
    started = time.perf_counter()
    runs: list[SystemRun] = []
    for recipe in chosen:
        run = cached.get(recipe.name) or run_recipe(
            engine, recipe, texts, depth=depth, per_hit=per_hit, progress=progress
        )
        if store is not None and recipe.name not in cached:
            store.put(keys[recipe.name], run)
        if len(run.failures) == len(queries):
            skipped[recipe.name] = f"every query failed, e.g. {next(iter(run.failures.values()))}"
            continue
        runs.append(run)
    if baselines:
        if all(name in cached for name in BASELINES):
            runs.extend(cached[name] for name in BASELINES)
        else:
            fresh = run_baselines(graph, texts, embedder=cache_model, depth=depth, progress=progress)
            for run in fresh:
                if store is not None:
                    store.put(keys[run.name], run)
            runs.extend(fresh)
    if not runs:
        raise EvaluationError("no system could be evaluated: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    if progress is not None:
        progress(f"ran {len(runs)} systems on {len(queries)} queries in {time.perf_counter() - started:.1f} s")
    config: dict[str, object] = {
        "model_load_seconds": round(engine.model_load_seconds, 3),
        "warmup_seconds": round(warmup, 3),
        "depth": depth,
        "per_hit": per_hit,
        "index": str(graph.path),
    }
    return score_runs(benchmark, runs, metrics=metrics, stat_test=stat_test, primary=primary, skipped=skipped,
                      config=config)


def score_runs(
    benchmark: Benchmark,
    runs: Sequence[SystemRun],
    *,
    metrics: Sequence[str] = METRICS,
    stat_test: str = "student",
    primary: str = PRIMARY,
    skipped: dict[str, str] | None = None,
    config: dict[str, object] | None = None,
) -> EvalResult:
    """Score systems that already ran (their projected rankings) as :func:`evaluate` does.

    The reference is the best baseline on ``primary`` (the best recipe when no
    baseline ran); p-values are ranx's paired test against it.
    """
    queries = benchmark.judged_queries
    skipped = dict(skipped or {})
    systems = tuple(_scores(r, benchmark, queries, metrics) for r in runs)
    kinds = {s.kind for s in systems}
    pool = [s for s in systems if s.kind == ("baseline" if "baseline" in kinds else "recipe")]
    reference = max(pool, key=lambda s: s.mean[primary]).name
    qrels = {q: benchmark.qrels[q] for q in queries}
    p_values = compare(qrels, {s.name: s.rankings for s in systems}, reference, metrics, stat_test=stat_test)
    notes = []
    if any(r.failures for r in runs):
        notes.append(
            "queries that failed in a recipe score 0: "
            + ", ".join(f"{r.name} {len(r.failures)}" for r in runs if r.failures)
        )
    config = {
        **(config or {}),
        "primary": primary,
        "queries": len(queries),
        "documents": len(benchmark.documents),
        "baseline_candidates": BASELINE_CANDIDATES,
        "projection": "documents; entity/report hits count through their "
        "supporting passages at the hit's position; each document once, at its best position",
    }
    return EvalResult(
        benchmark.name,
        tuple(metrics),
        systems,
        reference,
        p_values,
        stat_test,
        CI_METHOD,
        benchmark.groups(),
        skipped,
        tuple(notes),
        config,
    )
