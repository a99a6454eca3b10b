"""Issue 20: entity and report search with hosted records, against the same search before (one copy per record).

Hosted graph records (a record whose vector is exactly one chunk's) have no
copy in their own collection; :class:`~agrag_lab.index.vectors.IndexVectorStore`
finds them through the chunk collection. This compares, for MuSiQue-100's
questions, the top-k ids of ``entities`` and ``communities`` dense search in an
index of the previous layout (every record stored in its collection) with the
same index converted to hosted records, and both with exact search over every
record's vector (the HNSW approximation is the only expected difference).

Run: ``python -m benchmarks.hosted_agreement --before OLD_INDEX --after CONVERTED_INDEX``
(the second a converted copy of the first: ``Graph.open`` of an older index converts it).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

from agrag_lab import Graph
from agrag_lab.datasets import musique
from agrag_lab.storage.where import where_clause

KS = (5, 10, 40)


def _overlap(a: Sequence[str], b: Sequence[str], k: int) -> float:
    return len(set(a[:k]) & set(b[:k])) / max(1, min(k, len(b[:k])))


def agreement(before: Graph, after: Graph, questions: Sequence[str]) -> list[str]:
    """Markdown rows: per collection and filter, the mean top-k overlap of before/after/exact."""
    vectors = [after.embedder.embed_query(q) for q in questions]
    store = after.graph_store
    labels = sorted({e.label for e in store.entities()}, key=lambda lab: -sum(1 for e in store.entities() if e.label == lab))
    cases = [
        ("entities", "no filter", None),
        ("entities", f"label {labels[0]}", where_clause({"label": [labels[0]]})),
        ("communities", "no filter", None),
        ("communities", "level 0", {"level": {"$eq": 0}}),
    ]
    rows = ["| collection | filter | " + " | ".join(
        f"top-{k}: after = before | after = exact | before = exact" for k in KS) + " | identical top-10 lists |",
        "|---|---|" + "---|" * len(KS) + "---|"]
    for collection, name, where in cases:
        scores = {k: np.zeros(3) for k in KS}
        same = 0
        for v in vectors:
            old = [i for i, _ in before.vector_store.query(collection, v, max(KS), where)]
            new = [i for i, _ in after.vector_store.query(collection, v, max(KS), where)]
            exact = [i for i, _ in store.similarity_search(collection, v, max(KS), where)]
            for k in KS:
                scores[k] += [_overlap(new, old, k), _overlap(new, exact, k), _overlap(old, exact, k)]
            same += new[:10] == old[:10]
        n = len(vectors)
        cells = " | ".join(" / ".join(f"{s / n:.3f}" for s in scores[k]) for k in KS)
        rows.append(f"| {collection} | {name} | {cells} | {same}/{n} |")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    args = parser.parse_args(argv)
    questions = list(musique().queries.values())[:100]
    with Graph.open(args.before, read_only=True) as before, Graph.open(args.after, read_only=True) as after:
        print(f"records stored in each collection: before {before.collection_counts()}, after {after.collection_counts()}")
        print("\n".join(agreement(before, after, questions)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
