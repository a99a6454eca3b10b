"""Compile ranx's numba kernels once per process, ahead of the timed work.

ranx's fusion, metrics and tests are numba functions compiled on first use
and cached beside ranx. In a fresh environment that first use costs tens of
seconds on 2 cores (measured: ``fuse`` ~25 s, ``evaluate`` ~19 s), which
would be charged to whichever system happened to run first (the
``bm25+dense`` baseline's ms/query). :func:`warm_up` pays it on a two-query
toy run instead; the demo starts it in a thread while the ingest embeds.

Examples
--------
>>> warm_up()
>>> warm_up()  # the second call returns at once
"""

from __future__ import annotations

import threading

from agrag_lab.eval.metrics import METRICS, STAT_TESTS, compare, per_query_scores
from agrag_lab.eval.systems import fuse_rrf

_lock = threading.Lock()
_done = False


def warm_up() -> None:
    """Run every ranx function an evaluation uses once on a toy run (idempotent, thread-safe)."""
    global _done
    with _lock:
        if _done:
            return
        qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
        runs = {"x": {"q1": ("a", "b"), "q2": ("a", "b")}, "y": {"q1": ("b", "a"), "q2": ("b", "a")}}
        fuse_rrf(runs["x"], runs["y"])
        per_query_scores(qrels, runs["x"], METRICS)
        for test in STAT_TESTS:
            compare(qrels, runs, "x", METRICS, stat_test=test)
        _done = True


def warm_up_in_background() -> threading.Thread:
    """Start :func:`warm_up` in a daemon thread; returns the thread."""
    thread = threading.Thread(target=warm_up, name="ranx-warm-up", daemon=True)
    thread.start()
    return thread
