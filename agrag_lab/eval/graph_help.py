"""When does the graph help? Per benchmark and per question group, which system wins, by how much.

:func:`graph_help` reads evaluation results (nothing is re-run): for every
group of questions (hops on MuSiQue, question type on GraphRAG-Bench, "all"
elsewhere) it names the best system, and compares a *graph* recipe with the
best system that uses no graph (the baselines and ``CHUNK``): the difference
of their means and the two-sided paired Student t-test on the group's
per-query scores (``ranx.statistical_tests.paired_student_t_test``).

Examples
--------
>>> from agrag_lab.eval.result import EXAMPLE, EvalResult
>>> rows = graph_help([EvalResult.from_dict(EXAMPLE)], "HYBRID", metric="recall@2")
>>> [(r.group, r.winner, r.versus, r.delta) for r in rows]
[('all', 'HYBRID', 'bm25', 0.5), ('1-hop', 'HYBRID', 'bm25', 1.0), ('2-hop', 'HYBRID', 'bm25', 0.0)]
>>> [(round(r.p, 3), r.verdict) for r in rows]  # 2 questions: no group is significant
[(0.5, 'no difference'), (1.0, 'no difference'), (1.0, 'no difference')]
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agrag_lab.errors import EvaluationError

if TYPE_CHECKING:
    import polars as pl

    from agrag_lab.eval.result import EvalResult

#: Systems that read no graph: the baselines and the chunk-only recipe.
NO_GRAPH: frozenset[str] = frozenset({"bm25", "dense", "bm25+dense", "CHUNK"})
#: Significance level of the verdicts.
ALPHA = 0.05


@dataclass(frozen=True)
class GroupVerdict:
    """One benchmark's group: who wins, and the graph recipe against the best no-graph system."""

    benchmark: str
    group: str
    queries: int
    metric: str
    winner: str
    winner_score: float
    graph: str
    graph_score: float
    versus: str
    versus_score: float
    delta: float
    p: float

    @property
    def verdict(self) -> str:
        """``helps`` / ``hurts`` (p < 0.05) or ``no difference``."""
        if self.p < ALPHA:
            return "helps" if self.delta > 0 else "hurts"
        return "no difference"


def _paired_p(a: np.ndarray, b: np.ndarray) -> float:
    from ranx.statistical_tests import paired_student_t_test

    if len(a) < 2 or np.array_equal(a, b):
        return 1.0
    p = float(paired_student_t_test(a, b, ALPHA)[0])  # (p, significant)
    return 1.0 if np.isnan(p) else p


def graph_help(
    results: Sequence[EvalResult],
    graph: str,
    *,
    metric: str | None = None,
    no_graph: Collection[str] = NO_GRAPH,
    metrics: Mapping[str, str] | None = None,
) -> list[GroupVerdict]:
    """One :class:`GroupVerdict` per benchmark and group (``all`` first).

    Parameters
    ----------
    results : sequence of EvalResult
        One per benchmark; each must hold ``graph`` and at least one no-graph system.
    graph : str
        The graph recipe to judge (e.g. the recommended one).
    metric : str, optional
        The metric compared (default: each result's primary metric, else Recall@5).
    no_graph : collection of str
        Names of the systems that use no graph.
    metrics : mapping, optional
        Benchmark name -> metric, overriding ``metric`` for that benchmark.
    """
    rows: list[GroupVerdict] = []
    for result in results:
        m = (metrics or {}).get(result.benchmark) or metric or str(result.config.get("primary", "recall@5"))
        if m not in result.metrics:
            raise EvaluationError(f"{result.benchmark}: metric {m!r} was not evaluated; use one of {list(result.metrics)}")
        if graph not in result.names:
            raise EvaluationError(f"{result.benchmark}: {graph!r} was not evaluated; evaluate it with the others")
        plain = [s for s in result.systems if s.name in no_graph]
        if not plain:
            raise EvaluationError(f"{result.benchmark}: no system without the graph ({sorted(no_graph)}) to compare with")
        groups = {"all": list(result.queries)}
        for label in sorted(set(result.groups.values())):
            groups[label] = [q for q in result.queries if result.groups.get(q) == label]
        g = result.system(graph)
        for label, queries in groups.items():
            def mean(scores: Mapping[str, float], qs: list[str] = queries) -> float:
                return float(np.mean([scores[q] for q in qs])) if qs else float("nan")

            winner = max(result.systems, key=lambda s: mean(s.per_query[m]))
            best_plain = max(plain, key=lambda s: mean(s.per_query[m]))
            a = np.array([g.per_query[m][q] for q in queries])
            b = np.array([best_plain.per_query[m][q] for q in queries])
            rows.append(
                GroupVerdict(
                    result.benchmark, label, len(queries), m, winner.name, mean(winner.per_query[m]),
                    graph, mean(g.per_query[m]), best_plain.name, mean(best_plain.per_query[m]),
                    round(mean(g.per_query[m]) - mean(best_plain.per_query[m]), 6), _paired_p(b, a),
                )
            )
    return rows


def verdict_frame(rows: Sequence[GroupVerdict]) -> pl.DataFrame:
    """The verdicts as a polars DataFrame (one row each)."""
    import polars as pl

    return pl.DataFrame(
        [
            {
                "benchmark": r.benchmark, "group": r.group, "queries": r.queries, "metric": r.metric,
                "winner": r.winner, "winner_score": r.winner_score, "graph": r.graph, "graph_score": r.graph_score,
                "versus": r.versus, "versus_score": r.versus_score, "delta": r.delta, "p": r.p, "verdict": r.verdict,
            }
            for r in rows
        ]
    )


def verdict_markdown(rows: Sequence[GroupVerdict]) -> list[str]:
    """The verdicts as Markdown table lines."""
    lines = [
        "| benchmark | questions | n | metric | winner | graph recipe | best without graph | difference | p | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.benchmark} | {r.group} | {r.queries} | {r.metric} | {r.winner} ({r.winner_score:.3f}) | "
            f"{r.graph} {r.graph_score:.3f} | {r.versus} {r.versus_score:.3f} | {r.delta:+.3f} | {r.p:.3g} | "
            f"{r.verdict} |"
        )
    return lines
