"""``GraphCurator``: review duplicate candidates, merge, split, rename or delete entities, with undo.

The candidates (:func:`~agrag_lab.kg.candidates.duplicate_candidates`) are a
table; choosing one shows the two entities side by side with their passages
(:mod:`agrag_lab.widgets.curator_model`) and draws their neighbourhood on the
explorer's canvas (:class:`~agrag_lab.widgets.graph_explorer.ExplorerCanvas`,
sigma.js). Every button is a method (:meth:`GraphCurator.merge`, ``split``,
``rename``, ``delete``, ``undo``) that makes one edit through
:meth:`~agrag_lab.graph.Graph.curate` (kept in the index's edit log), then
lists the candidates again and redraws the neighbourhood. An edit that does
not apply is shown, and nothing is written.

Examples
--------
::

    from agrag_lab import Graph
    from agrag_lab.widgets.graph_curator import GraphCurator

    curator = GraphCurator(Graph.open("carol"))      # writable: edits are saved in its edit log
    curator.pick(0)                                   # the best candidate, side by side
    curator.merge()                                   # the second into the first
    curator.undo()
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from agrag_lab.errors import AgragError, ArgumentError
from agrag_lab.index.edit_log import EditOutcome, EditRecord
from agrag_lab.kg.candidates import DuplicateCandidate, duplicate_candidates
from agrag_lab.kg.edits import DeleteEntity, Edit, MergeEntities, RenameEntity, SplitEntity
from agrag_lab.widgets.curator_model import candidate_rows, entity_panel, log_rows, panel_html
from agrag_lab.widgets.graph_explorer import ExplorerCanvas, explorer_view
from agrag_lab.widgets.table import TableView, column
from agrag_lab.widgets.theme import themed

if TYPE_CHECKING:
    from agrag_lab.graph import Graph

__all__ = ["GraphCurator"]

#: Candidates listed (the best first).
CANDIDATES = 200


class GraphCurator(w.VBox):  # type: ignore[misc]
    """Candidates to review, two entities side by side, edits with undo, the neighbourhood redrawn.

    Parameters
    ----------
    graph : Graph
        An index opened writable (:meth:`~agrag_lab.graph.Graph.open`).
    who : str
        Written into every edit record.
    """

    def __init__(self, graph: Graph, *, who: str = "", height: str = "420px") -> None:
        self.graph = graph
        self.who = who
        self.candidates: list[DuplicateCandidate] = []
        self.pair: tuple[str, str] | None = None
        self.table = TableView(name="curator-candidates", columns=[
            column("name_a", "entity"), column("name_b", "may be"), column("label", "label"),
            column("score", "score", "float", digits=2), column("reasons", "why", wrap=True),
        ], max_height="16em")
        self.left, self.right = w.HTML(), w.HTML()
        self.passages = w.SelectMultiple(description="split:", rows=4)
        self.name = w.Text(placeholder="a name (merge, split, rename)")
        self.why = w.Text(placeholder="why (kept in the edit log)")
        buttons = {label: w.Button(description=label) for label in
                   ("merge right into left", "split left", "rename left", "delete right", "undo")}
        buttons["merge right into left"].on_click(lambda _: self._act(self.merge))
        buttons["split left"].on_click(lambda _: self._act(lambda: self.split(tuple(self.passages.value))))
        buttons["rename left"].on_click(lambda _: self._act(lambda: self.rename(self.name.value)))
        buttons["delete right"].on_click(lambda _: self._act(lambda: self.delete(self._right())))
        buttons["undo"].on_click(lambda _: self._act(self.undo))
        self.status = w.HTML()
        self.edit_log = TableView(name="curator-log", columns=[
            column("id", "edit"), column("edit", "what", wrap=True), column("status", "outcome"),
            column("why", "why", wrap=True),
        ], max_height="10em")
        self.canvas = ExplorerCanvas(layout_seconds=2.0, height=height)
        super().__init__(children=[
            self.table, w.HBox([self.left, self.right]), self.passages,
            w.HBox([self.name, self.why]), w.HBox(list(buttons.values())), self.status, self.canvas, self.edit_log,
        ])
        themed(self, "agrag-graph-curator")
        self.table.observe(self._on_row, names="selected")
        self.refresh()

    # -- Python API ----------------------------------------------------------------------

    def refresh(self) -> None:
        """List the candidates again and show the edit log (after an edit, or another process's)."""
        self.candidates = duplicate_candidates(self.graph.graph_store.whole_graph("the graph curator").graph, limit=CANDIDATES)
        self.table.set_rows(candidate_rows(self.candidates))
        self.edit_log.set_rows(log_rows(self.graph.edits()))

    def pick(self, index: int) -> tuple[str, str]:
        """Show the candidate at ``index`` (0: the best) side by side; returns its two entity ids."""
        if not 0 <= index < len(self.candidates):
            raise ArgumentError(f"there are {len(self.candidates)} candidates; pick 0..{len(self.candidates) - 1}")
        self.show_pair(*self.candidates[index].entities)
        return self.candidates[index].entities

    def show_pair(self, left: str, right: str) -> None:
        """Show two entities side by side (any two, not only a candidate) and draw their neighbourhood."""
        a, b = entity_panel(self.graph, left), entity_panel(self.graph, right)
        self.pair = (left, right)
        self.left.value, self.right.value = panel_html(a), panel_html(b)
        self.passages.options = [(f"{c}: {t[:60]}", c) for c, t in a.passages]
        self._draw(left)

    def merge(self) -> EditOutcome:
        """Merge the right entity into the left one (the left id is kept; the name box, if filled, names it)."""
        left, right = self._shown()
        return self._edit(MergeEntities(left, (right,), self.name.value.strip()), left)

    def split(self, chunk_ids: Sequence[str], name: str | None = None) -> EditOutcome:
        """Move ``chunk_ids`` of the left entity to a new entity named ``name`` (default: the name box)."""
        left, _ = self._shown()
        return self._edit(SplitEntity(left, tuple(chunk_ids), name if name is not None else self.name.value), left)

    def rename(self, name: str) -> EditOutcome:
        """Rename the left entity."""
        left, _ = self._shown()
        return self._edit(RenameEntity(left, name), left)

    def delete(self, entity_id: str) -> EditOutcome:
        """Delete an entity (its relations and memberships go with it)."""
        left, right = self._shown()
        keep = right if entity_id == left else left
        return self._edit(DeleteEntity(entity_id), keep)

    def undo(self) -> EditRecord:
        """Undo the last edit, show the pair again and redraw."""
        undone: EditRecord = self.graph.undo()
        self.refresh()
        if self.pair is not None and all(self.graph.graph_store.entity(e) is not None for e in self.pair):
            self.show_pair(*self.pair)
        self.status.value = f"undone: {html.escape(undone.edit.describe())}"
        return undone

    # -- inside -----------------------------------------------------------------------------

    def _shown(self) -> tuple[str, str]:
        if self.pair is None:
            raise ArgumentError("pick a candidate first (GraphCurator.pick(0), or a row of the table)")
        return self.pair

    def _right(self) -> str:
        return self._shown()[1]

    def _edit(self, edit: Edit, centre: str) -> EditOutcome:
        outcome: EditOutcome = self.graph.curate(edit, who=self.who, why=self.why.value.strip())
        self.refresh()
        store = self.graph.graph_store
        kept = [e for e in (self.pair or ()) if store.entity(e) is not None]
        if len(kept) == 2:
            self.show_pair(*kept)
        else:
            self.left.value = panel_html(entity_panel(self.graph, centre))
            self.right.value = ""
            self._draw(centre)
        self.status.value = f"{html.escape(outcome.message)}"
        return outcome

    def _draw(self, centre: str) -> None:
        view = explorer_view(self.graph, entity=centre, depth=1)
        with self.canvas.hold_sync():
            self.canvas.view = view.state()
            self.canvas.selected = centre

    def _act(self, action: Any) -> None:
        try:
            action()
        except AgragError as exc:
            self.status.value = f"<span class='agrag-explorer-error'>{html.escape(str(exc))}</span>"

    def _on_row(self, change: dict[str, Any]) -> None:
        key = change["new"]
        if key and "|" in key:
            left, right = key.split("|", 1)
            self._act(lambda: self.show_pair(left, right))
