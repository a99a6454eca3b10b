"""navigate: move from a passage to its parent, children, siblings, neighbours or table.

Every id is first located in its own version (navigation never leaves the
version an id names, so it works the same on superseded versions). An id is
one of four kinds of node:

=========  ===================================================================
kind       what it is
=========  ===================================================================
chunk      a chunk id (or a span id covering exactly one chunk)
section    a span id covering exactly one section, heading line included
row        a span id covering exactly one table row
span       any other span id
=========  ===================================================================

=========  ==================================================================================
to         result
=========  ==================================================================================
parent     chunk → its section; section → its parent section (none for the root);
           row → its table chunk; span → the chunk holding it, else the deepest
           section holding it
children   section → its own chunks and subsections in text order; table chunk →
           its rows; span → the chunks it overlaps; paragraph chunk, row → none
siblings   chunk → the other chunks of its section; section → the other
           subsections of its parent; row → the other rows of its chunk;
           span → the chunks of the deepest section holding it
prev/next  chunk → the chunk numbered one less/more; otherwise the last chunk
           ending before / the first chunk starting after the node
table      the rows the node covers (``focus``) and up to :data:`TABLE_CONTEXT`
           rows before and after them in the same table (across chunks), each
           with its cells; ``header`` gives the column names
=========  ==================================================================================

Sections and rows are returned as span ids, so they can be fetched and cited
like any passage; a cell whose position can be found carries its own span id.

Examples
--------
>>> cell_spans("| 1791 | Babbage is born |")
[(2, 6), (9, 24)]
>>> "| 1791 | Babbage is born |"[9:24]
'Babbage is born'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, get_args

from agrag_lab.documents import Chunk, Section
from agrag_lab.errors import EvidenceIdError, NotFoundError
from agrag_lab.evidence.access import parse_id, section_at, span_id, unreadable_message
from agrag_lab.evidence.builder_ids import builder_shaped, passage_alias
from agrag_lab.evidence.errors import EvidenceArgumentError
from agrag_lab.evidence.results import Cell, Direction, Location, Navigation, NavItem, NodeKind
from agrag_lab.evidence.session_api import Scoped
from agrag_lab.evidence.snippets import make_snippet
from agrag_lab.ids import EvidenceId
from agrag_lab.storage.documents_db import VersionRecord

__all__ = [
    "DIRECTIONS",
    "TABLE_CONTEXT",
    "Node",
    "VersionLayout",
    "cell_spans",
    "locate",
    "navigate",
    "neighbours",
]

#: The places ``navigate`` can go.
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)
#: Rows of context shown before and after the focus rows of ``to="table"``.
TABLE_CONTEXT = 2

_PIPE = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class VersionLayout:
    """One version's text, sections and chunks (everything navigation needs)."""

    document_id: str
    version: str
    title: str
    text: str
    sections: tuple[Section, ...]
    chunks: tuple[Chunk, ...]

    def section(self, index: int) -> Section | None:
        """The section numbered ``index``."""
        for section in self.sections:
            if section.index == index:
                return section
        return None

    def span(self, start: int, end: int) -> str:
        """The span id of ``[start, end)`` in this version."""
        return span_id(self.document_id, self.version, start, end)

    def location(self, heading_path: tuple[str, ...], start: int, end: int, chunk: int | None = None) -> Location:
        """A :class:`Location` in this version."""
        return Location(self.document_id, self.version, heading_path, start, end, chunk)


class Navigating(Scoped, Protocol):
    """What navigation reads of its session: the scope, and a readable version's layout."""

    def layout(self, version: VersionRecord) -> VersionLayout:
        """Sections and chunks of a readable version."""


@dataclass(frozen=True)
class Node:
    """A located id: its kind, range, and the chunk/section/row it is."""

    kind: NodeKind
    start: int
    end: int
    chunk: Chunk | None = None
    section: Section | None = None
    row: int | None = None


def cell_spans(row: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each cell's stripped text in a Markdown table row.

    Cells split on ``|`` not preceded by a backslash, as the chunker splits them.
    """
    begin = len(row) - len(row.lstrip())
    stop = len(row.rstrip())
    if begin < stop and row[begin] == "|":
        begin += 1
    if stop > begin and row[stop - 1] == "|" and row[stop - 2 : stop] != "\\|":
        stop -= 1
    cuts = [m.start() for m in _PIPE.finditer(row, begin, stop)]
    out = []
    for a, b in zip([begin, *[c + 1 for c in cuts]], [*cuts, stop], strict=True):
        while a < b and row[a].isspace():
            a += 1
        while b > a and row[b - 1].isspace():
            b -= 1
        out.append((a, b))
    return out


def _cells(layout: VersionLayout, chunk: Chunk, i: int) -> tuple[Cell, ...]:
    table = chunk.table
    if table is None:
        return ()
    values = table.rows[i]
    start, end = table.row_offsets[i]
    row = layout.text[start:end]
    spans = cell_spans(row)
    header = list(table.header) + [""] * max(0, len(values) - len(table.header))
    exact = len(spans) == len(values) and all(row[a:b] == v for (a, b), v in zip(spans, values, strict=True))
    return tuple(
        Cell(header[k], v, layout.span(start + spans[k][0], start + spans[k][1]) if exact else None)
        for k, v in enumerate(values)
    )


def chunk_item(layout: VersionLayout, chunk: Chunk, focus: bool = False) -> NavItem:
    """A chunk as a navigation item."""
    location = layout.location(chunk.heading_path, chunk.start, chunk.end, chunk.index)
    return NavItem(chunk.id, "chunk", layout.title, make_snippet(chunk.text), location, focus=focus)


def section_item(layout: VersionLayout, section: Section) -> NavItem:
    """A section as a navigation item (a span id covering it)."""
    end = min(section.end, len(layout.text))
    location = layout.location(section.heading_path, section.start, end)
    snippet = make_snippet(layout.text[section.start : end])
    return NavItem(layout.span(section.start, end), "section", layout.title, snippet, location)


def row_item(layout: VersionLayout, chunk: Chunk, i: int, focus: bool = False) -> NavItem:
    """Row ``i`` of a table chunk as a navigation item, with its cells."""
    table = chunk.table
    if table is None:
        raise EvidenceArgumentError(f"{chunk.id} is not a table chunk")
    start, end = table.row_offsets[i]
    location = layout.location(chunk.heading_path, start, end)
    snippet = make_snippet(layout.text[start:end])
    return NavItem(layout.span(start, end), "row", layout.title, snippet, location, _cells(layout, chunk, i), focus)


def locate(layout: VersionLayout, eid: EvidenceId) -> Node | None:
    """The node an id names in its version, or ``None`` (no such chunk, span past the end)."""
    if eid.chunk is not None:
        for chunk in layout.chunks:
            if chunk.index == eid.chunk:
                return Node("chunk", chunk.start, chunk.end, chunk=chunk)
        return None
    if eid.span is None:
        return None
    start, end = eid.span
    if start > len(layout.text):
        return None
    end = min(end, len(layout.text))
    for section in reversed(layout.sections):  # deepest first on equal ranges
        if (section.start, min(section.end, len(layout.text))) == (start, end):
            return Node("section", start, end, section=section)
    for chunk in layout.chunks:
        if (chunk.start, chunk.end) == (start, end):
            return Node("chunk", start, end, chunk=chunk)
        if chunk.table is not None:
            for i, offsets in enumerate(chunk.table.row_offsets):
                if tuple(offsets) == (start, end):
                    return Node("row", start, end, chunk=chunk, row=i)
    return Node("span", start, end)


def _holding_chunk(layout: VersionLayout, node: Node) -> Chunk | None:
    for chunk in layout.chunks:
        if chunk.start <= node.start and node.end <= chunk.end:
            return chunk
    return None


def _overlapping(layout: VersionLayout, start: int, end: int) -> list[Chunk]:
    if start == end:
        return [c for c in layout.chunks if c.start <= start < c.end]
    return [c for c in layout.chunks if c.start < end and c.end > start]


def _parent(layout: VersionLayout, node: Node) -> list[NavItem]:
    if node.kind == "chunk" and node.chunk is not None:
        section = layout.section(node.chunk.section)
        return [] if section is None else [section_item(layout, section)]
    if node.kind == "section" and node.section is not None:
        parent = None if node.section.parent is None else layout.section(node.section.parent)
        return [] if parent is None else [section_item(layout, parent)]
    if node.kind == "row" and node.chunk is not None:
        return [chunk_item(layout, node.chunk)]
    holder = _holding_chunk(layout, node)
    if holder is not None:
        return [chunk_item(layout, holder)]
    section = section_at(layout.sections, node.start, node.end)
    return [] if section is None else [section_item(layout, section)]


def _children(layout: VersionLayout, node: Node) -> list[NavItem]:
    if node.kind == "section" and node.section is not None:
        idx = node.section.index
        parts: list[tuple[int, NavItem]] = [(c.start, chunk_item(layout, c)) for c in layout.chunks if c.section == idx]
        parts += [(s.start, section_item(layout, s)) for s in layout.sections if s.parent == idx]
        return [item for _, item in sorted(parts, key=lambda p: p[0])]
    if node.kind == "chunk" and node.chunk is not None:
        table = node.chunk.table
        return [] if table is None else [row_item(layout, node.chunk, i) for i in range(len(table.rows))]
    if node.kind == "row":
        return []
    return [chunk_item(layout, c) for c in _overlapping(layout, node.start, node.end)]


def _siblings(layout: VersionLayout, node: Node) -> list[NavItem]:
    if node.kind == "chunk" and node.chunk is not None:
        me = node.chunk
        return [chunk_item(layout, c) for c in layout.chunks if c.section == me.section and c.index != me.index]
    if node.kind == "section" and node.section is not None:
        me_s = node.section
        if me_s.parent is None:
            return []
        return [section_item(layout, s) for s in layout.sections if s.parent == me_s.parent and s.index != me_s.index]
    if node.kind == "row" and node.chunk is not None and node.chunk.table is not None:
        return [row_item(layout, node.chunk, i) for i in range(len(node.chunk.table.rows)) if i != node.row]
    section = section_at(layout.sections, node.start, node.end)
    if section is None:
        return []
    return [chunk_item(layout, c) for c in layout.chunks if c.section == section.index]


def _step(layout: VersionLayout, node: Node, forward: bool) -> list[NavItem]:
    if node.kind == "chunk" and node.chunk is not None:
        wanted = node.chunk.index + (1 if forward else -1)
        return [chunk_item(layout, c) for c in layout.chunks if c.index == wanted]
    if forward:
        after = [c for c in layout.chunks if c.start >= node.end]
        return [chunk_item(layout, after[0])] if after else []
    before = [c for c in layout.chunks if c.end <= node.start]
    return [chunk_item(layout, before[-1])] if before else []


def _table(layout: VersionLayout, node: Node) -> tuple[list[NavItem], tuple[str, ...]]:
    rows: list[tuple[Chunk, int, int, int]] = []  # chunk, row in chunk, start, end
    for chunk in layout.chunks:
        if chunk.table is not None:
            rows += [(chunk, i, a, b) for i, (a, b) in enumerate(chunk.table.row_offsets)]
    if node.kind == "chunk" and node.chunk is not None:
        me = node.chunk
        focus = [k for k, r in enumerate(rows) if r[0].index == me.index]
    elif node.kind == "row" and node.chunk is not None:
        focus = [k for k, r in enumerate(rows) if r[0].index == node.chunk.index and r[1] == node.row]
    else:
        focus = [k for k, r in enumerate(rows) if r[2] < max(node.end, node.start + 1) and r[3] > node.start]
    if not focus:
        return [], ()
    first = rows[focus[0]][0].table
    if first is None:
        return [], ()
    same = [k for k, r in enumerate(rows) if r[0].table is not None and r[0].table.table == first.table]
    focus = [k for k in focus if k in same]
    lo = max(same.index(focus[0]) - TABLE_CONTEXT, 0)
    hi = min(same.index(focus[-1]) + TABLE_CONTEXT + 1, len(same))
    chosen = set(focus)
    items = [row_item(layout, rows[k][0], rows[k][1], focus=k in chosen) for k in same[lo:hi]]
    return items, first.header


_EMPTY_NOTES: dict[Direction, str] = {
    "parent": "the document root has no parent",
    "children": "this passage has no children (paragraph chunks and rows have none)",
    "siblings": "this passage has no siblings",
    "prev": "this is the first chunk of its version",
    "next": "this is the last chunk of its version",
    "table": "this passage is not part of a table",
}


def neighbours(layout: VersionLayout, node: Node, to: Direction) -> tuple[list[NavItem], tuple[str, ...]]:
    """The items ``to`` leads to from ``node`` (pure), and the table header for ``table``."""
    if to == "parent":
        return _parent(layout, node), ()
    if to == "children":
        return _children(layout, node), ()
    if to == "siblings":
        return _siblings(layout, node), ()
    if to in ("prev", "next"):
        return _step(layout, node, to == "next"), ()
    return _table(layout, node)


def navigate(session: Navigating, id: str, to: str) -> Navigation:
    """Move from the passage ``id`` names (see the module table).

    Parameters
    ----------
    session : Navigating
        Ids outside its scope read as unknown.
    id : str
        A chunk or span id, in any readable version.
    to : {"parent", "children", "siblings", "prev", "next", "table"}
        Where to go.

    Returns
    -------
    Navigation
        The items (ids with titles and snippets), in text order; ``note``
        says why when there are none.

    Raises
    ------
    EvidenceIdError
        ``id`` is malformed (neither our id nor a builder's id form).
    NotFoundError
        ``id`` (ours or a builder's) names nothing readable in this session (same message whether
        it does not exist or lies outside the scope); on an index without
        passages (a graph imported from GraphML) the message says it holds none.
    EvidenceArgumentError
        ``to`` is not one of the directions.
    """
    if to not in DIRECTIONS:
        raise EvidenceArgumentError(f"to must be one of {', '.join(DIRECTIONS)}, got {to!r}")
    direction: Direction = to  # narrowed by the check above
    try:
        eid = parse_id(id)
    except EvidenceIdError:
        ours = passage_alias(session, id)  # a builder's id (GraphRAG text unit, LightRAG chunk)
        if ours is None:
            if builder_shaped(id):
                raise NotFoundError(unreadable_message(session, id)) from None
            raise
        eid = parse_id(ours)
    version = session.readable_version(eid)
    if version is None:
        raise NotFoundError(unreadable_message(session, id))
    layout = session.layout(version)
    node = locate(layout, eid)
    if node is None:
        if eid.span is not None:
            raise NotFoundError(
                f"span {eid.span[0]}-{eid.span[1]} starts after the end of {eid.document_id}@{eid.version} "
                f"({len(layout.text)} characters); use offsets from 0 to {len(layout.text)}"
            )
        raise NotFoundError(unreadable_message(session, id))
    items, header = neighbours(layout, node, direction)
    return Navigation(str(eid), direction, tuple(items), header, None if items else _EMPTY_NOTES[direction])
