"""The marks of every evaluation table follow ranx's report: pairwise p-values from the per-query scores, bold best, letters."""

from __future__ import annotations

import random

from agrag_lab.eval.marks import letters, pairwise_p, result_marks, superscript
from agrag_lab.eval.metrics import pairwise, per_query_scores
from agrag_lab.eval.report import summary_table
from agrag_lab.eval.result import EvalResult, SystemScores

METRICS = ("recall@2", "ndcg@3")


def _result() -> tuple[EvalResult, dict[str, dict[str, int]], dict[str, dict[str, tuple[str, ...]]]]:
    rng = random.Random(7)
    qrels = {f"q{i:02d}": {f"d{i}": 1} for i in range(16)}
    rankings = {
        "good": {q: (next(iter(rel)), "x", "y") for q, rel in qrels.items()},
        "mixed": {q: (("x", next(iter(rel))) if rng.random() < 0.4 else ("x", "y", "z")) for q, rel in qrels.items()},
        "bad": {q: ("x", "y", "z") for q in qrels},
    }
    systems = []
    for name, runs in rankings.items():
        scores = per_query_scores(qrels, runs, METRICS)
        mean = {m: sum(v.values()) / len(v) for m, v in scores.items()}
        systems.append(SystemScores(name, "recipe" if name != "bad" else "baseline", mean,
                                    {m: (mean[m], mean[m]) for m in METRICS}, scores))
    p = pairwise(qrels, rankings, METRICS)
    result = EvalResult("toy", METRICS, tuple(systems), "bad", {n: p[n]["bad"] for n in rankings if n != "bad"},
                        "student", "bootstrap")
    return result, qrels, rankings


def test_pairwise_p_from_per_query_scores_equals_ranx_compare() -> None:
    result, qrels, rankings = _result()
    expected = pairwise(qrels, rankings, METRICS)
    got = pairwise_p(result)
    for a in rankings:
        for b in rankings:
            if a != b:
                for m in METRICS:
                    assert abs(got[a][b][m] - expected[a][b][m]) < 1e-9, (a, b, m)


def test_marks_bold_the_best_and_name_the_systems_a_mean_is_significantly_above() -> None:
    result, _, _ = _result()
    marked = result_marks(result)
    assert letters(result.names) == {"good": "a", "mixed": "b", "bad": "c"}
    assert marked["good"]["recall@2"].best and not marked["mixed"]["recall@2"].best
    assert marked["good"]["recall@2"].sup == "bc"      # above both, p < 0.05
    assert marked["mixed"]["recall@2"].sup == "c"      # above bad only
    assert marked["bad"]["recall@2"].sup == ""
    text = result.table()
    assert "▲" + superscript("bc") in text.splitlines()[3] and text.splitlines()[3].startswith("a  good")
    page = summary_table(result)
    assert "<b>1.000</b><sup" in page and ">bc</sup>" in page and "ranx" in page
