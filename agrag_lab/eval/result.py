"""``EvalResult``: every system's scores, intervals, p-values and rankings.

An evaluation result is plain, JSON-safe data: for each system (a recipe or
a baseline) its mean metrics, bootstrap confidence intervals, per-query
scores and projected rankings; the reference baseline and the p-value of
each system against it; the per-group (hop) breakdown; and the notes of
systems that were skipped. Tables are polars DataFrames.

Examples
--------
>>> r = EvalResult.from_dict(EXAMPLE)
>>> r.to_polars().select("system", "recall@2").rows()
[('HYBRID', 1.0), ('bm25', 0.5)]
>>> r.wins_losses("HYBRID", "recall@2")
(1, 1, 0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from agrag_lab.errors import NotFoundError

if TYPE_CHECKING:
    import polars as pl

    from agrag_lab.eval.marks import Mark

#: Significance level for the marks in the table.
ALPHA = 0.05
#: How one system compares with the reference (see :meth:`EvalResult.verdict`).
Verdict = Literal["better", "worse", "not significant", "reference"]


def format_p(p: float | None) -> str:
    """A p-value for a table: 3 significant digits, ``<0.001`` for 0 (a randomization test's floor).

    Examples
    --------
    >>> format_p(0.01234), format_p(0.0), format_p(None)
    ('0.0123', '<0.001', '')
    """
    if p is None or math.isnan(p):
        return ""
    return "<0.001" if p == 0 else f"{p:.3g}"


@dataclass(frozen=True)
class SystemScores:
    """One system's results.

    ``mean[m]`` is the mean over judged queries, ``ci[m]`` its (low, high)
    confidence interval, ``per_query[m][qid]`` each query's score, and
    ``rankings[qid]`` the projected document ranking that was scored.
    """

    name: str
    kind: str
    mean: Mapping[str, float]
    ci: Mapping[str, tuple[float, float]]
    per_query: Mapping[str, Mapping[str, float]]
    rankings: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    ms_per_query: float = 0.0
    failures: Mapping[str, str] = field(default_factory=dict)
    description: str = ""


@dataclass(frozen=True)
class EvalResult:
    """The outcome of :func:`agrag_lab.eval.evaluate` on one benchmark and one index."""

    benchmark: str
    metrics: tuple[str, ...]
    systems: tuple[SystemScores, ...]
    reference: str
    p_values: Mapping[str, Mapping[str, float]]
    stat_test: str
    ci_method: str
    groups: Mapping[str, str] = field(default_factory=dict)
    skipped: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    config: Mapping[str, Any] = field(default_factory=dict)

    # -- access ---------------------------------------------------------------------
    @property
    def primary(self) -> str:
        """The metric that picked the reference (``recall@5`` unless the evaluation chose another)."""
        return str(self.config.get("primary", "recall@5"))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.systems)

    @property
    def alpha(self) -> float:
        """The significance level its tests are read at (:data:`ALPHA`)."""
        return ALPHA

    def letters(self) -> dict[str, str]:
        """A letter per system, in order, as ranx's reports name them (:func:`agrag_lab.eval.marks.letters`)."""
        from agrag_lab.eval.marks import letters

        return letters(self.names)

    def marks(self) -> dict[str, dict[str, Mark]]:
        """Each system's :class:`~agrag_lab.eval.marks.Mark` per metric (best, and the letters it is above).

        The charts read the marks through this method, so ``charts`` needs ``eval`` for annotations only.
        """
        from agrag_lab.eval.marks import result_marks

        return result_marks(self)

    def system(self, name: str) -> SystemScores:
        """One system's scores by name."""
        for s in self.systems:
            if s.name == name:
                return s
        raise NotFoundError(f"no system {name!r} in this result; it has {list(self.names)}")

    @property
    def queries(self) -> tuple[str, ...]:
        """The judged query ids, in benchmark order."""
        first = self.systems[0].per_query[self.metrics[0]] if self.systems else {}
        return tuple(first)

    def best(self, kind: str, metric: str) -> str:
        """The name of the best system of ``kind`` ("recipe" or "baseline") on ``metric``."""
        candidates = [s for s in self.systems if s.kind == kind]
        if not candidates:
            raise NotFoundError(f"this result has no system of kind {kind!r}")
        return max(candidates, key=lambda s: s.mean[metric]).name

    def verdict(self, name: str, metric: str, alpha: float = ALPHA) -> Verdict:
        """``name`` against the reference on ``metric``: ``better``, ``worse``, ``not significant``, or ``reference``.

        Better or worse means the paired test's two-sided p < ``alpha``, the
        direction given by the means.

        Examples
        --------
        >>> r = EvalResult.from_dict(EXAMPLE)
        >>> [(n, r.verdict(n, "recall@2")) for n in r.names]
        [('HYBRID', 'not significant'), ('bm25', 'reference')]
        """
        if name == self.reference:
            return "reference"
        p = self.p_values.get(name, {}).get(metric, math.nan)
        if not p < alpha:
            return "not significant"
        mine, theirs = self.system(name).mean[metric], self.system(self.reference).mean[metric]
        return "better" if mine > theirs else "worse" if mine < theirs else "not significant"

    def significantly_better(self, name: str, metric: str, alpha: float = ALPHA) -> bool:
        """Whether ``name`` beats the reference on ``metric`` with p < ``alpha`` (see :meth:`verdict`)."""
        return self.verdict(name, metric, alpha) == "better"

    def significant(self, name: str, metric: str, alpha: float = ALPHA) -> bool:
        """Deprecated name of :meth:`significantly_better` (it never meant "significantly different")."""
        return self.significantly_better(name, metric, alpha)

    def wins_losses(self, name: str, metric: str, reference: str | None = None) -> tuple[int, int, int]:
        """``(wins, ties, losses)`` of ``name`` against ``reference`` (default: the reference), per query."""
        ref = self.system(reference or self.reference).per_query[metric]
        own = self.system(name).per_query[metric]
        wins = sum(1 for q in ref if own[q] > ref[q] + 1e-12)
        losses = sum(1 for q in ref if own[q] < ref[q] - 1e-12)
        return wins, len(ref) - wins - losses, losses

    # -- tables -----------------------------------------------------------------------
    def rows(self) -> list[dict[str, Any]]:
        """One row per system: means, CI bounds, p-values against the reference."""
        out = []
        for s in self.systems:
            row: dict[str, Any] = {"system": s.name, "kind": s.kind}
            for m in self.metrics:
                row[m] = s.mean[m]
            for m in self.metrics:
                row[f"{m} ci_low"], row[f"{m} ci_high"] = s.ci[m]
            for m in self.metrics:
                row[f"{m} p"] = self.p_values.get(s.name, {}).get(m)
            row["ms/query"] = s.ms_per_query
            row["failed queries"] = len(s.failures)
            out.append(row)
        return out

    def to_polars(self) -> pl.DataFrame:
        """The summary table (see :meth:`rows`) as a polars DataFrame."""
        import polars as pl

        return pl.DataFrame(self.rows(), infer_schema_length=None)

    def per_query_frame(self) -> pl.DataFrame:
        """Long table: system, query_id, group, metric, score."""
        import polars as pl

        rows = [
            {"system": s.name, "query_id": q, "group": self.groups.get(q), "metric": m, "score": v}
            for s in self.systems
            for m in self.metrics
            for q, v in s.per_query[m].items()
        ]
        schema = {
            "system": pl.String,
            "query_id": pl.String,
            "group": pl.String,
            "metric": pl.String,
            "score": pl.Float64,
        }
        return pl.DataFrame(rows, schema=schema)

    def by_group(self) -> pl.DataFrame:
        """Mean of each metric per system and group (e.g. 2-hop, 3-hop, 4-hop)."""
        import polars as pl

        frame = self.per_query_frame().filter(pl.col("group").is_not_null())
        return (
            frame.group_by("system", "group", "metric", maintain_order=True)
            .agg(pl.col("score").mean().alias("mean"), pl.len().alias("queries"))
            .pivot(on="metric", index=["system", "group", "queries"], values="mean")
            .sort("group", maintain_order=True)
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; :meth:`from_dict` rebuilds an equal result."""
        return {
            "benchmark": self.benchmark,
            "metrics": list(self.metrics),
            "reference": self.reference,
            "stat_test": self.stat_test,
            "ci_method": self.ci_method,
            "p_values": {n: dict(p) for n, p in self.p_values.items()},
            "groups": dict(self.groups),
            "skipped": dict(self.skipped),
            "notes": list(self.notes),
            "config": dict(self.config),
            "systems": [
                {
                    "name": s.name,
                    "kind": s.kind,
                    "description": s.description,
                    "mean": dict(s.mean),
                    "ci": {m: list(v) for m, v in s.ci.items()},
                    "per_query": {m: dict(v) for m, v in s.per_query.items()},
                    "rankings": {q: list(r) for q, r in s.rankings.items()},
                    "ms_per_query": s.ms_per_query,
                    "failures": dict(s.failures),
                }
                for s in self.systems
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalResult:
        """Inverse of :meth:`to_dict`."""
        systems = tuple(
            SystemScores(
                s["name"],
                s["kind"],
                dict(s["mean"]),
                {m: (float(v[0]), float(v[1])) for m, v in s["ci"].items()},
                {m: dict(v) for m, v in s["per_query"].items()},
                {q: tuple(r) for q, r in s.get("rankings", {}).items()},
                float(s.get("ms_per_query", 0.0)),
                dict(s.get("failures", {})),
                s.get("description", ""),
            )
            for s in data["systems"]
        )
        return cls(
            data["benchmark"],
            tuple(data["metrics"]),
            systems,
            data["reference"],
            {n: dict(p) for n, p in data["p_values"].items()},
            data["stat_test"],
            data["ci_method"],
            dict(data.get("groups", {})),
            dict(data.get("skipped", {})),
            tuple(data.get("notes", ())),
            dict(data.get("config", {})),
        )

    # -- text -------------------------------------------------------------------------
    def table(self, metrics: Sequence[str] | None = None) -> str:
        """A plain-text table marked as ranx's: a letter per system; after a mean, the letters it is significantly above.

        The best mean of each metric is followed by ``▲`` (plain text has no bold);
        the last columns are the p-value and verdict against the reference (see
        :mod:`agrag_lab.eval.marks`).
        """
        from agrag_lab.eval.marks import letters, result_marks, superscript

        shown = list(metrics or self.metrics)
        primary = self.primary
        short = primary.replace("recall", "R").replace("coverage", "C")
        letter = letters(self.names)
        marked = result_marks(self)
        head = (f"{'#':<3}{'system':<22}{'kind':<9}" + "".join(f"{m:>14}" for m in shown)
                + f"{f'p({short})':>10}  {'verdict':<16}{'ms/q':>6}")
        lines = [
            f"{self.benchmark}: {len(self.queries)} queries; reference = {self.reference} ({self.stat_test} test). "
            f"As ranx's report: a superscript lists the systems a mean is significantly above (p < {ALPHA}); "
            "▲ = best",
            head,
            "-" * len(head),
        ]
        for s in self.systems:
            cells = []
            for m in shown:
                mark = marked[s.name][m]
                cells.append(f"{s.mean[m]:>8.3f}" + f"{('▲' if mark.best else '') + superscript(mark.sup):<6}")
            p5 = self.p_values.get(s.name, {}).get(primary)
            ptxt = "ref" if s.name == self.reference else format_p(p5)
            verdict = "reference" if s.name == self.reference else self.verdict(s.name, primary)
            lines.append(f"{letter[s.name]:<3}{s.name:<22}{s.kind:<9}" + "".join(cells)
                         + f"{ptxt:>10}  {verdict:<16}{s.ms_per_query:>6.0f}")
        for name, why in self.skipped.items():
            lines.append(f"{'':<3}{name:<22}skipped: {why}")
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines)

    def group_table(self, metric: str = "recall@5") -> str:
        """Plain text: ``metric`` per system and group (hop count)."""
        groups = sorted(set(self.groups.values()))
        if not groups:
            return ""
        counts = {g: sum(1 for v in self.groups.values() if v == g) for g in groups}
        lines = [f"{metric} by group", f"{'system':<22}" + "".join(f"{g + f' ({counts[g]})':>14}" for g in groups)]
        for s in self.systems:
            cells = []
            for g in groups:
                values = [v for q, v in s.per_query[metric].items() if self.groups.get(q) == g]
                cells.append(f"{sum(values) / len(values):>14.3f}" if values else f"{'':>14}")
            lines.append(f"{s.name:<22}" + "".join(cells))
        return "\n".join(lines)


#: A tiny result, used in the examples and tests.
EXAMPLE: dict[str, Any] = {
    "benchmark": "example",
    "metrics": ["recall@2"],
    "reference": "bm25",
    "stat_test": "student",
    "ci_method": "bootstrap",
    "p_values": {"HYBRID": {"recall@2": 0.2}},
    "groups": {"q1": "1-hop", "q2": "2-hop"},
    "systems": [
        {
            "name": "HYBRID",
            "kind": "recipe",
            "mean": {"recall@2": 1.0},
            "ci": {"recall@2": [1.0, 1.0]},
            "per_query": {"recall@2": {"q1": 1.0, "q2": 1.0}},
        },
        {
            "name": "bm25",
            "kind": "baseline",
            "mean": {"recall@2": 0.5},
            "ci": {"recall@2": [0.0, 1.0]},
            "per_query": {"recall@2": {"q1": 0.0, "q2": 1.0}},
        },
    ],
}
