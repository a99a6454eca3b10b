"""The personalised-PageRank walk alone, on knowledge graphs of 2k to 100k passages (issue 20).

No embedding is needed for the walk, so these graphs are built without it: the passages of
:mod:`benchmarks.scale_corpus` are chunked as an ingest does, the rule extractor reads them
(extractions cached under ``--cache``, so each size extracts only the passages the smaller one
lacked) and :func:`agrag_lab.kg.extract.pipeline.build_graph` builds the graph (no communities: the walk
does not use them). Then, per size, the steps are built once (as the store does per index) and
the walk is timed for the first 30 MuSiQue questions: the seeds are the entities whose name the
question contains (at most 5, longest names first), the prior the question's 20 best bm25s passages
(topical, as the engine's dense hits are: not all next to a seed; at first it was the first 20
passages that mention a seed, which put every walked passage a step from a seed and hid the growth of
the path search). A walk is timed as the engine runs it for
GRAPH_EXPAND: the walk (forward push, :func:`~agrag_lab.kg.algorithms.pagerank.push_pagerank`, the default), its
ten best passages and the path to each (searched out to the farthest of them, at most 5 steps); beside
it, the walk as it was before (the power iteration, ``walk.pagerank = "power"``, and scipy's dijkstra
over the whole graph); their parts apart; the variants tried (the push at other thresholds, a power
iteration over the nodes holding mass only, a push followed by power steps on its nodes), each against
the power iteration: the same ten best passages in order, the same five as a set, and the L1 error; and a
bm25s keyword search (:class:`~agrag_lab.storage.keyword.KeywordIndex`, title and text of every passage)
for the same questions, 100 hits.
Times are CPU seconds of this process (``time.process_time``; the walk is single-threaded), which
another job on the shared machine does not inflate as it does wall time.

Run: ``python -m benchmarks.scale_walk [--sizes 2000,10000,30000,100000]``.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.scale_corpus import passages

RESULTS = Path(__file__).with_name("results")
SIZES = (2000, 10000, 30000, 100000)
#: Residual thresholds (per unit of out-degree) of the forward push measured beside the default
#: (:data:`agrag_lab.kg.algorithms.pagerank.PUSH_EPSILON`, 1e-6).
PUSH_EPS = (1e-5, 3e-6, 3e-7)
#: Tried: the power iteration restricted to the nodes holding at least this much mass per unit of degree.
LOCAL_POWER_EPS = 1e-6
#: Tried: exact power-iteration steps on the push's local set after a push at 1e-5.
REFINE_STEPS = 3


def extractions(n: int, cache: Path) -> list[Any]:
    """:class:`~agrag_lab.kg.extract.build.ChunkExtraction` of the first ``n`` passages, extracting only what the cache lacks."""
    from agrag_lab.index.build import prepare_document
    from agrag_lab.kg.extract.extraction import DocumentContext
    from agrag_lab.kg.extract.pipeline import extract_chunks

    cache.mkdir(parents=True, exist_ok=True)
    file = cache / "extractions.pkl"
    done: dict[str, Any] = pickle.loads(file.read_bytes()) if file.is_file() else {}
    todo = []
    for p in passages(n):
        if p.id in done:
            continue
        doc = p.document()
        version = prepare_document(doc, 800)
        ctx = DocumentContext(doc.id, doc.title, doc.metadata, doc.text)
        todo += [(chunk, ctx, True) for chunk in version.chunks]
    if todo:
        start = time.process_time()
        for item in extract_chunks(todo):
            done.setdefault(item.document_id, []).append(item)
        print(f"extracted {len(todo)} chunks in {time.process_time() - start:.0f} s", file=sys.stderr)
        file.write_bytes(pickle.dumps(done))
    return [x for p in passages(n) for x in done[p.id]]


def _spread(steps: Any, nodes: np.ndarray, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each node of ``nodes`` spreads its ``mass`` over its out-steps: (receiving nodes, mass each receives)."""
    from agrag_lab.kg.algorithms.pagerank import csr_positions

    out = steps.transposed
    weight = steps.out_weight[nodes]
    share = np.divide(mass, weight, out=np.zeros_like(mass), where=weight > 0)
    positions = csr_positions(out.indptr, nodes)
    received, slot = np.unique(out.indices[positions], return_inverse=True)
    per_step = np.repeat(share, out.indptr[nodes + 1] - out.indptr[nodes])
    return received, np.bincount(slot, per_step, minlength=len(received))


def local_power(steps: Any, personalization: np.ndarray, restart: float, eps: float) -> tuple[np.ndarray, float]:
    """Tried: the power iteration, each step spreading only the nodes that hold at least ``eps`` per unit of degree.

    Steps as many times as :func:`agrag_lab.kg.algorithms.pagerank.personalized_pagerank` (61 at restart 0.3); each
    step reads the out-steps of the nodes it spreads, not the whole matrix. The mass left unspread in a step
    (``d_k``) is lost to it; as a step contracts the L1 error by ``1 - restart``, the result is within
    ``2 (1 - restart)^K + sum d_k`` of the stationary distribution (the second value returned). Mass at a
    node with no out-step is not restarted here (the graphs of this bench have none among the walked nodes).
    """
    from agrag_lab.kg.algorithms.pagerank import TOLERANCE

    p = personalization / personalization.sum()
    support = np.flatnonzero(p)
    threshold = eps * np.maximum(steps.out_weight, 1.0)
    iterations = math.ceil(math.log(TOLERANCE / 2) / math.log(1.0 - restart)) + 1
    x = p.copy()
    held = support
    dropped = 0.0
    for _ in range(iterations):
        spread = held[x[held] >= threshold[held]]
        dropped += float(x[held].sum() - x[spread].sum())
        received, mass = _spread(steps, spread, (1.0 - restart) * x[spread])
        x[held] = 0.0
        x[received] += mass
        x[support] += restart * p[support]
        held = np.union1d(received, support)
    return x, 2 * (1.0 - restart) ** iterations + dropped


def push_refined(steps: Any, personalization: np.ndarray, restart: float, eps: float, rounds: int) -> np.ndarray:
    """Tried: forward push at ``eps``, then ``rounds`` exact power-iteration steps on the nodes it touched.

    The steps start from the push's estimate plus its residual and keep only the mass that stays among the
    touched nodes (what leaves them is dropped: no error bound beyond the push's own).
    """
    from agrag_lab.kg.algorithms.pagerank import push_pagerank

    p = personalization / personalization.sum()
    estimate, _ = push_pagerank(steps.transposed, p, restart=restart, epsilon=eps, out_weight=steps.out_weight)
    touched = np.flatnonzero(estimate)
    inside = np.zeros(len(p), dtype=bool)
    inside[touched] = True
    x = estimate.copy()
    support = np.flatnonzero(p)
    for _ in range(rounds):
        received, mass = _spread(steps, touched, (1.0 - restart) * x[touched])
        keep = inside[received]
        x[touched] = 0.0
        x[received[keep]] += mass[keep]
        x[support] += restart * p[support]
    return x


def global_paths(steps: Any, starts: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The path search before: scipy's dijkstra from every start over the whole graph (predecessors, sources)."""
    from scipy.sparse.csgraph import dijkstra

    _, pred, sources = dijkstra(steps.transposed, directed=True, indices=starts, unweighted=True,
                                return_predecessors=True, min_only=True)
    return pred, sources


def _hops(pred: np.ndarray, sources: np.ndarray, node: int) -> int | None:
    if sources[node] < 0:
        return None
    hops = 0
    while pred[node] >= 0:
        node, hops = int(pred[node]), hops + 1
    return hops


def _top_passages(scores: np.ndarray, n_entities: int, limit: int = 10) -> list[int]:
    tail = scores[n_entities:]
    return [i for i in np.argsort(-tail, kind="stable")[:limit].tolist() if tail[i] > 0]


def seeds_of(question: str, names: list[tuple[str, str]]) -> list[str]:
    text = question.lower()
    found = [eid for name, eid in names if len(name) > 3 and name in text]
    return found[:5]


def measure(n: int, cache: Path, queries: int = 30) -> dict[str, Any]:
    from agrag_lab.datasets import musique
    from agrag_lab.kg.algorithms import pagerank as pr
    from agrag_lab.kg.extract.pipeline import build_graph

    items = extractions(n, cache)
    start = time.process_time()
    kg = build_graph(items)
    graph_s = time.process_time() - start
    start = time.process_time()
    pg = pr.PassageGraph.from_graph(kg)
    arrays_s = time.process_time() - start
    start = time.process_time()
    steps = pg.steps()
    steps.out_weight  # noqa: B018 - kept once per steps, as the store keeps the steps per index
    steps_s = time.process_time() - start
    names = sorted(((e.name.lower(), e.id) for e in kg.entities.values()), key=lambda t: -len(t[0]))
    from agrag_lab.storage.keyword import KeywordIndex

    docs = passages(n)
    keyword = KeywordIndex.build([d.id for d in docs], [f"{d.title}\n{d.text}" for d in docs])
    chunk_of: dict[str, str] = {}  # a passage's id -> its chunk (one chunk per passage)
    for chunk in pg.passages:
        chunk_of.setdefault(chunk.split("#")[0].rsplit("@", 1)[0], chunk)
    parts: dict[str, list[float]] = {}
    same: dict[str, list[bool]] = {}
    same5: dict[str, list[bool]] = {}
    errors: dict[str, list[float]] = {}
    same_paths: list[bool] = []
    walked = 0
    n_ent = len(pg.entities)
    longest = 5  # GRAPH_EXPAND: depth 2, paths of at most 2 * 2 + 1 steps

    def timed(part: str, run: Any) -> Any:
        t0 = time.process_time()
        out = run()
        parts.setdefault(part, []).append(time.process_time() - t0)
        return out

    def one(seeds: list[str], question: str) -> None:  # one question: the walks, timed, and how they agree
        prior = [chunk_of[key] for key, _ in keyword.search(question, 20) if key in chunk_of]
        weights = {c: 1.0 / r for r, c in enumerate(prior, 1)}

        def engine_walk(method: str) -> Any:  # as the engine runs it for GRAPH_EXPAND
            walk = pg.walk(dict.fromkeys(seeds, 1.0), weights, steps, method=method)  # type: ignore[arg-type]
            ranked = walk.passages(10)
            return walk, ranked, walk.routes([k for k, _ in ranked], longest)

        walk, ranked, routes = timed("walk", lambda: engine_walk("push"))

        def before() -> Any:  # the walk before: power iteration, then dijkstra over the whole graph
            walk = pg.walk(dict.fromkeys(seeds, 1.0), weights, steps, method="power")
            ranked = walk.passages(10)
            seeded = global_paths(steps, [pg.node_index[s] for s in walk.seeds])
            hops = [_hops(*seeded, pg.node_index[k]) for k, _ in ranked]
            if any(h is None or h > longest for h in hops) and walk.prior:
                global_paths(steps, [pg.node_index[c] for c in walk.prior])
            return ranked, seeded

        old_ranked, seeded = timed("walk_power", before)
        # the paths: same as the whole-graph search wherever that one has a seed path within the limit
        for key, _ in ranked:
            hops = _hops(seeded[0], seeded[1], pg.node_index[key])
            if hops is not None and hops <= longest:
                got = routes[key]
                chain, node = [], pg.node_index[key]
                while seeded[0][node] >= 0:
                    chain.append(pg.nodes[node])
                    node = int(seeded[0][node])
                same_paths.append(got is not None and [s.target for s in got[1]] == chain[::-1])
        # the parts, timed apart on the same input
        p = np.zeros(len(pg.nodes))
        for node, weight in walk_restart(pg, steps, walk).items():
            p[node] = weight
        exact = timed("pagerank", lambda: pr.personalized_pagerank(steps.matrix, p, restart=pr.DEFAULT_RESTART))
        top = _top_passages(exact, n_ent)
        timed("push", lambda: pr.push_pagerank(steps.transposed, p, restart=pr.DEFAULT_RESTART,
                                               out_weight=steps.out_weight))
        timed("paths", lambda: walk.routes([k for k, _ in ranked], longest))
        timed("paths_global", lambda: global_paths(steps, [pg.node_index[s] for s in walk.seeds]))
        timed("rank", lambda: walk.passages(10))

        def compare(name: str, scores: np.ndarray, error: float | None = None) -> None:
            got = _top_passages(scores, n_ent)
            same.setdefault(name, []).append(got == top)
            same5.setdefault(name, []).append(set(got[:5]) == set(top[:5]))
            errors.setdefault(name, []).append(float(np.abs(exact - scores).sum()) if error is None else error)

        compare("push", walk.scores, walk.error)
        for eps in PUSH_EPS:
            scores, error = timed(f"push{eps:g}", lambda eps=eps: pr.push_pagerank(
                steps.transposed, p, restart=pr.DEFAULT_RESTART, epsilon=eps, out_weight=steps.out_weight))
            compare(f"push{eps:g}", scores, error)
        scores, bound = timed("local_power", lambda: local_power(steps, p, pr.DEFAULT_RESTART, LOCAL_POWER_EPS))
        compare("local_power", scores, bound)
        refined = timed("refined", lambda: push_refined(steps, p, pr.DEFAULT_RESTART, 1e-5, REFINE_STEPS))
        compare("refined", refined)
        same.setdefault("walk", []).append([k for k, _ in ranked] == [k for k, _ in old_ranked])

    for question in list(musique().queries.values())[:queries]:
        seeds = seeds_of(question, names)
        if seeds:
            walked += 1
            one(seeds, question)
    for question in list(musique().queries.values())[:queries]:
        t0 = time.process_time()
        keyword.search(question, 100)
        parts.setdefault("keyword", []).append(time.process_time() - t0)
    return {
        "n": n, "nodes": len(pg.nodes), "entities": len(pg.entities), "passages": len(pg.passages),
        "steps": int(steps.matrix.nnz), "walked_queries": walked,
        "same_top10": {k: sum(v) for k, v in same.items()},
        "same_top5_set": {k: sum(v) for k, v in same5.items()},
        "error_p50": {k: statistics.median(v) for k, v in errors.items()},
        "same_paths": [sum(same_paths), len(same_paths)],
        "graph_s": graph_s, "arrays_s": arrays_s, "steps_s": steps_s,
        **{f"{k}_p50": statistics.median(v) for k, v in parts.items() if v},
        **{f"{k}_p95": float(np.percentile(v, 95)) for k, v in parts.items() if v},
    }


def walk_restart(pg: Any, steps: Any, walk: Any) -> dict[int, float]:
    """The restart weights of ``walk`` (seeds alike, each divided by the passages it reaches, plus the prior
    at weight 0.3), as :meth:`agrag_lab.kg.algorithms.pagerank.PassageGraph.walk` builds them."""
    from agrag_lab.kg.algorithms import pagerank as pr

    n_ent = len(pg.entities)
    out = steps.transposed
    weights: dict[int, float] = {}
    for s in walk.seeds:
        i = pg.node_index[s]
        weights[i] = 1.0 / max(1, int((out.indices[out.indptr[i] : out.indptr[i + 1]] >= n_ent).sum()))
    total = sum(weights.values())
    weights = {k: v / total for k, v in weights.items()}
    prior = {pg.node_index[c]: 1.0 / r for r, c in enumerate(walk.prior, 1)}
    norm = sum(prior.values())
    for k, v in prior.items():
        weights[k] = weights.get(k, 0.0) + pr.DEFAULT_PRIOR_WEIGHT * v / norm
    return weights


#: Rows of the table: (key, label); agreement and error rows follow for the compared walks.
PARTS = (
    ("walk", "GRAPH_EXPAND's walk as the engine runs it (push, its ten best passages, their paths)"),
    ("walk_power", "the walk before (power iteration, ten best, dijkstra over the whole graph)"),
    ("push", "forward push alone (eps 1e-6, the default)"),
    ("pagerank", "power iteration alone (the `power` setting)"),
    ("paths", "path search, local (to the ten passages, <= 5 steps)"),
    ("paths_global", "path search before (dijkstra from the seeds over the whole graph)"),
    ("rank", "rank"),
)
COMPARED = (
    ("push", "push, eps 1e-6 (the default)"),
    *((f"push{e:g}", f"tried: push, eps {e:g}") for e in PUSH_EPS),
    ("local_power", f"tried: power iteration over nodes holding >= {LOCAL_POWER_EPS:g} per step"),
    ("refined", f"tried: push at 1e-5, then {REFINE_STEPS} power steps on its nodes"),
)


def table(rows: Sequence[dict[str, Any]]) -> list[str]:
    rows = sorted(rows, key=lambda r: r["n"])
    lines = ["| passages | " + " | ".join(f"{r['n']:,}" for r in rows) + " |", "|---|" + "---|" * len(rows)]

    def row(label: str, fmt: Any) -> None:
        lines.append(f"| {label} | " + " | ".join(fmt(r) for r in rows) + " |")

    def ms(part: str) -> Any:
        return lambda r: (f"{r[part + '_p50'] * 1000:.1f} / {r[part + '_p95'] * 1000:.1f} ms"
                          if part + "_p50" in r else "-")

    row("walk graph nodes (entities + passages) / steps", lambda r: f"{r['nodes']:,} / {r['steps']:,}")
    row("graph build from extractions", lambda r: f"{r['graph_s']:.1f} s")
    row("walk arrays + steps (once per index)", lambda r: f"{r['arrays_s'] + r['steps_s']:.2f} s")
    for part, label in PARTS:
        row(f"{label} p50 / p95", ms(part))
    for part, label in COMPARED[1:]:
        row(f"{label} p50 / p95", ms(part))
    row("keyword search (bm25s, 100 of all passages) p50 / p95", ms("keyword"))
    row("the walk's ten passages, in order, as before", lambda r: (
        f"{r['same_top10']['walk']} of {r['walked_queries']}" if "walk" in r.get("same_top10", {}) else "-"))
    row("their paths as before (where before had one within 5 steps)", lambda r: (
        f"{r['same_paths'][0]} of {r['same_paths'][1]}" if "same_paths" in r else "-"))
    for key, label in COMPARED:
        row(f"{label}: the power iteration's ten best passages in order / five best as a set", lambda r, key=key: (
            f"{r['same_top10'][key]} / {r['same_top5_set'][key]} of {r['walked_queries']}"
            if key in r.get("same_top10", {}) else "-"))
        row(f"{label}: L1 error p50 ({'measured' if key == 'refined' else 'its bound'})", lambda r, key=key: (
            f"{r['error_p50'][key]:.3f}" if key in r.get("error_p50", {}) else "-"))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--cache", default=".agrag/scale-walk")
    parser.add_argument("--out", default=str(RESULTS / "scale_walk.json"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    saved = json.loads(out.read_text()) if out.is_file() else {}
    for n in (int(s) for s in args.sizes.split(",") if s.strip()):
        saved[str(n)] = measure(n, Path(args.cache))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(saved, indent=1, sort_keys=True))
        print("\n".join(table(list(saved.values()))), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
