"""What static embeddings cost in quality: Recall@5 of every recipe with the bundled model and with
:class:`agrag_lab.embedding.StaticEmbedder`, on MuSiQue-100 and the workshop questions.

Each benchmark is ingested twice, into ``<root>/model/<name>`` and ``<root>/static/<name>`` (same
documents, chunks, extraction and graph; only the vectors differ), and evaluated with
:func:`agrag_lab.eval.evaluate`. The build time of each is reported beside.

Run: ``python -m benchmarks.static_quality [--root DIR]``; writes ``benchmarks/results/static_quality.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).with_name("results")


def measure(root: Path) -> dict[str, Any]:
    from agrag_lab import Graph
    from agrag_lab.embedding import SentenceTransformerEmbedder, StaticEmbedder
    from agrag_lab.eval import evaluate, musique, workshop
    from agrag_lab.eval.indexing import ingest

    out: dict[str, Any] = {}
    for bench in (workshop(), musique()):
        for kind, make in (("model", SentenceTransformerEmbedder), ("static", StaticEmbedder)):
            folder = root / kind / bench.name
            copied = folder.is_dir()  # an index built before (e.g. by benchmarks.ingest): no build time
            start = time.perf_counter()
            ingest(folder, bench, embedder=make())
            built = None if copied else time.perf_counter() - start
            with Graph.open(folder, embedder=make(), read_only=True) as graph:
                result = evaluate(graph, bench)
            out.setdefault(bench.name, {})[kind] = {
                "build_s": built, "recall@5": {s.name: s.mean["recall@5"] for s in result.systems}}
            print(f"{bench.name} {kind}: built in {built} s", file=sys.stderr)
    return out


def table(results: dict[str, Any]) -> list[str]:
    names = list(next(iter(results.values()))["model"]["recall@5"])
    head = ["recipe"] + [f"{b}: {k}" for b in results for k in ("model", "static")]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---|" * (len(head) - 1)]
    for name in names:
        cells = [f"{results[b][k]['recall@5'].get(name, float('nan')):.3f}" for b in results for k in ("model", "static")]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    builds = [results[b][k]["build_s"] for b in results for k in ("model", "static")]
    lines.append("| build (s, this run) | " + " | ".join("-" if s is None else f"{s:.0f}" for s in builds) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", default=".agrag/static-quality")
    args = parser.parse_args()
    results = measure(Path(args.root))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "static_quality.json").write_text(json.dumps(results, indent=1))
    print("\n".join(table(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
