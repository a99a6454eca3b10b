"""``make bench-scale``: how build time, index size, memory and query latency grow from 2k to 100k passages.

For each size ``n`` (default 2,000, 10,000, 30,000 and 100,000 passages of
:mod:`benchmarks.scale_corpus`), in child processes so that each one's peak RSS is its own:

1. **build**: ``Graph.open(folder)`` and one ``ingest`` of the ``n`` passages (chunks, the real
   embedding model, Chroma, bm25s, rule extraction, the graph, Leiden, reports, every record
   embedded); wall time and peak RSS of the process (``os.wait4``). From ``--server-from``
   passages on (default 30,000) the vectors live in a Chroma server (``chroma run --host
   127.0.0.1``) the bench starts before and stops after, whose own peak RSS (``VmHWM``) is
   reported beside.
2. **size**: bytes of the index folder (and of the server's data folder).
3. **open + search**: a new process opens the index (``Graph.open``, read-only) and runs one
   GRAPH_EXPAND search; its peak RSS is the memory figure (it includes the embedding model).
4. **latency**: in that process, every recipe of :data:`agrag_lab.recipes.RECIPES` on the first
   ``--queries`` MuSiQue questions (one warm-up each), p50 and p95; the span times of each
   recipe's trace (methods, walk, ...) are kept too, to see which step grows.

Built indexes are kept under ``--root`` with their figures (``result.json``); a size whose folder
holds a result for the same corpus is not built again (``--rebuild`` forces it). The results go
to ``benchmarks/results/scale.json``; the section (a table and a log-log chart,
``benchmarks/results/scale.png``) to ``benchmarks/results/scale.md`` and in place in BENCHMARKS.md.

Run: ``python -m benchmarks.scale [--sizes 2000,10000] [--root DIR]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

RESULTS = Path(__file__).with_name("results")
TITLE = "Scale: 2k to 100k passages (issue 20)"
SIZES = (2000, 10000, 30000, 100000)
SERVER_FROM = 30000
QUERIES = 30


def _percentiles(samples: Sequence[float]) -> tuple[float, float]:
    arr = np.asarray(samples)
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 95))


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _chroma_exe() -> str:
    exe = Path(sys.executable).parent / "chroma"
    return str(exe) if exe.exists() else (shutil.which("chroma") or "chroma")


def _peak_rss_of(pid: int) -> int:
    """VmHWM of a running process, bytes (0 when it cannot be read)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@contextmanager
def chroma_server(data: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """A ``chroma run --host 127.0.0.1`` on a free port over ``data``; stopped on exit."""
    from agrag_lab.errors import VectorStoreError
    from agrag_lab.processes import free_port, stop_process
    from agrag_lab.storage.vectors import ChromaVectorStore

    port = free_port()
    data.mkdir(parents=True, exist_ok=True)
    log = (data.parent / "chroma-server.log").open("wb")
    proc = subprocess.Popen([_chroma_exe(), "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(data)],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 600  # a loaded shared machine starts it slowly
        while True:
            try:
                ChromaVectorStore.http("127.0.0.1", port)
                break
            except VectorStoreError:
                if time.time() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"chroma run did not start (see {log.name})") from None
                time.sleep(0.5)
        yield port, proc
    finally:
        stop_process(proc)
        log.close()


def _child(args: list[str]) -> tuple[dict[str, Any], int]:
    """Run ``python -m benchmarks.scale <args>``; its JSON output and its peak RSS (bytes: ``ru_maxrss``, which
    starts at this process's own peak when it was spawned; the query child reports its own ``VmHWM`` too)."""
    out = Path(args[args.index("--json") + 1])
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks.scale", *args])
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmarks.scale {args[0]} exited with {proc.returncode}")
    return json.loads(out.read_text()), int(usage.ru_maxrss) * 1024


# -- the child processes ----------------------------------------------------------------------


class StoreClock:
    """The wall time a process spends waiting on its vector store: any call of ``query`` or ``vectors`` in flight.

    The methods of a search run in threads, so their store calls overlap: the clock counts the time during
    which at least one is in flight (the union of the calls), never more than the wall time of a run. What
    is left of a run's wall time is the search's own work (the recipe's steps, the graph, the keyword legs).
    This separates the dense legs, which at 100k passages wait on a Chroma server over HTTP and at 2k on an
    exact search in numpy, from the rest.
    """

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._in_flight = 0
        self._since = 0.0
        self.seconds = 0.0

    def wrap(self, store: Any) -> None:
        """Time every ``query`` and ``vectors`` call of ``store`` (its instance methods replaced)."""
        for name in ("query", "vectors"):
            setattr(store, name, self._timed(getattr(store, name)))

    def _timed(self, method: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                if not self._in_flight:
                    self._since = time.perf_counter()
                self._in_flight += 1
            try:
                return method(*args, **kwargs)
            finally:
                with self._lock:
                    self._in_flight -= 1
                    if not self._in_flight:
                        self.seconds += time.perf_counter() - self._since

        return timed


def _embedder(kind: str) -> Any:
    from agrag_lab.embedding import SentenceTransformerEmbedder, StaticEmbedder

    return StaticEmbedder() if kind == "static" else SentenceTransformerEmbedder()


def _open(folder: Path, port: int | None, read_only: bool, embedder: str) -> Any:
    from agrag_lab import Graph
    from agrag_lab.storage.vectors import ChromaVectorStore

    store = ChromaVectorStore.http("127.0.0.1", port) if port else None
    graph_store = None
    if os.environ.get("AGRAG_SCALE_FALKORDB"):  # HOST:PORT/GRAPH: the graph in FalkorDB (benchmarks.scale_server)
        from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore, parse_address

        host, fport, name = parse_address(os.environ["AGRAG_SCALE_FALKORDB"])
        graph_store = FalkorDBGraphStore.connect(host, fport, graph=name or "agrag",
                                                 vectors=bool(os.environ.get("AGRAG_SCALE_FALKORDB_VECTORS")))
    return Graph.open(folder, vector_store=store, read_only=read_only, embedder=_embedder(embedder),
                      graph_store=graph_store)


def build_child(n: int, folder: Path, port: int | None, embedder: str) -> dict[str, Any]:
    from benchmarks.scale_corpus import passages

    docs = [p.document() for p in passages(n)]
    start = time.perf_counter()
    graph = _open(folder, port, read_only=False, embedder=embedder)
    report = graph.ingest(docs)
    seconds = time.perf_counter() - start
    stats = graph.stats()
    store = graph.graph_store
    stats.update(entities=len(store.entities()), relations=len(store.graph.edges),
                 communities=len(store.communities()), reports=len(store.reports()))
    graph.close()
    return {"build_s": seconds, "chunks": report.chunks, "stats": stats,
            "text_bytes": sum(len(d.text.encode("utf-8")) for d in docs)}


def query_child(folder: Path, port: int | None, queries: int, embedder: str, push: bool = False) -> dict[str, Any]:
    from agrag_lab.datasets import musique
    from agrag_lab.recipes import GRAPH_EXPAND, RECIPES
    from agrag_lab.retrieval.rerank import save_untrained_cross_encoder
    from agrag_lab.retrieval.settings import RetrievalSettings

    qs = list(musique().queries.values())[:queries]
    if push:  # the index's vectors into the (empty) server first, as `agrag-lab sync --chroma` does
        writer = _open(folder, port, read_only=False, embedder=embedder)
        writer.sync()
        writer.close()
    loads = [os.getloadavg()[0]]  # the machine's 1-minute load average, before and after the timed runs
    start = time.perf_counter()
    graph = _open(folder, port, read_only=True, embedder=embedder)
    # a latency measurement: a busy machine must not turn a slow run into a lost figure (the 60 s run deadline)
    engine = graph.engine(settings=RetrievalSettings(method_timeout=600.0, run_timeout=1200.0))
    engine.run(qs[0], GRAPH_EXPAND)
    clock = StoreClock()
    clock.wrap(graph.vector_store.backend)
    first_s = time.perf_counter() - start
    # this process's own peak (VmHWM): ru_maxrss starts at the peak of the parent that spawned it, and
    # benchmarks.scale_server's parent has loaded the whole index to push its graph
    rss_open_search = _peak_rss_of(os.getpid())
    # No trained cross-encoder can be had offline: HYBRID_RERANKED runs with one of the same
    # architecture and cost (MiniLM-L6) whose head is untrained, so its latency is real. Made after the
    # figure above: making it imports torch (about 500 MiB), which no other recipe loads.
    cross_encoder = save_untrained_cross_encoder(Path(tempfile.mkdtemp()) / "cross-encoder")
    recipes: dict[str, Any] = {}
    for name, recipe in RECIPES.items():
        if recipe.rerank.kind == "cross_encoder":
            recipe = recipe.replace(**{"rerank.model": cross_encoder})
        try:
            engine.run(qs[0], recipe)
        except Exception as exc:  # e.g. HYBRID_RERANKED without its cross-encoder offline
            recipes[name] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            continue
        samples: list[float] = []
        cpu: list[float] = []
        store: list[float] = []
        spans: dict[str, list[float]] = {}
        for q in qs:
            clock.seconds = 0.0
            t0, c0 = time.perf_counter(), time.process_time()
            run = engine.run(q, recipe)
            samples.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            store.append(clock.seconds)
            for span, seconds in run.trace.spans:
                spans.setdefault(span, []).append(seconds)
        p50, p95 = _percentiles(samples)
        recipes[name] = {"p50": p50, "p95": p95, "cpu_p50": statistics.median(cpu),
                         # the vector store's share of each run (StoreClock), and the run without it
                         "store_p50": statistics.median(store),
                         "own_p50": statistics.median(t - v for t, v in zip(samples, store, strict=True)),
                         "spans": {k: statistics.median(v) for k, v in spans.items()}}
    graph.close()
    loads.append(os.getloadavg()[0])
    out = {"open_and_first_search_s": first_s, "rss_open_search": rss_open_search, "recipes": recipes,
           "load": loads}
    if embedder != "model":
        # What the bundled transformer would add to each query, and to the memory: it embeds the
        # question once per search (the "embed" span), whatever the corpus size.
        model = _embedder("model")
        model.warm()
        times = []
        for q in qs:
            t0 = time.perf_counter()
            model.embed_query(q)
            times.append(time.perf_counter() - t0)
        out.update(model_query_embed_p50=statistics.median(times),
                   rss_with_model=_peak_rss_of(os.getpid()))
    return out


# -- the parent ---------------------------------------------------------------------------------


def corpus_key(n: int) -> str:
    import hashlib

    from benchmarks.scale_corpus import passages

    h = hashlib.sha1()
    for p in passages(n):
        h.update(p.id.encode())
        h.update(b"\0")
        h.update(p.text.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def result_key(n: int, embedder: str) -> str:
    """The key of a size in ``scale.json``: ``"2000"`` with the model, ``"static-2000"`` with static embeddings."""
    return str(n) if embedder == "model" else f"{embedder}-{n}"


def measure_size(n: int, root: Path, *, server: bool, queries: int, rebuild: bool, embedder: str = "model",
                 build_only: bool = False, served_too: bool = True) -> dict[str, Any]:
    base = root / ("n" + result_key(n, embedder))
    result_file = base / "result.json"
    key = corpus_key(n)
    done = json.loads(result_file.read_text()) if result_file.is_file() else {}
    if rebuild or done.get("corpus") != key or done.get("server") != server:
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        done = {"n": n, "corpus": key, "server": server, "embedder": embedder}
        with _maybe_server(base, server) as (port, proc):
            built, rss = _child(["build", str(n), str(base / "index"), *_port(port), "--embedder", embedder,
                                 "--json", str(base / "build.json")])
            done.update(built, rss_build=rss, rss_server_build=_peak_rss_of(proc.pid) if proc else 0)
        done["index_bytes"] = folder_bytes(base / "index")
        done["server_bytes"] = folder_bytes(base / "server") if server else 0
        result_file.write_text(json.dumps(done, indent=1))
    if build_only:
        return done
    with _maybe_server(base, server) as (port, proc):
        queried, rss = _child(["query", str(base / "index"), *_port(port), "--queries", str(queries),
                               "--embedder", embedder,
                               "--json", str(base / "query.json")])
        done.update(query=queried, rss_query_process=rss, rss_server_query=_peak_rss_of(proc.pid) if proc else 0)
    if not server and served_too:
        # Like for like: the same size with its vectors pushed into a Chroma server, read over HTTP as the
        # sizes from --server-from are. The growth to a served size is then measured with the same transport
        # at both ends (an in-process exact read of 2k vectors against HNSW over HTTP at 100k mixes the two).
        try:
            with chroma_server(base / "served") as (port, _):
                done["query_served"], _ = _child(["query", str(base / "index"), "--port", str(port), "--push",
                                                  "--queries", str(queries), "--embedder", embedder,
                                                  "--json", str(base / "query-served.json")])
        finally:
            shutil.rmtree(base / "served", ignore_errors=True)
    done["measured"] = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    result_file.write_text(json.dumps(done, indent=1))
    return done


def _port(port: int | None) -> list[str]:
    return ["--port", str(port)] if port else []


@contextmanager
def _maybe_server(base: Path, server: bool) -> Iterator[tuple[int | None, subprocess.Popen[bytes] | None]]:
    if not server:
        yield None, None
        return
    with chroma_server(base / "server") as (port, proc):
        yield port, proc


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command")
    build = sub.add_parser("build")
    build.add_argument("n", type=int)
    build.add_argument("folder")
    build.add_argument("--port", type=int)
    build.add_argument("--json", required=True)
    build.add_argument("--embedder", default="model")
    query = sub.add_parser("query")
    query.add_argument("folder")
    query.add_argument("--port", type=int)
    query.add_argument("--queries", type=int, default=QUERIES)
    query.add_argument("--json", required=True)
    query.add_argument("--embedder", default="model")
    query.add_argument("--push", action="store_true", help="first push the index's vectors into the server")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--root", default=".agrag/scale")
    parser.add_argument("--server-from", type=int, default=SERVER_FROM)
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--embedder", choices=("model", "static"), default="model",
                        help="'static': model2vec embeddings distilled from the bundled model (StaticEmbedder)")
    parser.add_argument("--build-only", action="store_true", help="build the sizes; measure queries later")
    parser.add_argument("--no-served-too", action="store_true",
                        help="do not also query the sizes below --server-from with their vectors on a Chroma server")
    args = parser.parse_args(argv)
    if args.command == "build":
        Path(args.json).write_text(json.dumps(build_child(args.n, Path(args.folder), args.port, args.embedder)))
        return 0
    if args.command == "query":
        Path(args.json).write_text(json.dumps(query_child(Path(args.folder), args.port, args.queries, args.embedder,
                                                          push=args.push)))
        return 0
    from benchmarks import scale_report

    root = Path(args.root)
    saved = RESULTS / "scale.json"
    results = json.loads(saved.read_text()) if saved.is_file() else {}
    for n in (int(s) for s in args.sizes.split(",") if s.strip()):
        print(f"scale: {n} passages", file=sys.stderr)
        key = result_key(n, args.embedder)
        try:
            results[key] = measure_size(n, root, server=n >= args.server_from, queries=args.queries,
                                        rebuild=args.rebuild, embedder=args.embedder, build_only=args.build_only,
                                        served_too=not args.no_served_too)
        except Exception as exc:  # one size failing keeps the others
            results[key] = {"n": n, "embedder": args.embedder, "error": f"{type(exc).__name__}: {exc}"}
        results[key]["machine"] = f"{platform.node()} ({os.cpu_count()} cores)"
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(results, indent=1))  # insertion order: the spans as a run takes them
        scale_report.write(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
