"""``RecipeComparison``: several recipes on the same queries, side by side.

:class:`ComparisonModel` holds one :class:`~agrag_lab.retrieval.run.SearchRun`
per (recipe, query) and derives everything shown: the ranked lists joined on
the same item (with each item's rank shift against the baseline recipe), the
overlap of every pair of recipes (Jaccard and rank-biased overlap, per query
and on average), and, given a benchmark, each recipe's metrics with
confidence intervals, paired significance tests and per-query wins and
losses (scored by :mod:`agrag_lab.eval` on the same passage projection as
``agrag-lab eval``). :class:`RecipeComparison` is the widget over it.

Examples
--------
::

    from agrag_lab import recipes
    cmp = RecipeComparison(graph.engine(), [recipes.CHUNK, recipes.HYBRID],
                           ["Who worked with Babbage?"])
    cmp.model.overlap(cmp.query)          # Jaccard and RBO of each pair
    cmp.model.side_by_side(cmp.query)     # one row per item, a rank per recipe
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import ipywidgets as w
import plotly.graph_objects as go
import traitlets

from agrag_lab.charts import metric_comparison, rank_contributions, rank_shift, single_votes, wins_losses
from agrag_lab.charts.evaluation import MIN_QUERIES_FOR_INTERVAL
from agrag_lab.errors import AgragError, ViewArgumentError
from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.widgets._figures import show_figure
from agrag_lab.widgets._text import short
from agrag_lab.widgets.measures import jaccard, rbo
from agrag_lab.widgets.table import TableView, column
from agrag_lab.widgets.theme import themed

if TYPE_CHECKING:
    from agrag_lab.eval.benchmark import Benchmark
    from agrag_lab.eval.result import EvalResult
    from agrag_lab.retrieval.engine import SearchEngine

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

        if not callable(getattr(engine, "run", None)):
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
        graphs: Mapping[str, Any],
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
        if not graphs:
            raise ViewArgumentError("graphs must map a label to an index (Graph) or its engine, e.g. {'rules': g1}")
        runs: dict[str, dict[str, SearchRun]] = {}
        failures: dict[str, dict[str, str]] = {}
        texts: dict[str, str] = {}
        for label, graph in graphs.items():
            engine = graph.engine() if callable(getattr(graph, "engine", None)) else graph
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
            marks_of = {m: {"best": mark.best, "sup": mark.sup, "title": mark.title} for m, mark in marked[s.name].items()}
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


# -- the widget ---------------------------------------------------------------------------


class RecipeComparison(w.VBox):  # type: ignore[misc]
    """Several recipes on one query (or a query set) side by side.

    The side-by-side table and the selected item's explanation sit next to
    each other; overlap, rank shift, contributions and the benchmark views
    are tabs below them (so a click shows its result without scrolling on a
    1366x768 screen).

    Parameters
    ----------
    engine : SearchEngine
        Runs the searches (each recipe on each query, once).
    recipes : sequence of Recipe or str
        Two or more recipes (or their names, see :func:`agrag_lab.recipes.get`); names must differ. The first is the baseline
        unless ``baseline`` names another.
    queries : str, sequence of str or mapping, optional
        One query, a list, or ids -> texts (default: the benchmark's judged queries).
    benchmark : Benchmark, optional
        Adds metrics per recipe and per-query wins and losses.
    baseline : str, optional
        The recipe the others are measured against.
    model : ComparisonModel, optional
        Use runs you already have instead of searching (``engine`` may then be None).
    graphs : mapping, optional
        Several indexes of one corpus, label -> ``Graph`` (e.g. ``{"rules": g1, "graphrag": g2}``): every
        recipe runs on each, shown as ``RECIPE @ label`` (``engine`` may then be None;
        :meth:`ComparisonModel.run_graphs`).

    Traits
    ------
    query : str
        The query id shown.
    other : str
        The recipe compared with the baseline in the rank-shift chart.
    metric : str
        The metric of the benchmark views: means, interval, p-value, verdict, charts all follow it.
    overlap_on : str
        ``"passages"`` (documents, as the evaluation scores them) or ``"items"``.
    selected : str
        The item selected in the side-by-side table.
    """

    query = traitlets.Unicode()
    other = traitlets.Unicode()
    metric = traitlets.Unicode("recall@5")
    overlap_on = traitlets.Unicode("passages")
    selected = traitlets.Unicode("")

    def __init__(
        self,
        engine: SearchEngine | None,
        recipes: Sequence[Recipe | str] | Recipe | str = (),
        queries: str | Sequence[str] | Mapping[str, str] | None = None,
        *,
        benchmark: Benchmark | None = None,
        baseline: str | None = None,
        model: ComparisonModel | None = None,
        graphs: Mapping[str, Any] | None = None,
    ) -> None:
        if model is None and graphs is not None:
            model = ComparisonModel.run_graphs(graphs, recipes, queries, benchmark=benchmark, baseline=baseline)
        if model is None:
            if engine is None:
                raise ViewArgumentError("give an engine to run the recipes, or a ComparisonModel with runs")
            model = ComparisonModel.run(engine, recipes, queries, benchmark=benchmark, baseline=baseline)
        self.model = model
        names = model.names
        others = [n for n in names if n != model.baseline] or [model.baseline]
        self.query_dropdown = w.Dropdown(
            options=[(short(f"{qid}: {text}", 90), qid) for qid, text in model.queries.items()],
            description="query", layout=w.Layout(width="40em"),
        )
        self.other_dropdown = w.Dropdown(options=others, value=others[0], description="compare")
        self.header = w.HTML()
        # the item first (its id in the hover; the table keeps it in sight when the numbers scroll sideways),
        # then its kind, its rank under each recipe, the shifts
        cols = [column("title", "item"), column("kind", "kind")]
        cols += [column(f"rank:{name}", name, "int") for name in names]
        for name in names:
            if name != model.baseline:
                cols.append(column(f"shift:{name}", f"shift {name}", "signed", digits=0,
                                   title=f"places gained against {model.baseline}"))
        self.table = TableView(name="side-by-side", columns=cols, max_height="22em",
                               caption=f"ranked lists joined on the same item; shift = places gained against "
                                       f"{model.baseline}; hover a row for its id")
        self.detail = w.HTML("<i class='agrag-muted'>select a row to see where it stands under each recipe</i>")
        # the detail pane opens beside the table once a row is selected; until then the table has the whole width
        detail_box = w.VBox([w.HTML("<b>selected item</b>"), self.detail],
                            layout=w.Layout(flex="2 1 0%", min_width="18em", max_height="28em", overflow="auto",
                                            padding="0 0 0 8px", display="none"))
        self.detail_box = detail_box
        detail_box.add_class("agrag-detail")
        self.table.layout = w.Layout(flex="3 1 0%", min_width="0")
        overlap_cols = [column("a", "recipe a"), column("b", "recipe b"), column("common", "common", "int"),
                        column("jaccard", "Jaccard", "float", digits=3), column("rbo", "RBO", "float", digits=3)]
        self.overlap_toggle = w.ToggleButtons(
            options=[("passages (as evaluated)", "passages"), ("items", "items")], value="passages",
            description="overlap on", tooltips=["documents each result stands for, as agrag-lab eval scores them",
                                                "the returned items themselves (entities, passages, reports)"],
            style={"button_width": "auto"})
        self.overlap_table = TableView(name="overlap", columns=overlap_cols, max_height="10em")
        self.overlap_note = w.HTML()
        mean_cols = [*overlap_cols[:2], column("common", "common", "float", digits=1), *overlap_cols[3:]]
        self.mean_overlap_table = TableView(name="mean-overlap", columns=mean_cols, max_height="10em")
        #: The figures shown, by name: ``shift``, ``contributions:<recipe>``, ``metric``, ``wins``.
        self.figures: dict[str, go.Figure] = {}
        self.shift_chart = w.Output()
        self.contribution_charts = {name: w.Output() for name in names}
        self.contribution_notes = {name: w.HTML() for name in names}
        contributions = w.VBox([
            w.HTML("<span class='agrag-muted'>one chart per recipe: each result's RRF terms by source</span>"),
            *itertools.chain.from_iterable((self.contribution_notes[n], self.contribution_charts[n]) for n in names),
        ])
        pages: list[w.Widget] = [
            w.VBox([self.overlap_toggle, self.overlap_note, w.HBox([self.overlap_table, self.mean_overlap_table])]),
            self.shift_chart, contributions,
        ]
        titles = ["overlap", "rank shift", "contributions"]
        self.metrics_table: TableView | None = None
        self.per_query_table: TableView | None = None
        self.metric_chart: w.Output | None = None
        self.wins_chart: w.Output | None = None
        self.warning = w.HTML()
        if model.evaluation is not None:
            result = model.evaluation
            self.metric_dropdown = w.Dropdown(options=list(result.metrics), value="recall@5", description="metric")
            self.metrics_table = TableView(name="metrics", max_height="12em")
            self.per_query_table = TableView(name="per-query", max_height="20em")
            self.metric_chart = w.Output()
            self.wins_chart = w.Output()
            pages.append(w.VBox([self.metric_dropdown, self.warning, self.metrics_table,
                                 w.HBox([self.metric_chart, self.wins_chart], layout=w.Layout(flex_flow="row wrap")),
                                 self.per_query_table]))
            titles.append("on the benchmark")
            traitlets.link((self.metric_dropdown, "value"), (self, "metric"))
        self.tabs = w.Tab(children=pages, titles=titles)
        super().__init__(children=[
            self.header, w.HBox([self.query_dropdown, self.other_dropdown]),
            w.HBox([self.table, detail_box], layout=w.Layout(width="100%")), self.tabs,
        ])
        themed(self, "agrag-recipe-comparison")
        traitlets.link((self.query_dropdown, "value"), (self, "query"))
        traitlets.link((self.other_dropdown, "value"), (self, "other"))
        traitlets.link((self.overlap_toggle, "value"), (self, "overlap_on"))
        self.table.observe(lambda c: setattr(self, "selected", c["new"]), names="selected")
        self.observe(self._on_query, names=["query", "other"])
        self.observe(self._on_metric, names="metric")
        self.observe(self._on_overlap, names="overlap_on")
        self.observe(self._on_selected, names="selected")
        self._one_document = len(model.documents()) <= 1
        with self.hold_trait_notifications():
            self.query = next(iter(model.queries))
            self.other = others[0]
            if self._one_document:  # on documents every pair would read "identical": compare the items
                self.overlap_on = "items"
        self._show_query()
        self._show_overlap()
        if model.evaluation is not None:
            self._show_metric()

    # -- reactions ----------------------------------------------------------------------
    def _on_query(self, _change: dict[str, Any]) -> None:
        self._show_query()

    def _on_metric(self, _change: dict[str, Any]) -> None:
        self._show_metric()

    def _on_overlap(self, _change: dict[str, Any]) -> None:
        self._show_overlap()

    def _on_selected(self, change: dict[str, Any]) -> None:
        key = change["new"]
        if self.table.selected != key:
            self.table.selected = key
        self.detail_box.layout.display = "flex" if key else "none"
        self.detail.value = (
            f"<pre class='agrag-explanation'>{html.escape(self.model.explain(self.query, key))}</pre>" if key else ""
        )

    # -- drawing ------------------------------------------------------------------------
    def _show_figure(self, name: str, output: w.Output, fig: go.Figure) -> None:
        self.figures[name] = fig
        show_figure(output, fig)

    def _show_overlap(self) -> None:
        on = self.overlap_on
        self.overlap_note.value = (
            "<div class='agrag-warning'>&#9888; every result here stands for one and the same document (this index "
            "holds one document), so on passages every pair of recipes is identical (Jaccard and RBO 1); the "
            "overlap is measured on the items</div>" if self._one_document and on == "passages" else
            "<div class='agrag-muted'>this index holds one document: on passages (as evaluated) every pair would be "
            "identical, so the overlap is on the items</div>" if self._one_document else "")
        what = "documents each result stands for, as the evaluation scores them" if on == "passages" else "items"
        self.overlap_table.caption = f"overlap on this query, on {what} (RBO: rank-biased overlap, p = {RBO_P})"
        self.overlap_table.rows = self.model.overlap(self.query, on)  # type: ignore[arg-type]
        self.mean_overlap_table.caption = f"mean overlap over {len(self.model.queries)} queries, on {on}"
        self.mean_overlap_table.rows = self.model.mean_overlap(on)  # type: ignore[arg-type]

    def _show_query(self) -> None:
        model, qid = self.model, self.query
        text = model.queries[qid]
        failed = [f"{n}: {model.failures[n][qid]}" for n in model.names if qid in model.failures.get(n, {})]
        self.header.value = (
            f"<b>{len(model.names)} recipes</b> on <i>{html.escape(text)}</i> ({html.escape(qid)})"
            + "".join(f"<br><span class='agrag-bad'>&#9888; {html.escape(f)}</span>" for f in failed)
        )
        self.table.set_rows(model.side_by_side(qid))
        self._show_overlap()
        base, other = model.get(model.baseline, qid), model.get(self.other, qid)
        if base is not None and other is not None:
            fig = rank_shift(base, other)
            fig.update_traces(cliponaxis=False)  # item labels may reach past the columns
            self._show_figure("shift", self.shift_chart, fig)
        for name, chart in self.contribution_charts.items():
            run = model.get(name, qid)
            note = self.contribution_notes[name]
            if run is None:
                note.value, chart.outputs = f"<b>{html.escape(name)}</b>: the search failed", ()
                continue
            votes = single_votes(run)
            if votes:  # one bar per result, each only w/(k+rank): the rank again; say so instead
                counts = ", ".join(f"{n} from {html.escape(source)}" for source, n in votes.items())
                note.value = (
                    f"<div class='agrag-single-vote'><b>{html.escape(name)}</b>: every result has a single vote "
                    f"({counts}); its term is w/(k+rank) of that one source, so the order is the source's own "
                    "order and there is nothing to stack</div>"
                )
                chart.outputs = ()
                self.figures.pop(f"contributions:{name}", None)
            else:
                note.value = ""
                fig = rank_contributions(run, title=f"{name}: why each result ranked where it did")
                self._show_figure(f"contributions:{name}", chart, fig)
        if self.selected:
            self._on_selected({"new": self.selected})

    def _show_metric(self) -> None:
        result = self.model.evaluation
        if (result is None or self.metric_chart is None or self.wins_chart is None or self.per_query_table is None
                or self.metrics_table is None):
            return
        metric, model = self.metric, self.model
        warning = model.interval_warning()
        self.warning.value = f"<div class='agrag-warning'>&#9888; {html.escape(warning)}</div>" if warning else ""
        self.metrics_table.columns = [
            column("recipe", "recipe"), *[column(m, m, "float", digits=3) for m in result.metrics],
            column("ci", f"{metric} 95% CI"), column("p", f"{metric} p", title="paired t-test, two-sided"),
            column("verdict", f"vs {model.baseline}", title="better / worse: p < 0.05; else not significant"),
        ]
        self.metrics_table.caption = (
            f"metrics on {result.benchmark} ({len(result.queries)} judged queries); bold: best; superscript: "
            f"significantly above that recipe (p < 0.05); interval, p and verdict for {metric} against "
            f"{model.baseline}"
        )
        self.metrics_table.set_rows(model.metric_rows(metric))
        self._show_figure("metric", self.metric_chart, metric_comparison(result, metric))
        if len(model.names) > 1:
            self._show_figure("wins", self.wins_chart, wins_losses(result, model.baseline, metric))
        cols = [column("query", "query"), column("group", "group")]
        cols += [column(f"m:{n}", n, "float", digits=3) for n in model.names]
        cols += [column(f"outcome:{n}", f"{n} vs {model.baseline}") for n in model.names if n != model.baseline]
        self.per_query_table.columns = cols
        self.per_query_table.caption = f"per query: {metric} (win / tie / loss against {model.baseline})"
        self.per_query_table.set_rows(model.per_query_rows(metric))
