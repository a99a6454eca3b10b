"""Recipes over several indexes of one corpus, side by side: "which method" apart from "which graph".

:func:`evaluate_indexes` runs the same recipes on each index (e.g. our rule graph and an imported
GraphRAG graph of the same documents), names each system ``RECIPE @ label``, scores them all on
the benchmark's qrels as :func:`~agrag_lab.eval.harness.evaluate` does (one reference, paired
tests against it), and adds the paired test that separates the graphs: each recipe on one index
against the same recipe on the first (``config["across_indexes"]``, :func:`across_table`).
Baselines (bm25, dense) read only the passages, so they run once, on the first index.

Examples
--------
>>> system_name("HYBRID", "graphrag")
'HYBRID @ graphrag'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agrag_lab.errors import EvaluationError
from agrag_lab.eval.benchmark import Benchmark
from agrag_lab.eval.harness import evaluate, score_runs
from agrag_lab.eval.metrics import pairwise
from agrag_lab.eval.result import EvalResult, format_p
from agrag_lab.eval.systems import SystemRun
from agrag_lab.progress import StatusLog
from agrag_lab.recipes import Recipe

__all__ = ["across_table", "evaluate_indexes", "system_name"]


def system_name(recipe: str, label: str) -> str:
    """The name of a recipe's system on one index."""
    return f"{recipe} @ {label}"


def evaluate_indexes(
    graphs: Mapping[str, Any],
    benchmark: Benchmark,
    recipes: Sequence[str | Recipe] | None = None,
    *,
    baselines: bool = True,
    per_hit: int | None = None,
    stat_test: str = "student",
    progress: StatusLog | None = None,
) -> EvalResult:
    """Run ``recipes`` on every index of ``graphs`` (label -> :class:`~agrag_lab.Graph`) and score them together.

    Raises
    ------
    EvaluationError
        Fewer than two indexes, or nothing could be evaluated (see :func:`evaluate`).
    """
    if len(graphs) < 2:
        raise EvaluationError(
            f"evaluate_indexes compares two indexes or more of one corpus; got {len(graphs)} "
            "(for one index use agrag_lab.eval.evaluate)")
    runs: list[SystemRun] = []
    labels = list(graphs)
    skipped: dict[str, str] = {}
    config: dict[str, object] = {}
    for n, label in enumerate(labels):
        result = evaluate(graphs[label], benchmark, recipes, baselines=baselines and n == 0, per_hit=per_hit,
                          stat_test=stat_test, progress=progress)
        skipped.update({system_name(k, label): v for k, v in result.skipped.items()})
        config[f"index {label}"] = result.config.get("index", "")
        for s in result.systems:
            name = s.name if s.kind == "baseline" else system_name(s.name, label)
            runs.append(SystemRun(name, s.kind, dict(s.rankings), s.ms_per_query * len(s.rankings) / 1000.0,
                                  dict(s.failures), s.description))
    scored = score_runs(benchmark, runs, stat_test=stat_test, skipped=skipped, config=config)
    qrels = {q: benchmark.qrels[q] for q in benchmark.judged_queries}
    across: dict[str, dict[str, dict[str, float]]] = {}
    recipe_names = dict.fromkeys(r.name.rsplit(" @ ", 1)[0] for r in runs if r.kind == "recipe")
    for recipe in recipe_names:
        systems = {label: system_name(recipe, label) for label in labels}
        present = {label: name for label, name in systems.items() if name in scored.names}
        if len(present) < 2:
            continue
        first = present[labels[0]] if labels[0] in present else next(iter(present.values()))
        every = pairwise(qrels, {name: scored.system(name).rankings for name in present.values()}, scored.metrics,
                         stat_test=stat_test)
        across[recipe] = {name: every[first][name] for name in present.values() if name != first}
    return replace(scored, config={**scored.config, "across_indexes": across, "indexes": labels})


def across_table(result: EvalResult, metric: str = "recall@5") -> str:
    """Each recipe's ``metric`` on every index, and the paired test of each index against the first.

    Examples
    --------
    A result of :func:`evaluate_indexes` prints as::

        recipe   recall@5 @ rules  recall@5 @ graphrag  p (graphrag vs rules)
        HYBRID   0.620             0.540                0.031
    """
    labels: list[str] = list(result.config.get("indexes", []))
    across: Mapping[str, Mapping[str, Mapping[str, float]]] = result.config.get("across_indexes", {})
    head = ["recipe", *(f"{metric} @ {label}" for label in labels),
            *(f"p ({label} vs {labels[0]})" for label in labels[1:])]
    rows = [head]
    for recipe, tests in across.items():
        row = [recipe]
        for label in labels:
            name = system_name(recipe, label)
            row.append(f"{result.system(name).mean[metric]:.3f}" if name in result.names else "")
        for label in labels[1:]:
            p = tests.get(system_name(recipe, label), {}).get(metric)
            row.append(format_p(p))
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)
