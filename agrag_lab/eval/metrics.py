"""Metrics, confidence intervals and paired significance tests (ranx underneath).

Per-query scores come from ``ranx.evaluate``; p-values from ``ranx.compare``
(paired two-sided Student's t-test by default, or Fisher's randomization
test). Confidence intervals are **bootstrap percentile intervals** of the mean
over queries (95 %, 2,000 resamples of the queries, fixed seed), computed
with numpy, so they need no normality assumption on bounded metrics.

Examples
--------
>>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
>>> rankings = {"q1": ("a", "x", "b"), "q2": ("x", "c")}
>>> scores = per_query_scores(qrels, rankings, ("recall@2", "mrr"))
>>> scores["recall@2"]
{'q1': 0.5, 'q2': 1.0}
>>> scores["mrr"]
{'q1': 1.0, 'q2': 0.5}
>>> bootstrap_ci([1.0, 1.0, 1.0])
(1.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agrag_lab.errors import EvaluationError
from agrag_lab.eval.projection import as_scores

#: The metrics every evaluation reports (ranx names).
METRICS = ("recall@2", "recall@5", "recall@10", "ndcg@10", "mrr")
#: Significance tests ranx offers that make sense for paired per-query scores.
STAT_TESTS = ("student", "fisher")
CI_LEVEL = 0.95
CI_RESAMPLES = 2000
CI_METHOD = f"bootstrap percentile, {CI_LEVEL:.0%}, {CI_RESAMPLES} resamples of the queries"


def _qrels(qrels: Mapping[str, Mapping[str, int]]) -> Any:
    from ranx import Qrels

    return Qrels({q: {d: int(g) for d, g in r.items()} for q, r in qrels.items()})


def _run(rankings: Mapping[str, Sequence[str]], queries: Sequence[str], name: str) -> Any:
    from ranx import Run

    # ranx drops queries with no results; a sentinel that is never relevant keeps them in
    data = {q: as_scores(rankings.get(q, ())) or {"\x00none": 0.0} for q in queries}
    return Run(data, name=name)


def per_query_scores(
    qrels: Mapping[str, Mapping[str, int]],
    rankings: Mapping[str, Sequence[str]],
    metrics: Sequence[str] = METRICS,
) -> dict[str, dict[str, float]]:
    """``{metric: {query id: score}}`` of one system's rankings, by ``ranx.evaluate``.

    Every query of ``qrels`` is scored; a query missing from ``rankings``
    scores 0.
    """
    from ranx import evaluate

    queries = list(qrels)
    if not queries:
        raise EvaluationError("no judged queries to evaluate; give qrels with at least one relevant document")
    run = _run(rankings, queries, "system")
    evaluate(_qrels(qrels), run, list(metrics), save_results_in_run=True)
    return {m: {q: float(run.scores[m][q]) for q in queries} for m in metrics}


def bootstrap_ci(
    values: Sequence[float], *, level: float = CI_LEVEL, resamples: int = CI_RESAMPLES, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values``."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return (float(low), float(high))


def compare(
    qrels: Mapping[str, Mapping[str, int]],
    rankings: Mapping[str, Mapping[str, Sequence[str]]],
    reference: str,
    metrics: Sequence[str] = METRICS,
    *,
    stat_test: str = "student",
    seed: int = 42,
) -> dict[str, dict[str, float]]:
    """Two-sided p-values of every system against ``reference``, by ``ranx.compare``.

    Returns ``{system: {metric: p}}`` for every system but the reference. A
    system whose per-query scores equal the reference's gets p = 1 (the
    t-test itself is undefined there).

    Examples
    --------
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> good = {q: ("a",) for q in qrels}
    >>> bad = {q: ("x", "y", "a") for q in qrels}
    >>> p = compare(qrels, {"good": good, "bad": bad}, "bad", ("recall@2",), stat_test="fisher")
    >>> p["good"]["recall@2"] < 0.05
    True
    """
    if reference not in rankings:
        raise EvaluationError(f"reference system {reference!r} is not among {sorted(rankings)}")
    every = pairwise(qrels, rankings, metrics, stat_test=stat_test, seed=seed)
    return {n: every[reference][n] for n in rankings if n != reference}


def pairwise(
    qrels: Mapping[str, Mapping[str, int]],
    rankings: Mapping[str, Mapping[str, Sequence[str]]],
    metrics: Sequence[str] = METRICS,
    *,
    stat_test: str = "student",
    seed: int = 42,
) -> dict[str, dict[str, dict[str, float]]]:
    """Two-sided p-values of every pair of systems: ``{a: {b: {metric: p}}}`` (one ``ranx.compare``).

    What ranx's report tables mark with superscripts; :func:`compare` is one row of it.

    Examples
    --------
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> runs = {"good": {q: ("a",) for q in qrels}, "bad": {q: ("x", "y", "a") for q in qrels}}
    >>> p = pairwise(qrels, runs, ("recall@2",), stat_test="fisher")
    >>> p["good"]["bad"] == p["bad"]["good"]
    True
    """
    from ranx import compare as ranx_compare

    if stat_test not in STAT_TESTS:
        raise EvaluationError(f"unknown stat_test {stat_test!r}; use one of {STAT_TESTS}")
    queries = list(qrels)
    names = list(rankings)
    if len(names) < 2:
        return {n: {} for n in names}
    runs = [_run(rankings[n], queries, n) for n in names]
    report = ranx_compare(
        _qrels(qrels),
        runs,
        list(metrics),
        stat_test=stat_test,
        max_p=0.05,
        random_seed=seed,
        rounding_digits=6,
    )
    data: dict[str, Any] = report.to_dict()
    return {
        a: {b: {m: _p(data[a]["comparisons"][b][m]) for m in metrics} for b in names if b != a} for a in names
    }


def _p(value: Any) -> float:
    """A p-value; NaN (the t-test on identical scores) means no difference: 1.0."""
    p = float(value)
    return 1.0 if math.isnan(p) else p
