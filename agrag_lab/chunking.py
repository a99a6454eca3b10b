"""Parse a version's text into sections and cut it into chunks with exact offsets.

Markdown is split into sections by ATX headings (``#`` .. ``######``), then
into blocks: paragraphs, pipe tables and fenced code. Plain text is split into
paragraphs by blank lines. Consecutive paragraphs of one section are packed
into chunks of at most ``chunk_size`` characters; a longer paragraph is cut at
whitespace (a chunk never cuts a word: a single word longer than
``chunk_size`` becomes one oversized chunk). A table is never split mid-row:
a table larger than ``chunk_size`` is cut between rows, and each part keeps
the header cells in its :class:`~agrag_lab.documents.TableInfo`.

Every chunk satisfies ``text[chunk.start:chunk.end] == chunk.text``.

Examples
--------
>>> from agrag_lab.chunking import chunk_text
>>> text = "# Babbage\\n\\nA mathematician.\\n\\n## Engines\\n\\n| Machine | Year |\\n|---|---|\\n| DE1 | 1832 |"
>>> sections, chunks = chunk_text("babbage", "0123456789ab", text, "markdown", chunk_size=200)
>>> [(c.kind, c.heading_path) for c in chunks]
[('paragraph', ('Babbage',)), ('table', ('Babbage', 'Engines'))]
>>> chunks[1].table.rows
(('DE1', '1832'),)
>>> all(text[c.start:c.end] == c.text for c in chunks)
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

from agrag_lab.documents import Chunk, DocumentFormat, Section, TableInfo
from agrag_lab.errors import DocumentError
from agrag_lab.limits import MAX_CHUNK_SIZE, MIN_CHUNK_SIZE, out_of_range

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")

#: Default chunk size in characters.
DEFAULT_CHUNK_SIZE = 800


@dataclass(frozen=True)
class _Line:
    start: int
    end: int  # excluding the newline
    text: str


@dataclass(frozen=True)
class _Block:
    kind: str  # "paragraph" | "table"
    start: int
    end: int
    section: int
    lines: tuple[_Line, ...]


def _lines(text: str) -> list[_Line]:
    out: list[_Line] = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        out.append(_Line(pos, pos + len(body), body))
        pos += len(raw)
    return out


def _is_table_line(line: _Line) -> bool:
    return line.text.lstrip().startswith("|")


def _cells(line: str) -> tuple[str, ...]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return tuple(cell.strip() for cell in re.split(r"(?<!\\)\|", body))


def parse_blocks(
    text: str, fmt: DocumentFormat, title: str = ""
) -> tuple[list[Section], list[_Block]]:
    """Split ``text`` into sections and content blocks (internal building block).

    Section 0 is the document root; its heading path is empty unless the text
    opens with a level-1 heading, which then names the root.
    """
    lines = _lines(text)
    sections: list[Section] = [Section(0, title, 0, 0, len(text), None, (title,) if title else ())]
    open_sections: list[int] = [0]  # stack of section indexes by level
    blocks: list[_Block] = []
    current: list[_Line] = []
    current_kind = ""
    in_fence = False

    def flush() -> None:
        nonlocal current, current_kind
        if current:
            blocks.append(
                _Block(current_kind, current[0].start, current[-1].end, open_sections[-1], tuple(current))
            )
        current, current_kind = [], ""

    def close_to(level: int, at: int) -> None:
        while len(open_sections) > 1 and sections[open_sections[-1]].level >= level:
            idx = open_sections.pop()
            s = sections[idx]
            sections[idx] = Section(s.index, s.title, s.level, s.start, at, s.parent, s.heading_path)

    for line in lines:
        if fmt == "markdown" and _FENCE.match(line.text):
            if not in_fence and current_kind != "paragraph":
                flush()
            current_kind = "paragraph"
            current.append(line)
            in_fence = not in_fence
            continue
        if in_fence:
            current.append(line)
            continue
        if not line.text.strip():
            flush()
            continue
        heading = _HEADING.match(line.text) if fmt == "markdown" else None
        if heading:
            flush()
            level, name = len(heading.group(1)), heading.group(2).strip()
            if level == 1 and len(sections) == 1 and not blocks:
                root = sections[0]
                sections[0] = Section(0, name, 0, root.start, root.end, None, (name,))
                continue
            close_to(level, line.start)
            parent = open_sections[-1]
            path = (*sections[parent].heading_path, name)
            sections.append(Section(len(sections), name, level, line.start, len(text), parent, path))
            open_sections.append(len(sections) - 1)
            continue
        kind = "table" if fmt == "markdown" and _is_table_line(line) else "paragraph"
        if current and kind != current_kind:
            flush()
        current_kind = kind
        current.append(line)
    flush()
    close_to(1, len(text))
    return sections, blocks


def _split_words(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` at whitespace into pieces of at most ``size`` chars."""
    pieces: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            break
        if end - pos <= size:
            pieces.append((pos, end))
            break
        cut = pos + size
        # back up to the last whitespace inside the window
        back = cut
        while back > pos and not text[back].isspace():
            back -= 1
        if back == pos:  # one word longer than size: keep it whole
            back = cut
            while back < end and not text[back].isspace():
                back += 1
        piece_end = back
        while piece_end > pos and text[piece_end - 1].isspace():
            piece_end -= 1
        pieces.append((pos, piece_end))
        pos = back
    return pieces


def _table_chunks(text: str, block: _Block, table_no: int, size: int) -> list[tuple[int, int, TableInfo]]:
    lines = list(block.lines)
    header: tuple[str, ...] = ()
    body = lines
    if len(lines) >= 2 and _TABLE_SEPARATOR.match(lines[1].text):
        header = _cells(lines[0].text)
        body = lines[2:]
    out: list[tuple[int, int, TableInfo]] = []
    group: list[_Line] = []
    first_row = 0
    chunk_start = block.start

    def emit(row_index: int) -> None:
        nonlocal group, first_row, chunk_start
        if not group and out:
            return
        end = group[-1].end if group else lines[-1].end
        info = TableInfo(
            table_no,
            header,
            tuple(_cells(r.text) for r in group),
            first_row,
            tuple((r.start, r.end) for r in group),
        )
        out.append((chunk_start, end, info))
        first_row = row_index
        group = []

    for i, row in enumerate(body):
        if group and row.end - chunk_start > size:
            emit(i)
            chunk_start = row.start
        group.append(row)
    emit(len(body))
    return out


def check_chunk_size(chunk_size: object) -> int:
    """``chunk_size`` if it is a chunk size agrag_lab can cut by, else a :class:`DocumentError`.

    Examples
    --------
    >>> check_chunk_size(0)
    Traceback (most recent call last):
    ...
    agrag_lab.errors.DocumentError: chunk_size must be an integer >= 20 (got 0); it is the most characters per chunk (800 by default), between 20 and 100000
    """
    problem = out_of_range(chunk_size, MIN_CHUNK_SIZE, MAX_CHUNK_SIZE)
    if problem is not None:
        raise DocumentError(
            f"chunk_size {problem}; it is the most characters per chunk ({DEFAULT_CHUNK_SIZE} by default), "
            f"between {MIN_CHUNK_SIZE} and {MAX_CHUNK_SIZE}"
        )
    return cast("int", chunk_size)


def chunk_text(
    document_id: str,
    version: str,
    text: str,
    fmt: DocumentFormat,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    title: str = "",
) -> tuple[list[Section], list[Chunk]]:
    """Parse and chunk one version's text.

    Parameters
    ----------
    document_id, version : str
        Written into every chunk (they make its evidence id).
    text : str
        The version text; offsets refer to it.
    fmt : {"markdown", "text"}
        Markdown gets headings and tables; text only paragraphs.
    chunk_size : int
        Target maximum characters per chunk.
    title : str
        The document title, the name of the root section when the text has no
        level-1 heading of its own.

    Returns
    -------
    sections, chunks
    """
    check_chunk_size(chunk_size)
    sections, blocks = parse_blocks(text, fmt, title)
    spans: list[tuple[int, int, str, int, TableInfo | None]] = []
    pending: tuple[int, int, int] | None = None  # start, end, section
    table_no = 0

    def flush() -> None:
        nonlocal pending
        if pending is not None:
            spans.append((pending[0], pending[1], "paragraph", pending[2], None))
            pending = None

    for block in blocks:
        if block.kind == "table":
            flush()
            for start, end, info in _table_chunks(text, block, table_no, chunk_size):
                spans.append((start, end, "table", block.section, info))
            table_no += 1
            continue
        if block.end - block.start > chunk_size:
            flush()
            for start, end in _split_words(text, block.start, block.end, chunk_size):
                spans.append((start, end, "paragraph", block.section, None))
            continue
        if pending is not None and pending[2] == block.section and block.end - pending[0] <= chunk_size:
            pending = (pending[0], block.end, pending[2])
        else:
            flush()
            pending = (block.start, block.end, block.section)
    flush()
    chunks = [
        Chunk(
            document_id=document_id,
            version=version,
            index=i,
            text=text[start:end],
            start=start,
            end=end,
            kind="table" if kind == "table" else "paragraph",
            section=section,
            heading_path=sections[section].heading_path,
            table=info,
        )
        for i, (start, end, kind, section, info) in enumerate(spans)
    ]
    return sections, chunks
