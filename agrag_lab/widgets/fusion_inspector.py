"""``FusionInspector``: every step of one search, and instant what-if re-fusion.

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
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as w
import plotly.graph_objects as go
import traitlets

from agrag_lab.charts import rank_contributions
from agrag_lab.charts.palette import color
from agrag_lab.charts.ranking import contribution_data
from agrag_lab.errors import ViewArgumentError
from agrag_lab.retrieval.fusion import CONVENTIONS, Fusion
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.retrieval.steps.communities import COMMUNITY_SOURCE
from agrag_lab.retrieval.steps.walk import WALK_SOURCE
from agrag_lab.widgets._figures import show_figure
from agrag_lab.widgets._text import Passage, passages_html, read_passages, short
from agrag_lab.widgets.table import TableView, column
from agrag_lab.widgets.theme import themed

Row = dict[str, Any]

#: Slider ranges: k from 1 to 200, weights from 0 (silenced) to 3.
K_RANGE = (1.0, 200.0)
WEIGHT_RANGE = (0.0, 3.0)


@dataclass(frozen=True)
class FusionView:
    """What the views show for one set of fusion settings (derived, read-only).

    ``ledger`` has one row per fused candidate in final order (after any
    re-rank); the first ``cut`` rows are the results. ``moved`` in a row is
    how many places the item rose (+) or fell (-) against the original run.
    """

    run: SearchRun
    k: float
    weights: Mapping[str, float]
    convention: str
    description: str
    sources: tuple[str, ...]
    ledger: tuple[Row, ...]
    cut: int
    cut_label: str
    seeds: tuple[Row, ...]
    walk: tuple[Row, ...]
    communities: tuple[Row, ...]
    rerank: tuple[Row, ...]

    @property
    def keys(self) -> tuple[str, ...]:
        """The results (after the cut), best first."""
        return self.run.keys

    @property
    def order(self) -> tuple[str, ...]:
        """Every fused candidate in final order (results first, then below the cut)."""
        return tuple(str(r["_key"]) for r in self.ledger)


def k_reorders(fusion: Fusion) -> bool:
    """Whether another ``k`` can change the order of ``fusion``'s candidates.

    With one vote per candidate and every vote weighted the same, each score
    is ``w / (k + rank)``: any ``k`` keeps the ranks' order, so ``k`` changes
    the scores only. A second vote, or unequal weights, let ``k`` reorder.

    Examples
    --------
    >>> from agrag_lab.retrieval.fusion import rrf
    >>> k_reorders(rrf({"a": ["x", "y"], "b": ["z"]}, k=60))
    False
    >>> k_reorders(rrf({"a": ["x", "y"], "b": ["z"]}, k=60, weights={"b": 2.0}))
    True
    >>> k_reorders(rrf({"a": ["x", "y"], "b": ["y", "z"]}, k=60))
    True
    """
    weights = {c.weight for item in fusion.items for c in item.contributions}
    return len(weights) > 1 or any(len(item.contributions) > 1 for item in fusion.items)


def _final_order(run: SearchRun) -> list[str]:
    out = run.trace.outcome
    if out.rerank is not None:
        return [m.key for m in sorted(out.rerank.moves, key=lambda m: m.after)]
    return list(out.fusion.keys)


class FusionModel:
    """The rows of every step of a run, re-fused on demand (pure Python).

    Parameters
    ----------
    run : SearchRun
        The search to inspect.
    session : EvidenceSession or Graph, optional
        Where the selected item's text is fetched from (default: the trace's text).
    """

    def __init__(self, run: SearchRun, *, session: Any | None = None) -> None:
        if not isinstance(run, SearchRun):
            raise ViewArgumentError(
                f"the fusion inspector shows one SearchRun (engine.run(query, recipe)), not {type(run).__name__}"
            )
        self.base = run
        self.session = session
        fusion = run.trace.outcome.fusion
        recipe_weights = dict(run.trace.recipe.get("fusion", {}).get("weights", {}) or {})
        self.sources = self._sources(run)
        self.base_weights = {s: float(recipe_weights.get(s, 1.0)) for s in self.sources}
        self.base_k = float(fusion.k)
        self.base_convention = fusion.convention
        self._base_order = {key: i for i, key in enumerate(_final_order(run), 1)}
        self.method_tables = self._method_tables(run)
        self.view = self._view(run, self.base_k, self.base_weights, self.base_convention)

    @staticmethod
    def _sources(run: SearchRun) -> tuple[str, ...]:
        out = [m.name for m in run.trace.methods]
        if run.trace.outcome.walk is not None:
            out.append(WALK_SOURCE)
        if run.trace.outcome.communities is not None:
            out.append(COMMUNITY_SOURCE)
        return tuple(out)

    # -- re-fusion -------------------------------------------------------------------
    def refuse(
        self,
        *,
        k: float | None = None,
        weights: Mapping[str, float] | None = None,
        convention: str | None = None,
    ) -> FusionView:
        """Re-fuse with these settings (unset ones keep their current value); no new queries."""
        new_k = float(k) if k is not None else self.view.k
        new_weights = {**self.view.weights, **(weights or {})}
        new_convention = convention or self.view.convention
        if (
            math.isclose(new_k, self.base_k)
            and new_convention == self.base_convention
            and all(math.isclose(new_weights[s], self.base_weights[s]) for s in self.sources)
        ):
            run = self.base
        else:
            run = self.base.refuse(k=new_k, weights=new_weights, convention=new_convention)
        self.view = self._view(run, new_k, new_weights, new_convention)
        return self.view

    def reset(self) -> FusionView:
        """Back to the run's own settings."""
        return self.refuse(k=self.base_k, weights=self.base_weights, convention=self.base_convention)

    # -- rows ------------------------------------------------------------------------
    def _view(self, run: SearchRun, k: float, weights: Mapping[str, float], convention: str) -> FusionView:
        trace = run.trace
        out = trace.outcome
        items = trace.items
        fused_rank = {item.key: i for i, item in enumerate(out.fusion.items, 1)}
        fused = {item.key: item for item in out.fusion.items}
        rerank_after = {m.key: m.after for m in out.rerank.moves} if out.rerank else {}
        ledger: list[Row] = []
        for position, key in enumerate(_final_order(run), 1):
            info = items.get(key)
            item = fused[key]
            before = self._base_order.get(key)
            moved = 0 if before is None else before - position
            row: Row = {
                "_key": key, "_tone": "up" if moved > 0 else "down" if moved < 0 else "",
                "position": position, "kind": info.kind if info else "?",
                "title": info.name if info else key, "_hover": key, "score": item.score,
                "fused_rank": fused_rank[key], "moved": moved, "kept": position <= out.cut.limit,
            }
            if out.rerank is not None:
                row["rerank_rank"] = rerank_after.get(key)
            for c in item.contributions:
                row[f"rank:{c.source}"] = c.rank
                row[f"term:{c.source}"] = c.term
            ledger.append(row)
        cut = min(out.cut.limit, len(ledger))
        cut_label = (
            f"cut: the first {out.cut.limit} of {out.cut.candidates} candidates are returned "
            f"(limit {out.cut.limit}); the rest fall below the line"
        )
        seeds: tuple[Row, ...] = ()
        walk_rows: tuple[Row, ...] = ()
        if out.walk is not None:
            seeds = tuple(
                {"_key": s, "rank": i, "title": items[s].name if s in items else s, "_hover": s}
                for i, s in enumerate(out.walk.seeds, 1)
            )
            final = {key: i for i, key in enumerate(_final_order(run), 1)}
            walk_rows = tuple(
                {
                    "_key": a.entity, "rank": a.rank,
                    "title": items[a.entity].name if a.entity in items else a.entity, "_hover": a.entity,
                    "hop": a.hop, "seed": short(items[a.seed].name if a.seed in items else a.seed, 30),
                    "seed_rank": a.seed_rank, "path": self._path_text(run, a.path), "position": final.get(a.entity),
                }
                for a in out.walk.additions
            )
        community_rows: tuple[Row, ...] = ()
        if out.communities is not None:
            community_rows = tuple(
                {
                    "_key": c.community, "rank": c.rank,
                    "title": items[c.community].name if c.community in items else c.community,
                    "_hover": c.community,
                    "overlap": c.overlap,
                    "entities": short(", ".join(items[e].name if e in items else e for e in c.entities), 80),
                }
                for c in out.communities
            )
        rerank_rows: tuple[Row, ...] = ()
        if out.rerank is not None:
            rerank_rows = tuple(
                {
                    "_key": m.key, "_tone": "up" if m.after < m.before else "down" if m.after > m.before else "",
                    "title": items[m.key].name if m.key in items else m.key, "_hover": m.key,
                    "before": m.before,
                    "after": m.after, "moved": m.before - m.after, "score": m.score,
                    "slot": "kept a report slot" if m.kept_slot else "",
                }
                for m in out.rerank.moves
            )
        return FusionView(
            run, k, dict(weights), convention, out.fusion.description, self.sources, tuple(ledger), cut,
            cut_label, seeds, walk_rows, community_rows, rerank_rows,
        )

    @staticmethod
    def _path_text(run: SearchRun, path: Any) -> str:
        items = run.trace.items

        def name(key: str) -> str:
            return short(items[key].name, 32) if key in items else key

        if not path:
            return "(direct)"
        parts = [name(path[0].source)]
        for step in path:
            parts.append(f"-[{step.relation}]-> {name(step.target)}")
        return " ".join(parts)

    @staticmethod
    def _method_tables(run: SearchRun) -> dict[str, tuple[str, tuple[Row, ...], tuple[str, ...]]]:
        items = run.trace.items
        tables: dict[str, tuple[str, tuple[Row, ...], tuple[str, ...]]] = {}
        for method in run.trace.methods:
            legs = tuple(method.legs)
            leg_rank = {leg: {h.key: h.rank for h in hits} for leg, hits in method.legs.items()}
            rows = []
            for hit in method.hits:
                info = items.get(hit.key)
                row: Row = {
                    "_key": hit.key, "rank": hit.rank, "kind": info.kind if info else "?",
                    "title": info.name if info else hit.key, "_hover": hit.key, "score": hit.score,
                }
                for leg in legs:
                    row[f"leg:{leg}"] = leg_rank[leg].get(hit.key)
                rows.append(row)
            caption = (
                f"{method.name}: {method.status}, {method.seconds * 1000:.0f} ms, {len(method.hits)} hits"
                + (f"; legs: {', '.join(legs)}" if legs else "")
                + (f" — {method.error}" if method.error else "")
            )
            tables[method.name] = (caption, tuple(rows), legs)
        return tables

    # -- selection -------------------------------------------------------------------
    def explain(self, key: str) -> str:
        """Why ``key`` stands where it does under the current settings."""
        run = self.view.run
        if key in run.keys:
            return run.explain(run.keys.index(key))
        rows = {str(r["_key"]): r for r in self.view.ledger}
        if key not in rows:
            return f"{key} is not among this run's fused candidates"
        row = rows[key]
        fused = next(i for i in run.trace.outcome.fusion.items if i.key == key)
        terms = " + ".join(f"{c.term:.5f} [{c.source} rank {c.rank}]" for c in fused.contributions)
        out = run.trace.outcome
        return (
            f"#{row['position']} {row['kind']} {row['title']!r} — below the cut\n"
            f"  fused score {fused.score:.5f} = {terms}  ({out.fusion.convention}, k={out.fusion.k:g})\n"
            f"  fused rank {row['fused_rank']}; cut: only the first {out.cut.limit} of {out.cut.candidates} "
            "candidates are returned"
        )

    def passages(self, key: str) -> list[Passage]:
        """The text of ``key``: a chunk itself; an entity or report with up to 3 supporting passages."""
        info = self.base.trace.items.get(key)
        if info is None:
            return []
        if info.kind == "chunk":
            return read_passages(self.session, [key], {key: info.text})
        own = Passage(key, info.title, info.text, f"{info.kind} (stored in the index)", name=info.name)
        return [own, *read_passages(self.session, list(info.chunk_ids[:3]))]


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


def _ledger_columns(view: FusionView) -> list[dict[str, Any]]:
    # the item first (the table keeps it in sight when the numbers scroll sideways), then the fused score
    cols = [column("title", "title"), column("position", "#", "int"),
            column("score", "fused score", "float", digits=5),
            column("moved", "moved", "signed", digits=0, title="places gained (+) or lost (-) against the original run"),
            column("kind", "kind")]
    for source in view.sources:
        cols.append(column(f"rank:{source}", f"{source} rank", "int"))
        cols.append(column(f"term:{source}", f"{source} term", "float", digits=5))
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

    def __init__(self, run: SearchRun, *, session: Any | None = None, top: int | None = None) -> None:
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
        self._show(view)

    # -- reactions -------------------------------------------------------------------
    def _on_weight(self, source: str) -> Any:
        def handler(change: dict[str, Any]) -> None:
            self.weights = {**self.weights, source: float(change["new"])}

        return handler

    def _on_settings(self, _change: dict[str, Any]) -> None:
        view = self.model.refuse(k=self.k, weights=self.weights, convention=self.convention)
        self._show(view)

    def _on_table_select(self, change: dict[str, Any]) -> None:
        if change["new"]:
            self.selected = change["new"]

    def _on_selected(self, change: dict[str, Any]) -> None:
        key = change["new"]
        if self.ledger_table.selected != key and key in self.ledger_table.row_keys:
            self.ledger_table.selected = key
        self._show_selection()

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
