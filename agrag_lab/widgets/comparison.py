"""``RecipeComparison``: several recipes on the same queries, side by side.

The model (:mod:`agrag_lab.widgets.comparison_model`) is pure data:
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
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import plotly.graph_objects as go
import traitlets

from agrag_lab.charts import metric_comparison, rank_contributions, rank_shift, single_votes, wins_losses
from agrag_lab.errors import ViewArgumentError
from agrag_lab.recipes import Recipe
from agrag_lab.widgets._figures import show_figure
from agrag_lab.widgets._text import short
from agrag_lab.widgets.comparison_model import RBO_P, ComparisonModel, OverlapOn, Row, normalise_queries
from agrag_lab.widgets.table import TableView, column
from agrag_lab.widgets.theme import themed

if TYPE_CHECKING:
    from agrag_lab.eval.benchmark import Benchmark
    from agrag_lab.retrieval.engine import SearchEngine

__all__ = ["RBO_P", "ComparisonModel", "OverlapOn", "RecipeComparison", "Row", "normalise_queries"]


# -- the widget ---------------------------------------------------------------------------


#: More recipes than this and the side-by-side table heads its rank columns with letters and leaves the
#: shifts to the selected row's detail: ten recipes then fit a 1366 px screen with every number in view.
WIDE_RECIPES = 4
#: What the overlap tables' two measures say, where both appear (they often disagree, and rightly).
OVERLAP_MEASURES = (
    "<div class='agrag-muted'><b>Jaccard</b>: the share of items in either list that are in both, order ignored. "
    f"<b>RBO</b> (rank-biased overlap, p = {RBO_P}): agreement weighted towards the top. RBO 1.000 with Jaccard "
    "0.250 means the lists open with the same items and part ways further down.</div>"
)


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
        wide = len(names) > WIDE_RECIPES  # ten recipes must fit 1366 px: letters head the rank columns, no shifts
        letters = model.letters
        cols += [column(f"rank:{name}", letters[name] if wide else name, "int", title=name) for name in names]
        if not wide:
            for name in names:
                if name != model.baseline:
                    cols.append(column(f"shift:{name}", f"shift {name}", "signed", digits=0,
                                       title=f"places gained against {model.baseline}"))
        key = "; ".join(f"{letters[n]} = {n}" for n in names)
        self.table = TableView(name="side-by-side", columns=cols, max_height="22em",
                               caption=(f"ranked lists joined on the same item, rank under each recipe ({key}); "
                                        "select a row for where it stands under each; hover a row for its id") if wide else
                               (f"ranked lists joined on the same item; shift = places gained against "
                                f"{model.baseline}; hover a row for its id"))
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
            # one above the other: side by side, long recipe names (two indexes) pushed the numbers out of view
            w.VBox([self.overlap_toggle, self.overlap_note, w.HTML(OVERLAP_MEASURES), self.overlap_table,
                    self.mean_overlap_table]),
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
        wide = len(model.names) > WIDE_RECIPES  # as the side-by-side table: letters, the outcomes in the tones
        letters = model.letters
        cols += [column(f"m:{n}", letters[n] if wide else n, "float", digits=3, title=n) for n in model.names]
        if not wide:
            cols += [column(f"outcome:{n}", f"{n} vs {model.baseline}") for n in model.names if n != model.baseline]
        self.per_query_table.columns = cols
        key = "; ".join(f"{letters[n]} = {n}" for n in model.names)
        self.per_query_table.caption = (f"per query: {metric} under each recipe ({key})" if wide else
                                        f"per query: {metric} (win / tie / loss against {model.baseline})")
        self.per_query_table.set_rows(model.per_query_rows(metric))
