"""Compile ranx's numba kernels once, into numba's on-disk cache.

ranx computes metrics, fusions and significance tests with numba functions
marked ``cache=True``: the first process that calls one compiles it (tens of
seconds each in a fresh virtual environment, minutes on a busy machine) and
writes the machine code next to ranx's sources; every later process loads it.
``make setup`` calls :func:`warm` once after installing, as ``--compile-bytecode``
compiles the Python files, so that neither the first ``agrag-lab eval`` of a
user nor two test workers starting together pay that compile. numba offers no
ahead-of-time switch for a library's cached functions, hence this module: it
calls the library's own evaluation functions on a tiny run, with the argument
types they use in earnest (numba compiles one machine-code version per type
signature).

Run: ``python -m agrag_lab.eval.ranx_cache``.

Examples
--------
>>> seconds = warm()
>>> seconds >= 0.0
True
"""

from __future__ import annotations

import time
import warnings

import numpy as np

__all__ = ["warm"]


def warm() -> float:
    """Call every ranx path the evaluation uses once; return the seconds it took.

    Covers run and qrels construction, every metric of
    :data:`agrag_lab.eval.metrics.METRICS`, ``ranx.compare`` with each test of
    :data:`agrag_lab.eval.metrics.STAT_TESTS`, ranx's significance over per-query
    scores, its paired t-test, and ``ranx.fuse`` (RRF) of the baselines.
    """
    started = time.perf_counter()
    with warnings.catch_warnings():  # ranx's own casts on a toy run: nothing for the user to act on
        warnings.simplefilter("ignore")
        _calls()
    return time.perf_counter() - started


def _calls() -> None:
    from ranx.statistical_tests import compute_statistical_significance, paired_student_t_test

    from agrag_lab.eval.metrics import METRICS, STAT_TESTS, pairwise, per_query_scores
    from agrag_lab.eval.systems import fuse_rrf

    qrels = {f"q{i}": {"a": 1, "b": 2} for i in range(4)}
    good = {q: ("a", "b", "c") for q in qrels}
    bad = {q: ("x", "y", "a") for q in qrels}
    per_query_scores(qrels, good, METRICS)
    for stat_test in STAT_TESTS:
        pairwise(qrels, {"good": good, "bad": bad}, METRICS, stat_test=stat_test)
        scores = {n: {m: np.asarray(v) for m in METRICS} for n, v in (("good", [0.9, 0.5, 0.7, 1.0]),
                                                                      ("bad", [0.1, 0.4, 0.2, 0.6]))}
        compute_statistical_significance(["good", "bad"], scores, stat_test=stat_test, max_p=0.05)
    paired_student_t_test(np.asarray([0.1, 0.5, 0.2]), np.asarray([0.3, 0.4, 0.9]), 0.05)
    fuse_rrf(good, bad)


if __name__ == "__main__":  # pragma: no cover - make setup's step
    import sys

    print(f"ranx's numba kernels compiled and cached in {warm():.1f} s", file=sys.stderr)
