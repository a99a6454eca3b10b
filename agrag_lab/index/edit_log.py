"""The edit log of an index folder: who changed the graph, when, why, and what it applied to.

``edits.json`` in the index folder holds every :class:`EditRecord` in the
order made (an undone one stays, marked ``undone``: the log is the history).
The graph an index serves is the graph it builds (or was given by an import)
with the log's active edits applied in order (:func:`apply_log`), so the log
is applied again after every ingest, rebuild (``agrag-lab repair``) and
re-import, and an undo is the same graph without that edit: exactly what it
was. An edit that no longer applies (its entity gone after a rebuild) is kept
in the log and reported (:class:`EditOutcome` ``conflict``), never dropped.

What the last application did is written beside it (``edits-applied.json``:
each record's outcome and the ids merges redirect), for readers that do not
apply the log themselves (the evidence functions resolve a merged id there).

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> from agrag_lab.kg.edits import GraphParts, RenameEntity
>>> from agrag_lab.kg.model import Entity, KnowledgeGraph
>>> folder = Path(tempfile.mkdtemp())
>>> parts = GraphParts(KnowledgeGraph.create([Entity("ent-ada", "Ada", "Person")], []))
>>> record = new_record(RenameEntity("ent-ada", "Ada Lovelace"), read_log(folder), parts, who="me", why="full name")
>>> write_log(folder, [record])
>>> curated = apply_log(parts, read_log(folder))
>>> curated.parts.graph.entities["ent-ada"].name, [o.status for o in curated.outcomes]
('Ada Lovelace', ['applied'])
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from agrag_lab.errors import ArgumentError, IndexFormatError
from agrag_lab.graph_stores import persistence
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.edits import Edit, EditConflictError, GraphParts, apply_edit, edit_from_dict, edit_to_dict
from agrag_lab.storage.atomic import write_text_atomic

__all__ = [
    "APPLIED_FILE", "EDIT_LOG_FILE", "Curated", "EditOutcome", "EditRecord", "apply_log", "curated_store",
    "fingerprint", "new_record", "read_applied", "read_log", "redirect", "write_log",
]

EDIT_LOG_FILE = "edits.json"
APPLIED_FILE = "edits-applied.json"
LOG_FORMAT = "agrag-lab/edit-log"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EditRecord:
    """One edit as the log keeps it.

    ``applied_to`` is the fingerprint of the graph the edit was made on
    (:func:`fingerprint`), ``undone`` when it was undone (``""``: active).
    """

    id: str
    edit: Edit
    who: str
    when: str
    why: str
    applied_to: str
    undone: str = ""

    @property
    def active(self) -> bool:
        return not self.undone

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "edit": edit_to_dict(self.edit), "who": self.who, "when": self.when, "why": self.why,
                "applied_to": self.applied_to, **({"undone": self.undone} if self.undone else {})}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EditRecord:
        return cls(str(data["id"]), edit_from_dict(data["edit"]), str(data.get("who", "")), str(data["when"]),
                   str(data.get("why", "")), str(data.get("applied_to", "")), str(data.get("undone", "")))


@dataclass(frozen=True)
class EditOutcome:
    """What applying one record did: ``applied`` (``message``: what changed), ``conflict`` (why not) or ``undone``."""

    record: str
    status: Literal["applied", "conflict", "undone"]
    message: str


@dataclass(frozen=True)
class Curated:
    """The log applied: the parts, every redirected id (``old -> current``) and each record's outcome."""

    parts: GraphParts
    redirects: Mapping[str, str] = field(default_factory=dict)
    outcomes: tuple[EditOutcome, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "redirects", MappingProxyType(dict(self.redirects)))

    @property
    def conflicts(self) -> tuple[EditOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status == "conflict")


def fingerprint(parts: GraphParts) -> str:
    """A short hash of a graph with its communities and reports (same graph, same fingerprint)."""
    text = persistence.dumps(parts.graph, parts.communities, parts.reports)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def redirect(redirects: Mapping[str, str], entity_id: str) -> str:
    """Where an id went after merges (followed to the end), or the id itself."""
    seen = {entity_id}
    while entity_id in redirects:
        entity_id = redirects[entity_id]
        if entity_id in seen:
            break
        seen.add(entity_id)
    return entity_id


def apply_log(parts: GraphParts, records: Iterable[EditRecord]) -> Curated:
    """Apply the active records in order; one that does not apply is reported and skipped (pure)."""
    redirects: dict[str, str] = {}
    outcomes = []
    for record in records:
        if not record.active:
            outcomes.append(EditOutcome(record.id, "undone", f"undone at {record.undone}"))
            continue
        try:
            done = apply_edit(parts, record.edit)
        except (EditConflictError, ArgumentError) as exc:
            outcomes.append(EditOutcome(record.id, "conflict", str(exc)))
            continue
        parts = done.parts
        for old, new in done.redirects.items():
            redirects = {k: (new if v == old else v) for k, v in redirects.items()}
            redirects[old] = new
        outcomes.append(EditOutcome(record.id, "applied", done.changed))
    return Curated(parts, redirects, tuple(outcomes))


def new_record(edit: Edit, records: Sequence[EditRecord], parts: GraphParts, *, who: str = "", why: str = "",
               when: datetime | None = None) -> EditRecord:
    """The record of ``edit`` made now on ``parts`` (the next id in ``records``: ``e1``, ``e2``, ...)."""
    number = 1 + max((int(r.id[1:]) for r in records if r.id[1:].isdigit()), default=0)
    stamp = (when or datetime.now(UTC)).isoformat(timespec="seconds")
    return EditRecord(f"e{number}", edit, who, stamp, why, fingerprint(parts))


def undo_record(records: Sequence[EditRecord], record_id: str | None = None, when: datetime | None = None
                ) -> tuple[EditRecord, list[EditRecord]]:
    """The record undone (the last active one, or ``record_id``) and the log after it.

    Raises
    ------
    ArgumentError
        Nothing to undo, or no active record has that id.
    """
    active = [r for r in records if r.active and (record_id is None or r.id == record_id)]
    if not active:
        raise ArgumentError(f"no active edit {record_id!r} in the edit log" if record_id is not None else
                            "the edit log has no active edit to undo")
    chosen = replace(active[-1], undone=(when or datetime.now(UTC)).isoformat(timespec="seconds"))
    return chosen, [chosen if r.id == chosen.id else r for r in records]


# -- the files ------------------------------------------------------------------------------------


def read_log(folder: str | os.PathLike[str]) -> tuple[EditRecord, ...]:
    """The records of ``folder``'s edit log (none without one).

    Raises
    ------
    IndexFormatError
        The file is damaged (it is not changed: restore it, or move it away to drop every edit).
    """
    path = Path(folder) / EDIT_LOG_FILE
    if not path.exists():
        return ()
    fix = "restore it from a backup, or move it away to serve the graph without its edits"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != LOG_FORMAT:
            raise IndexFormatError(f"{path} is not an agrag_lab edit log (no format {LOG_FORMAT!r}); {fix}")
        return tuple(EditRecord.from_dict(r) for r in data["edits"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:  # IndexFormatError is none of them
        raise IndexFormatError(f"the edit log {path} cannot be read ({type(exc).__name__}: {exc}); {fix}") from None


def write_log(folder: str | os.PathLike[str], records: Iterable[EditRecord]) -> None:
    """Replace ``folder``'s edit log atomically."""
    data = {"format": LOG_FORMAT, "version": 1, "edits": [r.to_dict() for r in records]}
    write_text_atomic(Path(folder) / EDIT_LOG_FILE, json.dumps(data, ensure_ascii=False, indent=1))


def read_applied(folder: str | os.PathLike[str]) -> tuple[dict[str, str], tuple[EditOutcome, ...]]:
    """The redirects and outcomes of the last application of ``folder``'s log (empty without one)."""
    path = Path(folder) / APPLIED_FILE
    if not path.exists():
        return {}, ()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return dict(data["redirects"]), tuple(EditOutcome(**o) for o in data["outcomes"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}, ()  # derived: written again by the next sync


def curated_store(folder: str | os.PathLike[str], store: NetworkXGraphStore) -> NetworkXGraphStore:
    """``store`` with ``folder``'s edit log applied (itself when the log is empty); the outcome is written beside it.

    Every record that no longer applies is logged as a warning (and kept).
    """
    records = read_log(folder)
    applied = Path(folder) / APPLIED_FILE
    if not records:
        if applied.exists():
            applied.unlink()
        return store
    communities, reports = store.stored()
    curated = apply_log(GraphParts(store.graph, communities, reports), records)
    for outcome in curated.conflicts:
        log.warning("index %s: edit %s no longer applies (kept in the log): %s", folder, outcome.record, outcome.message)
    write_text_atomic(applied, json.dumps({
        "redirects": dict(curated.redirects), "outcomes": [vars(o) for o in curated.outcomes]}, ensure_ascii=False))
    return NetworkXGraphStore(curated.parts.graph, curated.parts.communities, curated.parts.reports)
