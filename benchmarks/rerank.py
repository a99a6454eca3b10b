"""The cross-encoder re-rank: its p50, and what scoring only the cut's neighbourhood changes (issue 30).

``HYBRID_RERANKED`` scores the neighbourhood of the cut
(:func:`~agrag_lab.retrieval.steps.rerank.scoring_pool`: each list's first
``2 x limit``, the walk's, the reports), not every candidate. Measured on the
workshop index with the workshop's questions, interleaved in one run:

* p50 / p95 of a ``HYBRID_RERANKED`` run (a fresh engine per query's pairs: the
  pair cache is cleared, so every run scores its pool) and of ``HYBRID``, the same
  search without the re-rank: the re-rank's own cost is their difference;
* the change in results: every candidate the run left unscored is scored
  afterwards; a query's results would change if one of them scores above the
  ``limit``-th best scored item. Counted over the questions, with the candidates
  scored per run both ways.

The cross-encoder is the bundled MiniLM encoder with an untrained, seeded head
(:func:`~agrag_lab.retrieval.rerank.save_untrained_cross_encoder`; this machine
cannot download a trained one): it costs what a MiniLM-L6 cross-encoder costs,
which is what the latency target is about. Its ONNX export is made before timing.

Run: ``python -m benchmarks.rerank --index PATH``; ``benchmarks/run.py`` calls
:func:`bench` with the workshop index (``--only rerank``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agrag_lab import Graph

TITLE = "Re-rank: the cut's neighbourhood (issue 30)"
QUESTIONS = 20
MODEL_DIR = Path(".agrag") / "bench-models" / "minilm-cross-encoder"


def _questions(n: int) -> list[str]:
    from agrag_lab.datasets import workshop

    return [q for q in workshop().queries.values()][:n]


def measure(graph: Graph, questions: int = QUESTIONS, model_dir: Path = MODEL_DIR) -> dict[str, Any]:
    """p50 / p95 of HYBRID_RERANKED and HYBRID, and how many questions' results scoring every candidate would change."""
    from agrag_lab.onnx_models import export_onnx
    from agrag_lab.recipes import HYBRID, HYBRID_RERANKED
    from agrag_lab.retrieval.rerank import CrossEncoderReranker, save_untrained_cross_encoder
    from agrag_lab.retrieval.settings import RetrievalSettings

    if not (model_dir / "config.json").is_file():
        save_untrained_cross_encoder(model_dir)
    export_onnx(str(model_dir), kind="cross-encoder")
    recipe = HYBRID_RERANKED.replace(**{"rerank.model": str(model_dir.resolve())})
    # a latency measurement: a busy machine must not turn a slow run into a lost figure (the 60 s run deadline)
    engine = graph.engine(settings=RetrievalSettings(method_timeout=600.0, run_timeout=1200.0))
    queries = _questions(questions)
    engine.run(queries[0], recipe)  # the model loads once, before timing
    engine.run(queries[0], HYBRID)
    reranked: list[float] = []
    plain: list[float] = []
    scored: list[int] = []
    candidates: list[int] = []
    changed = 0
    entered = 0
    judge = CrossEncoderReranker(str(model_dir.resolve()))
    for q in queries:
        start = time.perf_counter()
        engine.run(q, HYBRID)
        plain.append(time.perf_counter() - start)
        _clear_pairs(engine)
        start = time.perf_counter()
        run = engine.run(q, recipe)
        reranked.append(time.perf_counter() - start)
        trace = run.trace.outcome.rerank
        if trace is None:
            continue
        moves = trace.moves
        scored.append(sum(m.scored for m in moves))
        candidates.append(len(moves))
        kept = sorted((m.score for m in moves if m.scored), reverse=True)
        if len(kept) < recipe.limit:
            continue
        bar = kept[recipe.limit - 1]
        items = run.trace.items
        rest = [m.key for m in moves if not m.scored and m.key in items]
        texts = [f"{items[k].title}\n{items[k].text}" for k in rest]
        above = int((judge.score(q, texts) > bar).sum()) if texts else 0
        changed += above > 0
        entered += above
    return {
        "questions": len(queries),
        "reranked_p50_s": statistics.median(reranked),
        "reranked_p95_s": sorted(reranked)[max(0, int(0.95 * len(reranked)) - 1)],
        "hybrid_p50_s": statistics.median(plain),
        "scored_median": statistics.median(scored) if scored else 0,
        "candidates_median": statistics.median(candidates) if candidates else 0,
        "questions_changed": changed,
        "items_entering_top": entered,
        "limit": recipe.limit,
    }


def _clear_pairs(engine: Any) -> None:
    """Forget the cross-encoder's cached pairs, so a run scores its whole pool (as a first query does)."""
    for model in getattr(engine, "_rerankers", {}).values():
        pairs = getattr(model, "_pairs", None)
        if pairs is not None:
            pairs.clear()


def bench(graph: Graph) -> list[str]:
    """The section of ``make bench`` (``benchmarks/run.py``), over the workshop index."""
    m = measure(graph)
    return [
        f"{m['questions']} workshop questions, interleaved; the cross-encoder is the bundled MiniLM encoder with an "
        "untrained head (ONNX), so the times are a MiniLM-L6 cross-encoder's and the result changes say what "
        "scoring only the neighbourhood can change, not whether a trained model ranks better.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| `HYBRID_RERANKED` p50 / p95 (target p50 < 1 s) | **{m['reranked_p50_s']:.2f} s** / {m['reranked_p95_s']:.2f} s |",
        f"| `HYBRID` p50, the same search without the re-rank | {m['hybrid_p50_s']:.2f} s |",
        f"| items scored per run (median) / candidates (median) | {m['scored_median']} / {m['candidates_median']} |",
        f"| questions whose top {m['limit']} would change if every candidate were scored | "
        f"{m['questions_changed']} of {m['questions']} ({m['items_entering_top']} items in all) |",
    ]


def main() -> None:
    from agrag_lab import Graph

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=QUESTIONS)
    args = parser.parse_args()
    with Graph.open(args.index, read_only=True) as graph:
        print(json.dumps(measure(graph, args.questions), indent=1))


if __name__ == "__main__":
    main()
