"""The cross-encoder re-rank: its p50, and what scoring only part of the candidates leaves out (issue 30).

``HYBRID_RERANKED`` scores the neighbourhood of the cut, not every candidate
(:func:`~agrag_lab.retrieval.steps.rerank.scoring_pool`, by its
``rerank.pool``), in its ``rerank.precision``. Measured on the workshop index
with the workshop's questions, interleaved in one run:

* p50 / p95 of a ``HYBRID_RERANKED`` run with its own ``[rerank]`` settings,
  of the same recipe with each of :data:`OTHERS` (pool ``"neighbourhood"``,
  the default before the fused pool; pool ``"fused"`` in int8), and of
  ``HYBRID``, the same search without the re-rank; a pair cache
  is cleared before each timed run, so every run scores its pool (:func:`table`
  puts them in one table);
* what the default pool leaves out: every candidate a run left unscored is
  scored afterwards; a query's results would change if one of them scores
  above the ``limit``-th best scored item.

The cross-encoder here is the bundled MiniLM encoder with an untrained, seeded
head (:func:`~agrag_lab.retrieval.rerank.save_untrained_cross_encoder`): it
costs what a MiniLM-L6 cross-encoder costs, which is what the latency target
is about, but its scores mean nothing. What the settings do to results is
measured with a trained cross-encoder by ``benchmarks/cross_encoder_levers.py``.
Its ONNX export (and int8 copy) are made before timing.

``--profile`` (:func:`profile`) says where the time goes and times the
exact-result speedups tried (batch size, session options) as ratios;
``--sorting`` (:func:`sorting`) times batches sorted by tokens against by
characters.

Run: ``python -m benchmarks.rerank --index PATH [--profile | --sorting]``; ``benchmarks/run.py`` calls
:func:`bench` with the workshop index (``--only rerank``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agrag_lab import Graph

TITLE = "Re-rank: the cut's neighbourhood (issue 30)"
QUESTIONS = 20
MODEL_DIR = Path(".agrag") / "bench-models" / "minilm-cross-encoder"
#: Re-rank settings timed beside HYBRID_RERANKED's own (a row each, unless it is the default): the default before
#: the fused pool, and the fastest measured (int8: scores within a bound of fp32's, BENCHMARKS.md "Re-rank levers").
OTHERS: dict[str, dict[str, str]] = {
    "neighbourhood fp32": {"rerank.pool": "neighbourhood", "rerank.precision": "fp32"},
    "fused int8": {"rerank.pool": "fused", "rerank.precision": "int8"},
}


def cross_encoder(model_dir: Path = MODEL_DIR) -> Path:
    """The benchmarks' cross-encoder (the bundled MiniLM encoder, an untrained seeded head), made once; its path."""
    from agrag_lab.retrieval.rerank import save_untrained_cross_encoder

    if not (model_dir / "config.json").is_file():
        save_untrained_cross_encoder(model_dir)
    return model_dir.resolve()


def _questions(n: int) -> list[str]:
    from agrag_lab.datasets import workshop

    return [q for q in workshop().queries.values()][:n]


def _p95(times: list[float]) -> float:
    return sorted(times)[max(0, int(0.95 * len(times)) - 1)]


def settings_of(recipe: Any) -> str:
    """A re-rank's settings as a row label: ``"fused fp32"``."""
    return f"{recipe.rerank.pool} {recipe.rerank.precision}"


def systems(model_dir: Path = MODEL_DIR) -> dict[str, Any]:
    """The recipes timed, by name: ``HYBRID_RERANKED`` with the model and its own settings (``"default"``), then
    with each of :data:`OTHERS` that is not its own, then ``HYBRID``."""
    from agrag_lab.recipes import HYBRID, HYBRID_RERANKED

    default = HYBRID_RERANKED.replace(**{"rerank.model": str(model_dir.resolve())})
    out: dict[str, Any] = {"default": default}
    for name, change in OTHERS.items():
        other = default.replace(**change)
        if settings_of(other) != settings_of(default):
            out[name] = other
    out["HYBRID"] = HYBRID
    return out


def measure(graph: Graph, questions: int = QUESTIONS, model_dir: Path = MODEL_DIR) -> dict[str, Any]:
    """p50 / p95 of HYBRID_RERANKED (its settings and :data:`OTHERS`) and HYBRID; what the default pool leaves out.

    Returns ``{"systems": {name: {"settings", "p50_s", "p95_s", "scored_median"}}, ...}`` with the systems in
    :func:`systems`' order, and for the default: the candidates per run and what scoring all of them changes.
    """
    from agrag_lab.retrieval.rerank import CrossEncoderReranker
    from agrag_lab.retrieval.settings import RetrievalSettings

    model = cross_encoder(model_dir)
    recipes = systems(model_dir)
    recipe = recipes["default"]
    # a latency measurement: a busy machine must not turn a slow run into a lost figure (the 60 s run deadline)
    engine = graph.engine(settings=RetrievalSettings(method_timeout=600.0, run_timeout=1200.0))
    queries = _questions(questions)
    for system in recipes.values():  # the model loads (its export and int8 copy are made) before timing
        engine.run(queries[0], system)
    times: dict[str, list[float]] = {name: [] for name in recipes}
    scored: dict[str, list[int]] = {name: [] for name in recipes}
    candidates: list[int] = []
    changed = 0
    entered = 0
    judge = CrossEncoderReranker(str(model))
    names = list(recipes)
    loads = [os.getloadavg()[0]]
    for n, q in enumerate(queries):
        runs = {}
        for name in names[n % len(names):] + names[: n % len(names)]:  # rotated: no system always goes first
            _clear_pairs(engine)
            start = time.perf_counter()
            runs[name] = engine.run(q, recipes[name])
            times[name].append(time.perf_counter() - start)
            trace = runs[name].trace.outcome.rerank
            if trace is not None:
                scored[name].append(sum(m.scored for m in trace.moves))
        loads.append(os.getloadavg()[0])
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
        "load": {"start": loads[0], "end": loads[-1], "max": max(loads)},
        "systems": {
            name: {
                "settings": settings_of(r) if name != "HYBRID" else "",
                "p50_s": statistics.median(times[name]),
                "p95_s": _p95(times[name]),
                "scored_median": statistics.median(scored[name]) if scored[name] else 0,
            }
            for name, r in recipes.items()
        },
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


def _padded(values: list[int], width: int) -> list[int]:
    return values + [0] * (width - len(values))


def _sessions(folder: Path) -> dict[str, Any]:
    """ONNX Runtime sessions of the exported cross-encoder, one per option set :func:`profile` compares."""
    import onnxruntime as ort

    def session(model: Path, **set_: Any) -> Any:
        options = ort.SessionOptions()
        options.log_severity_level = 3
        for key, value in set_.items():
            setattr(options, key, value)
        return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    level = ort.GraphOptimizationLevel
    out = {
        "as shipped": session(folder / "model.onnx"),
        "1 thread": session(folder / "model.onnx", intra_op_num_threads=1),
        "2 threads": session(folder / "model.onnx", intra_op_num_threads=2),
        "basic graph opt": session(folder / "model.onnx", graph_optimization_level=level.ORT_ENABLE_BASIC),
    }
    import tempfile

    from onnxruntime.transformers.optimizer import optimize_model

    with tempfile.TemporaryDirectory() as scratch:  # ORT's BERT fusions (attention, layer norm, GELU) ahead of time
        fused = Path(scratch) / "model-fused.onnx"
        optimize_model(str(folder / "model.onnx"), model_type="bert", num_heads=12, hidden_size=384,
                       opt_level=1).save_model_to_file(str(fused))
        out["bert fusions"] = session(fused)
    return out


def profile(graph: Graph, questions: int = QUESTIONS, model_dir: Path = MODEL_DIR, rounds: int = 2) -> dict[str, Any]:
    """Where HYBRID_RERANKED's time goes on the workshop, and which exact-result speedups hold (issue 30).

    For each question: a ``HYBRID`` and a default ``HYBRID_RERANKED`` run (interleaved, pair cache cleared) and
    the run's ``rerank`` span; then its real pool, scored piece by piece: tokenising, and the forward passes of
    each :func:`_sessions` option set and batch size, rotated per question (every time is a ratio within this
    run). Every variant's scores are compared with the shipped path's (max |difference| of the sigmoid).
    """
    import numpy as np

    from agrag_lab.onnx_models import OnnxEncoder, export_onnx
    from agrag_lab.recipes import HYBRID, HYBRID_RERANKED
    from agrag_lab.retrieval.settings import RetrievalSettings

    model = cross_encoder(model_dir)
    recipe = HYBRID_RERANKED.replace(**{"rerank.model": str(model)})
    engine = graph.engine(settings=RetrievalSettings(method_timeout=600.0, run_timeout=1200.0))
    queries = _questions(questions)
    engine.run(queries[0], recipe)
    folder = export_onnx(model, kind="cross-encoder")
    start = time.perf_counter()
    encoder = OnnxEncoder(folder)
    encoder._load()
    load_s = time.perf_counter() - start
    tokenizer = encoder._tokenizer
    sessions = _sessions(folder)
    batches = (1, 4, 8, 16, 32)
    times: dict[str, list[float]] = {"HYBRID run": [], "HYBRID_RERANKED run": [], "context span": [], "tokenise": []}
    times |= {f"forward {name} (batch 32)": [] for name in sessions}
    times |= {f"forward as shipped (batch {b})": [] for b in batches if b != 32}
    diffs: dict[str, float] = {}
    tokens: list[int] = []
    padded: list[int] = []
    pool_sizes: list[int] = []

    def forward(session: Any, encoded: list[Any], size: int) -> np.ndarray:
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i].ids))
        out = np.empty(len(encoded), dtype=np.float64)
        for at in range(0, len(encoded), size):
            rows = order[at:at + size]
            width = max(len(encoded[i].ids) for i in rows)  # padded to the batch's longest, as enable_padding does
            feed = {name: np.array([_padded(getattr(encoded[i], attr), width) for i in rows], dtype=np.int64)
                    for name, attr in (("input_ids", "ids"), ("attention_mask", "attention_mask"),
                                       ("token_type_ids", "type_ids"))}
            (logits,) = session.run(None, feed)
            out[rows] = np.asarray(logits).reshape(len(rows), -1)[:, 0]
        return 1.0 / (1.0 + np.exp(-out))

    tokenizer.no_padding()
    for r in range(rounds):
        for n, q in enumerate(queries):
            for name, system in ((("HYBRID", HYBRID), ("HYBRID_RERANKED", recipe))[::1 - 2 * ((n + r) % 2)]):
                _clear_pairs(engine)
                start = time.perf_counter()
                run = engine.run(q, system)
                times[f"{name} run"].append(time.perf_counter() - start)
                if name == "HYBRID_RERANKED":
                    reranked = run
                    times["context span"].append(dict(run.trace.spans).get("context", float("nan")))
                    keys = list(run.trace.context.rerank_scores)
                    pairs = [(q, f"{run.trace.items[k].title}\n{run.trace.items[k].text}") for k in keys]
            start = time.perf_counter()
            encoded = tokenizer.encode_batch(pairs)
            times["tokenise"].append(time.perf_counter() - start)
            if r == 0:
                pool_sizes.append(len(pairs))
                tokens += [len(e.ids) for e in encoded]
                lengths = sorted(len(e.ids) for e in encoded)
                padded += [max(lengths[i:i + 32]) * len(lengths[i:i + 32]) for i in range(0, len(lengths), 32)]
            runs: list[tuple[str, Any, int]] = [(f"forward {name} (batch 32)", s, 32) for name, s in sessions.items()]
            runs += [(f"forward as shipped (batch {b})", sessions["as shipped"], b) for b in batches if b != 32]
            shift = (n + r) % len(runs)
            scores: dict[str, np.ndarray] = {}
            for label, session, size in runs[shift:] + runs[:shift]:
                start = time.perf_counter()
                scores[label] = forward(session, encoded, size)
                times[label].append(time.perf_counter() - start)
            shipped = np.array(list(reranked.trace.context.rerank_scores.values()))
            for label, got in scores.items():
                diffs[label] = max(diffs.get(label, 0.0), float(np.abs(got - shipped).max()))
    base = statistics.median(times["forward as shipped (batch 32)"])
    return {
        "questions": len(queries), "rounds": rounds,
        "load": os.getloadavg(),
        "session_load_s": load_s,
        "pool_median": statistics.median(pool_sizes),
        "tokens_per_pair": {"median": statistics.median(tokens), "max": max(tokens), "min": min(tokens)},
        "padding_share": 1 - sum(tokens) / sum(padded),
        "p50_s": {k: statistics.median(v) for k, v in times.items()},
        "forward_ratio": {k: statistics.median(v) / base for k, v in times.items() if k.startswith("forward")},
        "max_abs_vs_shipped": diffs,
    }


def sorting(graph: Graph, questions: int = QUESTIONS, model_dir: Path = MODEL_DIR, rounds: int = 3) -> dict[str, Any]:
    """Batches of pairs sorted by length in tokens (shipped) against by characters (before).

    Each question's real pools (the default's and the neighbourhood's) are scored ``rounds`` times both ways,
    in batches of :data:`~agrag_lab.retrieval.rerank.BATCH_SIZE`, the order of the two rotated (every time is a
    ratio within this run); tokenising is timed with each. Reported: the forward-pass time ratio, the padding
    share of each, the largest |score difference| and how many pools' order of scores differs.
    """
    import numpy as np

    from agrag_lab.onnx_models import OnnxEncoder, export_onnx
    from agrag_lab.retrieval.rerank import BATCH_SIZE
    from agrag_lab.retrieval.settings import RetrievalSettings

    model = cross_encoder(model_dir)
    recipes = systems(model_dir)
    engine = graph.engine(settings=RetrievalSettings(method_timeout=600.0, run_timeout=1200.0))
    encoder = OnnxEncoder(export_onnx(model, kind="cross-encoder"))
    pools: list[list[tuple[str, str]]] = []
    for q in _questions(questions):
        for name in ("default", "neighbourhood fp32"):
            trace = engine.run(q, recipes[name]).trace
            pools.append([(q, f"{trace.items[k].title}\n{trace.items[k].text}") for k in trace.context.rerank_scores])

    def scored(pairs: list[tuple[str, str]], by_tokens: bool) -> tuple[np.ndarray, int]:
        encoded = encoder.encode(pairs)
        if by_tokens:
            order = sorted(range(len(pairs)), key=lambda i: len(encoded[i].ids))
        else:
            order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out, fed = np.empty(len(pairs)), 0
        for at in range(0, len(pairs), BATCH_SIZE):
            rows = order[at:at + BATCH_SIZE]
            logits, mask = encoder.forward([encoded[i] for i in rows])
            out[rows] = logits.reshape(len(rows), -1)[:, 0]
            fed += mask.size
        return out, fed

    times: dict[bool, list[float]] = {True: [], False: []}
    fed: dict[bool, int] = {True: 0, False: 0}
    tokens = sum(len(e.ids) for pairs in pools for e in encoder.encode(pairs))
    worst, reordered = 0.0, 0
    for r in range(rounds):
        for n, pairs in enumerate(pools):
            got: dict[bool, np.ndarray] = {}
            for by_tokens in ((True, False) if (n + r) % 2 else (False, True)):
                start = time.perf_counter()
                got[by_tokens], width = scored(pairs, by_tokens)
                times[by_tokens].append(time.perf_counter() - start)
                if r == 0:
                    fed[by_tokens] += width
            worst = max(worst, float(np.abs(got[True] - got[False]).max()))
            if r == 0:
                reordered += list(np.argsort(-got[True], kind="stable")) != list(np.argsort(-got[False], kind="stable"))
    by_chars = sum(times[False])
    return {
        "questions": questions, "pools": len(pools), "rounds": rounds, "pairs": sum(len(p) for p in pools),
        "load": os.getloadavg(),
        "seconds_by_tokens": sum(times[True]), "seconds_by_characters": by_chars,
        "ratio_tokens_over_characters": sum(times[True]) / by_chars,
        "padding_share": {"by tokens": 1 - tokens / fed[True], "by characters": 1 - tokens / fed[False]},
        "max_abs_logit_diff": worst, "pools_whose_score_order_differs": reordered,
    }


def table(m: dict[str, Any]) -> list[str]:
    """:func:`measure`'s figures as the section's lines: one row per system, the default first."""
    rows = m["systems"]
    base = rows["default"]["p50_s"]
    lines = [
        f"{m['questions']} workshop questions, the systems rotated question by question (1-minute load "
        f"{m['load']['start']:.1f} at the start, {m['load']['end']:.1f} at the end); the cross-encoder is the bundled "
        "MiniLM encoder with an untrained head (ONNX), so the times are a MiniLM-L6 cross-encoder's; what the "
        "settings do to results is measured with trained cross-encoders in the sections below.",
        "",
        "| system | items scored (median) | p50 | p95 | p50 / default |",
        "|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        if name == "default":
            label = f"`HYBRID_RERANKED` default: pool `{row['settings'].replace(' ', '`, `')}` (target p50 < 1 s)"
            p50 = f"**{row['p50_s']:.2f} s**"
        elif name == "HYBRID":
            label = "`HYBRID`, the same search without the re-rank"
            p50 = f"{row['p50_s']:.2f} s"
        else:
            label = f"the same, pool `{row['settings'].replace(' ', '`, `')}`"
            if name == "neighbourhood fp32":
                label += " (the default before the fused pool)"
            p50 = f"{row['p50_s']:.2f} s"
        ratio = row["p50_s"] / base
        shown = f"{ratio:.2f}" if ratio >= 0.1 else f"{ratio:.3f}"
        lines.append(f"| {label} | {row['scored_median']:g} | {p50} | {row['p95_s']:.2f} s | {shown} |")
    lines += [
        "",
        f"Candidates per run (median): {m['candidates_median']:g}. Questions whose top {m['limit']} would change if "
        f"the default scored every candidate (untrained head): {m['questions_changed']} of {m['questions']} "
        f"({m['items_entering_top']} items in all).",
    ]
    return lines


def bench(graph: Graph) -> list[str]:
    """The section of ``make bench`` (``benchmarks/run.py``), over the workshop index."""
    return table(measure(graph))


def main() -> None:
    from agrag_lab import Graph

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=QUESTIONS)
    parser.add_argument("--profile", action="store_true", help="where the time goes, and exact-result speedups")
    parser.add_argument("--sorting", action="store_true", help="batches sorted by tokens against by characters")
    args = parser.parse_args()
    with Graph.open(args.index, read_only=True) as graph:
        if args.profile or args.sorting:
            print(json.dumps((profile if args.profile else sorting)(graph, args.questions), indent=1))
        else:
            result = measure(graph, args.questions)
            print(json.dumps(result, indent=1))
            print("\n".join(table(result)))


if __name__ == "__main__":
    main()
