"""``FusionInspector``: every step of one search, and instant what-if re-fusion.

The model (:mod:`agrag_lab.widgets.fusion_model`) is pure data:
:class:`FusionModel` reads a :class:`~agrag_lab.retrieval.run.SearchRun`
and turns its trace into the rows the views show: each method's ranked list
(scores, legs, status, time), the fusion ledger (each source's rank and term,
the fused score), the walk's additions, the community additions, the re-rank
moves and the cut. :meth:`FusionModel.refuse` re-fuses the cached lists with
another ``k``, other weights or another convention through
:meth:`SearchRun.refuse` (no new queries) and returns the new view state.

:class:`FusionInspector` is the widget: sliders and a dropdown bound to the
model, a ledger table with the cut line, stacked contribution bars (plotly),
one tab per step, and a detail pane that shows the selected item's
explanation and its fetched text.

Examples
--------
With a run from ``engine.run(query, recipe)``::

    inspector = FusionInspector(run, session=graph.evidence())
    inspector.k = 5                      # as the slider does
    inspector.view.keys                  # the re-fused order
    inspector.selected = inspector.view.keys[0]
    print(inspector.explanation.value)
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ipywidgets as w
import plotly.graph_objects as go
import traitlets

from agrag_lab.charts import rank_contributions
from agrag_lab.charts.palette import color
from agrag_lab.charts.ranking import contribution_data
from agrag_lab.retrieval.fusion import CONVENTIONS
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.widgets._figures import show_figure
from agrag_lab.widgets._text import TextSource, passages_html, short
from agrag_lab.widgets.fusion_model import FusionModel, FusionView, Row, k_reorders
from agrag_lab.widgets.table import TableView, column
from agrag_lab.widgets.theme import themed

__all__ = [
    "K_RANGE", "WEIGHT_RANGE", "FusionInspector", "FusionModel", "FusionView", "Row", "contribution_data",
    "k_reorders", "update_contributions",
]

#: Slider ranges: k from 1 to 200, weights from 0 (silenced) to 3.
K_RANGE = (1.0, 200.0)
WEIGHT_RANGE = (0.0, 3.0)


# -- the contribution chart, updated in place -----------------------------------------------


def update_contributions(
    chart: go.Figure, run: SearchRun, *, top: int | None = None, sources: Sequence[str] = ()
) -> None:
    """Show ``run``'s contributions in ``chart``, in place whenever the chart has a trace per source.

    A full redraw (the chart function, ~50 ms) happens only when a source
    appears that the chart has no trace for; it then gets an (empty) trace for
    every one of ``sources`` too, so later slider moves update in place.
    """
    order, traces = contribution_data(run, top)
    if not set(traces) <= {t.name for t in chart.data}:
        name = run.trace.recipe.get("name", "recipe")
        fig = rank_contributions(run, top=top, title=f"{name}: contributions by source")
        with chart.batch_update():
            chart.data = ()
            chart.add_traces(list(fig.data))
            chart.layout = fig.layout
            template = fig.data[0].hovertemplate if fig.data else None
            for source in (s for s in sources if s not in traces):
                hover = template.replace(f"source: {fig.data[0].name}<", f"source: {source}<") if template else None
                chart.add_trace(go.Bar(name=source, orientation="h", x=[], y=[], marker={"color": color(source)},
                                       customdata=[], hovertemplate=hover))
        return
    fusion = run.trace.outcome.fusion
    empty: dict[str, list[Any]] = {"x": [], "y": [], "customdata": []}
    with chart.batch_update():
        for trace in chart.data:
            data = traces.get(trace.name, empty)
            trace.x, trace.y, trace.customdata = data["x"], data["y"], data["customdata"]
        chart.layout.yaxis.categoryarray = order
        chart.layout.xaxis.title.text = f"RRF contribution ({fusion.convention}, k={fusion.k:g})"
        chart.layout.height = max(320, 60 + 32 * len(order))
        # the longest bar sets the scale again (a range kept from the last k drew 1.0 as long as 0.5), from zero
        chart.layout.xaxis.autorange = True
        chart.layout.xaxis.rangemode = "tozero"


# -- the widget -----------------------------------------------------------------------------

#: What the coloured left edge of a ledger row means (the "moved" column's legend).
_LEDGER_LEGEND = (
    "<div class='agrag-legend agrag-muted' style='font-size:12px'>"
    f"<span style='border-left:4px solid {color('up')};padding-left:4px'>moved up</span> &nbsp; "
    f"<span style='border-left:4px solid {color('down')};padding-left:4px'>moved down</span> &nbsp; "
    "against the run's own settings (column <i>moved</i>: places gained + or lost −); "
    "hover a row for its id</div>"
)


#: The widest the ledger's item column grows: with three sources' ranks and terms, every number stays in view
#: beside it at 1366x768 (the whole name is in the cell's hover).
LEDGER_TITLE_WIDTH = "16em"


def _ledger_columns(view: FusionView) -> list[dict[str, Any]]:
    # the item first (the table keeps it in sight when the numbers scroll sideways), then the fused score
    cols = [column("title", "title", max_width=LEDGER_TITLE_WIDTH), column("position", "#", "int"),
            column("score", "fused score", "float", digits=5),
            column("moved", "moved", "signed", digits=0, title="places gained (+) or lost (-) against the original run"),
            column("kind", "kind")]
    for source in view.sources:
        cols.append(column(f"rank:{source}", f"{source} rank", "int"))
        cols.append(column(f"term:{source}", f"{source} term", "float", digits=5))
    # the rank fusion gave, only where it differs from the final one (# above): after a re-rank
    if any(row.get("fused_rank") != row.get("position") for row in view.ledger):
        cols.append(column("fused_rank", "fused rank", "int"))
    if view.rerank:
        cols.append(column("rerank_rank", "after re-rank", "int"))
    return cols


class FusionInspector(w.VBox):  # type: ignore[misc]
    """Inspect one run step by step and re-fuse it with sliders (no new queries).

    Parameters
    ----------
    run : SearchRun
        From ``engine.run(query, recipe)``.
    session : EvidenceSession or Graph, optional
        Where the selected item's text is fetched from.
    top : int, optional
        Results shown in the contribution chart (default: all results).

    Traits
    ------
    k : float
        The RRF constant (the k slider).
    weights : dict
        Weight per source (the weight sliders).
    convention : str
        A key of :data:`~agrag_lab.retrieval.fusion.CONVENTIONS`.
    selected : str
        The selected item's key (a click in any table sets it).
    run : SearchRun
        The re-fused run (read it; it is replaced on every change).
    """

    k = traitlets.Float()
    weights = traitlets.Dict()
    convention = traitlets.Unicode()
    selected = traitlets.Unicode("")
    run = traitlets.Instance(SearchRun)

    def __init__(self, run: SearchRun, *, session: TextSource | None = None, top: int | None = None) -> None:
        self.model = FusionModel(run, session=session)
        self.top = top
        view = self.model.view
        self.header = w.HTML()
        self.k_slider = w.FloatSlider(value=view.k, min=K_RANGE[0], max=max(K_RANGE[1], view.k), step=1.0,
                                      description="k", readout_format=".0f", continuous_update=True,
                                      layout=w.Layout(width="30em"))
        self.k_slider.add_class("agrag-k-slider")
        self.convention_dropdown = w.Dropdown(options=list(CONVENTIONS), value=view.convention,
                                              description="convention")
        self.weight_sliders = {
            s: w.FloatSlider(value=view.weights[s], min=WEIGHT_RANGE[0], max=max(WEIGHT_RANGE[1], view.weights[s]),
                             step=0.1, description=f"weight {s}", continuous_update=True, readout_format=".1f",
                             style={"description_width": "initial"})
            for s in view.sources
        }
        self.reset_button = w.Button(description="reset", icon="undo", tooltip="back to the run's settings")
        self.k_note = w.HTML()
        self.ledger_table = TableView(name="ledger", max_height="26em")
        self.ledger_table.add_class("agrag-ledger")
        # a plain figure, shown as plotly's mime bundle in an Output (drawn by JupyterLab's plotly renderer);
        # a FigureWidget (plotly's 5 MB anywidget) could miss anywidget's 2 s start-up window on a busy
        # machine, after which its model drops every update and the chart stays empty
        self.chart = go.Figure()
        self.chart_output = w.Output(layout=w.Layout(width="100%"))
        self.method_tables: dict[str, TableView] = {}
        for name, (caption, rows, legs) in self.model.method_tables.items():
            cols = [column("title", "title"), column("rank", "#", "int"), column("kind", "kind"),
                    column("score", "score", "float"), *[column(f"leg:{leg}", f"{leg} rank", "int") for leg in legs]]
            table = TableView(name=f"method-{name}", caption=caption, columns=cols, rows=list(rows))
            self.method_tables[name] = table
        self.seed_table = TableView(name="walk-seeds", caption="seeds: the fused entity hits inside the limit",
                                    columns=[column("title", "seed"), column("rank", "#", "int")],
                                    empty_text="(no walk in this recipe)", max_height="10em")
        self.walk_table = TableView(name="walk", caption="walk additions (ranked by hop, then seed rank)",
                                    columns=[column("title", "entity"), column("rank", "#", "int"),
                                             column("hop", "hop", "int"), column("seed", "seed"),
                                             column("seed_rank", "seed rank", "int"), column("path", "path"),
                                             column("position", "now at", "int")],
                                    empty_text="(no walk in this recipe: set walk.enabled)")
        self.community_table = TableView(name="communities", caption="community reports added",
                                         columns=[column("title", "report"), column("rank", "#", "int"),
                                                  column("overlap", "entities found", "int"),
                                                  column("entities", "which")],
                                         empty_text="(no community step in this recipe)")
        self.rerank_table = TableView(name="rerank", caption="re-rank moves",
                                      columns=[column("title", "title"), column("before", "fused rank", "int"),
                                               column("after", "after re-rank", "int"),
                                               column("moved", "moved", "signed", digits=0),
                                               column("score", "re-rank score", "float"), column("slot", "slot")],
                                      empty_text="(no re-rank in this recipe)")
        self.cut_html = w.HTML()
        self.legend = w.HTML(_LEDGER_LEGEND)
        self.explanation = w.HTML("<i class='agrag-muted'>select a row to see why it ranked there, and its text</i>")
        self.passages_html = w.HTML()
        tabs = w.Tab(children=[
            w.VBox([self.ledger_table, self.legend, self.cut_html]),
            w.VBox([self.chart_output]),
            w.VBox(list(self.method_tables.values())),
            w.VBox([self.seed_table, self.walk_table]),
            self.community_table,
            self.rerank_table,
        ], titles=("fusion ledger", "contributions chart", "methods", "walk", "communities", "re-rank"))
        tabs.layout = w.Layout(flex="3 1 0%", min_width="0")
        controls = w.VBox([
            w.HBox([self.k_slider, self.convention_dropdown, self.reset_button]),
            self.k_note,
            w.HBox(list(self.weight_sliders.values()), layout=w.Layout(flex_flow="row wrap")),
        ])
        # the detail pane opens beside the tables once a row is selected (a click shows its result without
        # scrolling at 1366x768); until then the tables have the whole width
        detail = w.VBox([w.HTML("<b>selected item</b>"), self.explanation, self.passages_html],
                        layout=w.Layout(flex="2 1 0%", min_width="18em", max_height="34em", overflow="auto",
                                        padding="0 0 0 8px", display="none"))
        detail.add_class("agrag-detail")
        self.detail = detail
        super().__init__(children=[self.header, controls, w.HBox([tabs, detail], layout=w.Layout(width="100%"))])
        themed(self, "agrag-fusion-inspector")
        self.tabs = tabs
        with self.hold_trait_notifications():
            self.k = view.k
            self.weights = dict(view.weights)
            self.convention = view.convention
            self.run = view.run
        traitlets.link((self.k_slider, "value"), (self, "k"))
        traitlets.link((self.convention_dropdown, "value"), (self, "convention"))
        for source, slider in self.weight_sliders.items():
            slider.observe(self._on_weight(source), names="value")
        self.reset_button.on_click(lambda _: self.reset())
        for table in (self.ledger_table, *self.method_tables.values(), self.seed_table, self.walk_table,
                      self.community_table, self.rerank_table):
            table.observe(self._on_table_select, names="selected")
        self.observe(self._on_settings, names=["k", "weights", "convention"])
        self.observe(self._on_selected, names="selected")
        self._sync_weight_sliders()
        self._show(view)

    # -- reactions -------------------------------------------------------------------
    def _on_weight(self, source: str) -> Any:
        def handler(change: dict[str, Any]) -> None:
            self.weights = {**self.weights, source: float(change["new"])}

        return handler

    def _on_settings(self, _change: dict[str, Any]) -> None:
        view = self.model.refuse(k=self.k, weights=self.weights, convention=self.convention)
        self._sync_weight_sliders()
        self._show(view)

    def _sync_weight_sliders(self) -> None:
        """A convention that ignores weights disables their sliders, and each slider's tooltip says why."""
        convention = CONVENTIONS[self.convention]
        for source, slider in self.weight_sliders.items():
            slider.disabled = not convention.uses_weights
            slider.tooltip = ("" if convention.uses_weights else
                              f"the {self.convention} convention ({convention.library}) ignores weights: "
                              f"every source counts 1, so weight {source} changes nothing")

    def _on_table_select(self, change: dict[str, Any]) -> None:
        if change["new"]:
            self.selected = change["new"]

    def _on_selected(self, change: dict[str, Any]) -> None:
        key = change["new"]
        if self.ledger_table.selected != key and key in self.ledger_table.row_keys:
            self.ledger_table.selected = key
        self._show_selection()

    def export_used(self, path: str | Path, format: str | None = None, *, cited: Sequence[str] = ()) -> Path:
        """Export what this run (as re-fused now) used: seeds, walked paths with their scores, reports, results,
        and the ``cited`` passages, as GraphML, GEXF, JSON, Cypher or neo4j-admin CSVs (told by the suffix of
        ``path``, or ``format``; :mod:`agrag_lab.kg.export_formats`). With a session, entities carry the graph's
        own properties."""
        from agrag_lab.evidence.session import EvidenceSession
        from agrag_lab.kg.export_formats import write
        from agrag_lab.kg.graph_store import WHOLE_GRAPH
        from agrag_lab.retrieval.store import IndexSearchStore
        from agrag_lab.retrieval.used import used_subgraph

        session = self.model.session
        holder = session.graph if isinstance(session, EvidenceSession) else session
        store = holder.graph_store if holder is not None else None
        # the graph's own properties where it is held in this process; a served graph's are in its server
        whole = store.whole_graph().graph if isinstance(store, IndexSearchStore) and WHOLE_GRAPH in store.capabilities else None
        return write(used_subgraph(self.run.trace, whole, cited), path, format)

    def reset(self) -> None:
        """Back to the run's own k, weights and convention."""
        with self.hold_trait_notifications():
            self.k = self.model.base_k
            self.convention = self.model.base_convention
            self.weights = dict(self.model.base_weights)
        for source, slider in self.weight_sliders.items():
            slider.value = self.model.base_weights[source]

    @property
    def view(self) -> FusionView:
        """The current view state."""
        return self.model.view

    # -- drawing ---------------------------------------------------------------------
    def _show(self, view: FusionView) -> None:
        trace = view.run.trace
        self.header.value = (
            f"<div class='agrag-header'><b>{html.escape(str(trace.recipe.get('name', '')))}</b> on "
            f"<i>{html.escape(trace.query)}</i> — {len(view.run)} results of {len(view.ledger)} candidates, "
            f"searched in {trace.seconds * 1000:.0f} ms<br>"
            f"<span class='agrag-muted'>{html.escape(view.description)}</span></div>"
        )
        self.ledger_table.columns = _ledger_columns(view)
        self.ledger_table.set_rows(list(view.ledger), cut_after=view.cut if view.cut < len(view.ledger) else -1,
                                   cut_label=view.cut_label)
        self.ledger_table.caption = (
            f"fusion ledger: k={view.k:g}, {view.convention}; one row per candidate, terms add up to the score"
        )
        fusion = view.run.trace.outcome.fusion
        self.k_note.value = "" if k_reorders(fusion) else (
            "<div class='agrag-k-note agrag-muted'>k changes the scores here, not the order: every candidate has "
            "one vote and every vote weighs the same (a weight or a second vote lets k reorder)</div>"
        )
        self.seed_table.rows = list(view.seeds)
        self.walk_table.rows = list(view.walk)
        self.community_table.rows = list(view.communities)
        self.rerank_table.rows = list(view.rerank)
        cut = trace.outcome.cut
        dropped = ", ".join(html.escape(short(trace.items[k].name, 40)) for k in cut.dropped if k in trace.items)
        self.cut_html.value = (
            f"<div class='agrag-cut'>cut at {cut.limit}: {cut.candidates} candidates, "
            f"{max(0, cut.candidates - cut.limit)} dropped" + (f" (first dropped: {dropped})" if dropped else "")
            + "</div>"
        )
        update_contributions(self.chart, view.run, top=self.top, sources=view.sources)
        show_figure(self.chart_output, self.chart)
        self.run = view.run
        if self.selected:
            self._show_selection(text=False)

    def _show_selection(self, *, text: bool = True) -> None:
        key = self.selected
        self.detail.layout.display = "flex" if key else "none"
        if not key:
            self.explanation.value = ""
            self.passages_html.value = ""
            return
        self.explanation.value = f"<pre class='agrag-explanation'>{html.escape(self.model.explain(key))}</pre>"
        if text:  # the text does not change with the fusion settings
            self.passages_html.value = passages_html(self.model.passages(key))
