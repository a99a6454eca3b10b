"""What an ingest will write: the batch checked, each document new, changed or unchanged, and the report.

:func:`plan_ingest` reads the stored documents and decides, before anything is
written, which versions to prepare and which documents to remove;
``Graph.ingest`` writes the plan through :meth:`IndexBuild.write` and returns
an :class:`IngestReport`.

Examples
--------
>>> print(IngestReport(new=1, changed=0, unchanged=2, removed=0, chunks=3, embedded=3, seconds=0.5))
1 new, 0 changed, 2 unchanged, 0 removed; 3 chunks written, 3 embedded; 0.50 s
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agrag_lab.documents import Document
from agrag_lab.errors import DocumentError
from agrag_lab.ids import version_hash
from agrag_lab.index.versions import PreparedVersion, prepare_document
from agrag_lab.loaders import check_size
from agrag_lab.storage.documents_db import DocumentDB

__all__ = ["IngestPlan", "IngestReport", "plan_ingest"]


@dataclass(frozen=True)
class IngestReport:
    """What an ingest did."""

    new: int
    changed: int
    unchanged: int
    removed: int
    chunks: int
    embedded: int
    seconds: float
    llm: str = ""  # what an LLM extractor and reporter spent (calls, tokens, time, cache, failures)

    def __str__(self) -> str:
        return (
            f"{self.new} new, {self.changed} changed, {self.unchanged} unchanged, "
            f"{self.removed} removed; {self.chunks} chunks written, {self.embedded} embedded; "
            f"{self.seconds:.2f} s" + (f"\n{self.llm}" if self.llm else "")
        )


@dataclass(frozen=True)
class IngestPlan:
    """The versions an ingest writes and the documents it removes, with its counts."""

    versions: tuple[PreparedVersion, ...]
    remove: tuple[str, ...]
    new: int
    changed: int
    unchanged: int

    @property
    def chunks(self) -> int:
        """Chunks of the versions to write."""
        return sum(len(v.chunks) for v in self.versions)


def plan_ingest(db: DocumentDB, documents: Iterable[Document], chunk_size: int, *, prune: bool) -> IngestPlan:
    """Check a batch and decide what it changes (``prune``: stored documents not in it are removed).

    Every document is checked (type, unique id, size and given facts) before
    any is prepared, so a bad batch writes nothing.

    Raises
    ------
    DocumentError
        A non-Document, duplicate ids, an oversized document or malformed given facts.
    """
    batch = list(documents)
    seen: set[str] = set()
    for doc in batch:
        if not isinstance(doc, Document):
            raise DocumentError(f"expected Document objects, got {type(doc).__name__}")
        if doc.id in seen:
            raise DocumentError(
                f"document id {doc.id!r} appears twice in one ingest; ids must be unique "
                "(rename one, or ingest them in separate calls to make versions)"
            )
        seen.add(doc.id)
        check_size(doc, "ingest")  # each Document checked itself, given facts included: all before any write
    new = changed = unchanged = 0
    planned: list[PreparedVersion] = []
    for doc in batch:
        version = version_hash(doc.text)
        record = db.document(doc.id)
        if record is not None and record.current_version == version and not record.removed:
            unchanged += 1
            continue
        if record is None or record.removed:
            new += 1
        else:
            changed += 1
        planned.append(prepare_document(doc, chunk_size))
    to_remove = tuple(r.id for r in db.documents() if prune and r.id not in seen)
    return IngestPlan(tuple(planned), to_remove, new, changed, unchanged)
