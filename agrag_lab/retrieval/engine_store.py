"""What :class:`~agrag_lab.retrieval.engine.SearchEngine` needs of its search store, as one protocol.

:class:`EngineGraphStore` is the methods' :class:`~agrag_lab.retrieval.methods.SearchableGraphStore`,
what every step reads (:class:`~agrag_lab.retrieval.steps.StepStore`), the entity API's reads,
and the index stamps a run records its warnings from. The search store of an index
(:class:`~agrag_lab.retrieval.store.IndexSearchStore`, and its served kind) implements it; the
engine reads it through this protocol only, with no attribute probed.
"""

from __future__ import annotations

from typing import Protocol

from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.steps import StepStore

__all__ = ["EngineGraphStore"]


class EngineGraphStore(StepStore, Protocol):
    """What the engine needs of a store: search, what its steps read, the entity API, and the index stamps."""

    def entity_names(self, entity_id: str, filters: SearchFilters | None = None) -> tuple[str, ...]:
        """The entity's name and aliases as ``filters`` show it; () when they do not show it."""
        ...

    def index_stamp(self) -> tuple[int, int, bool]:
        """Where the index stands now (see :data:`~agrag_lab.index.reading.IndexStamp`)."""
        ...

    def index_warnings(self) -> tuple[str, ...]:
        """What a reader must be told about the index now (mid-sync), read fresh at each call."""
        ...

    def index_changes(self, since: tuple[int, int, bool]) -> tuple[str, ...]:
        """A warning when the index changed (or was mid-sync) since ``since`` was stamped, else ``()``."""
        ...
