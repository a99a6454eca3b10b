"""What the evidence functions read of their session, as narrow protocols.

Each function module (``search``, ``reading``, ``navigation``, ``entities``,
``citations``, ``listing``, ``recipe_search``) takes its session as the
narrowest protocol it needs: :class:`Scoped` here (the scope and the index),
or one that a module declares beside its functions (``navigation.Navigating``
adds ``layout``, ``search.Discovering`` the passage filters...). None of them
imports :mod:`agrag_lab.evidence.session`, which assembles them; an
:class:`~agrag_lab.evidence.session.EvidenceSession` satisfies every one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agrag_lab.documents import Chunk
from agrag_lab.embedding import Embedder
from agrag_lab.evidence.scope import ResolvedScope
from agrag_lab.ids import EvidenceId
from agrag_lab.kg.scope import GraphScope
from agrag_lab.retrieval.store import IndexSearchStore
from agrag_lab.storage.documents_db import DocumentDB, VersionRecord
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.vectors import VectorStore

if TYPE_CHECKING:
    from agrag_lab.retrieval.engine import SearchEngine

__all__ = ["EvidenceSource", "Scoped"]


class EvidenceSource(Protocol):
    """What a session needs of an index (:class:`~agrag_lab.graph.Graph` has it)."""

    @property
    def db(self) -> DocumentDB: ...

    @property
    def path(self) -> Path:
        """The index folder (its edit log's redirects of merged entity ids are read there)."""

    @property
    def embedder(self) -> Embedder: ...

    @property
    def vector_store(self) -> VectorStore: ...

    @property
    def graph_store(self) -> IndexSearchStore: ...

    def keyword_index(self, collection: str) -> KeywordIndex: ...

    def engine(self) -> SearchEngine: ...


class Scoped(Protocol):
    """The scope, resolved at the index's current generation, and the index it reads: what every evidence
    function needs."""

    graph: EvidenceSource

    @property
    def resolved(self) -> ResolvedScope:
        """The scope as resolved into document ids."""

    def graph_scope(self) -> GraphScope:
        """The graph scope of the searchable documents."""

    def readable_version(self, eid: EvidenceId) -> VersionRecord | None:
        """The exact version an id names, if its document is readable."""

    def readable_chunk(self, eid: EvidenceId) -> Chunk | None:
        """The chunk a chunk id names, if its document is readable."""
