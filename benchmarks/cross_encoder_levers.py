"""HYBRID_RERANKED's re-rank levers judged by a trained cross-encoder (issue 30): time and quality, one run.

The cross-encoder is :func:`benchmarks.cross_encoder.trained_cross_encoder`
(the bundled MiniLM trained on SciFact's train claims); every benchmark here
is data it was not trained on: the workshop questions, MuSiQue-100, the
Christmas Carol questions over the imported GraphRAG output, GraphRAG-Bench
Medical (a SHA-1 sample per question type).

Systems (:data:`VARIANTS`): ``HYBRID`` (no re-rank), and ``HYBRID_RERANKED``
with the trained model and each setting of ``rerank.pool`` x
``rerank.precision``, plus a ``max_length`` = 128 run of the model (the length
it was trained at; pairs on the workshop are ~210 tokens). What is measured:

* the int8 graph against the fp32 one on real pairs (the workshop's pools):
  the largest score difference;
* quality per benchmark: Recall@5/10 and nDCG@10 (ranx, as ``agrag_lab.eval``
  scores them: results projected onto documents, or onto text units for
  Carol), the paired t-test of every variant against the reference
  (:data:`REFERENCE`, HYBRID_RERANKED's own pool and precision) and of the
  reference against HYBRID, and how many questions' top 10 (item ids) differ
  from the reference's, as a list and as a set, and how many items enter them;
* time on the workshop index: p50 / p95 of a run per variant, interleaved
  question by question (the pair cache cleared before each timed run), with
  the load average.

Run: ``python -m benchmarks.cross_encoder_levers --index-root .agrag/bench``
(indexes are built there once: ``workshop``, ``musique``, ``carol``, ``medical``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agrag_lab.recipes import HYBRID, HYBRID_RERANKED, Recipe

#: name -> (rerank.pool, rerank.precision, max_length); the first is the reference. 256 tokens keeps every
#: workshop pair whole (200-242 tokens), as a cross-encoder with a 512-token limit (ms-marco-MiniLM-L-6-v2) would.
VARIANTS: dict[str, tuple[str, str, int]] = {
    "fused fp32": ("fused", "fp32", 256),
    "neighbourhood fp32": ("neighbourhood", "fp32", 256),
    "neighbourhood int8": ("neighbourhood", "int8", 256),
    "fused int8": ("fused", "int8", 256),
    "fused int8 max128": ("fused", "int8", 128),
}
#: HYBRID_RERANKED's own pool and precision (the fused pool, fp32; before it, the neighbourhood pool).
REFERENCE = next(
    name for name, (pool, precision, _) in VARIANTS.items()
    if (pool, precision) == (HYBRID_RERANKED.rerank.pool, HYBRID_RERANKED.rerank.precision)
)
METRICS = ("recall@5", "recall@10", "ndcg@10")
MEDICAL_PER_TYPE = 10


def recipe_of(model: Path, variant: str) -> Recipe:
    """HYBRID_RERANKED with the trained model and the variant's pool and precision."""
    pool, precision, _ = VARIANTS[variant]
    return HYBRID_RERANKED.replace(**{
        "rerank.model": str(model.resolve()), "rerank.pool": pool, "rerank.precision": precision,
    })


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f}] {message}", file=sys.stderr, flush=True)


# Indexes -------------------------------------------------------------------------------


def build_indexes(root: Path, only: Sequence[str]) -> dict[str, Any]:
    """Each benchmark's index under ``root`` (built once), with how it is judged: name -> (benchmark, unit)."""
    from agrag_lab.eval import musique, workshop
    from agrag_lab.eval.indexing import ensure_index

    out: dict[str, Any] = {}
    loaders: dict[str, Callable[[], Any]] = {"workshop": workshop, "musique": musique}
    for name in ("workshop", "musique"):
        if name in only:
            bench = loaders[name]()
            ensure_index(root / name, bench, log=_log)
            out[name] = bench
    if "carol" in only:
        out["carol"] = _carol(root / "carol")
    if "medical" in only:
        from agrag_lab.eval.graphrag_bench import medical

        bench = medical(per_type=MEDICAL_PER_TYPE, cache=root / "embeddings")
        ensure_index(root / "medical", bench, log=_log)
        out["medical"] = bench
    return out


def _carol(folder: Path) -> dict[str, Any]:
    """The Carol questions over the import (the import's own records), as benchmarks/carol_questions.py builds it."""
    from agrag_lab import Graph
    from agrag_lab.importing.graphrag import read_graphrag
    from agrag_lab.importing.writer import write_import
    from benchmarks.carol_questions import CAROL, questions, variant
    from benchmarks.carol_questions import VARIANTS as IMPORTS

    if not (folder / "documents.sqlite").exists():
        entities, relations, reports = IMPORTS["entity + relation descriptions"]
        imported = variant(read_graphrag(CAROL / "v3"), entities=entities, relations=relations, reports=reports)
        with Graph.open(folder) as graph:
            write_import(graph, imported)
    return {"questions": questions()}


# Quality -------------------------------------------------------------------------------


def _engines(graph: Any, model: Path) -> dict[str, Any]:
    """One engine per max_length, each with its own reranker of ``model`` (a run waits up to 20 minutes: a busy
    machine must not lose a figure)."""
    from agrag_lab.retrieval.rerank import CrossEncoderReranker
    from agrag_lab.retrieval.settings import RetrievalSettings

    settings = RetrievalSettings(method_timeout=600.0, run_timeout=1200.0)
    out: dict[str, Any] = {}
    for length in {v[2] for v in VARIANTS.values()}:
        engine = graph.engine(settings=settings)
        # the engine's reranker of this model, with this max_length (not a recipe setting)
        engine._rerankers[str(model.resolve())] = CrossEncoderReranker(str(model.resolve()), max_length=length)
        out[str(length)] = engine
    return out


def run_all(
    graph: Any, model: Path, texts: Mapping[str, str], variants: Sequence[str] = tuple(VARIANTS)
) -> dict[str, dict[str, Any]]:
    """Every system on every question: ``{system: {qid: SearchRun}}`` (question by question, systems in turn)."""
    engines = _engines(graph, model)
    runs: dict[str, dict[str, Any]] = {"HYBRID": {}, **{v: {} for v in variants}}
    for n, (qid, text) in enumerate(texts.items(), 1):
        runs["HYBRID"][qid] = engines["256"].run(text, HYBRID)
        for variant in variants:
            length = VARIANTS[variant][2]
            runs[variant][qid] = engines[str(length)].run(text, recipe_of(model, variant))
        if n % 10 == 0:
            _log(f"{n} of {len(texts)} questions")
    return runs


def judge(
    qrels: Mapping[str, Mapping[str, int]], rankings: Mapping[str, Mapping[str, Sequence[str]]],
    top10: Mapping[str, Mapping[str, tuple[str, ...]]],
) -> dict[str, Any]:
    """Means, paired p-values against the reference (the reference's against HYBRID), changed top 10s."""
    from agrag_lab.eval.metrics import pairwise, per_query_scores

    scores = {s: per_query_scores(qrels, r, METRICS) for s, r in rankings.items()}
    p = pairwise(qrels, rankings, METRICS)
    out: dict[str, Any] = {"questions": len(qrels)}
    for system in rankings:
        against = "HYBRID" if system == REFERENCE else REFERENCE
        row: dict[str, Any] = {m: statistics.fmean(scores[system][m].values()) for m in METRICS}
        if system != "HYBRID":
            row["against"] = against
            row["p"] = {m: p[system][against][m] for m in METRICS}
            row["top10_changed"] = sum(top10[system][q] != top10[REFERENCE][q] for q in qrels)
            row["top10_set_changed"] = sum(set(top10[system][q]) != set(top10[REFERENCE][q]) for q in qrels)
            row["top10_items_changed"] = sum(len(set(top10[system][q]) - set(top10[REFERENCE][q])) for q in qrels)
        out[system] = row
    return out


def quality(
    root: Path, model: Path, benches: Mapping[str, Any], questions: int | None = None,
    variants: Sequence[str] = tuple(VARIANTS), held_out: Sequence[str] | None = None,
) -> dict[str, Any]:
    """:func:`judge` per benchmark (``questions``: at most that many per benchmark, a SHA-1 sample;
    ``held_out``: MuSiQue's questions the model was not trained on, the only ones judged there)."""
    from agrag_lab import Graph
    from agrag_lab.eval.projection import project_run

    out: dict[str, Any] = {}
    for name, bench in benches.items():
        _log(f"quality on {name}")
        with Graph.open(root / name, read_only=True) as graph:
            if name == "carol":
                from agrag_lab.importing.writer import builder_aliases
                from benchmarks.carol_questions import passages

                aliases = builder_aliases(graph)
                qs = bench["questions"][:questions]
                texts = {str(q["id"]): str(q["question"]) for q in qs}
                qrels = {str(q["id"]): {aliases.resolve_as(u, "source") or u: 1 for u in q["text_units"]} for q in qs}
                runs = run_all(graph, model, texts, variants)
                rankings = {s: {q: tuple(passages(r))[:10] for q, r in rr.items()} for s, rr in runs.items()}
            else:
                if name == "musique" and held_out is not None:
                    bench = bench.subset(held_out)
                if questions is not None and len(bench.judged_queries) > questions:
                    bench = bench.sample(questions)
                queries = bench.judged_queries
                texts = {q: bench.queries[q] for q in queries}
                qrels = {q: dict(bench.qrels[q]) for q in queries}
                runs = run_all(graph, model, texts, variants)
                rankings = {s: {q: project_run(r) for q, r in rr.items()} for s, rr in runs.items()}
        top10 = {s: {q: tuple(x.id for x in r.results[:10]) for q, r in rr.items()} for s, rr in runs.items()}
        out[name] = judge(qrels, rankings, top10)
        _log(json.dumps(out[name]))
    return out


# Agreement and time --------------------------------------------------------------------


def int8_agreement(graph: Any, model: Path, questions: Sequence[str]) -> dict[str, float]:
    """The int8 graph's scores against the fp32 graph's on the workshop's real pools (every pair of the pools)."""
    import numpy as np

    from agrag_lab.retrieval.rerank import CrossEncoderReranker

    runs = [graph.engine().run(q, recipe_of(model, REFERENCE)) for q in questions]
    judgeable = CrossEncoderReranker(str(model.resolve()), max_length=VARIANTS[REFERENCE][2])
    diffs: list[float] = []
    for q, run in zip(questions, runs, strict=True):
        keys = list(run.trace.context.rerank_scores)
        texts = [f"{run.trace.items[k].title}\n{run.trace.items[k].text}" for k in keys]
        fp32 = judgeable.score(q, texts, precision="fp32")
        int8 = judgeable.score(q, texts, precision="int8")
        diffs += np.abs(fp32 - int8).tolist()
    return {"pairs": len(diffs), "max_abs": max(diffs), "mean_abs": statistics.fmean(diffs),
            "p95_abs": sorted(diffs)[int(0.95 * len(diffs)) - 1]}


def timing(graph: Any, model: Path, questions: Sequence[str], rounds: int = 1) -> dict[str, dict[str, float]]:
    """p50 / p95 per system on the workshop, interleaved (systems rotated per question), pair caches cleared."""
    from benchmarks.rerank import _clear_pairs

    engines = _engines(graph, model)
    systems: list[tuple[str, Recipe, Any]] = [("HYBRID", HYBRID, engines["256"])]
    systems += [(v, recipe_of(model, v), engines[str(VARIANTS[v][2])]) for v in VARIANTS]
    for _, recipe, engine in systems:  # models load (and int8 copies are made) before timing
        engine.run(questions[0], recipe)
    times: dict[str, list[float]] = {name: [] for name, _, _ in systems}
    loads: list[float] = []
    for r in range(rounds):
        for n, q in enumerate(questions):
            shift = (n + r) % len(systems)
            for name, recipe, engine in systems[shift:] + systems[:shift]:
                _clear_pairs(engine)
                start = time.perf_counter()
                engine.run(q, recipe)
                times[name].append(time.perf_counter() - start)
            loads.append(os.getloadavg()[0])
    return {
        name: {"p50_s": statistics.median(t), "p95_s": sorted(t)[max(0, int(0.95 * len(t)) - 1)],
               "runs": len(t), "load_median": statistics.median(loads)}
        for name, t in times.items()
    }


def main(argv: Sequence[str] | None = None) -> int:
    from agrag_lab import Graph
    from agrag_lab.datasets import workshop
    from benchmarks.cross_encoder import fold_questions, musique_cross_encoder, trained_cross_encoder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-root", type=Path, default=Path(".agrag/bench"))
    parser.add_argument("--only", default="workshop,musique,carol,medical")
    parser.add_argument("--steps", default="agreement,timing,quality", help="also: build (the indexes only)")
    parser.add_argument("--questions", type=int, default=None,
                        help="at most this many judged questions per benchmark (Benchmark.sample: SHA-1 order)")
    parser.add_argument("--rounds", type=int, default=1, help="timing rounds over the 20 workshop questions")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    parser.add_argument("--musique-fold", type=int, default=None,
                        help="judge MuSiQue fold N's model (benchmarks.cross_encoder), on MuSiQue's held-out half only")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="the re-rank variants to run (reference first)")
    parser.add_argument("--model", type=Path, default=None,
                        help="another CrossEncoder folder (default: the trained one; timing is the same for any MiniLM-L6)")
    args = parser.parse_args(argv)
    only = [n.strip() for n in args.only.split(",") if n.strip()]
    steps = {s.strip() for s in args.steps.split(",")}
    benches = build_indexes(args.index_root, sorted(set(only) | {"workshop"}))
    if steps == {"build"}:
        return 0
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if not variants or variants[0] != REFERENCE or any(v not in VARIANTS for v in variants):
        parser.error(f"--variants: names from {list(VARIANTS)}, {REFERENCE!r} first")
    held_out = None
    started = time.perf_counter()
    if args.musique_fold is not None:
        held_out = fold_questions(args.musique_fold)[1]
        model = musique_cross_encoder(args.musique_fold)
    else:
        model = args.model if args.model is not None else trained_cross_encoder()
    _log(f"model {model} ready in {time.perf_counter() - started:.1f} s")
    result: dict[str, Any] = {"model": str(model), "musique_fold": args.musique_fold, "variants": variants}
    questions = list(workshop().queries.values())
    with Graph.open(args.index_root / "workshop", read_only=True) as graph:
        if "agreement" in steps:
            result["int8_agreement"] = int8_agreement(graph, model, questions)
            _log(json.dumps(result["int8_agreement"]))
        if "timing" in steps:
            result["timing"] = timing(graph, model, questions, args.rounds)
            _log(json.dumps(result["timing"]))
    if "quality" in steps:
        chosen = {k: benches[k] for k in only if k in benches}  # in the order asked
        result["quality"] = quality(args.index_root, model, chosen, args.questions, variants, held_out)
    text = json.dumps(result, indent=1)
    print(text)
    if args.out is not None:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
