"""The comparison model: several recipes on the same queries, and what is derived from them (pure Python).

:class:`ComparisonModel` holds one :class:`~agrag_lab.retrieval.run.SearchRun`
per (recipe, query) and derives everything shown: the ranked lists joined on
the same item (with each item's rank shift against the baseline recipe), the
overlap of every pair of recipes (Jaccard and rank-biased overlap, per query
and on average), and, given a benchmark, each recipe's metrics with
confidence intervals, paired significance tests and per-query wins and
losses (scored by :mod:`agrag_lab.eval` on the same passage projection as
``agrag-lab eval``). :class:`~agrag_lab.widgets.comparison.RecipeComparison`
is the widget over it; this module imports no widget library.

Examples
--------
>>> normalise_queries(["Who?", "Why?"])
{'q1': 'Who?', 'q2': 'Why?'}
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from agrag_lab.charts.evaluation import MIN_QUERIES_FOR_INTERVAL
from agrag_lab.errors import AgragError, ViewArgumentError
from agrag_lab.names import distinct_names
from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.widgets._text import short
from agrag_lab.widgets.measures import jaccard, rbo

if TYPE_CHECKING:
    from agrag_lab.eval.benchmark import Benchmark
    from agrag_lab.eval.result import EvalResult
    from agrag_lab.graph import Graph
    from agrag_lab.retrieval.engine import SearchEngine

__all__ = ["RBO_P", "ComparisonModel", "OverlapOn", "Row", "normalise_queries"]

Row = dict[str, Any]
#: Persistence of the rank-biased overlap (about the top 10 carry the weight).
RBO_P = 0.9
#: What the overlap of two recipes is measured on (see :meth:`ComparisonModel.ranked`).
OverlapOn = Literal["passages", "items"]


def normalise_queries(queries: str | Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """Query id -> text; a bare string or a list gets ids ``q1``, ``q2``...

    Examples
    --------
    >>> normalise_queries("Who?")
    {'q1': 'Who?'}
    >>> normalise_queries({"x": "Why?"})
    {'x': 'Why?'}
    """
    if isinstance(queries, str):
        return {"q1": queries}
    if isinstance(queries, Mapping):
        return {str(k): str(v) for k, v in queries.items()}
    return {f"q{i}": str(q) for i, q in enumerate(queries, 1)}


class ComparisonModel:
    """Runs of several recipes on several queries, and what is derived from them (pure Python).

    Parameters
    ----------
    runs : mapping
        Recipe name -> query id -> run. Missing runs (a failed search) are allowed.
    queries : mapping
        Query id -> text.
    benchmark : Benchmark, optional
        Qrels to score the runs with (query ids must match).
    baseline : str, optional
        The recipe the others are compared with (default: the first).
    failures : mapping, optional
        Recipe name -> query id -> why the search failed.
    """

    def __init__(
        self,
        runs: Mapping[str, Mapping[str, SearchRun]],
        queries: Mapping[str, str],
        *,
        benchmark: Benchmark | None = None,
        baseline: str | None = None,
        failures: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        if not runs:
            raise ViewArgumentError("compare at least one recipe; give a list of recipes")
        if not queries:
            raise ViewArgumentError("compare on at least one query; give a query or a list of queries")
        self.runs = {name: dict(by_query) for name, by_query in runs.items()}
        self.names = tuple(self.runs)
        self.queries = dict(queries)
        self.failures = {name: dict(f) for name, f in (failures or {}).items()}
        self.baseline = baseline if baseline is not None else self.names[0]
        if self.baseline not in self.runs:
            raise ViewArgumentError(f"baseline {self.baseline!r} is not among the recipes {list(self.names)}")
        self.benchmark = benchmark
        self._evaluation: EvalResult | None = None
        #: Two-sided p-values of every pair of recipes, ``{a: {b: {metric: p}}}`` (with a benchmark).
        self.pairwise_p: dict[str, dict[str, dict[str, float]]] = {}

    @classmethod
    def run(
        cls,
        engine: SearchEngine,
        recipes: Sequence[Recipe | str] | Recipe | str,
        queries: str | Sequence[str] | Mapping[str, str] | None = None,
        *,
        benchmark: Benchmark | None = None,
        baseline: str | None = None,
    ) -> ComparisonModel:
        """Run every recipe on every query (each search once) and build the model.

        With a ``benchmark`` and no ``queries``, its judged queries are used.
        A search that fails (e.g. a cross-encoder that cannot be loaded) is
        recorded in ``failures`` instead of stopping the comparison. A recipe
        may be given by name or ``.toml`` path (:func:`agrag_lab.recipes.get`).

        Raises
        ------
        ViewArgumentError
            ``engine`` is not a search engine (a ``Graph``: pass ``graph.engine()``), a recipe is
            neither a :class:`Recipe` nor a name, or two recipes share a name.
        """
        from agrag_lab import recipes as registry
        from agrag_lab.retrieval.engine import SearchEngine

        if not isinstance(engine, SearchEngine):
            raise ViewArgumentError(
                f"engine must be a SearchEngine (graph.engine()), not {type(engine).__name__}"
            )
        given: Sequence[object] = [recipes] if isinstance(recipes, (str, Recipe)) else recipes
        picked = [registry.get(r) if isinstance(r, str) else r for r in given]
        wrong = [type(r).__name__ for r in picked if not isinstance(r, Recipe)]
        if wrong:
            raise ViewArgumentError(f"recipes must be Recipe objects or names (e.g. 'HYBRID'), not {wrong[0]}")
        chosen = [r for r in picked if isinstance(r, Recipe)]
        if queries is None:
            if benchmark is None:
                raise ViewArgumentError("give queries, or a benchmark whose judged queries are used")
            queries = {q: benchmark.queries[q] for q in benchmark.judged_queries}
        texts = normalise_queries(queries)
        runs: dict[str, dict[str, SearchRun]] = {}
        failures: dict[str, dict[str, str]] = {}
        for recipe in chosen:
            name = recipe.name
            if name in runs:
                raise ViewArgumentError(f"two recipes are named {name!r}; rename one (recipe.replace(name=...))")
            runs[name] = {}
            for qid, text in texts.items():
                try:
                    runs[name][qid] = engine.run(text, recipe)
                except AgragError as error:
                    failures.setdefault(name, {})[qid] = f"{type(error).__name__}: {error}"
        return cls(runs, texts, benchmark=benchmark, baseline=baseline, failures=failures)

    @classmethod
    def run_graphs(
        cls,
        graphs: Mapping[str, Graph | SearchEngine],
        recipes: Sequence[Recipe | str] | Recipe | str,
        queries: str | Sequence[str] | Mapping[str, str] | None = None,
        *,
        benchmark: Benchmark | None = None,
        baseline: str | None = None,
    ) -> ComparisonModel:
        """Every recipe on every index of one corpus (label -> ``Graph`` or ``SearchEngine``), side by side.

        Each recipe's runs on an index are named ``RECIPE @ label`` (as ``agrag-lab eval --index A --index B``
        names them), so "which method" and "which graph" read apart; the baseline defaults to the first
        recipe on the first index.

        Raises
        ------
        ViewArgumentError
            Fewer than one index, or what :meth:`run` raises for one of them.
        """
        from agrag_lab.graph import Graph

        if not graphs:
            raise ViewArgumentError("graphs must map a label to an index (Graph) or its engine, e.g. {'rules': g1}")
        runs: dict[str, dict[str, SearchRun]] = {}
        failures: dict[str, dict[str, str]] = {}
        texts: dict[str, str] = {}
        for label, graph in graphs.items():
            engine = graph.engine() if isinstance(graph, Graph) else graph
            one = cls.run(engine, recipes, queries, benchmark=benchmark)
            texts = one.queries
            for name in one.names:
                runs[f"{name} @ {label}"] = one.runs[name]
                if name in one.failures:
                    failures[f"{name} @ {label}"] = one.failures[name]
        return cls(runs, texts, benchmark=benchmark, baseline=baseline, failures=failures)

    # -- one query ------------------------------------------------------------------
    def get(self, name: str, qid: str) -> SearchRun | None:
        """The run of recipe ``name`` on query ``qid`` (None when it failed)."""
        return self.runs[name].get(qid)

    def side_by_side(self, qid: str) -> list[Row]:
        """One row per item any recipe returned: its rank under each recipe and its shift.

        ``rank:<name>`` is the 1-based rank (None when absent), ``shift:<name>``
        the places it rose (+) or fell (-) against the baseline, ``found`` how
        many recipes returned it. Rows are ordered by best rank, then by how
        many recipes found the item.
        """
        rows: dict[str, Row] = {}
        for name in self.names:
            run = self.get(name, qid)
            if run is None:
                continue
            for r in run.results:
                row = rows.setdefault(r.id, {"_key": r.id, "_hover": r.id, "kind": r.kind, "title": r.name})
                row[f"rank:{name}"] = r.rank
        for row in rows.values():
            ranks = [row.get(f"rank:{n}") for n in self.names]
            row["found"] = sum(1 for x in ranks if x is not None)
            row["best"] = min(x for x in ranks if x is not None)
            base = row.get(f"rank:{self.baseline}")
            tones = []
            for name in self.names:
                if name == self.baseline:
                    continue
                mine = row.get(f"rank:{name}")
                row[f"shift:{name}"] = base - mine if base is not None and mine is not None else None
                tones.append(row[f"shift:{name}"])
            if row["found"] == 1:
                row["_tone"] = "only"
            elif tones and tones[0] is not None:
                row["_tone"] = "up" if tones[0] > 0 else "down" if tones[0] < 0 else ""
        # one passage in two indexes (or two versions) reads alike: tell them apart by the index's own label when
        # only that index's recipes returned it (``RECIPE @ label``), else as agrag_lab.names does (a version)
        shown = distinct_names(_index_labelled(rows, self.names))
        for key, row in rows.items():
            row["title"] = shown[key]
        return sorted(rows.values(), key=lambda r: (r["best"], -r["found"], str(r["_key"])))

    def ranked(self, name: str, qid: str, on: OverlapOn = "passages") -> tuple[str, ...]:
        """What recipe ``name`` returned for ``qid``, as compared: documents (as the evaluation scores them) or items.

        ``on="passages"`` projects the run to ranked document ids exactly as
        ``agrag-lab eval`` does (an entity or a report stands for its
        supporting passages); ``on="items"`` keeps the items themselves.
        """
        run = self.get(name, qid)
        if run is None:
            return ()
        if on == "items":
            return run.keys
        if on != "passages":
            raise ViewArgumentError(f"overlap is measured on 'passages' or 'items', not {on!r}")
        from agrag_lab.eval.projection import project_run

        return project_run(run)

    def documents(self) -> set[str]:
        """Every document the recipes' results stand for, over every query (as the evaluation projects them)."""
        return {doc for name in self.names for qid in self.queries for doc in self.ranked(name, qid, "passages")}

    def overlap(self, qid: str, on: OverlapOn = "passages") -> list[Row]:
        """Jaccard and rank-biased overlap of each pair of recipes on one query (see :meth:`ranked`)."""
        out = []
        for a, b in itertools.combinations(self.names, 2):
            if self.get(a, qid) is None or self.get(b, qid) is None:
                continue
            ra, rb = self.ranked(a, qid, on), self.ranked(b, qid, on)
            out.append({
                "_key": f"{a}|{b}", "a": a, "b": b, "common": len(set(ra) & set(rb)),
                "jaccard": jaccard(ra, rb), "rbo": rbo(ra, rb, RBO_P),
            })
        return out

    def mean_overlap(self, on: OverlapOn = "passages") -> list[Row]:
        """:meth:`overlap` averaged over every query both recipes answered."""
        sums: dict[str, Row] = {}
        for qid in self.queries:
            for row in self.overlap(qid, on):
                acc = sums.setdefault(row["_key"], {**row, "jaccard": 0.0, "rbo": 0.0, "common": 0, "queries": 0})
                acc["jaccard"] += row["jaccard"]
                acc["rbo"] += row["rbo"]
                acc["common"] += row["common"]
                acc["queries"] += 1
        for acc in sums.values():
            n = max(1, acc["queries"])
            acc["jaccard"] /= n
            acc["rbo"] /= n
            acc["common"] /= n
        return list(sums.values())

    def explain(self, qid: str, key: str) -> str:
        """Where ``key`` stands under each recipe, with each run's explanation."""
        parts = []
        for name in self.names:
            run = self.get(name, qid)
            if run is None:
                parts.append(f"{name}: the search failed ({self.failures.get(name, {}).get(qid, '?')})")
            elif key in run.keys:
                parts.append(f"{name}:\n{run.explain(run.keys.index(key))}")
            else:
                parts.append(f"{name}: not in the {len(run)} results")
        return "\n\n".join(parts)

    # -- a benchmark ------------------------------------------------------------------
    @property
    def evaluation(self) -> EvalResult | None:
        """The recipes scored on the benchmark (None without one); computed once.

        Rankings are projected to documents exactly as ``agrag-lab eval`` does;
        p-values are paired tests of each recipe against the baseline recipe.
        """
        if self.benchmark is None:
            return None
        if self._evaluation is None:
            self._evaluation = self._evaluate(self.benchmark)
        return self._evaluation

    def _evaluate(self, benchmark: Benchmark) -> EvalResult:
        from agrag_lab.eval.metrics import CI_METHOD, METRICS, bootstrap_ci, pairwise, per_query_scores
        from agrag_lab.eval.projection import project_run
        from agrag_lab.eval.result import EvalResult, SystemScores

        judged = [q for q in self.queries if q in benchmark.qrels and any(v > 0 for v in benchmark.qrels[q].values())]
        if not judged:
            raise ViewArgumentError(
                f"none of the {len(self.queries)} queries has relevance judgements in {benchmark.name!r}; "
                "use the benchmark's query ids"
            )
        qrels = {q: benchmark.qrels[q] for q in judged}
        systems = []
        rankings: dict[str, dict[str, tuple[str, ...]]] = {}
        for name in self.names:
            ranked = {}
            for q in judged:
                run = self.get(name, q)
                ranked[q] = project_run(run) if run is not None else ()
            rankings[name] = ranked
            per_query = per_query_scores(qrels, ranked, METRICS)
            mean = {m: sum(v.values()) / len(v) for m, v in per_query.items()}
            ci = {m: bootstrap_ci(list(v.values())) for m, v in per_query.items()}
            seconds = [r.trace.seconds for r in self.runs[name].values()]
            systems.append(SystemScores(
                name, "recipe", mean, ci, per_query, ranked, 1000 * sum(seconds) / max(1, len(seconds)),
                dict(self.failures.get(name, {})),
            ))
        self.pairwise_p = pairwise(qrels, rankings, METRICS)
        p_values = {n: self.pairwise_p[self.baseline][n] for n in self.names if n != self.baseline}
        return EvalResult(
            benchmark.name, tuple(METRICS), tuple(systems), self.baseline, p_values, "student", CI_METHOD,
            {q: g for q, g in benchmark.groups().items() if q in qrels},
            notes=(f"recipes compared with {self.baseline}; documents projected as in agrag-lab eval",),
        )

    @property
    def letters(self) -> dict[str, str]:
        """A letter per recipe (a, b, c, ...): a superscript names the recipes a value is significantly above."""
        from agrag_lab.eval.marks import letters

        return letters(self.names)

    def interval_warning(self) -> str:
        """Why no interval is shown (fewer than :data:`MIN_QUERIES_FOR_INTERVAL` judged queries), else ``""``."""
        result = self.evaluation
        if result is None or len(result.queries) >= MIN_QUERIES_FOR_INTERVAL:
            return ""
        return (
            f"only {len(result.queries)} judged queries: too few for a confidence interval or a test to mean much "
            f"(at least {MIN_QUERIES_FOR_INTERVAL}); the means are shown, intervals are not"
        )

    def metric_rows(self, metric: str = "recall@5") -> list[Row]:
        """One row per recipe: each metric's mean, then ``metric``'s interval, p-value and verdict against the baseline.

        As ranx's report tables: the best mean of each metric is bold
        (``_marks[m]["best"]``) and a superscript lists the letters
        (:attr:`letters`) of the recipes it is significantly above (p < 0.05).
        With fewer than :data:`MIN_QUERIES_FOR_INTERVAL` queries the interval
        reads "too few queries" (see :meth:`interval_warning`).
        """
        from agrag_lab.eval.marks import ALPHA, marks

        result = self.evaluation
        if result is None:
            return []
        if metric not in result.metrics:
            raise ViewArgumentError(f"unknown metric {metric!r}; choose one of {list(result.metrics)}")
        letters = self.letters
        means = {s.name: dict(s.mean) for s in result.systems}
        marked = marks(means, lambda a, b, m: self.pairwise_p.get(a, {}).get(b, {}).get(m), result.metrics,
                       alpha=ALPHA)
        few = bool(self.interval_warning())
        rows = []
        for s in result.systems:
            # too few queries for a test to mean much: no significance letters (the interval column says why)
            marks_of = {m: {"best": mark.best, "sup": "" if few else mark.sup, "title": "" if few else mark.title}
                        for m, mark in marked[s.name].items()}
            row: Row = {"_key": s.name, "_marks": marks_of, "recipe": f"{s.name} ({letters[s.name]})",
                        **{m: s.mean[m] for m in result.metrics}}
            low, high = s.ci[metric]
            row["ci"] = "too few queries" if few else f"{low:.3f} – {high:.3f}"
            p = result.p_values.get(s.name, {}).get(metric)
            row["p"] = "" if s.name == result.reference else ("n/a" if p is None else f"{p:.3g}")
            row["verdict"] = "baseline" if s.name == result.reference else result.verdict(s.name, metric)
            if row["verdict"] in ("better", "worse"):
                row["_tone"] = "win" if row["verdict"] == "better" else "loss"
            rows.append(row)
        return rows

    def per_query_rows(self, metric: str = "recall@5") -> list[Row]:
        """One row per judged query: ``metric`` under each recipe and the outcome against the baseline.

        ``outcome:<name>`` is ``win``, ``tie`` or ``loss``; the row's tone
        follows the first non-baseline recipe.
        """
        result = self.evaluation
        if result is None:
            return []
        base = result.system(self.baseline).per_query[metric]
        rows = []
        for q in result.queries:
            row: Row = {"_key": q, "query": short(self.queries[q], 70), "group": result.groups.get(q, "")}
            first = True
            for s in result.systems:
                value = s.per_query[metric][q]
                row[f"m:{s.name}"] = value
                if s.name == self.baseline:
                    continue
                outcome = "win" if value > base[q] + 1e-12 else "loss" if value < base[q] - 1e-12 else "tie"
                row[f"outcome:{s.name}"] = outcome
                if first:
                    row["_tone"] = outcome if outcome != "tie" else ""
                    first = False
            rows.append(row)
        return rows

    def wins_losses(self, metric: str = "recall@5") -> dict[str, tuple[int, int, int]]:
        """``(wins, ties, losses)`` of each recipe against the baseline, per query."""
        result = self.evaluation
        if result is None:
            return {}
        return {n: result.wins_losses(n, metric, self.baseline) for n in self.names if n != self.baseline}


def _index_labelled(rows: Mapping[str, Row], names: Sequence[str]) -> dict[str, str]:
    """Each row's title; where items of two indexes share a title, each with its index's label (``[graphrag]``).

    A recipe run on an index is named ``RECIPE @ label`` (:meth:`ComparisonModel.run_graphs`); an item whose
    recipes are all of one index gets that label. Other shared titles are left as they are.

    Examples
    --------
    >>> rows = {"a@1#c0": {"title": "t.txt #c0", "rank:CHUNK @ x": 1}, "a@2#c0": {"title": "t.txt #c0", "rank:CHUNK @ y": 2}}
    >>> _index_labelled(rows, ["CHUNK @ x", "CHUNK @ y"])
    {'a@1#c0': 't.txt #c0 [x]', 'a@2#c0': 't.txt #c0 [y]'}
    """
    titles = {key: str(row["title"]) for key, row in rows.items()}
    index_of: dict[str, set[str]] = {
        key: {n.partition(" @ ")[2] for n in names if row.get(f"rank:{n}") is not None and " @ " in n}
        for key, row in rows.items()}
    shared: dict[str, list[str]] = {}
    for key, title in titles.items():
        shared.setdefault(title, []).append(key)
    out = dict(titles)
    for title, keys in shared.items():
        labels = [next(iter(index_of[k])) if len(index_of[k]) == 1 else "" for k in keys]
        if len(keys) > 1 and all(labels) and len(set(labels)) == len(keys):
            for key, label in zip(keys, labels, strict=True):
                out[key] = f"{title} [{label}]"
    return out
