"""Make, undo and list the edits of an index: what ``Graph.curate``, ``Graph.undo`` and ``Graph.edits`` run.

An edit is checked against the graph the index serves now (one that does not
apply raises and nothing is written), recorded in the folder's edit log, then
the derived stores are brought in line (:meth:`~agrag_lab.graph.Graph.sync`:
the graph is the built or imported one with the log applied, the entity and
report records follow, and a graph server gets the new graph). The
generation of ``documents.sqlite`` moves on first, so a reader in another
process reloads, and a crash mid-way is completed by the next writable open.
A deleted document is also hidden from search (its passages leave the chunk
collections); its undo shows it again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from agrag_lab.errors import NotFoundError
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.index.edit_log import (
    EditOutcome,
    EditRecord,
    new_record,
    read_applied,
    read_log,
    undo_record,
    write_log,
)
from agrag_lab.kg.edits import DeleteDocument, Edit, GraphParts, apply_edit
from agrag_lab.storage.documents_db import DocumentDB

__all__ = ["EditableIndex", "edits", "make_edit", "undo_edit"]


class EditableIndex(Protocol):
    """What an edit needs of an index opened for writing (a :class:`~agrag_lab.graph.Graph` is one)."""

    @property
    def path(self) -> Path:
        """The index folder (its edit log lives there)."""
        ...

    @property
    def db(self) -> DocumentDB:
        """The documents, versions and chunks, and the index generation."""
        ...

    def built_graph(self) -> NetworkXGraphStore:
        """The in-process graph the build wrote, with the edit log applied: what an edit is checked against."""
        ...

    def sync(self) -> Any:
        """Bring the derived stores in line with the documents and the edit log."""
        ...

    def require_writable(self) -> None:
        """Raise when the index was opened read-only."""
        ...


def _parts(graph: EditableIndex) -> GraphParts:
    store = graph.built_graph()  # the in-process graph: what an edit rewrites
    communities, reports = store.stored()
    return GraphParts(store.graph, communities, reports)


def _commit(graph: EditableIndex, records: list[EditRecord], document: str | None = None, *, removed: bool = True) -> None:
    write_log(graph.path, records)
    with graph.db.transaction() as conn:
        if document is not None:
            graph.db.set_removed(conn, document, removed)
        graph.db.bump_generation(conn)
    graph.sync()


def _outcome(graph: EditableIndex, record_id: str) -> EditOutcome:
    _, outcomes = read_applied(graph.path)
    return next(o for o in outcomes if o.record == record_id)


def make_edit(graph: EditableIndex, edit: Edit, *, who: str = "", why: str = "") -> EditOutcome:
    """Check, record and apply ``edit`` (see the module's docstring); its outcome (``applied``, what changed).

    Raises
    ------
    IndexFormatError
        The index was opened read-only.
    EditConflictError, ArgumentError
        The edit does not apply to the graph as it is now; nothing is written.
    NotFoundError
        A deleted document is not in the index.
    """
    graph.require_writable()
    parts = _parts(graph)
    document = None
    if isinstance(edit, DeleteDocument):
        record = graph.db.document(edit.document)
        if record is None or record.removed:
            raise NotFoundError(f"no current document {edit.document!r} in {graph.path}; list them with Graph.stats() "
                                "or the explorer")
        document = edit.document
    apply_edit(parts, edit)  # raises when it does not apply: nothing is written
    records = list(read_log(graph.path))
    made = new_record(edit, records, parts, who=who, why=why)
    _commit(graph, [*records, made], document)
    return _outcome(graph, made.id)


def undo_edit(graph: EditableIndex, record_id: str | None = None) -> EditRecord:
    """Undo the last active edit (or ``record_id``): the graph is served without it; the record stays, marked undone.

    Raises
    ------
    ArgumentError
        The log has no such active edit.
    """
    graph.require_writable()
    undone, records = undo_record(read_log(graph.path), record_id)
    document = undone.edit.document if isinstance(undone.edit, DeleteDocument) else None
    _commit(graph, records, document, removed=False)
    return undone


def edits(graph: EditableIndex) -> tuple[tuple[EditRecord, EditOutcome | None], ...]:
    """Every record of the log with the outcome of its last application (None: not applied yet)."""
    _, outcomes = read_applied(graph.path)
    by_record = {o.record: o for o in outcomes}
    return tuple((r, by_record.get(r.id)) for r in read_log(graph.path))
