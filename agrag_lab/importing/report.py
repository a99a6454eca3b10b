"""What an import did: :class:`ImportReport` (counts, what was skipped and why, timings).

Examples
--------
>>> r = ImportReport("out", "graphrag-3", rows={"entities": 2}, entities=2)
>>> r.skipped_count("entities")
0
>>> print(str(r).splitlines()[0])
out (graphrag-3): 0 documents, 0 chunks, 2 entities, 0 relations, 0 communities, 0 reports, 0 claims
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["ImportReport", "Skipped"]


@dataclass(frozen=True)
class Skipped:
    """``count`` rows of ``table`` that were not imported, and why."""

    table: str
    count: int
    reason: str


@dataclass(frozen=True)
class ImportReport:
    """What an import read, wrote, skipped and how long embedding took.

    Attributes
    ----------
    source : str
        The folder or file imported.
    format : str
        ``graphrag-3`` (2.x/3.x names), ``graphrag-1`` (``create_final_*``) or ``graphml``.
    rows : mapping of str to int
        Rows read per source table (GraphML: ``nodes`` and ``edges``).
    documents, chunks, entities, relations, communities, reports, claims : int
        What the index holds after the import.
    placement : mapping of str to int
        Text units placed ``exact``, ``approximate`` (split inside a
        character) and kept ``unplaced`` (a chunk of their own).
    aliases : int
        Builder ids that resolve to ours (see :mod:`agrag_lab.importing.aliases`).
    skipped : tuple of Skipped
        Rows not imported, per table, with the reason. ``rows[t]`` equals what
        was written from ``t`` plus ``skipped_count(t)``.
    notes : tuple of str
        Other things worth knowing (a metadata line removed from text units,
        a graph without source text).
    unchanged : bool
        The index already held exactly this import; nothing was written.
    embedded : int
        Texts embedded by this import (the rest were in the embedding cache).
    embedding_seconds : float
        Time spent embedding, in batches, through the index build.
    raw_encode_seconds : float or None
        A plain encode of the same texts in one call (``measure_raw_encode=True``).
    seconds : float
        The whole import.
    """

    source: str
    format: str
    rows: Mapping[str, int] = field(default_factory=dict)
    documents: int = 0
    chunks: int = 0
    entities: int = 0
    relations: int = 0
    communities: int = 0
    reports: int = 0
    claims: int = 0
    placement: Mapping[str, int] = field(default_factory=dict)
    aliases: int = 0
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()
    unchanged: bool = False
    embedded: int = 0
    embedding_seconds: float = 0.0
    raw_encode_seconds: float | None = None
    seconds: float = 0.0
    #: The model that searches the index (the index's embedder), and the builder's vectors reused (not embedded).
    searched_by: str = ""
    reused: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", MappingProxyType(dict(self.rows)))
        object.__setattr__(self, "placement", MappingProxyType(dict(self.placement)))

    @property
    def has_passages(self) -> bool:
        """Whether the import brought source text (chunks)."""
        return self.chunks > 0

    def skipped_count(self, table: str) -> int:
        """How many rows of ``table`` were skipped."""
        return sum(s.count for s in self.skipped if s.table == table)

    @property
    def embedding_ratio(self) -> float | None:
        """``embedding_seconds / raw_encode_seconds`` when both were measured."""
        if not self.raw_encode_seconds:
            return None
        return self.embedding_seconds / self.raw_encode_seconds

    def __str__(self) -> str:
        lines = [
            f"{self.source} ({self.format}): {self.documents} documents, {self.chunks} chunks, "
            f"{self.entities} entities, {self.relations} relations, {self.communities} communities, "
            f"{self.reports} reports, {self.claims} claims"
        ]
        if self.unchanged:
            lines.append("unchanged: the index already holds this import")
        else:
            lines.append(f"embedded {self.embedded} texts in {self.embedding_seconds:.1f} s; {self.seconds:.1f} s in all")
        if self.searched_by:
            lines.append(f"searched by {self.searched_by}" + (f"; {self.reused} of the builder's vectors reused"
                                                               if self.reused else ""))
        if self.raw_encode_seconds is not None:
            lines.append(f"a raw encode of the same texts: {self.raw_encode_seconds:.1f} s")
        if self.placement:
            p = self.placement
            lines.append(
                f"text units: {p.get('exact', 0)} placed exactly, {p.get('approximate', 0)} placed approximately, "
                f"{p.get('unplaced', 0)} kept unplaced"
            )
        if self.aliases:
            lines.append(f"{self.aliases} builder ids kept as aliases (fetch, find_entities, explore, citations)")
        lines += [f"skipped {s.count} {s.table}: {s.reason}" for s in self.skipped]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)
