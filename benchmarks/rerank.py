"""The cross-encoder re-rank: its p50, and what scoring only part of the candidates leaves out (issue 30).

``HYBRID_RERANKED`` scores the neighbourhood of the cut, not every candidate
(:func:`~agrag_lab.retrieval.steps.rerank.scoring_pool`, by its
``rerank.pool``), in its ``rerank.precision``. Measured on the workshop index
with the workshop's questions, interleaved in one run:

* p50 / p95 of a ``HYBRID_RERANKED`` run with its own settings, of the same
  recipe with the fast settings (:data:`FAST`: the fused first ``2 x limit``,
  int8; not the default, see BENCHMARKS.md "Re-rank levers"), and of ``HYBRID``,
  the same search without the re-rank (a pair cache is cleared before each
  timed run, so every run scores its pool);
* what the default pool leaves out: every candidate a run left unscored is
  scored afterwards; a query's results would change if one of them scores
  above the ``limit``-th best scored item.

The cross-encoder here is the bundled MiniLM encoder with an untrained, seeded
head (:func:`~agrag_lab.retrieval.rerank.save_untrained_cross_encoder`): it
costs what a MiniLM-L6 cross-encoder costs, which is what the latency target
is about, but its scores mean nothing. What the settings do to results is
measured with a trained cross-encoder by ``benchmarks/cross_encoder_levers.py``.
Its ONNX export (and int8 copy) are made before timing.

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
#: The fast re-rank settings measured beside HYBRID_RERANKED's own (its default keeps them off: BENCHMARKS.md).
FAST = {"rerank.pool": "fused", "rerank.precision": "int8"}


def _questions(n: int) -> list[str]:
    from agrag_lab.datasets import workshop

    return [q for q in workshop().queries.values()][:n]


def _p95(times: list[float]) -> float:
    return sorted(times)[max(0, int(0.95 * len(times)) - 1)]


def measure(graph: Graph, questions: int = QUESTIONS, model_dir: Path = MODEL_DIR) -> dict[str, Any]:
    """p50 / p95 of HYBRID_RERANKED (its settings and :data:`FAST`) and HYBRID; what the default pool leaves out."""
    from agrag_lab.recipes import HYBRID, HYBRID_RERANKED
    from agrag_lab.retrieval.rerank import CrossEncoderReranker, save_untrained_cross_encoder
    from agrag_lab.retrieval.settings import RetrievalSettings

    if not (model_dir / "config.json").is_file():
        save_untrained_cross_encoder(model_dir)
    recipe = HYBRID_RERANKED.replace(**{"rerank.model": str(model_dir.resolve())})
    fast = recipe.replace(**FAST)
    # a latency measurement: a busy machine must not turn a slow run into a lost figure (the 60 s run deadline)
    engine = graph.engine(settings=RetrievalSettings(method_timeout=600.0, run_timeout=1200.0))
    queries = _questions(questions)
    systems = {"default": recipe, "fast": fast, "hybrid": HYBRID}
    for system in systems.values():  # the model loads (its export and int8 copy are made) before timing
        engine.run(queries[0], system)
    times: dict[str, list[float]] = {name: [] for name in systems}
    scored: dict[str, list[int]] = {"default": [], "fast": []}
    candidates: list[int] = []
    changed = 0
    entered = 0
    judge = CrossEncoderReranker(str(model_dir.resolve()))
    names = list(systems)
    for n, q in enumerate(queries):
        runs = {}
        for name in names[n % len(names):] + names[: n % len(names)]:  # rotated: no system always goes first
            _clear_pairs(engine)
            start = time.perf_counter()
            runs[name] = engine.run(q, systems[name])
            times[name].append(time.perf_counter() - start)
        for name in scored:
            trace = runs[name].trace.outcome.rerank
            if trace is not None:
                scored[name].append(sum(m.scored for m in trace.moves))
        run = runs["default"]
        trace = run.trace.outcome.rerank
        if trace is None:
            continue
        moves = trace.moves
        candidates.append(len(moves))
        kept = sorted((m.score for m in moves if m.scored), reverse=True)
        if len(kept) < recipe.limit:
            continue
        bar = kept[recipe.limit - 1]
        items = run.trace.items
        rest = [m.key for m in moves if not m.scored and m.key in items]
        texts = [f"{items[k].title}\n{items[k].text}" for k in rest]
        above = int((judge.score(q, texts, precision=recipe.rerank.precision) > bar).sum()) if texts else 0
        changed += above > 0
        entered += above
    return {
        "questions": len(queries),
        "settings": {"pool": recipe.rerank.pool, "precision": recipe.rerank.precision},
        "reranked_p50_s": statistics.median(times["default"]),
        "reranked_p95_s": _p95(times["default"]),
        "fast_p50_s": statistics.median(times["fast"]),
        "fast_p95_s": _p95(times["fast"]),
        "hybrid_p50_s": statistics.median(times["hybrid"]),
        "scored_median": statistics.median(scored["default"]) if scored["default"] else 0,
        "fast_scored_median": statistics.median(scored["fast"]) if scored["fast"] else 0,
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
    pool, precision = m["settings"]["pool"], m["settings"]["precision"]
    return [
        f"{m['questions']} workshop questions, interleaved; the cross-encoder is the bundled MiniLM encoder with an "
        "untrained head (ONNX), so the times are a MiniLM-L6 cross-encoder's; what the settings do to results is "
        "measured with a trained cross-encoder below.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| `HYBRID_RERANKED` p50 / p95 (pool `{pool}`, `{precision}`; target p50 < 1 s) | "
        f"**{m['reranked_p50_s']:.2f} s** / {m['reranked_p95_s']:.2f} s |",
        f"| the same with pool `fused`, `int8` (not the default: see the next section) p50 / p95 | "
        f"{m['fast_p50_s']:.2f} s / {m['fast_p95_s']:.2f} s |",
        f"| `HYBRID` p50, the same search without the re-rank | {m['hybrid_p50_s']:.2f} s |",
        f"| items scored per run (median): default / fused / candidates | {m['scored_median']} / "
        f"{m['fast_scored_median']} / {m['candidates_median']} |",
        f"| questions whose top {m['limit']} would change if every candidate were scored (untrained head) | "
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
