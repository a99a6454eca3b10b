"""What edits changed in retrieval: the same recipes on the same questions, before and after, side by side.

:func:`compare_runs` and :func:`measure` are pure: two runs of one question
and recipe become the results gained, lost and moved (each side keeps its
``SearchRun``, so both ledgers say why); with graded qrels (documents, as the
evaluation harness scores them: :func:`~agrag_lab.eval.projection.project_run`)
and at least :data:`MIN_PAIRED` questions, Recall@k and nDCG before and after
with a paired test (ranx, :func:`~agrag_lab.eval.metrics.compare`).

:func:`impact_of_edits` measures an edited index against its own unedited
version without a copy: it runs the recipes on the index as it is, then
serves it for a moment without the chosen edits (the edit log applied
without them: exactly the graph before, as an undo gives), runs them again,
and puts the log back. The index is opened writable for it; a reader in
another process keeps the graph it loaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from agrag_lab.errors import ArgumentError
from agrag_lab.index.edit_log import EditRecord, read_log, write_log
from agrag_lab.kg.edits import DeleteDocument

if TYPE_CHECKING:
    from agrag_lab.graph import Graph
    from agrag_lab.recipes.schema import Recipe
    from agrag_lab.retrieval.run import SearchRun

__all__ = ["MIN_PAIRED", "EditImpact", "QuestionChange", "compare_runs", "impact_of_edits", "measure"]

#: Fewest judged questions for which a paired test is reported.
MIN_PAIRED = 5
METRICS = ("recall@5", "recall@10", "ndcg@10")


@dataclass(frozen=True)
class QuestionChange:
    """One question under one recipe: what the edits moved, and both runs (their ledgers say why)."""

    question_id: str
    question: str
    recipe: str
    gained: tuple[str, ...]
    lost: tuple[str, ...]
    moved: tuple[tuple[str, int, int], ...]
    before: SearchRun
    after: SearchRun

    @property
    def changed(self) -> bool:
        return bool(self.gained or self.lost or self.moved)


@dataclass(frozen=True)
class EditImpact:
    """Every question's change, and per recipe and metric ``(before, after, p)`` when qrels allowed a paired test."""

    changes: tuple[QuestionChange, ...]
    metrics: Mapping[str, Mapping[str, tuple[float, float, float]]] = field(default_factory=dict)
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "metrics", MappingProxyType({k: MappingProxyType(dict(v))
                                                              for k, v in self.metrics.items()}))

    def rows(self) -> list[dict[str, Any]]:
        """One row per question and recipe (for a DataFrame: ``polars.DataFrame(impact.rows())``)."""
        return [{"question_id": c.question_id, "recipe": c.recipe, "gained": list(c.gained), "lost": list(c.lost),
                 "moved": len(c.moved), "changed": c.changed} for c in self.changes]


def compare_runs(before: SearchRun, after: SearchRun) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, int, int], ...]]:
    """Results gained (in ``after`` only, in its order), lost (in ``before`` only) and moved (``key, before, after``).

    Examples
    --------
    >>> from types import SimpleNamespace as R
    >>> b, a = R(keys=("x", "y", "z")), R(keys=("y", "x", "w"))
    >>> compare_runs(b, a)
    (('w',), ('z',), (('x', 1, 2), ('y', 2, 1)))
    """
    was = {k: i for i, k in enumerate(before.keys, 1)}
    now = {k: i for i, k in enumerate(after.keys, 1)}
    gained = tuple(k for k in after.keys if k not in was)
    lost = tuple(k for k in before.keys if k not in now)
    moved = tuple((k, was[k], now[k]) for k in before.keys if k in now and was[k] != now[k])
    return gained, lost, moved


def measure(
    questions: Mapping[str, str],
    before: Mapping[tuple[str, str], SearchRun],
    after: Mapping[tuple[str, str], SearchRun],
    qrels: Mapping[str, Mapping[str, int]] | None = None,
) -> EditImpact:
    """The change of every ``(question id, recipe name)`` run in both; metrics with a paired test when possible."""
    changes = []
    for (qid, recipe), old in before.items():
        new = after[(qid, recipe)]
        gained, lost, moved = compare_runs(old, new)
        changes.append(QuestionChange(qid, questions[qid], recipe, gained, lost, moved, old, new))
    judged = [q for q in questions if qrels and q in qrels]
    if not qrels:
        return EditImpact(tuple(changes), note="no qrels: results gained and lost only")
    if len(judged) < MIN_PAIRED:
        return EditImpact(tuple(changes), note=f"{len(judged)} judged questions: a paired test needs {MIN_PAIRED}")
    from agrag_lab.eval.metrics import compare, per_query_scores
    from agrag_lab.eval.projection import project_run

    judged_qrels = {q: qrels[q] for q in judged}
    metrics: dict[str, dict[str, tuple[float, float, float]]] = {}
    for recipe in sorted({r for _, r in before}):
        rankings = {side: {q: project_run(runs[(q, recipe)]) for q in judged}
                    for side, runs in (("before", before), ("after", after))}
        p = compare(judged_qrels, rankings, "before", METRICS)["after"]
        scores = {side: per_query_scores(judged_qrels, rankings[side], METRICS) for side in rankings}
        metrics[recipe] = {m: (_mean(scores["before"][m]), _mean(scores["after"][m]), p[m]) for m in METRICS}
    return EditImpact(tuple(changes), metrics, f"{len(judged)} judged questions; paired two-sided t-test (ranx)")


def _mean(values: Mapping[str, float]) -> float:
    return sum(values.values()) / len(values) if values else 0.0


def _run_all(graph: Graph, questions: Mapping[str, str], recipes: Sequence[Recipe]) -> dict[tuple[str, str], SearchRun]:
    engine = graph.engine()
    return {(qid, r.name): engine.run(q, r) for qid, q in questions.items() for r in recipes}


def _serve(graph: Graph, records: Sequence[EditRecord], shown: Mapping[str, bool]) -> None:
    write_log(graph.path, records)
    with graph.db.transaction() as conn:
        for document, removed in shown.items():
            graph.db.set_removed(conn, document, removed)
    graph.sync()


def impact_of_edits(
    graph: Graph,
    questions: Mapping[str, str],
    recipes: Sequence[Recipe],
    *,
    qrels: Mapping[str, Mapping[str, int]] | None = None,
    records: Sequence[str] | None = None,
) -> EditImpact:
    """The recipes on ``questions`` (id → text) with the edits and without them (``records``: ids; default every
    active edit), compared by :func:`measure` (see the module's docstring).

    Raises
    ------
    ArgumentError
        No questions or recipes, or ``records`` names no active edit.
    """
    graph.require_writable()
    if not questions or not recipes:
        raise ArgumentError("measure an edit on at least one question and one recipe")
    log = read_log(graph.path)
    chosen = {r.id for r in log if r.active and (records is None or r.id in records)}
    if not chosen:
        raise ArgumentError(f"no active edit {sorted(records or [])} in the edit log of {graph.path}; list them with "
                            "Graph.edits()")
    after = _run_all(graph, questions, recipes)
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    without = [replace(r, undone=stamp) if r.id in chosen else r for r in log]
    deleted = [r.edit.document for r in log if r.id in chosen and isinstance(r.edit, DeleteDocument)]
    try:
        _serve(graph, without, dict.fromkeys(deleted, False))
        before = _run_all(graph, questions, recipes)
    finally:
        _serve(graph, log, dict.fromkeys(deleted, True))
    return measure(questions, before, after, qrels)
