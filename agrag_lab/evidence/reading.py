"""fetch: the exact stored text behind evidence ids, one entry per id.

Rules
-----
* A chunk id returns the stored chunk text; a span id ``doc@ver#sA-B``
  returns ``version_text[A:B]``.
* A span that runs past the end of its version returns the text up to the
  end, marked ``partial`` (``requested`` keeps the asked range). A span that
  starts past the end gives an ``out_of_range`` error entry.
* The version part of an id must equal a stored version name exactly: a
  tampered or shortened hash finds nothing (``unknown``), never the text of
  another version.
* Every entry says whether its version is ``current`` or ``superseded`` (a
  superseded id keeps returning its own version's text) and whether the
  document was removed from search.
* A malformed id gives a ``malformed`` entry; an id that does not exist
  (ours, or one in a builder's form: ``source:99``, ``chunk-deadbeef``), or
  lies outside the scope, gives an ``unknown`` entry with one and the same
  message. Neither raises for the batch. On an index without passages (a
  graph imported from GraphML) the ``unknown`` entry says that the index
  holds no passages (:func:`~agrag_lab.evidence.access.unreadable_message`).
* Documents removed from search stay readable by id when the scope includes
  them (see :mod:`agrag_lab.evidence.scope`).
* The session remembers every id that returned text (``ok`` or ``partial``).

Examples
--------
>>> clip_span(10, 20, 15)
(10, 15, True)
>>> clip_span(10, 20, 30)
(10, 20, False)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from agrag_lab.errors import EvidenceIdError
from agrag_lab.evidence.access import parse_id, section_at, unreadable_message
from agrag_lab.evidence.builder_ids import builder_shaped, passage_alias
from agrag_lab.evidence.navigation import Navigating
from agrag_lab.evidence.results import FetchedText, FetchError, FetchResult, Location, VersionStatus
from agrag_lab.names import display_name

__all__ = ["clip_span", "fetch", "fetch_one"]


class Fetching(Navigating, Protocol):
    """What fetch reads of its session: navigation's reads, and where it records the ids fetched."""

    def remember(self, ids: Iterable[str]) -> None:
        """Record ids as fetched in this session."""


def clip_span(start: int, end: int, length: int) -> tuple[int, int, bool]:
    """Clip ``[start, end)`` to a text of ``length``: ``(start, end, partial)``."""
    if end <= length:
        return start, end, False
    return start, length, True


def fetch_one(session: Fetching, raw: Any) -> FetchedText | FetchError:
    """Fetch one id (see the module rules); never raises for a bad id."""
    shown = raw if isinstance(raw, str) else repr(raw)
    try:
        eid = parse_id(raw)
    except EvidenceIdError as exc:
        ours = passage_alias(session, raw)  # a builder's id (GraphRAG text unit, LightRAG chunk)
        if ours is None:
            if builder_shaped(raw):  # a well-formed builder id that names nothing here
                return FetchError(shown, "unknown", unreadable_message(session, shown))
            return FetchError(shown, "malformed", str(exc))
        eid = parse_id(ours)
    version = session.readable_version(eid)
    if version is None:
        return FetchError(shown, "unknown", unreadable_message(session, shown))
    removed = not session.resolved.can_search(eid.document_id)  # as the scope resolves at the index's generation
    version_status: VersionStatus = "superseded" if version.superseded else "current"
    if eid.chunk is not None:
        chunk = session.graph.db.chunk(eid.document_id, eid.version, eid.chunk)
        if chunk is None:
            return FetchError(shown, "unknown", unreadable_message(session, shown))
        location = Location(eid.document_id, eid.version, chunk.heading_path, chunk.start, chunk.end, chunk.index)
        name = display_name("chunk", version.title, key=str(eid), heading_path=tuple(chunk.heading_path), text=chunk.text)
        return FetchedText(str(eid), chunk.text, version.title, location, version_status, removed, name=name)
    if eid.span is None:  # an EvidenceId names a chunk or a span; this only narrows the type
        return FetchError(shown, "unknown", unreadable_message(session, shown))
    start, end = eid.span
    text = version.text
    if start > len(text) or (start == len(text) and end > start):
        return FetchError(
            str(eid),
            "out_of_range",
            f"span {start}-{end} of {eid.document_id}@{eid.version} starts after the end of its text "
            f"({len(text)} characters); use offsets from 0 to {len(text)}",
        )
    start, stop, partial = clip_span(start, end, len(text))
    section = section_at(session.layout(version).sections, start, stop)
    heading_path = section.heading_path if section is not None else ()
    location = Location(eid.document_id, eid.version, heading_path, start, stop, None)
    return FetchedText(
        str(eid),
        text[start:stop],
        version.title,
        location,
        version_status,
        removed,
        requested=(eid.span[0], eid.span[1]),
        status="partial" if partial else "ok",
        name=display_name("chunk", version.title, key=str(eid), heading_path=tuple(heading_path), text=text[start:stop]),
    )


def fetch(session: Fetching, ids: str | Iterable[str]) -> FetchResult:
    """Return the exact text behind each id, in order; remember what was read.

    Parameters
    ----------
    session : Fetching
        Ids outside its scope read as unknown.
    ids : str or iterable of str
        One id, or several.

    Returns
    -------
    FetchResult
        One :class:`FetchedText` or :class:`FetchError` per id.
    """
    batch = [ids] if isinstance(ids, str) else list(ids)
    items = tuple(fetch_one(session, raw) for raw in batch)
    session.remember(i.id for i in items if isinstance(i, FetchedText))
    return FetchResult(items)
