"""Parsing and chunking: headings, tables, paragraphs, exact offsets, word boundaries."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agrag_lab.chunking import chunk_text
from agrag_lab.datasets import workshop

V = "0123456789ab"


def test_every_chunk_is_an_exact_slice_of_the_workshop_texts() -> None:
    for doc in workshop().documents:
        _, chunks = chunk_text(doc.id, V, doc.text, doc.format, chunk_size=400, title=doc.title)
        assert chunks, doc.id
        for c in chunks:
            assert doc.text[c.start : c.end] == c.text
            assert c.heading_path and c.heading_path[0] == doc.title


def test_heading_paths_follow_nesting() -> None:
    text = "# Top\n\nintro\n\n## A\n\npara a\n\n### A1\n\npara a1\n\n## B\n\npara b\n"
    sections, chunks = chunk_text("d", V, text, "markdown", chunk_size=20)
    assert [c.heading_path for c in chunks] == [("Top",), ("Top", "A"), ("Top", "A", "A1"), ("Top", "B")]
    by_title = {s.title: s for s in sections}
    assert by_title["A1"].parent == by_title["A"].index
    assert by_title["B"].parent == 0
    assert text[by_title["A"].start : by_title["A"].end].startswith("## A")
    assert "## B" not in text[by_title["A"].start : by_title["A"].end]


def test_table_keeps_rows_and_cells_and_is_never_split_mid_row() -> None:
    rows = "".join(f"| {y} | Event number {y} with words |\n" for y in range(1800, 1840))
    text = "# T\n\n| Year | Event |\n|---|---|\n" + rows
    _, chunks = chunk_text("d", V, text, "markdown", chunk_size=300)
    tables = [c for c in chunks if c.kind == "table"]
    assert len(tables) > 1
    seen = []
    for c in tables:
        assert c.table is not None and c.table.header == ("Year", "Event")
        for cells, (start, end) in zip(c.table.rows, c.table.row_offsets, strict=True):
            assert text[start:end].startswith("|") and text[start:end].rstrip().endswith("|")
            assert c.start <= start and end <= c.end
            seen.append(cells[0])
    assert seen == [str(y) for y in range(1800, 1840)]
    assert tables[1].table is not None and tables[1].table.first_row == len(tables[0].table.rows)  # type: ignore[union-attr]


def test_long_paragraph_never_cuts_a_word() -> None:
    words = [f"word{i}" for i in range(500)]
    text = " ".join(words)
    _, chunks = chunk_text("d", V, text, "text", chunk_size=100)
    assert len(chunks) > 10
    rebuilt = []
    for c in chunks:
        assert len(c.text) <= 100
        assert text[c.start : c.end] == c.text
        rebuilt += c.text.split()
    assert rebuilt == words


def test_a_word_longer_than_the_chunk_size_stays_whole() -> None:
    text = "short " + "x" * 300 + " tail"
    _, chunks = chunk_text("d", V, text, "text", chunk_size=50)
    assert "x" * 300 in [c.text for c in chunks]


def test_plain_text_splits_by_paragraphs_and_ignores_markdown() -> None:
    text = "# not a heading\n\nSecond paragraph.\n"
    sections, chunks = chunk_text("d", V, text, "text", chunk_size=20, title="Doc")
    assert len(sections) == 1
    assert [c.heading_path for c in chunks] == [("Doc",), ("Doc",)]


def test_fenced_code_is_kept_whole() -> None:
    text = "# T\n\n```\n# not a heading\n\n| not | a table |\n```\n"
    sections, chunks = chunk_text("d", V, text, "markdown", chunk_size=200)
    assert len(sections) == 1
    assert [c.kind for c in chunks] == ["paragraph"]
    assert "# not a heading" in chunks[0].text


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.from_regex(r"#{1,3} [A-Z][a-z]{1,8}", fullmatch=True),
            st.from_regex(r"[A-Za-z ,.]{1,200}", fullmatch=True),
            st.just("| a | b |\n|---|---|\n| 1 | 2 |"),
        ),
        min_size=1,
        max_size=15,
    ),
    st.integers(20, 300),
)
def test_offsets_are_exact_for_any_markdown(blocks: list[str], size: int) -> None:
    text = "\n\n".join(blocks)
    _, chunks = chunk_text("d", V, text, "markdown", chunk_size=size)
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.text.strip()
    assert [c.index for c in chunks] == list(range(len(chunks)))
