"""The mapped values of an import, before anything is written: :class:`ImportedIndex`.

An importer (:mod:`~agrag_lab.importing.graphrag`, :mod:`~agrag_lab.importing.graphml`)
turns its source into one of these with pure functions; the writer
(:mod:`~agrag_lab.importing.writer`) hands it to the index build.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.importing.aliases import Aliases
from agrag_lab.importing.report import Skipped
from agrag_lab.index.build import PreparedVersion

__all__ = ["ImportedIndex", "StoredVectors"]


@dataclass(frozen=True, eq=False)
class StoredVectors:
    """The vectors a builder stored, by our ids: an entity's own record (``entities``: entity id), a relation's
    records (``relations``: the pair of its ends' entity ids), a chunk (``chunks``: evidence id), a community
    report (``reports``: community id); ``dimension`` is their length and ``source`` names the files they came
    from. ``kinds`` names what the builder embeds at all (``"entities"``, ``"relations"``, ``"chunks"``,
    ``"reports"``): an item of such a kind with no vector is one the builder lost."""

    dimension: int
    source: str
    entities: Mapping[str, np.ndarray] = field(default_factory=dict)
    relations: Mapping[frozenset[str], np.ndarray] = field(default_factory=dict)
    chunks: Mapping[str, np.ndarray] = field(default_factory=dict)
    reports: Mapping[str, np.ndarray] = field(default_factory=dict)
    kinds: frozenset[str] = frozenset({"entities", "relations", "chunks"})

    def __len__(self) -> int:
        return len(self.entities) + len(self.relations) + len(self.chunks) + len(self.reports)


@dataclass(frozen=True, eq=False)
class ImportedIndex:
    """Everything an import writes: document versions with their chunks (ready for
    :meth:`Graph.write_index <agrag_lab.graph.Graph.write_index>`) and the graph
    store (graph, communities, reports), with the source's row counts, what was
    skipped, and notes. ``placement`` counts the text units placed ``exact``,
    ``approximate`` and ``unplaced`` (kept as chunks of their own); ``aliases``
    maps every id the builder gave (GraphRAG ``id`` and ``human_readable_id``
    of each table, LightRAG chunk, document and entity ids) to ours."""

    source: str
    format: str
    documents: tuple[PreparedVersion, ...]
    store: NetworkXGraphStore
    rows: Mapping[str, int] = field(default_factory=dict)
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()
    claims: int = 0
    placement: Mapping[str, int] = field(default_factory=dict)
    aliases: Aliases = field(default_factory=Aliases)
    #: The vectors the builder stored (None: it stored none, or they were not read).
    stored: StoredVectors | None = None
    #: Why vectors the builder stored were not read (``""``: none was left), e.g. a package not installed.
    vectors_unread: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", MappingProxyType(dict(self.rows)))
        object.__setattr__(self, "placement", MappingProxyType(dict(self.placement)))

    def fingerprint(self) -> str:
        """sha256 of what the import writes: same source, same fingerprint (re-import is a no-op)."""
        digest = hashlib.sha256(self.format.encode("utf-8"))
        for doc in self.documents:
            digest.update(f"\0{doc.document.id}\0{doc.version}\0{len(doc.chunks)}".encode())
            for c in doc.chunks:
                digest.update(f"{c.start}:{c.end};".encode())
        digest.update(self.store.dumps().encode("utf-8"))
        return digest.hexdigest()
