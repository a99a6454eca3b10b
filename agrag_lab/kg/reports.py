"""Community reports: a title and a short summary per community, to embed and search.

:class:`CommunityReport` is the value every store, export and search reads;
a :class:`CommunityReporter` writes one per community (the extractive and LLM
reporters of :mod:`agrag_lab.kg.extract`, or an import keeps its builder's);
:func:`report_text` is what a report is embedded and searched by.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from agrag_lab.kg.communities import Community
from agrag_lab.kg.model import KnowledgeGraph

__all__ = ["BatchReporter", "ChunkText", "CommunityReport", "CommunityReporter", "report_text"]

#: A function giving the text of a chunk id (``""`` when unknown).
ChunkText = Callable[[str], str]


@dataclass(frozen=True)
class CommunityReport:
    """What a community is about.

    ``key_entities`` are entity ids (best first) and ``key_entity_names`` their
    names; ``key_relations`` are ``(source id, type, target id)``;
    ``chunk_ids`` the current chunks that support the key relations (or, for a
    community without relations, that mention the key entities).

    An imported report (GraphRAG's) also keeps ``full_content`` (the whole
    Markdown report), ``findings`` (``(summary, explanation)`` pairs),
    ``rating`` (GraphRAG's impact rating, its ``rank``) and ``rating_explanation``.
    """

    community_id: str
    level: int
    title: str
    summary: str
    key_entities: tuple[str, ...]
    key_relations: tuple[tuple[str, str, str], ...]
    chunk_ids: tuple[str, ...]
    key_entity_names: tuple[str, ...] = ()
    full_content: str = ""
    findings: tuple[tuple[str, str], ...] = ()
    rating: float | None = None
    rating_explanation: str = ""


@runtime_checkable
class CommunityReporter(Protocol):
    """Writes the report of one community."""

    def report(self, community: Community, graph: KnowledgeGraph, chunk_text: ChunkText) -> CommunityReport:
        """Report on ``community`` of ``graph``; ``chunk_text`` reads a chunk by id."""
        ...


@runtime_checkable
class BatchReporter(CommunityReporter, Protocol):
    """A :class:`CommunityReporter` that also writes many reports at once (an LLM reporter asks concurrently).

    :func:`~agrag_lab.kg.extract.reports.build_reports` gives such a reporter
    all the communities in one call.
    """

    def report_many(
        self, communities: Sequence[Community], graph: KnowledgeGraph, chunk_text: ChunkText
    ) -> list[CommunityReport]:
        """The reports of ``communities``, in input order."""
        ...


def report_text(report: CommunityReport) -> str:
    """The text to embed and search for a report: title, summary, finding summaries, key entities.

    Every reporter's report reads the same fields (extractive, LLM-written, imported from GraphRAG).

    Examples
    --------
    >>> r = CommunityReport("com-0-0", 0, "A and B", "A met B.", ("ent-a", "ent-b"), (), (), ("A", "B"))
    >>> print(report_text(r))
    A and B
    A met B.
    Key entities: A, B
    """
    lines = [report.title, report.summary, *(summary for summary, _explanation in report.findings)]
    if report.key_entity_names:
        lines.append("Key entities: " + ", ".join(report.key_entity_names))
    return "\n".join(line for line in lines if line)
