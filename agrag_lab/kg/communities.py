"""A community of the graph: :class:`Community`, one node of the hierarchy of communities.

The hierarchy is found by :func:`~agrag_lab.kg.algorithms.communities.detect_communities`
(hierarchical Leiden) or imported with a graph (GraphRAG's communities); every
store, export and edit reads this one value.

Examples
--------
>>> c = Community("com-1-0", 1, ("ent-a", "ent-b"), parent="com-0-0")
>>> c.size, c.parent
(2, 'com-0-0')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Community"]


@dataclass(frozen=True)
class Community:
    """A community of entities at one level of the hierarchy.

    ``members`` are entity ids (sorted); ``parent`` is the id of the community
    one level up that this one splits (``None`` at level 0); ``children`` the
    ids one level down.
    """

    id: str
    level: int
    members: tuple[str, ...]
    parent: str | None = None
    children: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        """Number of member entities."""
        return len(self.members)
