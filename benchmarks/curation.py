"""Curation, measured (issue 41): the duplicate candidates of an index, and what one merge changed in retrieval.

``--candidates N`` prints the top N duplicate candidates of the index with both
descriptions, for judging by hand (docs/curation/NOTES.md has the judgements).
``--merge INTO OTHER`` copies the index to a temporary folder, merges OTHER
into INTO there (entity names or ids), measures the change on ``--question``
(repeatable) with ENTITY, HYBRID and GRAPH_HYBRID, re-imports the GraphRAG
output the index came from when ``--graphrag`` names it, and rebuilds the copy:
the merge must stay through both.

Run: ``python -m benchmarks.curation --index PATH --candidates 20`` or
``python -m benchmarks.curation --index PATH --merge "GHOST OF CHRISTMAS PAST" "THE GHOST OF CHRISTMAS PAST"
--question "Who is the Ghost of Christmas Past?" --graphrag datasets/msgraphrag_christmas_carol/v3``.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from agrag_lab import Graph
from agrag_lab.eval.edit_impact import impact_of_edits
from agrag_lab.kg.candidates import duplicate_candidates
from agrag_lab.kg.edits import MergeEntities
from agrag_lab.recipes import ENTITY, GRAPH_HYBRID, HYBRID


def candidates(index: Path, top: int) -> None:
    with Graph.open(index, read_only=True) as graph:
        kg = graph.graph_store.graph
        started = time.perf_counter()
        found = duplicate_candidates(kg)
        print(f"{len(kg.entities)} entities, {len(found)} candidates in {time.perf_counter() - started:.2f} s")
        for rank, c in enumerate(found[:top], 1):
            print(f"#{rank} {c.score} {c.names} {c.label} {[r.kind for r in c.reasons]}")
            for entity_id in c.entities:
                print("   ", kg.entities[entity_id].description[:160].replace("\n", " "))


def merge(index: Path, into: str, other: str, questions: Sequence[str], graphrag: Path | None) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "index"
        shutil.copytree(index, copy, ignore=shutil.ignore_patterns("write.lock"))
        with Graph.open(copy) as graph:
            store = graph.graph_store
            ids = [(store.entity(n) or store.entity_by_name(n)) for n in (into, other)]
            if None in ids:
                raise SystemExit(f"no entity {into!r} or {other!r} in {index}")
            kept, gone = (e.id for e in ids if e is not None)
            started = time.perf_counter()
            print(graph.curate(MergeEntities(kept, (gone,)), who="benchmarks.curation", why="a known duplicate"),
                  f"{time.perf_counter() - started:.1f} s")
            impact = impact_of_edits(graph, {f"q{i}": q for i, q in enumerate(questions, 1)},
                                     [ENTITY, HYBRID, GRAPH_HYBRID])
            for c in impact.changes:
                print(c.question_id, c.recipe, "gained", c.gained, "lost", c.lost, "moved", len(c.moved))
            print("explore", gone, "->", graph.evidence().explore(gone).entity.id)
            if graphrag is not None:
                report = graph.import_graphrag(graphrag)
                print("re-import unchanged:", report.unchanged, "merged still:", gone not in graph.graph_store.graph.entities)
        with Graph.open(copy, rebuild=True) as graph:
            print("after a rebuild: merged still:", gone not in graph.graph_store.graph.entities,
                  [o.status for _, o in graph.edits() if o is not None])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.curation", description=__doc__)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--candidates", type=int, default=0)
    parser.add_argument("--merge", nargs=2, metavar=("INTO", "OTHER"))
    parser.add_argument("--question", action="append", default=[])
    parser.add_argument("--graphrag", type=Path)
    args = parser.parse_args(argv)
    if args.candidates:
        candidates(args.index, args.candidates)
    if args.merge:
        into, other = args.merge
        merge(args.index, into, other, args.question, args.graphrag)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
