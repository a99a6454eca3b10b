"""Metric plumbing on small hand-made qrels with known answers."""

from __future__ import annotations

import math

import pytest

from agrag_lab.errors import AgragError
from agrag_lab.eval.metrics import bootstrap_ci, compare, per_query_scores

QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 1}}
RANKINGS = {
    "q1": ("x", "a", "y", "z", "b"),  # a at 2, b at 5
    "q2": ("c",),  # c at 1
    "q3": ("x", "y", "z"),  # d missing
}


def test_recall_at_cutoffs() -> None:
    s = per_query_scores(QRELS, RANKINGS, ("recall@2", "recall@5", "recall@10"))
    assert s["recall@2"] == {"q1": 0.5, "q2": 1.0, "q3": 0.0}
    assert s["recall@5"] == {"q1": 1.0, "q2": 1.0, "q3": 0.0}
    assert s["recall@10"] == s["recall@5"]


def test_mrr_and_ndcg() -> None:
    s = per_query_scores(QRELS, RANKINGS, ("mrr", "ndcg@10"))
    assert s["mrr"] == {"q1": 0.5, "q2": 1.0, "q3": 0.0}
    dcg = 1 / math.log2(3) + 1 / math.log2(6)
    idcg = 1 + 1 / math.log2(3)
    assert s["ndcg@10"]["q1"] == pytest.approx(dcg / idcg)
    assert s["ndcg@10"]["q2"] == pytest.approx(1.0)


def test_graded_ndcg_uses_the_grades() -> None:
    qrels = {"q": {"a": 2, "b": 1}}
    best = per_query_scores(qrels, {"q": ("a", "b")}, ("ndcg@10",))["ndcg@10"]["q"]
    swapped = per_query_scores(qrels, {"q": ("b", "a")}, ("ndcg@10",))["ndcg@10"]["q"]
    assert best == pytest.approx(1.0)
    assert swapped < best


def test_missing_and_empty_rankings_score_zero() -> None:
    s = per_query_scores(QRELS, {"q1": ("a",), "q2": ()}, ("recall@5", "mrr"))
    assert s["recall@5"] == {"q1": 0.5, "q2": 0.0, "q3": 0.0}
    assert s["mrr"]["q2"] == 0.0


def test_no_judged_queries_is_an_error() -> None:
    with pytest.raises(AgragError, match="no judged queries"):
        per_query_scores({}, {}, ("mrr",))


def test_bootstrap_ci_brackets_the_mean() -> None:
    values = [0.0, 1.0] * 20
    low, high = bootstrap_ci(values)
    assert low < 0.5 < high
    assert bootstrap_ci(values) == (low, high)  # seeded: reproducible
    assert bootstrap_ci([0.3] * 5) == pytest.approx((0.3, 0.3))
    assert all(math.isnan(v) for v in bootstrap_ci([]))


@pytest.mark.parametrize("test", ["student", "fisher"])
def test_compare_finds_a_clear_difference_and_not_a_tie(test: str) -> None:
    qrels = {f"q{i}": {"a": 1} for i in range(12)}
    good = {q: ("a",) for q in qrels}
    bad = {q: ("x", "y", "z", "a") for q in qrels}
    same = dict(bad)
    p = compare(qrels, {"bad": bad, "good": good, "same": same}, "bad", ("recall@2", "recall@5"), stat_test=test)
    assert set(p) == {"good", "same"}
    assert p["good"]["recall@2"] < 0.01
    assert p["same"]["recall@2"] > 0.5
    assert p["good"]["recall@5"] > 0.5  # both find it within 5


def test_compare_rejects_unknown_test_and_reference() -> None:
    with pytest.raises(AgragError, match="stat_test"):
        compare(QRELS, {"a": RANKINGS}, "a", ("mrr",), stat_test="wilcoxon-ish")
    with pytest.raises(AgragError, match="reference"):
        compare(QRELS, {"a": RANKINGS}, "b", ("mrr",))
