"""Fusion speed: agrag_lab's ledgered ``rrf`` against ``ranx.fuse`` on the same runs (issue 20).

1,000 queries x 3 runs x 100 documents, random scores (seed 0): ranx fuses all queries in one
call (numba, ``parallel=True``: both cores); ``rrf`` fuses one query at a time, as the engine
does, and keeps every vote. Timed as wall clock, alternating the two, best of ``ROUNDS``
(the machine is shared: the best round is the one least disturbed), medians reported too.

Before timing, every query's fused scores are checked equal to ranx's, to the bit. Two rows:
the ``rrf`` call itself (it computes the order, the scores and the whole ledger, every
source's rank and term of every key, as columns) against ``ranx.fuse``; and the call plus
reading every :class:`~agrag_lab.retrieval.fusion.FusedItem` and its contributions as
objects (``items``, built on first read) against ``ranx.fuse`` plus reading its fused run
back as Python (``Run.to_dict``).

Run: ``python -m benchmarks.fusion`` (prints the section), or as part of ``make bench``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from agrag_lab.retrieval.fusion import rrf

TITLE = "Fusion speed (issue 20)"
QUERIES, LISTS, DEPTH = 1000, ("a", "b", "c"), 100
ROUNDS = 5


def runs(seed: int = 0) -> dict[str, dict[str, dict[str, float]]]:
    """source -> query -> doc -> score, the same data the earlier ``make bench`` used."""
    rng = np.random.default_rng(seed)
    return {
        src: {f"q{i}": {f"d{j}": float(s) for j, s in enumerate(rng.random(DEPTH))} for i in range(QUERIES)}
        for src in LISTS
    }


def _wall(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(rounds: int = ROUNDS) -> dict[str, list[float]]:
    """Seconds per round of each way of fusing the 1,000 queries."""
    import ranx

    data = runs()
    ranx_runs = [ranx.Run(d, name=n) for n, d in data.items()]
    lists = {
        q: {src: sorted(data[src][q], key=data[src][q].__getitem__, reverse=True) for src in data}
        for q in data[LISTS[0]]
    }

    def ours() -> None:
        for q in lists:
            rrf(lists[q], k=60, convention="ranx")

    def ours_items() -> int:
        return sum(len(rrf(lists[q], k=60, convention="ranx").items) for q in lists)

    def theirs() -> None:
        ranx.fuse(ranx_runs, method="rrf", params={"k": 60})

    def theirs_dict() -> None:
        ranx.fuse(ranx_runs, method="rrf", params={"k": 60}).to_dict()

    theirs_dict()  # numba compiles (or loads its cache) once
    ours_items()
    fused = ranx.fuse(ranx_runs, method="rrf", params={"k": 60}).to_dict()
    wrong = [q for q in lists if rrf(lists[q], k=60, convention="ranx").scores != fused[q]]
    if wrong:  # a speed figure of a wrong result means nothing
        raise RuntimeError(f"rrf and ranx.fuse disagree on {len(wrong)} of {len(lists)} queries, e.g. {wrong[0]}")
    out: dict[str, list[float]] = {"ranx": [], "ranx+to_dict": [], "rrf": [], "rrf+items": []}
    for _ in range(rounds):
        out["ranx"].append(_wall(theirs))
        out["rrf"].append(_wall(ours))
        out["ranx+to_dict"].append(_wall(theirs_dict))
        out["rrf+items"].append(_wall(ours_items))
    return out


def section() -> tuple[str, list[str]]:
    t = measure()
    best = {k: min(v) for k, v in t.items()}
    med = {k: statistics.median(v) for k, v in t.items()}

    def row(label: str, ours: str, theirs: str) -> str:
        return (
            f"| {label} | {best[ours]:.3f} s ({med[ours]:.3f}) | {best[theirs]:.3f} s ({med[theirs]:.3f}) "
            f"| **{best[ours] / best[theirs]:.2f}** ({med[ours] / med[theirs]:.2f}) |"
        )

    lines = [
        f"{QUERIES:,} queries x {len(LISTS)} lists of {DEPTH} (random scores, seed 0); wall clock, best of {ROUNDS} "
        "alternating rounds (median in brackets). ranx fuses every query in one numba call on both cores; "
        "`rrf` fuses one query at a time on one core, as the engine does, and computes the whole ledger "
        "(every source's rank and term for every key) as columns; `items` builds the `FusedItem`/`Contribution` "
        "objects from them on first read.",
        "",
        "| measure | agrag_lab | ranx | ratio (target < 1.0) |",
        "|---|---|---|---|",
        row("`rrf(lists, convention='ranx')` vs `ranx.fuse`", "rrf", "ranx"),
        row("the same, every item and contribution read (`.items`) vs `ranx.fuse(...).to_dict()`",
            "rrf+items", "ranx+to_dict"),
    ]
    return TITLE, lines


def main() -> int:
    title, lines = section()
    print("\n".join([f"## {title}", "", *lines]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
