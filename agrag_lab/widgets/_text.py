"""Reading the text behind ids for the widgets: through an evidence session, a graph, or the trace.

An :class:`~agrag_lab.evidence.session.EvidenceSession` is preferred: it
returns the exact stored text, says whether the version is current, and
remembers the ids (so they may be cited). A :class:`~agrag_lab.graph.Graph`
reads the chunk table directly. Without either, the text the trace stored
is shown.

Examples
--------
>>> [p.note for p in read_passages(None, ["a@0123456789ab#c0"], {"a@0123456789ab#c0": "Ada."})]
['from the trace']
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from agrag_lab.evidence.results import FetchedText
from agrag_lab.evidence.session import EvidenceSession
from agrag_lab.graph_source import PassageSource

#: Where a view reads the text behind ids: an evidence session (preferred), or a graph that shows passages.
TextSource: TypeAlias = EvidenceSession | PassageSource


@dataclass(frozen=True)
class Passage:
    """The text behind one id, and where it came from (``note``)."""

    id: str
    title: str
    text: str
    note: str
    ok: bool = True
    name: str = ""

    @property
    def shown(self) -> str:
        """The name shown (see :mod:`agrag_lab.names`), else the title."""
        return self.name or self.title


def read_passages(
    source: TextSource | None, ids: Sequence[str], stored: Mapping[str, str] | None = None
) -> list[Passage]:
    """Read ``ids`` from ``source`` (an evidence session or a graph), else from ``stored``.

    Parameters
    ----------
    source : EvidenceSession, Graph or None
        Where to read: ``source.fetch(ids)`` (a session) or ``source.chunk_info(id)`` (a graph).
    ids : sequence of str
        Evidence ids, in the order to show.
    stored : mapping, optional
        Fallback text per id (e.g. the trace's item text).
    """
    stored = stored or {}
    if not ids:
        return []
    if isinstance(source, EvidenceSession):
        result = source.fetch(list(ids))
        out: list[Passage] = []
        for item in result.items:
            if isinstance(item, FetchedText):
                note = f"fetched, version {item.location.version} ({item.version_status})"
                if item.status == "partial":
                    note += ", partial"
                out.append(Passage(item.id, item.title, item.text, note, name=item.name))
            else:
                out.append(Passage(item.id, "", "", f"not fetched: {item.message}", ok=False))
        return out
    if source is not None:
        passages = []
        for key in ids:
            info = source.chunk_info(key)
            if info is None:
                passages.append(Passage(key, "", stored.get(key, ""), "not in the index", ok=key in stored))
            else:
                passages.append(Passage(key, info.title, info.text, "read from the index", name=info.name))
        return passages
    return [
        Passage(key, "", stored.get(key, ""), "from the trace" if key in stored else "text not available",
                ok=key in stored)
        for key in ids
    ]


def passages_html(passages: Sequence[Passage], *, limit: int = 1200) -> str:
    """Passages as HTML blocks: id, title, note, then the text (cut at ``limit`` characters)."""
    blocks = []
    for p in passages:
        text = p.text if len(p.text) <= limit else p.text[:limit] + " …"
        note = "agrag-note" if p.ok else "agrag-note agrag-bad"
        blocks.append(
            f'<div class="agrag-passage" data-id="{html.escape(p.id)}" title="{html.escape(p.id)}">'
            f"<b>{html.escape(p.shown)}</b> "
            f'<span class="{note}">({html.escape(p.note)}; id <code>{html.escape(p.id)}</code>)</span>'
            f'<div class="agrag-passage-text">{html.escape(text)}</div></div>'
        )
    return "".join(blocks)


def short(text: str, width: int = 60) -> str:
    """One line of at most ``width`` characters.

    Examples
    --------
    >>> short("Ada  Lovelace\\nwrote", 10)
    'Ada Lovel…'
    """
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
