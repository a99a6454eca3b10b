"""Hierarchical Leiden communities over the current entity graph.

The directed multigraph is projected to an undirected weighted graph: one
edge per pair of related entities, weighted by the number of distinct current
chunks that support any relation between them. graspologic-native's
``hierarchical_leiden`` runs on it with a fixed seed; every level it returns is
kept. Level 0 partitions every connected entity; a level-``k+1`` community
splits a level-``k`` community larger than ``max_cluster_size`` and names it
as ``parent``.

Isolated entities (no current relation: connected components of size 1) are
left out by default: alone, there is nothing to summarise. With
``include_isolated=True`` each becomes a singleton level-0 community, numbered
after the Leiden ones.

Ids are ``com-<level>-<n>``, numbered per level by size (largest first), then
by smallest member id, so they do not depend on the numbering of the library.

Examples
--------
>>> from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
>>> ents = [Entity(f"ent-{x}", x, "Entity", chunk_ids=("c",)) for x in "abcdef"]
>>> pairs = ["ab", "bc", "ca", "de", "ef", "fd", "cd"]
>>> kg = KnowledgeGraph.create(ents, [Edge(f"ent-{p[0]}", f"ent-{p[1]}", "RELATED_TO", ("c",)) for p in pairs])
>>> [(c.id, c.members) for c in detect_communities(kg)]
[('com-0-0', ('ent-a', 'ent-b', 'ent-c')), ('com-0-1', ('ent-d', 'ent-e', 'ent-f'))]
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agrag_lab.kg.communities import Community
from agrag_lab.kg.model import KnowledgeGraph

__all__ = ["detect_communities", "weighted_projection"]


def weighted_projection(graph: KnowledgeGraph) -> list[tuple[str, str, float]]:
    """Undirected edges ``(u, v, weight)`` with ``u < v``, sorted.

    ``weight`` is the number of distinct current chunks supporting any
    relation between ``u`` and ``v`` (at least 1). Self-loops are dropped.

    Examples
    --------
    >>> from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
    >>> ents = [Entity("ent-a", "A", "Entity", chunk_ids=("c1",)), Entity("ent-b", "B", "Entity", chunk_ids=("c1",))]
    >>> edges = [Edge("ent-a", "ent-b", "WROTE", ("c1",)), Edge("ent-b", "ent-a", "INSPIRED", ("c1", "c2"))]
    >>> weighted_projection(KnowledgeGraph.create(ents, edges))
    [('ent-a', 'ent-b', 2.0)]
    """
    support: dict[tuple[str, str], set[str]] = defaultdict(set)
    for edge in graph.edges:
        if edge.source == edge.target:
            continue
        pair = (edge.source, edge.target) if edge.source < edge.target else (edge.target, edge.source)
        support[pair].update(edge.chunk_ids)
    return [(u, v, float(max(len(chunks), 1))) for (u, v), chunks in sorted(support.items())]


def _leiden(
    edges: list[tuple[str, str, float]],
    seed: int,
    max_cluster_size: int,
    resolution: float,
    randomness: float,
) -> list[Any]:
    import graspologic_native as gn  # type: ignore[import-untyped,unused-ignore]

    clusters: list[Any] = gn.hierarchical_leiden(
        edges=edges,
        starting_communities=None,
        resolution=resolution,
        randomness=randomness,
        iterations=1,
        use_modularity=True,
        max_cluster_size=max_cluster_size,
        seed=seed,
    )
    return clusters


def detect_communities(
    graph: KnowledgeGraph,
    *,
    seed: int = 42,
    max_cluster_size: int = 10,
    resolution: float = 1.0,
    randomness: float = 0.001,
    include_isolated: bool = False,
) -> tuple[Community, ...]:
    """Hierarchical Leiden communities of ``graph`` (see the module docstring).

    Parameters
    ----------
    graph : KnowledgeGraph
        Only current entities and relations take part.
    seed : int
        Seed of the Leiden random generator; same graph and seed, same result.
    max_cluster_size : int
        Communities larger than this are split one level further down.
    resolution, randomness : float
        Passed to ``graspologic_native.hierarchical_leiden``.
    include_isolated : bool
        Also return a singleton level-0 community per isolated entity.

    Returns
    -------
    tuple of Community
        Sorted by level, then id number.
    """
    edges = weighted_projection(graph)
    raw: dict[int, tuple[int, int | None, list[str]]] = {}
    if edges:
        for item in _leiden(edges, seed, max_cluster_size, resolution, randomness):
            entry = raw.setdefault(int(item.cluster), (int(item.level), item.parent_cluster, []))
            entry[2].append(str(item.node))
    by_level: dict[int, list[tuple[tuple[str, ...], int | None, int]]] = defaultdict(list)
    for cluster, (level, parent, nodes) in raw.items():
        by_level[level].append((tuple(sorted(set(nodes))), parent, cluster))
    names: dict[int, str] = {}
    ordered: list[tuple[str, int, tuple[str, ...], int | None]] = []
    for level in sorted(by_level):
        for n, (members, parent, cluster) in enumerate(sorted(by_level[level], key=lambda c: (-len(c[0]), c[0]))):
            names[cluster] = f"com-{level}-{n}"
            ordered.append((names[cluster], level, members, parent))
    if include_isolated:
        placed = {node for u, v, _ in edges for node in (u, v)}
        start = len(by_level.get(0, []))
        lonely = [e for e in graph.entities if e not in placed]
        ordered[start:start] = [(f"com-0-{start + i}", 0, (e,), None) for i, e in enumerate(lonely)]
    children: dict[str, list[str]] = defaultdict(list)
    for name, _level, _members, parent in ordered:
        if parent is not None:
            children[names[parent]].append(name)
    return tuple(
        Community(
            name,
            level,
            members,
            names[parent] if parent is not None else None,
            tuple(children[name]),
        )
        for name, level, members, parent in ordered
    )
