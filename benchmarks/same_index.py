"""Two versions of agrag_lab on one index: did a retrieval change move the scores? (issues 25 and 26)

``run`` evaluates recipes with whichever ``agrag_lab`` comes first on the path, on an index built once
under ``--index-root`` (the run cache is not used: its key names the recipe and the index, not the code),
and writes the result with a fingerprint of the index's graph records as this code writes them. ``compare``
reads two such files: the records must be the same (else the index, not the code, would differ), then per
recipe the means, the questions whose ranking changed, and ranx's paired test.

Run the old code from an archive of its commit (not a checkout: the script is run by path, so the
worktree's ``agrag_lab`` does not shadow it)::

    git archive OLD agrag_lab recipes | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old nice -n 15 .venv/bin/python benchmarks/same_index.py run \\
        --index-root .agrag/bench --benchmark musique --recipes ENTITY,HYBRID --out before.json
    nice -n 15 .venv/bin/python benchmarks/same_index.py run \\
        --index-root .agrag/bench --benchmark musique --recipes ENTITY,HYBRID --out after.json
    .venv/bin/python benchmarks/same_index.py compare before.json after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

METRICS = ("recall@2", "recall@5", "recall@10", "ndcg@10", "mrr")
SHOWN = ("recall@5", "ndcg@10")


def records_fingerprint(graph: Any) -> dict[str, dict[str, Any]]:
    """Per graph collection: record count and a SHA-1 of ids, texts, vector keys and metadata."""
    out: dict[str, dict[str, Any]] = {}
    for collection in ("entities", "communities"):
        recs = graph.graph_store.records(collection)
        digest = hashlib.sha1()
        for i, rid in enumerate(recs.ids):
            meta = json.dumps(dict(recs.metadatas[i]), sort_keys=True, default=str)
            digest.update(f"{rid}\x00{recs.texts[i]}\x00{recs.hashes[i]}\x00{meta}\x01".encode())
        out[collection] = {"records": len(recs.ids), "sha1": digest.hexdigest()}
    return out


def run(index_root: Path, benchmark: str, recipes: Sequence[str], out: Path) -> None:
    import agrag_lab
    from agrag_lab.eval import evaluate
    from agrag_lab.eval.indexing import ensure_index
    from agrag_lab.eval.loaders import load
    from agrag_lab.graph import Graph

    bench = load(benchmark)
    path = index_root / benchmark
    ensure_index(path, bench, log=lambda m: print(m, file=sys.stderr))
    load_before = os.getloadavg()
    started = time.perf_counter()
    with Graph.open(path, read_only=True) as graph:
        fingerprint = records_fingerprint(graph)
        result = evaluate(
            graph, bench, list(recipes), baselines=False, metrics=METRICS,
            progress=lambda m: print(m, file=sys.stderr, flush=True),
        )
        stats = graph.stats()
    data = {
        "code": str(Path(agrag_lab.__file__).parent),
        "benchmark": benchmark,
        "index": str(path),
        "stats": stats,
        "records": fingerprint,
        "load": [load_before, os.getloadavg()],
        "seconds": round(time.perf_counter() - started, 1),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "result": result.to_dict(),
    }
    out.write_text(json.dumps(data, indent=1), encoding="utf-8")
    print(result.table(), file=sys.stderr)
    print(f"wrote {out} ({data['seconds']} s, load {load_before} -> {os.getloadavg()})", file=sys.stderr)


def compare(before_file: Path, after_file: Path) -> list[str]:
    """Markdown lines: one row per recipe both files hold."""
    from agrag_lab.eval.loaders import load
    from agrag_lab.eval.metrics import compare as paired
    from agrag_lab.eval.result import EvalResult

    before, after = (json.loads(f.read_text(encoding="utf-8")) for f in (before_file, after_file))
    if before["records"] != after["records"] or before["stats"] != after["stats"]:
        raise SystemExit(f"the two runs read different indexes: {before['records']} vs {after['records']}")
    a, b = EvalResult.from_dict(before["result"]), EvalResult.from_dict(after["result"])
    bench = load(after["benchmark"])
    qrels = {q: bench.qrels[q] for q in a.queries}
    lines = [
        "| recipe | Recall@5 before | after | nDCG@10 before | after | rankings changed | R@5 / nDCG@10 changed "
        "| p (R@5, nDCG@10) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in (n for n in a.names if n in b.names):
        sa, sb = a.system(name), b.system(name)
        changed = sum(1 for q in a.queries if tuple(sa.rankings.get(q, ())) != tuple(sb.rankings.get(q, ())))
        moved = [sum(1 for q in a.queries if abs(sa.per_query[m][q] - sb.per_query[m][q]) > 1e-12) for m in SHOWN]
        p = paired(qrels, {"before": sa.rankings, "after": sb.rankings}, "before", SHOWN)["after"]
        lines.append(
            f"| {name} | {sa.mean['recall@5']:.3f} | {sb.mean['recall@5']:.3f} | {sa.mean['ndcg@10']:.3f} | "
            f"{sb.mean['ndcg@10']:.3f} | {changed} | {moved[0]} / {moved[1]} | "
            f"{p['recall@5']:.3g}, {p['ndcg@10']:.3g} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="evaluate recipes with the agrag_lab first on the path")
    r.add_argument("--index-root", required=True, help="folder holding one index per benchmark (built if empty)")
    r.add_argument("--benchmark", default="musique")
    r.add_argument("--recipes", required=True, help="comma-separated recipe names")
    r.add_argument("--out", required=True, help="JSON file to write")
    c = sub.add_parser("compare", help="two run files of the same index: per-recipe table")
    c.add_argument("before")
    c.add_argument("after")
    args = parser.parse_args(argv)
    if args.command == "run":
        names = [n.strip() for n in args.recipes.split(",") if n.strip()]
        run(Path(args.index_root), args.benchmark, names, Path(args.out))
    else:
        print("\n".join(compare(Path(args.before), Path(args.after))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
