"""``GraphWalkView``: the walk of a search, or of a ``traverse`` call, drawn and interactive.

The model (:mod:`agrag_lab.widgets.walk_model`: :class:`WalkGraph`,
:func:`walk_graph`, :func:`traverse_graph`) is pure data; the figure
(:mod:`agrag_lab.widgets.walk_figure`: :func:`walk_figure`) draws it; this
module makes it a widget: hovering shows a node's description, selecting one
shows its path and supporting passages, and a side list gives every whole name.
The drawing and that node panel stand side by side, both inside 1366x768.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import anywidget
import ipywidgets as w
import traitlets

from agrag_lab.errors import ViewArgumentError
from agrag_lab.graph_source import GraphSource, PassageSource
from agrag_lab.retrieval.run import SearchResult, SearchRun
from agrag_lab.widgets._figures import PLOTLY_MIME, figure_bundle
from agrag_lab.widgets._text import Passage, TextSource, passages_html, read_passages, short
from agrag_lab.widgets.theme import themed
from agrag_lab.widgets.walk_figure import (
    COLOURS,
    LEGEND,
    MAX_HEIGHT_PX,
    NAME_BACKGROUND,
    NO_COMMUNITY,
    SHAPES,
    SIZES,
    _path_xy,
    community_colours,
    fit_width,
    name_width,
    names_html,
    node_style,
    short_name,
    walk_figure,
)
from agrag_lab.widgets.walk_model import (
    KIND_NAMES,
    MEMBER_OF,
    PRIOR_X,
    EdgeKey,
    WalkEdge,
    WalkGraph,
    WalkNode,
    node_title,
    traverse_graph,
    walk_graph,
)

__all__ = [
    "COLOURS", "KIND_NAMES", "LEGEND", "MEMBER_OF", "NAME_BACKGROUND", "NO_COMMUNITY", "PRIOR_X", "SHAPES", "SIZES",
    "EdgeKey", "FitWidth", "GraphWalkView", "WalkEdge", "WalkGraph", "WalkNode", "community_colours", "name_width",
    "names_html", "node_style", "node_title", "short_name", "traverse_graph", "walk_figure", "walk_graph",
]

#: Width of the node panel beside the drawing (select a node, its details and passages, every whole name).
PANEL_WIDTH = "min(32%, 340px)"


class FitWidth(anywidget.AnyWidget):
    """The walk figure's helper in the page: the whole width of the cell, and clicks on nodes.

    The figure is a plotly mime bundle in an ``Output`` (drawn by JupyterLab's
    plotly renderer, plotly.js loaded once). This small invisible widget tells
    plotly when the view's width changes (plotly follows its container only
    on a window resize) and reports a click on a node (a point whose
    ``customdata`` is a node id) as :attr:`clicked`, so the view can select it.
    It is small on purpose: anywidget gives a widget's code 2 s to load, and
    plotly's own 5 MB ``FigureWidget`` can miss that window on a busy machine,
    after which its model drops every update (the chart stays empty).
    """

    clicked = traitlets.Unicode("").tag(sync=True)

    _esm = """
    function render({ model, el }) {
      el.style.display = "none";
      let last = 0, observer = null, hooked = null, stopped = false;
      const plotOf = () => {
        const box = el.closest(".agrag-graph-walk");
        return [box, box && box.querySelector(".js-plotly-plot")];
      };
      // The figure follows the cell's width (plotly's "responsive"), and keeps its own height: on a resize plotly
      // drops a layout height given without a width and sizes the plot to its box, whose height is 0 in an
      // output (the plot then collapsed to nothing, the controls below drew over it and no hover reached it).
      const hold = (plot) => {
        const height = (plot.layout && plot.layout.height) || (plot._fullLayout && plot._fullLayout.height);
        if (height && plot.style.minHeight !== `${height}px`) plot.style.minHeight = `${height}px`;
      };
      const nudge = () => {
        const [box, plot] = plotOf();
        if (!plot || !plot._fullLayout || !(plot.data && plot.data.length)) { setTimeout(nudge, 200); return; }
        hold(plot);
        const width = box.getBoundingClientRect().width;
        if (width && Math.abs(width - last) > 2) { last = width; window.dispatchEvent(new Event("resize")); }
      };
      // every redraw of the figure (a selection) replaces the plot element: hook each new one
      const hook = () => {
        if (stopped) return;
        const [, plot] = plotOf();
        if (plot && plot !== hooked && typeof plot.on === "function" && plot._fullLayout) {
          hooked = plot;
          hold(plot);
          plot.on("plotly_click", (event) => {
            const point = event && event.points && event.points[0];
            const id = point && point.customdata;
            if (typeof id === "string" && id) {
              model.set("clicked", "");
              model.set("clicked", id);
              model.save_changes();
            }
          });
        }
        setTimeout(hook, 300);
      };
      const start = () => {
        const [box] = plotOf();
        if (!box) { requestAnimationFrame(start); return; }
        observer = new ResizeObserver(() => setTimeout(nudge, 50));
        observer.observe(box);
        setTimeout(nudge, 100);
        hook();
      };
      start();
      return () => { stopped = true; if (observer) observer.disconnect(); };
    }
    export default { render };
    """


class GraphWalkView(w.VBox):  # type: ignore[misc]
    """The walk as a graph: seeds, hops, relation types, communities; select a node to read its support.

    Parameters
    ----------
    source : SearchRun, WalkGraph, or list of SearchResult
        A run whose recipe walks the graph, a prepared :class:`WalkGraph`, or
        the results of ``engine.traverse(seed, ...)`` (then give ``seed`` and ``graph``).
    graph : Graph, SearchEngine or graph store, optional
        Adds communities, report titles and descriptions; required for traverse results.
    session : EvidenceSession or Graph, optional
        Where the supporting passages are fetched from (default: ``graph``).
    seed : SearchResult, optional
        The entity a traverse started from.
    relation_type, direction, depth
        The traverse call's settings (to recover its paths).

    Traits
    ------
    selected : str
        The selected node id (a click on a node, or the dropdown, sets it).
    """

    selected = traitlets.Unicode("")

    def __init__(
        self,
        source: SearchRun | WalkGraph | Sequence[SearchResult],
        *,
        graph: GraphSource | None = None,
        session: TextSource | None = None,
        seed: SearchResult | None = None,
        relation_type: str | None = None,
        direction: str = "both",
        depth: int | None = None,
    ) -> None:
        if isinstance(source, WalkGraph):
            self.graph = source
        elif isinstance(source, SearchRun):
            self.graph = walk_graph(source, graph=graph)
        else:
            if seed is None or graph is None:
                raise ViewArgumentError("traverse results need the seed they started from and the graph: "
                                 "GraphWalkView(results, seed=seed, graph=graph)")
            self.graph = traverse_graph(seed, list(source), graph, relation_type=relation_type,
                                        direction=direction, depth=depth)
        self.session: TextSource | None = session if session is not None else (graph if isinstance(graph, PassageSource) else None)
        # a plain figure shown as a plotly mime bundle (see FitWidth for why not a FigureWidget)
        self.figure = walk_figure(self.graph)
        self.output = w.Output(layout=w.Layout(width="100%"))
        self.bridge = FitWidth()
        self.node_dropdown = w.Dropdown(
            options=[("(select a node)", "")] + [
                (f"{n.title} [{KIND_NAMES.get(n.kind, n.kind)}, {n.role}]", n.id) for n in self.graph.nodes
            ],
            description="node", layout=w.Layout(width="100%"),
        )
        self.info = w.HTML()
        self.passages = w.HTML()
        self.header = w.HTML(
            f"<div class='agrag-walk-header'><b>Graph walk</b> — {html.escape(self.graph.summary())}</div>"
        )
        self.names = w.HTML(names_html(self.graph))
        # two columns that fit 1366x768: the drawing, and beside it the node panel (select a node, its details and
        # passages, every whole name), as tall as the drawing and scrolled inside itself
        # (a longer walk's drawing needs the cell's width: the panel then wraps below it)
        height = int(self.figure.layout.height or MAX_HEIGHT_PX)
        columns = len({n.x for n in self.graph.nodes})
        self.canvas = w.VBox([self.output, self.bridge],
                             layout=w.Layout(flex="1 1 auto", min_width=f"{fit_width(columns) - 60}px", width="auto"))
        self.panel = w.VBox(
            [self.node_dropdown, self.info, self.passages, self.names],
            layout=w.Layout(flex="0 0 auto", width=PANEL_WIDTH, max_height=f"{height}px", overflow="auto",
                            padding="0 4px"),
        )
        self.panel.add_class("agrag-walk-panel")
        super().__init__(children=[self.header, w.HBox([self.canvas, self.panel],
                                                       layout=w.Layout(width="100%", flex_flow="row wrap"))],
                         layout=w.Layout(width="100%"))
        themed(self, "agrag-graph-walk")
        traitlets.link((self.node_dropdown, "value"), (self, "selected"))
        self.bridge.observe(self._on_click, names="clicked")
        self.observe(self._on_selected, names="selected")
        self._draw()

    def _draw(self) -> None:
        # the whole width of the cell, scroll to zoom, drag to pan
        bundle = figure_bundle(self.figure)
        bundle[PLOTLY_MIME]["config"] = {"responsive": True, "scrollZoom": True, "displaylogo": False}
        self.output.outputs = ({"output_type": "display_data", "data": bundle, "metadata": {}},)

    def _on_click(self, change: dict[str, Any]) -> None:
        node_id = change["new"]
        if node_id and any(n.id == node_id for n in self.graph.nodes):
            self.selected = node_id

    def _on_selected(self, change: dict[str, Any]) -> None:
        node_id = change["new"]
        pos = {n.id: (n.x, n.y) for n in self.graph.nodes}
        xs, ys = _path_xy(self.graph, node_id or None, pos)
        with self.figure.batch_update():
            self.figure.data[1].x, self.figure.data[1].y = xs, ys
            self.figure.data[1].showlegend = bool(xs)
        self._draw()
        if not node_id:
            self.info.value = ""
            self.passages.value = ""
            return
        node = self.graph.node(node_id)
        kind = KIND_NAMES.get(node.kind, node.kind) + (f", {node.label}" if node.label else "")
        self.info.value = (
            f"<div class='agrag-node'><b>{html.escape(node.title)}</b> ({html.escape(kind)}), {node.role}"
            f"{f', {node.hop} steps' if node.hop else ''}; community: {html.escape(node.community_title or 'none')}<br>"
            f"path: {html.escape(self.graph.path_text(node_id))}<br>"
            f"<span class='agrag-muted'>{html.escape(short(node.description, 400))}</span></div>"
        )
        shown = passages_html(self.supporting_passages(node_id))
        self.passages.value = shown or "<i class='agrag-muted'>no supporting passages</i>"

    def supporting_passages(self, node_id: str, limit: int = 3) -> list[Passage]:
        """Up to ``limit`` passages that support ``node_id``, read from the session or graph."""
        node = self.graph.node(node_id)
        return read_passages(self.session, list(node.chunk_ids[:limit]))
