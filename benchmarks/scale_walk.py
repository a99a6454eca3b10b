"""The personalised-PageRank walk alone, on knowledge graphs of 2k to 100k passages (issue 20).

No embedding is needed for the walk, so these graphs are built without it: the passages of
:mod:`benchmarks.scale_corpus` are chunked as an ingest does, the rule extractor reads them
(extractions cached under ``--cache``, so each size extracts only the passages the smaller one
lacked) and :func:`agrag_lab.kg.pipeline.build_graph` builds the graph (no communities: the walk
does not use them). Then, per size, the steps are built once (as the store does per index) and
the walk is timed for the first 30 MuSiQue questions: the seeds are the entities whose name the
question contains (at most 5, longest names first), the prior the first 20 passages that mention
a seed (in the engine, the query's dense hits). A walk is timed as the engine runs it for
GRAPH_EXPAND: the walk, its ten best passages and the path to each; its parts apart: the power
iteration (``personalized_pagerank``), the two shortest-path searches, and ranking the passages;
beside it, a bm25s keyword search (:class:`~agrag_lab.storage.keyword.KeywordIndex`, title and
text of every passage) for the same questions, 100 hits.
Times are CPU seconds of this process (``time.process_time``; the walk is single-threaded), which
another job on the shared machine does not inflate as it does wall time.

Run: ``python -m benchmarks.scale_walk [--sizes 2000,10000,30000,100000]``.
"""

from __future__ import annotations

import argparse
import json
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
#: Residual thresholds (per unit of out-degree) of the forward-push walk that was tried.
PUSH_EPS = (1e-5, 1e-6)


def extractions(n: int, cache: Path) -> list[Any]:
    """:class:`~agrag_lab.kg.build.ChunkExtraction` of the first ``n`` passages, extracting only what the cache lacks."""
    from agrag_lab.index.build import prepare_document
    from agrag_lab.kg.extraction import DocumentContext
    from agrag_lab.kg.pipeline import extract_chunks

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


def push_pagerank(steps: Any, personalization: np.ndarray, restart: float, eps: float) -> np.ndarray:
    """Forward-push personalised PageRank (Andersen, Chung and Lang 2006), tried as a local walk.

    Pushes a node's residual while it exceeds ``eps`` times its out-degree; mass at a node with no
    out-step restarts, as in :func:`agrag_lab.kg.pagerank.personalized_pagerank`. The work depends
    on ``eps`` and ``restart``, not on the size of the graph; the scores are lower bounds that
    differ from the power iteration's by up to ``eps`` per unit of degree.
    """
    out_weight = np.asarray(steps.matrix.sum(axis=0), dtype=float).ravel()
    inverse = np.divide(1.0, out_weight, out=np.zeros_like(out_weight), where=out_weight > 0)
    dangling = out_weight == 0
    threshold = eps * np.maximum(out_weight, 1.0)
    p = personalization / personalization.sum()
    support = np.flatnonzero(p)
    estimate, residual = np.zeros(len(p)), p.copy()
    indptr, indices = steps.transposed.indptr, steps.transposed.indices
    candidates = support
    while True:
        active = candidates[residual[candidates] > threshold[candidates]]
        if len(active) == 0:
            return estimate
        mass = residual[active].copy()
        residual[active] = 0.0
        estimate[active] += restart * mass
        spread = (1.0 - restart) * mass
        stuck = dangling[active]
        touched = []
        if stuck.any():
            residual[support] += p[support] * float(spread[stuck].sum())
            touched.append(support)
        live = active[~stuck]
        if len(live):
            starts, counts = indptr[live], indptr[live + 1] - indptr[live]
            offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
            targets = indices[offsets + np.arange(int(counts.sum()))]
            np.add.at(residual, targets, np.repeat(spread[~stuck] * inverse[live], counts))
            touched.append(np.unique(targets))
        candidates = np.unique(np.concatenate(touched)) if touched else np.array([], dtype=np.int64)


def _top_passages(scores: np.ndarray, n_entities: int, limit: int = 10) -> list[int]:
    tail = scores[n_entities:]
    return [i for i in np.argsort(-tail, kind="stable")[:limit].tolist() if tail[i] > 0]


def seeds_of(question: str, names: list[tuple[str, str]]) -> list[str]:
    text = question.lower()
    found = [eid for name, eid in names if len(name) > 3 and name in text]
    return found[:5]


def measure(n: int, cache: Path, queries: int = 30) -> dict[str, Any]:
    from agrag_lab.datasets import musique
    from agrag_lab.kg import pagerank as pr
    from agrag_lab.kg.pipeline import build_graph

    items = extractions(n, cache)
    start = time.process_time()
    kg = build_graph(items)
    graph_s = time.process_time() - start
    start = time.process_time()
    pg = pr.PassageGraph.from_graph(kg)
    arrays_s = time.process_time() - start
    start = time.process_time()
    steps = pg.steps()
    steps_s = time.process_time() - start
    names = sorted(((e.name.lower(), e.id) for e in kg.entities.values()), key=lambda t: -len(t[0]))
    mentions: dict[str, list[str]] = {e.id: list(e.chunk_ids) for e in kg.entities.values()}
    parts: dict[str, list[float]] = {"walk": [], "pagerank": [], "paths": [], "rank": []}
    same: dict[str, list[bool]] = {}
    walked = 0
    for question in list(musique().queries.values())[:queries]:
        seeds = seeds_of(question, names)
        if not seeds:
            continue
        walked += 1
        prior = list(dict.fromkeys(c for s in seeds for c in mentions[s]))[:20]
        t0 = time.process_time()
        walk = pg.walk(dict.fromkeys(seeds, 1.0), {c: 1.0 / r for r, c in enumerate(prior, 1)}, steps)
        for key, _ in walk.passages(10):  # as the engine does for GRAPH_EXPAND (depth 2: paths of <= 5 steps)
            walk.route(key, 5)
        parts["walk"].append(time.process_time() - t0)
        # the parts, timed apart on the same input
        p = np.zeros(len(pg.nodes))
        for s in walk.seeds:
            p[pg.node_index[s]] = 1.0
        t0 = time.process_time()
        pr.personalized_pagerank(steps.matrix, p, restart=pr.DEFAULT_RESTART)
        parts["pagerank"].append(time.process_time() - t0)
        t0 = time.process_time()
        pr.ShortestPaths.search(pg, steps, [pg.node_index[s] for s in walk.seeds])
        pr.ShortestPaths.search(pg, steps, [pg.node_index[c] for c in walk.prior])
        parts["paths"].append(time.process_time() - t0)
        t0 = time.process_time()
        walk.passages(10)
        parts["rank"].append(time.process_time() - t0)
        # tried: forward push instead of the power iteration, from the same restart vector (seeds alike,
        # each divided by the passages it reaches, plus the prior at weight 0.3), against the exact walk
        n_ent = len(pg.entities)
        restart_p = np.zeros(len(pg.nodes))
        for s in walk.seeds:
            i = pg.node_index[s]
            reached = steps.transposed.indices[steps.transposed.indptr[i] : steps.transposed.indptr[i + 1]]
            restart_p[i] = 1.0 / max(1, int((reached >= n_ent).sum()))
        restart_p /= restart_p.sum()
        q = np.zeros(len(pg.nodes))
        for rank, c in enumerate(walk.prior, 1):
            q[pg.node_index[c]] = 1.0 / rank
        if q.sum() > 0:
            restart_p += pr.DEFAULT_PRIOR_WEIGHT * q / q.sum()
        exact = pr.personalized_pagerank(steps.matrix, restart_p, restart=pr.DEFAULT_RESTART)
        for eps in PUSH_EPS:
            t0 = time.process_time()
            pushed = push_pagerank(steps, restart_p, pr.DEFAULT_RESTART, eps)
            parts.setdefault(f"push{eps:g}", []).append(time.process_time() - t0)
            same.setdefault(f"{eps:g}", []).append(_top_passages(pushed, n_ent) == _top_passages(exact, n_ent))
    from agrag_lab.storage.keyword import KeywordIndex

    docs = passages(n)
    keyword = KeywordIndex.build([d.id for d in docs], [f"{d.title}\n{d.text}" for d in docs])
    for question in list(musique().queries.values())[:queries]:
        t0 = time.process_time()
        keyword.search(question, 100)
        parts.setdefault("keyword", []).append(time.process_time() - t0)
    return {
        "n": n, "nodes": len(pg.nodes), "entities": len(pg.entities), "passages": len(pg.passages),
        "steps": int(steps.matrix.nnz), "walked_queries": walked,
        "push_same_top10": {eps: sum(v) for eps, v in same.items()},
        "graph_s": graph_s, "arrays_s": arrays_s, "steps_s": steps_s,
        **{f"{k}_p50": statistics.median(v) for k, v in parts.items() if v},
        **{f"{k}_p95": float(np.percentile(v, 95)) for k, v in parts.items() if v},
    }


def table(rows: Sequence[dict[str, Any]]) -> list[str]:
    rows = sorted(rows, key=lambda r: r["n"])
    lines = ["| passages | " + " | ".join(f"{r['n']:,}" for r in rows) + " |", "|---|" + "---|" * len(rows)]

    def row(label: str, fmt: Any) -> None:
        lines.append(f"| {label} | " + " | ".join(fmt(r) for r in rows) + " |")

    row("walk graph nodes (entities + passages) / steps", lambda r: f"{r['nodes']:,} / {r['steps']:,}")
    row("graph build from extractions", lambda r: f"{r['graph_s']:.1f} s")
    row("walk arrays + steps (once per index)", lambda r: f"{r['arrays_s'] + r['steps_s']:.2f} s")
    labels = {"keyword": "keyword search (bm25s, 100 of all passages)"}
    pushes = [f"push{eps:g}" for eps in PUSH_EPS]
    labels.update({p: f"tried: forward push (eps {p[4:]}) instead of the power iteration" for p in pushes})
    for part in ("walk", "pagerank", "paths", "rank", *pushes, "keyword"):
        label = labels.get(part, part)
        row(f"{label} p50 / p95", lambda r, part=part: (
            f"{r[part + '_p50'] * 1000:.1f} / {r[part + '_p95'] * 1000:.1f} ms" if part + "_p50" in r else "-"))
    for eps in PUSH_EPS:
        row(f"tried: forward push (eps {eps:g}) gives the power iteration's ten best passages, in order",
            lambda r, e=f"{eps:g}": f"{r['push_same_top10'][e]} of {r['walked_queries']} questions"
            if e in r.get("push_same_top10", {}) else "-")
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
