"""A document version ready to write: :class:`PreparedVersion`, made from a document or from ready-made chunks.

What :meth:`~agrag_lab.index.build.IndexBuild.write` takes: a version's
sections, chunks, the texts they are embedded and keyword-indexed as, and
their content hashes. An ingest prepares each changed document
(:func:`prepare_document`); an import prepares the chunks its builder made
(:func:`prepare_version`).

Examples
--------
>>> from agrag_lab.documents import Document
>>> v = prepare_document(Document("ada", "Ada", "Ada Lovelace wrote Note G."), 1000)
>>> len(v.chunks), v.chunks[0].document_id, v.version == v.chunks[0].version
(1, 'ada', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agrag_lab.chunking import chunk_text
from agrag_lab.documents import Chunk, Document, Section
from agrag_lab.errors import IndexFormatError
from agrag_lab.ids import version_hash
from agrag_lab.index.records import content_hash, vector_text

__all__ = ["PreparedVersion", "prepare_document", "prepare_version"]


@dataclass(frozen=True)
class PreparedVersion:
    """One document version, ready to write: its sections, chunks and their indexed texts.

    Build it with :func:`prepare_version` (chunks you made, e.g. from an
    imported text unit table) or :func:`prepare_document` (chunked here).
    ``texts[i]`` is what ``chunks[i]`` is embedded as
    (:func:`~agrag_lab.index.records.vector_text`), ``hashes[i]`` its content hash.
    """

    document: Document
    version: str
    sections: tuple[Section, ...]
    chunks: tuple[Chunk, ...]
    texts: tuple[str, ...]
    hashes: tuple[str, ...]


def prepare_version(document: Document, sections: Sequence[Section], chunks: Sequence[Chunk]) -> PreparedVersion:
    """A :class:`PreparedVersion` of ready-made sections and chunks.

    Raises
    ------
    IndexFormatError
        A chunk names another document or version than ``document``'s text.
    """
    version = version_hash(document.text)
    for chunk in chunks:
        if chunk.document_id != document.id or chunk.version != version:
            raise IndexFormatError(
                f"chunk {chunk.id} belongs to {chunk.document_id}@{chunk.version}, not to "
                f"{document.id}@{version}; make its chunks with version_hash(document.text)"
            )
    texts = tuple(vector_text(document.title, document.metadata, c) for c in chunks)
    return PreparedVersion(document, version, tuple(sections), tuple(chunks), texts, tuple(content_hash(t) for t in texts))


def prepare_document(document: Document, chunk_size: int) -> PreparedVersion:
    """A :class:`PreparedVersion` of ``document`` parsed and chunked as an ingest does."""
    version = version_hash(document.text)
    sections, chunks = chunk_text(
        document.id, version, document.text, document.format, chunk_size=chunk_size, title=document.title
    )
    return prepare_version(document, sections, chunks)
