"""The pure-Python model of :class:`~agrag_lab.widgets.graph_curator.GraphCurator`: candidates, panels, the log.

Everything the curator shows is made here from the index (no widget, no
browser): :func:`candidate_rows` (the duplicate candidates as table rows),
:func:`entity_panel` (one entity with its passages, for the side-by-side
view), :func:`panel_html` (that panel as HTML, every value escaped) and
:func:`log_rows` (the edit log with each record's outcome).

Examples
--------
>>> from agrag_lab.kg.candidates import DuplicateCandidate, Reason
>>> c = DuplicateCandidate(("ent-a", "ent-b"), ("SCROOGE", "Scrooge"), "PERSON", 1.0,
...                        (Reason("same_key", "one name once folded"),), 3)
>>> candidate_rows([c])[0]["_key"], candidate_rows([c])[0]["reasons"]
('ent-a|ent-b', 'same_key')
>>> panel_html(EntityPanel("ent-a", "<Ada>", "Person", (), "", (("d@1#c0", "Ada & Babbage"),), 2))[:63]
'<div class="agrag-curator-entity"><b>&lt;Ada&gt;</b> <code>ent-'
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agrag_lab.errors import NotFoundError
from agrag_lab.graph_source import PassageSource
from agrag_lab.index.edit_log import EditOutcome, EditRecord
from agrag_lab.kg.candidates import DuplicateCandidate
from agrag_lab.widgets._text import short

__all__ = ["EntityPanel", "candidate_rows", "entity_panel", "log_rows", "panel_html"]


@dataclass(frozen=True)
class EntityPanel:
    """One entity as the curator shows it: names, description, its passages (``(chunk id, text)``), relations."""

    id: str
    name: str
    label: str
    aliases: tuple[str, ...]
    description: str
    passages: tuple[tuple[str, str], ...]
    relations: int


def candidate_rows(candidates: Iterable[DuplicateCandidate]) -> list[dict[str, Any]]:
    """One table row per candidate (key ``a|b``): both names, label, score, reasons, evidence."""
    return [{"_key": "|".join(c.entities), "a": c.entities[0], "b": c.entities[1], "name_a": c.names[0],
             "name_b": c.names[1], "label": c.label, "score": c.score,
             "reasons": ", ".join(r.kind for r in c.reasons), "evidence": "; ".join(r.evidence for r in c.reasons)}
            for c in candidates]


def entity_panel(graph: PassageSource, entity_id: str, passages: int = 6) -> EntityPanel:
    """The panel of ``entity_id`` in ``graph`` (a :class:`~agrag_lab.graph.Graph`): up to ``passages`` passages.

    Raises
    ------
    NotFoundError
        No current entity has this id.
    """
    store = graph.graph_store
    entity = store.entity(entity_id)
    if entity is None:
        raise NotFoundError(f"no current entity {entity_id!r}; it was merged or deleted (see the edit log)")
    texts = []
    for chunk in entity.chunk_ids[:passages]:
        info = graph.chunk_info(chunk)
        texts.append((chunk, short(info.text if info is not None else "", 300)))
    return EntityPanel(entity.id, entity.name, entity.label, entity.aliases, entity.description, tuple(texts),
                       len(store.neighbours(entity.id)))


def panel_html(panel: EntityPanel) -> str:
    """The panel as HTML (every value escaped)."""
    e = html.escape
    aliases = f"<div>also: {e(', '.join(panel.aliases))}</div>" if panel.aliases else ""
    passages = "".join(f"<li><code>{e(c)}</code> {e(t)}</li>" for c, t in panel.passages)
    return (f'<div class="agrag-curator-entity"><b>{e(panel.name)}</b> <code>{e(panel.id)}</code> '
            f"<i>{e(panel.label)}</i>{aliases}<p>{e(short(panel.description, 400))}</p>"
            f"<div>{panel.relations} relations, {len(panel.passages)} passages shown</div><ol>{passages}</ol></div>")


def log_rows(records: Sequence[tuple[EditRecord, EditOutcome | None]]) -> list[dict[str, Any]]:
    """One row per edit record (newest first): what, who, when, why, outcome."""
    return [{"_key": r.id, "id": r.id, "edit": r.edit.describe(), "who": r.who, "when": r.when, "why": r.why,
             "status": o.status if o is not None else "not applied yet", "message": o.message if o is not None else ""}
            for r, o in reversed(records)]
