"""What the views (widgets) and the command line need of a graph, as narrow protocols.

A view takes a :class:`~agrag_lab.graph.Graph`, a
:class:`~agrag_lab.retrieval.engine.SearchEngine` or a bare graph store: the
first two *hold* a graph store (:class:`StoreHolder`), the last *is* one
(:class:`~agrag_lab.kg.graph_store.GraphStore`). A graph that can also show a
passage by its chunk id is a :class:`PassageSource`.

Examples
--------
>>> isinstance(object(), StoreHolder)
False
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

from agrag_lab.kg.graph_store import GraphStore

if TYPE_CHECKING:
    from agrag_lab.retrieval.trace import ItemInfo

__all__ = ["GraphSource", "ItemShower", "PassageSource", "StoreHolder", "store_of"]


@runtime_checkable
class StoreHolder(Protocol):
    """Anything that holds a graph store: a ``Graph``, a ``SearchEngine``."""

    @property
    def graph_store(self) -> GraphStore:
        """The graph store it holds (a ``Graph``'s search store, a ``SearchEngine``'s)."""
        ...


@runtime_checkable
class ItemShower(Protocol):
    """A store that shows an item (entity, chunk or community report) by its key: an index's search store."""

    def item_info(self, key: str) -> ItemInfo | None:
        """How to show ``key``, or None when it names nothing visible."""
        ...


@runtime_checkable
class PassageSource(StoreHolder, Protocol):
    """A graph that also shows a passage by its chunk id (a ``Graph``)."""

    def chunk_info(self, key: str) -> ItemInfo | None: ...


#: What a view that draws a graph takes: a holder of a graph store, or a graph store.
GraphSource: TypeAlias = StoreHolder | GraphStore


def store_of(source: GraphSource) -> GraphStore:
    """The graph store of ``source``: the one it holds, or ``source`` itself."""
    return source.graph_store if isinstance(source, StoreHolder) else source
