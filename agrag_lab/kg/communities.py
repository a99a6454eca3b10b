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

__all__ = ["LISTED_LEVEL", "Community"]

#: Entity attribute: the lowest level at which the builder's node table lists the entity, in a community or in
#: none (GraphRAG 0.x and 1.x ``create_final_nodes``: a row per entity and level, community ``-1`` outside every
#: community). Their local search keeps an entity listed at a level up to its ``community_level``, in a community
#: or not; 2.x and later join entities to communities and keep only those in one.
LISTED_LEVEL = "listed_level"


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
