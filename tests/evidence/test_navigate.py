"""navigate: sections (parent, children, siblings), prev/next, tables with rows and cells."""

from __future__ import annotations

import pytest
from evidence_support import AE, Universe

from agrag_lab import Graph
from agrag_lab.chunking import _cells
from agrag_lab.errors import EvidenceIdError, NotFoundError
from agrag_lab.evidence import EvidenceArgumentError, Scope
from agrag_lab.evidence.access import span_id, unknown_id_message
from agrag_lab.evidence.navigation import cell_spans


def _v(universe: Universe, doc: str) -> str:
    return universe.current(doc).version


def test_parent_children_and_siblings_walk_the_sections(workshop_graph: Graph, universe: Universe) -> None:
    s = workshop_graph.evidence()
    v = _v(universe, "timeline")
    sections = workshop_graph.db.sections_of("timeline", v)
    periods = next(x for x in sections if x.title == "The story in periods")
    chunk = next(c for c in universe.chunks[("timeline", v)] if c.heading_path[-1] == "Before the engines")
    parent = s.navigate(chunk.id, "parent")
    (section,) = parent.items
    assert section.kind == "section" and section.location.heading_path == chunk.heading_path
    grand = s.navigate(section.id, "parent").items[0]
    assert grand.id == span_id("timeline", v, periods.start, periods.end)
    children = s.navigate(grand.id, "children")
    assert [i.location.heading_path[-1] for i in children.items] == [
        x.title for x in sections if x.parent == periods.index
    ]
    assert all(i.kind == "section" for i in children.items)
    siblings = s.navigate(grand.id, "siblings")
    assert [i.location.heading_path[-1] for i in siblings.items] == ["Chronology", "Notes on the dates"]
    root = s.navigate(siblings.items[0].id, "parent").items[0]
    assert s.navigate(root.id, "parent").items == () and s.navigate(root.id, "parent").note
    fetched = s.fetch(section.id).items[0]
    assert fetched.ok and fetched.text.startswith("### Before the engines")  # type: ignore[union-attr]


def test_section_children_mix_chunks_and_subsections_in_text_order(workshop_graph: Graph, universe: Universe) -> None:
    s = workshop_graph.evidence()
    v = _v(universe, AE)
    sections = workshop_graph.db.sections_of(AE, v)
    root = sections[0]
    items = s.navigate(span_id(AE, v, root.start, root.end), "children").items
    assert items[0].kind == "chunk" and any(i.kind == "section" for i in items)
    assert [i.location.start for i in items] == sorted(i.location.start for i in items)


def test_siblings_prev_and_next_of_a_chunk(workshop_graph: Graph, universe: Universe) -> None:
    s = workshop_graph.evidence()
    chunks = universe.chunks[("timeline", _v(universe, "timeline"))]
    c2 = chunks[2]
    assert s.navigate(c2.id, "prev").ids == (chunks[1].id,)
    assert s.navigate(c2.id, "next").ids == (chunks[3].id,)
    assert set(s.navigate(c2.id, "siblings").ids) == {c.id for c in chunks if c.section == c2.section} - {c2.id}
    assert s.navigate(chunks[0].id, "prev").items == ()
    assert s.navigate(chunks[-1].id, "next").note == "this is the last chunk of its version"
    span = f"{chunks[4].id.split('#')[0]}#s{chunks[4].start + 5}-{chunks[4].start + 20}"
    assert s.navigate(span, "parent").ids == (chunks[4].id,)
    assert s.navigate(span, "prev").ids == (chunks[3].id,) and s.navigate(span, "next").ids == (chunks[5].id,)


def test_table_rows_and_cells_around_a_table_chunk(workshop_graph: Graph, universe: Universe) -> None:
    s = workshop_graph.evidence()
    v = _v(universe, "timeline")
    chunks = universe.chunks[("timeline", v)]
    middle = next(c for c in chunks if c.table is not None and c.table.first_row > 0)
    nav = s.navigate(middle.id, "table")
    assert nav.header == ("Year", "Event", "People")
    focus = [i for i in nav.items if i.focus]
    table = middle.table
    assert table is not None
    assert len(focus) == len(table.rows)
    total = sum(len(c.table.rows) for c in chunks if c.table is not None and c.table.table == table.table)
    before = min(2, table.first_row)
    after = min(2, total - table.first_row - len(focus))
    assert before == 2 and after >= 1  # context comes from the neighbouring chunks
    assert len(nav.items) == before + len(focus) + after
    text = universe.text("timeline", v) or ""
    for item in nav.items:
        assert item.kind == "row" and [c.header for c in item.cells] == ["Year", "Event", "People"]
        for cell in item.cells:
            assert cell.id is not None
            got = s.fetch(cell.id).items[0]
            assert got.ok and got.text == cell.value  # type: ignore[union-attr]
        assert text[item.location.start : item.location.end].startswith("| " + item.cells[0].value)
    children = s.navigate(middle.id, "children")
    assert [i.id for i in children.items] == [i.id for i in focus]


def test_table_around_a_row_and_a_cell(workshop_graph: Graph, universe: Universe) -> None:
    s = workshop_graph.evidence()
    v = _v(universe, "difference-engine")
    table_chunks = [c for c in universe.chunks[("difference-engine", v)] if c.table is not None]
    assert len(table_chunks) > 1  # the wide table is cut between rows
    rows = [item for c in table_chunks for item in s.navigate(c.id, "children").items]
    assert [c.header for c in rows[0].cells] == ["Machine", "Designer", "Designed", "Built", "Notes"]
    assert len(rows) == 7
    row = rows[3]
    around = s.navigate(row.id, "table")
    assert [i.id for i in around.items if i.focus] == [row.id]
    assert [i.id for i in around.items] == [r.id for r in rows[1:6]]
    holder = next(c for c in table_chunks if c.start <= row.location.start < c.end)
    assert s.navigate(row.id, "parent").ids == (holder.id,)
    mates = {r.id for r in rows if holder.start <= r.location.start < holder.end}
    assert set(s.navigate(row.id, "siblings").ids) == mates - {row.id}
    cell = row.cells[1]
    assert cell.id is not None
    by_cell = s.navigate(cell.id, "table")
    assert [i.id for i in by_cell.items if i.focus] == [row.id]
    plain = next(c for c in universe.chunks[("difference-engine", v)] if c.table is None)
    nav = s.navigate(plain.id, "table")
    assert nav.items == () and nav.note == "this passage is not part of a table"


def test_navigation_stays_in_a_superseded_version(workshop_graph: Graph, universe: Universe) -> None:
    old = universe.old(AE)
    chunks = universe.chunks[(AE, old.version)]
    s = workshop_graph.evidence()
    nxt = s.navigate(chunks[0].id, "next")
    assert nxt.ids == (chunks[1].id,)
    assert all(old.version in i for i in s.navigate(chunks[1].id, "parent").ids)
    table = next(c for c in chunks if c.table is not None)
    assert all(old.version in i.id for i in s.navigate(table.id, "table").items)


def test_navigate_errors(workshop_graph: Graph, universe: Universe) -> None:
    v = _v(universe, "timeline")
    inside = workshop_graph.evidence(Scope(document_ids=frozenset({"note-g"})))
    real, fake = f"timeline@{v}#c1", f"timelinf@{v}#c1"
    with pytest.raises(NotFoundError) as out_of_scope:
        inside.navigate(real, "next")
    with pytest.raises(NotFoundError) as unknown:
        inside.navigate(fake, "next")
    assert str(out_of_scope.value) == unknown_id_message(real)
    assert str(unknown.value) == unknown_id_message(fake)
    with pytest.raises(EvidenceIdError):
        inside.navigate("timeline#c1", "next")
    with pytest.raises(EvidenceArgumentError, match="to must be one of"):
        inside.navigate(real, "up")


def test_cell_spans_follow_the_chunker() -> None:
    row = "| a | b \\| c |  |"
    spans = cell_spans(row)
    assert [row[a:b] for a, b in spans] == ["a", "b \\| c", ""]
    for text in ("x | y", "| 1804 | Loom shown |", "|a|b|", "| only |", "  | padded |  x  |  "):
        assert tuple(text[a:b] for a, b in cell_spans(text)) == _cells(text)
