"""Small pure helpers shared by the evidence functions: ids, messages, sections.

Examples
--------
>>> document_of("ada-lovelace@0123456789ab#c3")
'ada-lovelace'
>>> span_id("ada", "0123456789ab", 10, 42)
'ada@0123456789ab#s10-42'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agrag_lab.documents import Section
from agrag_lab.errors import EvidenceIdError
from agrag_lab.ids import EvidenceId

if TYPE_CHECKING:
    from agrag_lab.evidence.session_api import Scoped

__all__ = [
    "NO_PASSAGES",
    "document_of",
    "no_passages_note",
    "parse_id",
    "section_at",
    "span_id",
    "unknown_id_message",
    "unreadable_message",
]

#: Why an index whose graph came without source text (``Graph.import_graphml``) reads no passage.
NO_PASSAGES = (
    "this index holds no passages: its graph was imported from GraphML without source text, "
    "so there is no passage to fetch, navigate or cite; use find_entities and explore"
)


def parse_id(raw: Any) -> EvidenceId:
    """Parse an evidence id given as any value (non-strings are malformed).

    Raises
    ------
    EvidenceIdError
        ``raw`` is not a string shaped like an evidence id.

    Examples
    --------
    >>> parse_id(" ada@0123456789ab#c1 ").chunk
    1
    """
    if not isinstance(raw, str):
        raise EvidenceIdError(f"evidence id must be a string, not {type(raw).__name__}")
    return EvidenceId.parse(raw.strip())


def document_of(chunk_id: str) -> str:
    """The document part of an evidence id string (no validation)."""
    return chunk_id.split("@", 1)[0]


def span_id(document_id: str, version: str, start: int, end: int) -> str:
    """The span evidence id of ``[start, end)`` in one version."""
    return str(EvidenceId(document_id, version, span=(start, end)))


def unknown_id_message(raw: str) -> str:
    """The one message for an id that names nothing readable.

    It is the same whether the id does not exist or lies outside the scope,
    so it never confirms that something exists elsewhere.

    Examples
    --------
    >>> unknown_id_message("x@0123456789ab#c9")
    "unknown evidence id 'x@0123456789ab#c9': nothing with this id can be read in this session; copy ids exactly from discover, fetch or navigate results"
    """
    return (
        f"unknown evidence id {raw!r}: nothing with this id can be read in this session; "
        "copy ids exactly from discover, fetch or navigate results"
    )


def no_passages_note(session: Scoped) -> str | None:
    """:data:`NO_PASSAGES` when the session's index has entities but no passages at all, else ``None``.

    The one home of this note: discover adds it to an empty result, and
    fetch, navigate and the citation check give it instead of
    :func:`unknown_id_message` (see :func:`unreadable_message`).
    """
    return NO_PASSAGES if session.graph.graph_store.passageless else None


def unreadable_message(session: Scoped, raw: str) -> str:
    """The message for an id that names nothing readable in ``session``.

    On an index without passages (a graph imported from GraphML) no id can
    name a passage, so the message says so; otherwise it is
    :func:`unknown_id_message`.
    """
    note = no_passages_note(session)
    return unknown_id_message(raw) if note is None else f"cannot read {raw!r}: {note}"


def section_at(sections: Sequence[Section], start: int, end: int) -> Section | None:
    """The deepest section that contains ``[start, end)``, or ``None``.

    Examples
    --------
    >>> root = Section(0, "Doc", 0, 0, 100, None, ("Doc",))
    >>> sub = Section(1, "Life", 2, 20, 60, 0, ("Doc", "Life"))
    >>> section_at([root, sub], 25, 40).title, section_at([root, sub], 10, 40).title
    ('Life', 'Doc')
    """
    best: Section | None = None
    for section in sections:
        if not (section.start <= start and end <= section.end):
            continue
        deeper = best is None or len(section.heading_path) > len(best.heading_path)
        if deeper or (
            best is not None and len(section.heading_path) == len(best.heading_path) and section.start >= best.start
        ):
            best = section
    return best
