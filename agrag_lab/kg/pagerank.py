"""Personalised PageRank over entities *and* passages (the ``ppr`` graph walk).

HippoRAG-style: the walk runs on one graph whose nodes are the entities and
the passages (chunks). Entities are joined by their relations; an entity is
joined to every passage that mentions it. The walk restarts (with probability
``restart``) at

* the **seed entities**: the entity hits the query names, each weighted by its
  specificity, ``1 / (passages that mention it)``, so a seed mentioned in two
  passages pulls harder than a hub mentioned in three hundred; and
* the **passage prior**: the query's top dense passage hits, weighted
  ``1 / rank`` and scaled by ``prior_weight``.

Passages are ranked by the walk's stationary probability. A passage reached
through a seed and a bridge entity (the "second hop" of a multi-hop question)
collects mass that no similarity search gives it.

Everything here is a pure function of frozen arrays, so the engine can cache
the graph once per index and run a walk per query in milliseconds.
:func:`personalized_pagerank` is written by hand (a power iteration over a
scipy sparse matrix): networkx's ``pagerank`` rebuilds a sparse matrix from the
graph on every call, which costs more than the walk itself.

Examples
--------
>>> from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
>>> ents = [Entity("ent-a", "A", "Thing", chunk_ids=("d1#c0",)),
...         Entity("ent-b", "B", "Thing", chunk_ids=("d1#c0", "d2#c0")),
...         Entity("ent-c", "C", "Thing", chunk_ids=("d3#c0",))]
>>> kg = KnowledgeGraph.create(ents, [Edge("ent-b", "ent-c", "NEAR", ("d2#c0",))],
...                            chunk_documents={"d1#c0": "d1", "d2#c0": "d2", "d3#c0": "d3"})
>>> pg = PassageGraph.from_graph(kg)
>>> walk = pg.walk({"ent-a": 1.0}, {}, restart=0.3, prior_weight=0.0)
>>> [key for key, _ in walk.passages]
['d1#c0', 'd2#c0', 'd3#c0']
>>> [step.target for step in walk.path_to("d3#c0")]
['d1#c0', 'ent-b', 'ent-c', 'd3#c0']
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.model import KnowledgeGraph
from agrag_lab.retrieval.trace import PathStep

#: Relation names of the entity-passage steps on a walk path.
MENTIONED_IN = "MENTIONED_IN"
MENTIONS = "MENTIONS"
#: Default restart probability of the walk (HippoRAG uses 0.5; 0.3 reaches further).
DEFAULT_RESTART = 0.3
#: Default weight of the dense passage prior against the seed entities (which sum to 1).
DEFAULT_PRIOR_WEIGHT = 0.3
#: Dense passage hits that seed the prior.
PRIOR_PASSAGES = 20

Direction = Literal["out", "in", "both"]


def personalized_pagerank(
    matrix: sp.csr_array,
    personalization: np.ndarray,
    *,
    restart: float,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> np.ndarray:
    """Stationary distribution of a walk that restarts at ``personalization``.

    ``matrix[i, j]`` is the weight of the step ``j -> i`` (column ``j`` holds
    the out-steps of node ``j``); columns are normalised here. Mass at a node
    with no out-steps restarts. Iterates until the L1 change is below ``tol``.

    Examples
    --------
    >>> m = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> personalized_pagerank(m, np.array([1.0, 0.0]), restart=0.5).round(3).tolist()
    [0.667, 0.333]
    """
    if not 0.0 < restart <= 1.0:
        raise KnowledgeGraphError(f"restart must be in (0, 1] (got {restart!r}); 0.3 is a good start")
    total = float(personalization.sum())
    if total <= 0:
        return np.zeros_like(personalization, dtype=float)
    p = personalization.astype(float) / total
    out_weight = np.asarray(matrix.sum(axis=0), dtype=float).ravel()
    inverse = np.divide(1.0, out_weight, out=np.zeros_like(out_weight), where=out_weight > 0)
    dangling = out_weight == 0
    x = p.copy()
    for _ in range(max_iter):
        moved = np.asarray(matrix @ (inverse * x), dtype=float)
        new = restart * p + (1.0 - restart) * (moved + float(x[dangling].sum()) * p)
        if float(np.abs(new - x).sum()) < tol:
            return new
        x = new
    return x


@dataclass(frozen=True)
class WalkScores:
    """One walk's result: passages and entities by probability, and the paths there.

    ``passages`` and ``entities`` are ``(key, probability)`` pairs, best
    first, zero-probability nodes left out; ``seeds`` are the seed entities
    that took part.
    """

    passages: tuple[tuple[str, float], ...]
    entities: tuple[tuple[str, float], ...]
    seeds: tuple[str, ...]
    graph: PassageGraph = field(repr=False, compare=False)
    #: shortest-path predecessor of every node from the nearest seed (< 0: none)
    predecessors: np.ndarray = field(repr=False, compare=False)
    #: position in ``seeds`` of every node's nearest seed (-1: unreachable)
    nearest: np.ndarray = field(repr=False, compare=False)
    #: the relation types the walk followed (None: all)
    relation_types: frozenset[str] | None = None

    def path_to(self, key: str) -> tuple[PathStep, ...]:
        """The shortest walk path from the nearest seed to ``key`` (empty: unreachable or a seed)."""
        node = self.graph.node_index.get(key)
        if node is None or self.nearest[node] < 0:
            return ()
        nodes = [node]
        while self.predecessors[nodes[-1]] >= 0:
            nodes.append(int(self.predecessors[nodes[-1]]))
        nodes.reverse()
        names = self.graph.nodes
        return tuple(
            PathStep(names[a], self.graph.step_relation(a, b, self.relation_types), names[b])
            for a, b in itertools.pairwise(nodes)
        )

    def seed_of(self, key: str) -> str | None:
        """The seed the shortest path to ``key`` starts from (None: unreachable)."""
        node = self.graph.node_index.get(key)
        if node is None or self.nearest[node] < 0:
            return None
        return self.seeds[int(self.nearest[node])]


@dataclass(frozen=True, eq=False)
class PassageGraph:
    """The entity-passage graph of a knowledge graph, as arrays.

    Nodes ``0 .. len(entities)-1`` are entities, the rest passages (current
    chunks that mention at least one entity).
    """

    entities: tuple[str, ...]
    passages: tuple[str, ...]
    #: relation edges: source node, target node, relation type code, supporting documents
    edge_source: np.ndarray
    edge_target: np.ndarray
    edge_type: np.ndarray
    edge_documents: tuple[frozenset[str], ...]
    type_names: tuple[str, ...]
    #: mentions: entity node, passage node
    mention_entity: np.ndarray
    mention_passage: np.ndarray
    passage_documents: tuple[str, ...]

    @classmethod
    def from_graph(cls, graph: KnowledgeGraph) -> PassageGraph:
        """Arrays of the current entities, relations and mentions of ``graph``."""
        entities = tuple(sorted(graph.entities))
        index = {e: i for i, e in enumerate(entities)}
        passages = tuple(sorted({c for e in entities for c in graph.entities[e].chunk_ids}))
        p_index = {c: len(entities) + i for i, c in enumerate(passages)}
        types = tuple(sorted({e.type for e in graph.edges}))
        t_index = {t: i for i, t in enumerate(types)}
        edges = [e for e in graph.edges if e.source in index and e.target in index and e.source != e.target]
        documents = graph.chunk_documents
        m_entity: list[int] = []
        m_passage: list[int] = []
        for e in entities:
            for c in graph.entities[e].chunk_ids:
                m_entity.append(index[e])
                m_passage.append(p_index[c])
        return cls(
            entities,
            passages,
            np.array([index[e.source] for e in edges], dtype=np.int64),
            np.array([index[e.target] for e in edges], dtype=np.int64),
            np.array([t_index[e.type] for e in edges], dtype=np.int64),
            tuple(frozenset(documents.get(c, c.split("@", 1)[0]) for c in e.chunk_ids) for e in edges),
            types,
            np.array(m_entity, dtype=np.int64),
            np.array(m_passage, dtype=np.int64),
            tuple(documents.get(c, c.split("@", 1)[0]) for c in passages),
        )

    @cached_property
    def nodes(self) -> tuple[str, ...]:
        """Every node key: entities, then passages."""
        return self.entities + self.passages

    @cached_property
    def node_index(self) -> Mapping[str, int]:
        """Node key -> node number."""
        return {key: i for i, key in enumerate(self.nodes)}

    @cached_property
    def _mention_counts(self) -> np.ndarray:
        return np.bincount(self.mention_entity, minlength=len(self.entities)).astype(float)

    @cached_property
    def _relations(self) -> Mapping[tuple[int, int], tuple[str, ...]]:
        """Relation types between two entity nodes, either way, in type order."""
        found: dict[tuple[int, int], set[str]] = {}
        for s, t, ty in zip(self.edge_source.tolist(), self.edge_target.tolist(), self.edge_type.tolist(), strict=True):
            found.setdefault((min(s, t), max(s, t)), set()).add(self.type_names[ty])
        return {pair: tuple(sorted(types)) for pair, types in found.items()}

    def step_relation(self, a: int, b: int, relation_types: Collection[str] | None = None) -> str:
        """The name of the step ``a -> b`` on a walk path (a relation among ``relation_types``)."""
        n = len(self.entities)
        if a < n <= b:
            return MENTIONED_IN
        if b < n <= a:
            return MENTIONS
        types = self._relations.get((min(a, b), max(a, b)), ())
        allowed = [t for t in types if relation_types is None or t in relation_types]
        return allowed[0] if allowed else "RELATED_TO"

    def matrix(
        self,
        *,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        documents: Collection[str] | None = None,
        entities: Collection[str] | None = None,
    ) -> sp.csr_array:
        """The walk's step matrix (column ``j`` -> row ``i``) under the given limits.

        ``relation_types`` keeps only those relations; ``direction`` follows a
        relation from source to target (``"out"``), back (``"in"``) or both
        ways; ``documents`` keeps only passages of those documents and
        relations supported there; ``entities`` keeps only those entities.
        Entity-passage steps always go both ways.
        """
        if direction not in ("out", "in", "both"):
            raise KnowledgeGraphError(f"direction must be 'out', 'in' or 'both' (got {direction!r})")
        n_nodes = len(self.nodes)
        keep_edge = np.ones(len(self.edge_source), dtype=bool)
        if relation_types is not None:
            wanted = [i for i, t in enumerate(self.type_names) if t in set(relation_types)]
            keep_edge &= np.isin(self.edge_type, wanted)
        if documents is not None:
            docs = set(documents)
            keep_edge &= np.fromiter((bool(d & docs) for d in self.edge_documents), dtype=bool, count=len(keep_edge))
        keep_node = np.ones(n_nodes, dtype=bool)
        if entities is not None:
            keep_node[: len(self.entities)] = np.isin(np.array(self.entities), list(entities))
        if documents is not None:
            docs = set(documents)
            keep_node[len(self.entities):] = [d in docs for d in self.passage_documents]
        s, t = self.edge_source[keep_edge], self.edge_target[keep_edge]
        if direction == "out":
            rows, cols = t, s
        elif direction == "in":
            rows, cols = s, t
        else:
            rows, cols = np.concatenate([t, s]), np.concatenate([s, t])
        rows = np.concatenate([rows, self.mention_passage, self.mention_entity])
        cols = np.concatenate([cols, self.mention_entity, self.mention_passage])
        ok = keep_node[rows] & keep_node[cols]
        m = sp.coo_array((np.ones(int(ok.sum())), (rows[ok], cols[ok])), shape=(n_nodes, n_nodes)).tocsr()
        m.data[:] = 1.0  # parallel relations count once
        return m

    def walk(
        self,
        seeds: Mapping[str, float],
        prior: Mapping[str, float],
        *,
        restart: float = DEFAULT_RESTART,
        prior_weight: float = DEFAULT_PRIOR_WEIGHT,
        relation_types: Collection[str] | None = None,
        matrix: sp.csr_array | None = None,
    ) -> WalkScores:
        """Walk from ``seeds`` (entity -> weight) and the passage ``prior`` (passage -> weight).

        Seed weights are multiplied by the seed's specificity and normalised
        to sum 1; prior weights are normalised to sum ``prior_weight``.
        Unknown keys are ignored. ``matrix`` defaults to :meth:`matrix` over
        ``relation_types``; a given matrix must have been made with the same
        ``relation_types`` (they name the steps of the paths).
        """
        m = matrix if matrix is not None else self.matrix(relation_types=relation_types)
        n = len(self.entities)
        p = np.zeros(len(self.nodes))
        seed_nodes = [self.node_index[s] for s in seeds if s in self.node_index and self.node_index[s] < n]
        for node in seed_nodes:
            p[node] = float(seeds[self.nodes[node]]) / max(1.0, self._mention_counts[node])
        if p.sum() > 0:
            p /= p.sum()
        q = np.zeros(len(self.nodes))
        for key, weight in prior.items():
            at = self.node_index.get(key)
            if at is not None and at >= n:
                q[at] = float(weight)
        if q.sum() > 0:
            p += prior_weight * q / q.sum() if p.sum() > 0 else q / q.sum()
        scores = personalized_pagerank(m, p, restart=restart)
        order = np.argsort(-scores, kind="stable")
        passages = tuple((self.nodes[i], float(scores[i])) for i in order if i >= n and scores[i] > 0)
        entity_scores = tuple((self.nodes[i], float(scores[i])) for i in order if i < n and scores[i] > 0)
        n_nodes = len(self.nodes)
        predecessors = np.full(n_nodes, -9999, dtype=np.int64)
        nearest = np.full(n_nodes, -1, dtype=np.int64)
        if seed_nodes:
            # paths follow the walk's steps: column j -> row i, so search the transpose
            _, pred, sources = dijkstra(
                m.T, directed=True, indices=seed_nodes, unweighted=True, return_predecessors=True, min_only=True
            )
            position = {node: i for i, node in enumerate(seed_nodes)}
            predecessors = pred.astype(np.int64)
            nearest = np.array([position.get(int(s), -1) for s in sources], dtype=np.int64)
        seed_keys = tuple(self.nodes[i] for i in seed_nodes)
        types = frozenset(relation_types) if relation_types is not None else None
        return WalkScores(passages, entity_scores, seed_keys, self, predecessors, nearest, types)
