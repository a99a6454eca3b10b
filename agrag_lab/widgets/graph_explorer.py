"""``GraphExplorer``: the whole knowledge graph, one community, one document or a neighbourhood, drawn.

The widget binds the explorer's model (:mod:`agrag_lab.widgets.graph_explorer_model`: the view, the details of
a click, the tables, the search) to synced state: Python holds only the view, the selection and the details;
the browser draws with sigma.js (WebGL, vendored under ``widgets/vendor/``), and searching, colouring,
hovering and the ForceAtlas2 layout (a web worker, so the page never blocks) run in JavaScript
(``graph_explorer.js``).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets as w
import polars as pl
import traitlets

from agrag_lab.errors import ExplorerError, NotFoundError
from agrag_lab.graph_source import GraphSource
from agrag_lab.widgets.graph_explorer_model import (
    GROUP_COLOURS,
    NEIGHBOURHOOD_LIMIT,
    TABLE_ROWS,
    ExplorerView,
    community_layout,
    community_table,
    entity_table,
    explorer_view,
    node_details,
    relation_table,
    scope_request,
    search,
)
from agrag_lab.widgets.table import TableView, column
from agrag_lab.widgets.theme import themed

__all__ = [
    "GROUP_COLOURS",
    "NEIGHBOURHOOD_LIMIT",
    "TABLE_ROWS",
    "ExplorerCanvas",
    "ExplorerView",
    "GraphExplorer",
    "community_layout",
    "community_table",
    "entity_table",
    "explorer_view",
    "node_details",
    "relation_table",
]

_HERE = Path(__file__).resolve().parent


def _esm() -> str:
    vendor = (_HERE / "vendor" / "graph-explorer-vendor.js").read_text(encoding="utf-8")
    return vendor + "\n" + (_HERE / "graph_explorer.js").read_text(encoding="utf-8")


class ExplorerCanvas(anywidget.AnyWidget):
    """The drawn graph (sigma.js): synced state only; see :class:`GraphExplorer`.

    Traits (synced)
    ---------------
    view : dict
        :meth:`ExplorerView.state`.
    colour_by : {"community", "label"}
    selected : str
        The clicked or searched entity (``""``: none).
    details : dict
        :func:`node_details` of ``selected``.
    scope : dict
        Asked for from the browser ("show its neighbourhood", "show its community", "whole graph").
    timings : dict
        Milliseconds the browser measured: ``first_frame``, ``interactive``, ``layout``.
    """

    _esm = _esm()
    _css = _HERE / "graph_explorer.css"

    view = traitlets.Dict().tag(sync=True)
    colour_by = traitlets.Unicode("community").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    details = traitlets.Dict().tag(sync=True)
    scope = traitlets.Dict().tag(sync=True)
    layout_seconds = traitlets.Float(4.0).tag(sync=True)
    height = traitlets.Unicode("560px").tag(sync=True)
    timings = traitlets.Dict().tag(sync=True)


def _rows(frame: pl.DataFrame, key: str, limit: int = TABLE_ROWS) -> list[dict[str, Any]]:
    return [{"_key": str(r[key]), **r} for r in frame.head(limit).to_dicts()]


class GraphExplorer(w.VBox):  # type: ignore[misc]
    """The knowledge graph, drawn: search by name, click for details, tables beside it.

    Parameters
    ----------
    graph : Graph
        An index folder opened with :meth:`~agrag_lab.graph.Graph.open` (ours, or
        imported from GraphRAG).
    community, document, entity, depth
        What to show first (default: the whole graph); see :func:`explorer_view`.
    colour_by : {"community", "label"}
        Node colour: top-level community, or entity label.
    layout_seconds : float
        How long the ForceAtlas2 worker refines the layout in the browser (0: keep the starting positions).

    Attributes
    ----------
    entities, relations, communities : polars.DataFrame
        The tables of the current view (the widgets show their first rows).

    Examples
    --------
    ::

        from agrag_lab.lab import open_workshop
        from agrag_lab.widgets import GraphExplorer

        explorer = GraphExplorer(open_workshop())
        explorer.show(entity=explorer.search("Ada")[0])
    """

    def __init__(
        self,
        graph: GraphSource,
        *,
        community: str | None = None,
        document: str | None = None,
        entity: str | None = None,
        depth: int = 1,
        colour_by: str = "community",
        layout_seconds: float = 4.0,
        height: str = "560px",
    ) -> None:
        if colour_by not in ("community", "label"):
            raise ExplorerError(f"colour_by must be 'community' or 'label' (got {colour_by!r})")
        self.graph = graph
        self.canvas = ExplorerCanvas(colour_by=colour_by, layout_seconds=layout_seconds, height=height)
        self.entity_view = TableView(name="explorer-entities", columns=[
            column("name", "entity"), column("label", "label"), column("degree", "degree", "int"),
            column("passages", "passages", "int"), column("community", "community"),
        ], max_height="18em")
        self.relation_view = TableView(name="explorer-relations", columns=[
            column("source", "source"), column("type", "relation"), column("target", "target"),
        ], max_height="18em")
        self.community_view = TableView(name="explorer-communities", columns=[
            column("title", "community"), column("level", "level", "int"), column("size", "size", "int"),
            column("in_view", "in view", "int"),
        ], max_height="18em")
        self.tables = w.Tab(children=[self.entity_view, self.relation_view, self.community_view])
        for i, name in enumerate(("entities", "relations", "communities")):
            self.tables.set_title(i, name)
        self.caption = w.HTML()
        super().__init__(children=[self.canvas, self.caption, self.tables])
        themed(self, "agrag-graph-explorer")
        self.canvas.observe(self._on_selected, names="selected")
        self.canvas.observe(self._on_scope, names="scope")
        self.entity_view.observe(self._on_table_row, names="selected")
        self.show(community=community, document=document, entity=entity, depth=depth)

    # -- Python API ----------------------------------------------------------------

    def show(
        self, *, community: str | None = None, document: str | None = None, entity: str | None = None, depth: int = 1
    ) -> ExplorerView:
        """Draw another part of the graph (no argument: the whole graph); returns the new view."""
        view = explorer_view(self.graph, community=community, document=document, entity=entity, depth=depth)
        self.view = view
        self.entities = entity_table(view, self.graph)
        self.relations = relation_table(view)
        self.communities = community_table(view, self.graph)
        with self.canvas.hold_sync():
            self.canvas.view = view.state()
            self.canvas.selected = entity or ""
        self.entity_view.set_rows(_rows(self.entities, "id"))
        self.relation_view.set_rows([{"_key": f"{r['source_id']}|{r['type']}|{r['target_id']}", **r}
                                     for r in self.relations.head(TABLE_ROWS).to_dicts()])
        self.community_view.set_rows(_rows(self.communities, "id"))
        def note(frame: pl.DataFrame) -> str:
            return f"first {TABLE_ROWS:,} of {frame.height:,}" if frame.height > TABLE_ROWS else f"{frame.height:,}"

        self.caption.value = (
            f"<span class='agrag-explorer-caption'>tables: {note(self.entities)} entities (by degree), "
            f"{note(self.relations)} relations, {note(self.communities)} communities; "
            "<code>explorer.entities</code>, <code>.relations</code> and <code>.communities</code> "
            "are the whole polars tables</span>"
        )
        return view

    def search(self, text: str, limit: int = 10) -> list[str]:
        """Entity ids in view whose name contains ``text`` (case-insensitive), best connected first."""
        return search(self.view, text, limit)

    def select(self, entity: str) -> dict[str, Any]:
        """Select an entity (as a click does); returns its details."""
        self.view.index(entity)
        self.canvas.selected = entity
        return dict(self.canvas.details)

    # -- events ----------------------------------------------------------------------

    def _on_selected(self, change: dict[str, Any]) -> None:
        node = change["new"]
        self.canvas.details = node_details(self.graph, node) if node else {}
        if node and node in self.entity_view.row_keys and self.entity_view.selected != node:
            self.entity_view.selected = node

    def _on_table_row(self, change: dict[str, Any]) -> None:
        if change["new"] and change["new"] != self.canvas.selected:
            self.canvas.selected = change["new"]

    def _on_scope(self, change: dict[str, Any]) -> None:
        try:
            shown = scope_request(change["new"])
            if shown is not None:
                self.show(**shown)
        except (ExplorerError, NotFoundError) as exc:
            self.caption.value = f"<span class='agrag-explorer-error'>{html.escape(str(exc))}</span>"
