"""The peer recipes (GraphRAG, LightRAG, HippoRAG 2 retrieval; ``recipes/peers/``) on the four benchmarks of
"Retrieval on four kinds of question", against the baselines and the recommended recipe, in one run.

Each benchmark's index is the one :mod:`benchmarks.retrieval` builds (our rule graph over the benchmark's
documents, ``--index-root``, reused when present); each system's rankings are cached per benchmark
(``<root>/runs-peers/<benchmark>``), so a run that stops resumes. Writes the Markdown section of
``BENCHMARKS.md`` (``--out``): Recall@5 (coverage@5 on GraphRAG-Bench Medical, which is scored by evidence
coverage), nDCG@10, the paired t-test (ranx) against the best baseline, and ms/query measured in this run.

Run alone (under ``nice``, it takes about an hour on 2 shared cores when the indexes must be built)::

    nice -n 15 .venv/bin/python -m benchmarks.peers --index-root .agrag/bench --out reports/peers.md
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.retrieval import PRIMARY, evaluate_one, loaded_benchmarks, section_main

if TYPE_CHECKING:
    from agrag_lab.eval.result import EvalResult
    from agrag_lab.recipes import Recipe

TITLE = "Peer methods on the four benchmarks (issue 26)"


def systems() -> list[Recipe]:
    """The recommended recipe, then every peer recipe (by name)."""
    from agrag_lab.recipes import RECOMMENDED, peers

    return [RECOMMENDED, *(r for _, r in sorted(peers().items()))]


def rows(result: EvalResult, primary: str) -> list[str]:
    """One Markdown row per system of ``result``: primary metric, nDCG@10 (where scored), p, verdict, ms/query."""
    from agrag_lab.eval.result import format_p

    second = "ndcg@10" if "ndcg@10" in result.metrics and primary != "ndcg@10" else None
    out = []
    for s in sorted(result.systems, key=lambda s: (s.kind != "baseline", -s.mean[primary])):
        name = f"**{s.name}**" if s.name == result.reference else s.name
        p = result.p_values.get(s.name, {}).get(primary)
        verdict = "reference" if s.name == result.reference else result.verdict(s.name, primary)
        out.append(
            f"| {result.benchmark} | {name} | {s.mean[primary]:.3f} | "
            f"{'' if second is None else f'{s.mean[second]:.3f}'} | {format_p(p)} | {verdict} | "
            f"{s.ms_per_query:.0f} |"
        )
    return out


def section(root: Path, only: Sequence[str] | None = None) -> tuple[str, list[str]]:
    """The Markdown section: one row per system per benchmark (benchmarks not on this machine are named)."""
    from agrag_lab.eval.indexing import ensure_index
    from agrag_lab.graph import Graph

    names = systems()
    table = ["| benchmark | system | primary | nDCG@10 | p vs reference | verdict | ms/query |",
             "|---|---|---|---|---|---|---|"]
    notes: list[str] = []
    for name, bench in loaded_benchmarks(root, only, notes):
        started = time.perf_counter()
        path = root / name
        ensure_index(path, bench, log=lambda m: print(m, file=sys.stderr))
        with Graph.open(path, read_only=True) as g:
            result = evaluate_one(g, bench, names, root / "runs-peers" / name)
        print(result.table(), file=sys.stderr)
        notes.append(f"- {name}: {len(result.queries)} questions, primary metric {PRIMARY[name]}, "
                     f"{time.perf_counter() - started:.0f} s")
        table += rows(result, PRIMARY[name])
    lines = [
        "Every peer recipe (`recipes/peers/`, `docs/peers/`) on our rule-graph index of each benchmark, with the "
        "three baselines and the recommended recipe, in one run of `python -m benchmarks.peers`. Primary: "
        "Recall@5 (coverage@5 on GraphRAG-Bench Medical); p: paired t-test (ranx) against the best baseline "
        "(bold), p < 0.05; ms/query measured in the same run on 2 shared cores (compare ratios, not times). "
        "Offline: LightRAG's keywords come from the documented rule over entity names, GraphRAG global's "
        "map-reduce and HippoRAG 2's LLM fact filter need an LLM and are not run.",
        "",
        *table,
        "",
        *notes,
    ]
    return TITLE, lines


def main(argv: Sequence[str] | None = None) -> int:
    return section_main(section, __doc__, "reports/peers.md", argv)


if __name__ == "__main__":
    raise SystemExit(main())
