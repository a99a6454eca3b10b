"""A small hand-written Babbage/Lovelace corpus, chunked and extracted for the kg tests."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agrag_lab.documents import Chunk, Document, TableInfo
from agrag_lab.ids import version_hash
from agrag_lab.kg.extract.build import ChunkExtraction
from agrag_lab.kg.extract.extraction import DocumentContext, RuleExtractor

BABBAGE = """Charles Babbage was born in London in 1791. He was an English mathematician, philosopher and mechanical engineer.

Babbage designed the Difference Engine, a machine for tabulating polynomial functions. Babbage later designed the Analytical Engine, a general-purpose computer.

The Analytical Engine was inspired by the Jacquard loom of Joseph Marie Jacquard. Babbage was a member of the Royal Astronomical Society.

Charles Babbage worked with Ada Lovelace on the Analytical Engine. Babbage corresponded with Lovelace for many years."""

LOVELACE = """Augusta Ada King, Countess of Lovelace, was born in London in 1815. She was the daughter of Lord Byron and Annabella Milbanke.

Augustus De Morgan was Ada's tutor. Mary Somerville introduced Ada to Charles Babbage in 1833.

In 1842 Luigi Menabrea wrote a paper on the Analytical Engine in the *Bibliothèque universelle de Genève*. Lovelace translated Menabrea's paper and added her own Notes.

Lovelace married William King in 1835."""

ENGINE = """The Analytical Engine was designed by Charles Babbage in 1837.

The Science Museum in London built a Difference Engine in 1991.

| Machine | Designer | Year |
|---|---|---|
| Difference Engine | Charles Babbage | 1822 |
| Analytical Engine | Charles Babbage | 1837 |"""

JACQUARD = """The Jacquard loom was built by Joseph Marie Jacquard in Lyon in 1804. The loom was controlled by punched cards."""

LOVELACE_FACTS = {
    "entities": [
        {
            "name": "Ada Lovelace",
            "label": "Person",
            "description": "English mathematician, known for her Notes on the Analytical Engine.",
            "aliases": [
                "Augusta Ada King",
                "Ada, Countess of Lovelace",
                "Countess of Lovelace",
            ],
        }
    ],
    "relations": [{"source": "Ada Lovelace", "target": "Lord Byron", "type": "CHILD_OF"}],
}


def make_documents() -> list[Document]:
    """The four documents of the corpus."""
    return [
        Document("babbage", "Charles Babbage", BABBAGE),
        Document("lovelace", "Ada Lovelace", LOVELACE, metadata=LOVELACE_FACTS),
        Document("engine", "Analytical Engine", ENGINE),
        Document("jacquard", "Jacquard loom", JACQUARD),
    ]


def _table(text: str) -> TableInfo:
    lines = [line for line in text.splitlines() if line.startswith("|")]
    cells = [tuple(c.strip() for c in line.strip("|").split("|")) for line in lines]
    body = [row for row in cells[1:] if not set("".join(row)) <= set("-: ")]
    offsets = tuple((text.index(line), text.index(line) + len(line)) for line in lines[2:])
    return TableInfo(0, cells[0], tuple(body), 0, offsets)


def chunk_document(document: Document) -> list[Chunk]:
    """Cut a document into paragraph (and table) chunks at blank lines."""
    version = version_hash(document.text)
    chunks = []
    for index, match in enumerate(re.finditer(r"[^\n]+(?:\n[^\n]+)*", document.text)):
        text = match.group(0)
        table = _table(text) if text.startswith("|") else None
        chunks.append(
            Chunk(
                document.id,
                version,
                index,
                text,
                match.start(),
                match.end(),
                "table" if table else "paragraph",
                0,
                (document.title,),
                table,
            )
        )
    return chunks


def extract_documents(documents: Sequence[Document], current: bool = True) -> list[ChunkExtraction]:
    """Chunk and extract documents with the rule extractor."""
    extractor = RuleExtractor()
    items = []
    for document in documents:
        context = DocumentContext.from_document(document)
        for chunk in chunk_document(document):
            items.append(
                ChunkExtraction(
                    chunk.id,
                    document.id,
                    current,
                    chunk.text,
                    extractor.extract(chunk, context),
                )
            )
    return items
