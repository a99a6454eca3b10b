"""Personalised PageRank over entities *and* passages (the ``ppr`` graph walk).

HippoRAG-style: the walk runs on one graph whose nodes are the entities and
the passages (current chunks). Entities are joined by their relations; an
entity is joined to every passage that mentions it. The walk restarts (with
probability ``restart``) at

* the **seed entities**: the entity hits the query names, each weighted by its
  specificity, ``1 / (passages that mention it)``, so a seed mentioned in two
  passages pulls harder than a hub mentioned in three hundred; and
* the **passage prior**: the query's top dense passage hits, weighted
  ``1 / rank`` and scaled by ``prior_weight``.

Passages are ranked by the walk's stationary probability. A passage reached
through a seed and a bridge entity (the "second hop" of a multi-hop question)
collects mass that no similarity search gives it.

Everything here is a pure function of frozen arrays, so a store can build the
graph once per index and run a walk per query in milliseconds.
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
>>> walk = pg.walk({"ent-a": 1.0}, {}, pg.steps(), restart=0.3, prior_weight=0.0)
>>> [key for key, _ in walk.passages()]
['d1#c0', 'd2#c0', 'd3#c0']
>>> start, path = walk.route("d3#c0")
>>> start, [(step.relation, step.target) for step in path]
('ent-a', [('MENTIONED_IN', 'd1#c0'), ('MENTIONS', 'ent-b'), ('NEAR', 'ent-c'), ('MENTIONED_IN', 'd3#c0')])
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.model import KnowledgeGraph
from agrag_lab.kg.paths import PathStep
from agrag_lab.kg.store import Direction

#: Relation names of the entity-passage steps on a walk path.
MENTIONED_IN = "MENTIONED_IN"
MENTIONS = "MENTIONS"
#: Default restart probability of the walk (HippoRAG uses 0.5; 0.3 reaches further).
DEFAULT_RESTART = 0.3
#: Default weight of the dense passage prior against the seed entities (which sum to 1).
DEFAULT_PRIOR_WEIGHT = 0.3
#: Dense passage hits that seed the prior.
PRIOR_PASSAGES = 20
#: L1 change of the power iteration at which it stops.
TOLERANCE = 1e-9


def personalized_pagerank(
    matrix: sp.csr_array,
    personalization: np.ndarray,
    *,
    restart: float,
    tol: float = TOLERANCE,
) -> np.ndarray:
    """Stationary distribution of a walk that restarts at ``personalization``.

    Equal to ``networkx.pagerank(G, alpha=1 - restart, personalization=p)``:
    mass at a node with no out-steps restarts too.

    Parameters
    ----------
    matrix : scipy.sparse.csr_array
        ``matrix[i, j]`` is the weight of the step ``j -> i`` (column ``j``
        holds the out-steps of node ``j``); columns are normalised here.
    personalization : numpy.ndarray
        Non-negative restart weights, one per node (normalised here).
    restart : float
        Probability in (0, 1] of jumping back to ``personalization`` at each step.
    tol : float
        Stop when the L1 change of an iteration is below this. The error
        shrinks by ``1 - restart`` per iteration, so the number of iterations
        is bounded by ``log(tol) / log(1 - restart)``.

    Returns
    -------
    numpy.ndarray
        One probability per node, summing to 1; all zeros when
        ``personalization`` is all zeros.

    Raises
    ------
    KnowledgeGraphError
        ``restart`` is outside (0, 1], or a weight is negative.

    Examples
    --------
    >>> m = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> personalized_pagerank(m, np.array([1.0, 0.0]), restart=0.5).round(3).tolist()
    [0.667, 0.333]
    """
    if not 0.0 < restart <= 1.0:
        raise KnowledgeGraphError(f"restart must be in (0, 1] (got {restart!r}); 0.3 is a good start")
    if (personalization < 0).any():
        raise KnowledgeGraphError("personalization weights must be >= 0; a walk cannot restart with negative mass")
    total = float(personalization.sum())
    if total <= 0:
        return np.zeros(personalization.shape, dtype=float)
    p = personalization.astype(float) / total
    out_weight = np.asarray(matrix.sum(axis=0), dtype=float).ravel()
    inverse = np.divide(1.0, out_weight, out=np.zeros_like(out_weight), where=out_weight > 0)
    dangling = np.flatnonzero(out_weight == 0)
    iterations = 1 if restart >= 1.0 else math.ceil(math.log(tol / 2) / math.log(1.0 - restart)) + 1
    # new = restart * p + (1 - restart) * (matrix @ (inverse * x) + (mass at dangling nodes) * p),
    # the same operations in the same order every step, in buffers allocated once
    keep, base = 1.0 - restart, restart * p
    x, new = p.copy(), np.empty_like(p)
    scaled, work = np.empty_like(p), np.empty_like(p)
    for _ in range(iterations):
        np.multiply(inverse, x, out=scaled)
        moved = np.asarray(matrix @ scaled, dtype=float)
        np.multiply(float(x[dangling].sum()), p, out=work)
        np.add(moved, work, out=work)
        np.multiply(keep, work, out=work)
        np.add(base, work, out=new)
        np.subtract(new, x, out=work)
        np.abs(work, out=work)
        if float(work.sum()) < tol:
            return new
        x, new = new, x
    return x  # the contraction bound guarantees the error is below tol here


@dataclass(frozen=True, eq=False)
class WalkSteps:
    """The steps a walk may take under given limits (see :meth:`PassageGraph.steps`).

    ``matrix[i, j]`` is the step ``j -> i``; ``transposed`` is its CSR
    transpose (out-steps by row); ``kept`` marks the relation edges that
    passed the limits, ``direction`` how they are followed, ``visible`` the
    nodes that take part.
    """

    matrix: sp.csr_array
    transposed: sp.csr_array
    kept: np.ndarray
    direction: Direction
    visible: np.ndarray


@dataclass(frozen=True, eq=False)
class ShortestPaths:
    """Shortest walk paths from a set of start nodes: each node's predecessor and nearest start."""

    starts: tuple[str, ...]
    #: predecessor of every node on its shortest path (< 0: none)
    predecessors: np.ndarray = field(repr=False)
    #: position in ``starts`` of every node's nearest start (-1: unreachable)
    nearest: np.ndarray = field(repr=False)

    @classmethod
    def search(cls, graph: PassageGraph, steps: WalkSteps, starts: list[int]) -> ShortestPaths:
        """Breadth-first shortest paths along the walk's steps from the ``starts`` nodes."""
        n_nodes = len(graph.nodes)
        if not starts:
            return cls((), np.full(n_nodes, -9999, dtype=np.int64), np.full(n_nodes, -1, dtype=np.int64))
        # out-steps are the rows of the transposed step matrix
        _, pred, sources = dijkstra(
            steps.transposed, directed=True, indices=starts, unweighted=True, return_predecessors=True, min_only=True
        )
        position = np.full(n_nodes + 1, -1, dtype=np.int64)  # sources is -9999 where unreachable
        position[np.array(starts)] = np.arange(len(starts))
        nearest = position[np.where(sources >= 0, sources, n_nodes)]
        return cls(tuple(graph.nodes[i] for i in starts), pred.astype(np.int64), nearest)

    def route(self, graph: PassageGraph, steps: WalkSteps, node: int) -> tuple[str, tuple[PathStep, ...]] | None:
        """``(start, path)`` of the shortest path to ``node``, or None when no start reaches it."""
        if self.nearest[node] < 0:
            return None
        nodes = [node]
        while self.predecessors[nodes[-1]] >= 0:
            nodes.append(int(self.predecessors[nodes[-1]]))
        nodes.reverse()
        names = graph.nodes
        path = tuple(
            PathStep(names[a], graph.step_relation(a, b, steps), names[b]) for a, b in itertools.pairwise(nodes)
        )
        return self.starts[int(self.nearest[node])], path


@dataclass(frozen=True, eq=False)
class WalkScores:
    """One walk's result: every node's probability, and the paths there.

    :meth:`passages` and :meth:`entities` rank the reached nodes; ``seeds``
    are the seed entities that took part and ``prior`` the prior passages
    (best first): together, the walk's restart points. :meth:`route`
    explains how the walk gets to a node.
    """

    scores: np.ndarray = field(repr=False)
    seeds: tuple[str, ...]
    prior: tuple[str, ...]
    graph: PassageGraph = field(repr=False)
    steps: WalkSteps = field(repr=False)

    @cached_property
    def from_seeds(self) -> ShortestPaths:
        """Shortest paths from the seed entities (searched on first use: a route needs them)."""
        return ShortestPaths.search(self.graph, self.steps, [self.graph.node_index[k] for k in self.seeds])

    @cached_property
    def from_prior(self) -> ShortestPaths:
        """Shortest paths from the prior passages (searched only when a route falls back to them)."""
        return ShortestPaths.search(self.graph, self.steps, [self.graph.node_index[k] for k in self.prior])

    def _ranked(self, passages: bool, limit: int | None) -> tuple[tuple[str, float], ...]:
        n = len(self.graph.entities)
        part = self.scores[n:] if passages else self.scores[:n]
        reached = np.flatnonzero(part > 0)
        negated = -part[reached]
        if limit is not None and 0 < limit < len(reached):
            # only the `limit` best need sorting: every node up to the limit-th best score,
            # ties at the cut included, in node order, so the stable sort gives the same head
            cut = np.partition(negated, limit - 1)[limit - 1]
            head = np.flatnonzero(negated <= cut)
            reached, negated = reached[head], negated[head]
        order = reached[np.argsort(negated, kind="stable")][:limit]
        offset = n if passages else 0
        return tuple((self.graph.nodes[i + offset], float(self.scores[i + offset])) for i in order.tolist())

    def passages(self, limit: int | None = None) -> tuple[tuple[str, float], ...]:
        """The reached passages as ``(key, probability)``, best first (at most ``limit``)."""
        return self._ranked(True, limit)

    def entities(self, limit: int | None = None) -> tuple[tuple[str, float], ...]:
        """The reached entities as ``(key, probability)``, best first (at most ``limit``)."""
        return self._ranked(False, limit)

    def route(self, key: str, max_steps: int | None = None) -> tuple[str, tuple[PathStep, ...]] | None:
        """How the walk reaches ``key``: ``(restart point, path)``, or None.

        The shortest path from the nearest seed entity when it has at most
        ``max_steps`` steps; otherwise the one from the nearest prior passage
        (a prior passage is its own restart point, with an empty path).
        """
        node = self.graph.node_index.get(key)
        if node is None:
            return None
        seeded = self.from_seeds.route(self.graph, self.steps, node)
        if seeded is not None and (max_steps is None or len(seeded[1]) <= max_steps):
            return seeded
        return self.from_prior.route(self.graph, self.steps, node) or seeded


@dataclass(frozen=True, eq=False)
class PassageGraph:
    """The entity-passage graph of a knowledge graph, as arrays.

    Nodes ``0 .. len(entities)-1`` are entities, the rest passages: every
    current chunk, including those that mention no entity (the prior can
    still propose them).
    """

    entities: tuple[str, ...]
    passages: tuple[str, ...]
    #: relation edges: source node, target node, relation type code, support (chunks)
    edge_source: np.ndarray
    edge_target: np.ndarray
    edge_type: np.ndarray
    edge_support: np.ndarray
    #: the documents each relation edge is supported in
    edge_documents: tuple[frozenset[str], ...]
    type_names: tuple[str, ...]
    #: mentions: entity node, passage node
    mention_entity: np.ndarray
    mention_passage: np.ndarray
    #: the document of each passage ("" when unknown)
    passage_documents: tuple[str, ...]

    @classmethod
    def from_graph(cls, graph: KnowledgeGraph) -> PassageGraph:
        """Arrays of the current entities, relations and mentions of ``graph``."""
        entities = tuple(sorted(graph.entities))
        index = {e: i for i, e in enumerate(entities)}
        mentioned = {c for e in entities for c in graph.entities[e].chunk_ids}
        passages = tuple(sorted(mentioned | set(graph.current_chunks)))
        p_index = {c: len(entities) + i for i, c in enumerate(passages)}
        edges = [
            e for e in graph.edges
            if e.source in index and e.target in index and e.source != e.target and e.chunk_ids
        ]
        types = tuple(sorted({e.type for e in edges}))
        t_index = {t: i for i, t in enumerate(types)}
        documents = graph.chunk_documents
        mentions = [(index[e], p_index[c]) for e in entities for c in graph.entities[e].chunk_ids]
        return cls(
            entities,
            passages,
            np.array([index[e.source] for e in edges], dtype=np.int64),
            np.array([index[e.target] for e in edges], dtype=np.int64),
            np.array([t_index[e.type] for e in edges], dtype=np.int64),
            np.array([len(e.chunk_ids) for e in edges], dtype=np.int64),
            tuple(frozenset(documents.get(c, "") for c in e.chunk_ids) for e in edges),
            types,
            np.array([m[0] for m in mentions], dtype=np.int64),
            np.array([m[1] for m in mentions], dtype=np.int64),
            tuple(documents.get(c, "") for c in passages),
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
    def _pair_edges(self) -> Mapping[tuple[int, int], tuple[int, ...]]:
        """Relation edge numbers between two entity nodes, either way."""
        found: dict[tuple[int, int], list[int]] = {}
        for i, (s, t) in enumerate(zip(self.edge_source.tolist(), self.edge_target.tolist(), strict=True)):
            found.setdefault((min(s, t), max(s, t)), []).append(i)
        return {pair: tuple(edges) for pair, edges in found.items()}

    @cached_property
    def _document_codes(self) -> tuple[tuple[str, ...], np.ndarray, list[np.ndarray]]:
        """Documents by code; each passage's code; each edge's codes."""
        names = tuple(sorted({*self.passage_documents, *(d for ds in self.edge_documents for d in ds)}))
        code = {d: i for i, d in enumerate(names)}
        passage = np.array([code[d] for d in self.passage_documents], dtype=np.int64)
        edges = [np.array([code[d] for d in ds], dtype=np.int64) for ds in self.edge_documents]
        return names, passage, edges

    def step_relation(self, a: int, b: int, steps: WalkSteps) -> str:
        """The name of the step ``a -> b`` on a walk path: a relation the walk could follow.

        Among the kept relation edges between ``a`` and ``b`` that go the
        walk's way, the best supported one names the step.
        """
        n = len(self.entities)
        if a < n <= b:
            return MENTIONED_IN
        if b < n <= a:
            return MENTIONS
        best: tuple[int, str] | None = None
        for edge in self._pair_edges.get((min(a, b), max(a, b)), ()):
            forward = int(self.edge_source[edge]) == a
            if not steps.kept[edge] or (steps.direction == "out" and not forward) or (
                steps.direction == "in" and forward
            ):
                continue
            candidate = (-int(self.edge_support[edge]), self.type_names[int(self.edge_type[edge])])
            best = candidate if best is None or candidate < best else best
        if best is None:  # pragma: no cover - a path only uses steps of the matrix
            raise KnowledgeGraphError(f"no kept relation joins {self.nodes[a]} and {self.nodes[b]}")
        return best[1]

    def steps(
        self,
        *,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        documents: Collection[str] | None = None,
    ) -> WalkSteps:
        """The walk's steps under the given limits.

        ``relation_types`` keeps only those relations; ``direction`` follows a
        relation from source to target (``"out"``), back (``"in"``) or both
        ways; ``documents`` keeps only passages of those documents, relations
        supported there, and entities mentioned there. Entity-passage steps
        always go both ways.
        """
        if direction not in ("out", "in", "both"):
            raise KnowledgeGraphError(f"direction must be 'out', 'in' or 'both' (got {direction!r})")
        n_entities, n_nodes = len(self.entities), len(self.nodes)
        kept = np.ones(len(self.edge_source), dtype=bool)
        if relation_types is not None:
            wanted = set(relation_types)
            kept &= np.isin(self.edge_type, [i for i, t in enumerate(self.type_names) if t in wanted])
        keep_node = np.ones(n_nodes, dtype=bool)
        if documents is not None:
            names, passage_codes, edge_codes = self._document_codes
            docs = set(documents)
            allowed = np.array([d in docs for d in names], dtype=bool)
            keep_passage = allowed[passage_codes]
            kept &= np.fromiter((bool(allowed[c].any()) for c in edge_codes), dtype=bool, count=len(kept))
            seen = np.bincount(
                self.mention_entity[keep_passage[self.mention_passage - n_entities]], minlength=n_entities
            )
            keep_node[:n_entities] = seen > 0  # an entity is visible where it is mentioned
            keep_node[n_entities:] = keep_passage
        s, t = self.edge_source, self.edge_target
        kept &= keep_node[s] & keep_node[t]
        s, t = s[kept], t[kept]
        if direction == "out":
            rows, cols = t, s
        elif direction == "in":
            rows, cols = s, t
        else:
            rows, cols = np.concatenate([t, s]), np.concatenate([s, t])
        ok = keep_node[self.mention_entity] & keep_node[self.mention_passage]
        me, mp = self.mention_entity[ok], self.mention_passage[ok]
        rows = np.concatenate([rows, mp, me])
        cols = np.concatenate([cols, me, mp])
        matrix = sp.coo_array((np.ones(len(rows)), (rows, cols)), shape=(n_nodes, n_nodes)).tocsr()
        matrix.data[:] = 1.0  # parallel relations count once
        return WalkSteps(matrix, matrix.T.tocsr(), kept, direction, keep_node)

    def walk(
        self,
        seeds: Mapping[str, float],
        prior: Mapping[str, float],
        steps: WalkSteps,
        *,
        restart: float = DEFAULT_RESTART,
        prior_weight: float = DEFAULT_PRIOR_WEIGHT,
    ) -> WalkScores:
        """Walk from ``seeds`` (entity -> weight) and the passage ``prior`` (passage -> weight).

        Seed weights are multiplied by the seed's specificity (1 / the
        passages it reaches in ``steps``) and normalised to sum 1; prior
        weights are normalised to sum ``prior_weight`` (with no seed, the
        prior alone; with ``prior_weight == 0``, no prior). Unknown keys and
        nodes ``steps`` leaves out are ignored.
        """
        n = len(self.entities)
        n_nodes = len(self.nodes)
        out = steps.transposed
        p = np.zeros(n_nodes)
        seed_nodes: list[int] = []
        prior_nodes: list[int] = []
        for key, weight in seeds.items():
            node = self.node_index.get(key)
            if node is None or node >= n or not steps.visible[node]:
                continue
            reached = out.indices[out.indptr[node] : out.indptr[node + 1]]
            p[node] = float(weight) / max(1, int((reached >= n).sum()))
            seed_nodes.append(node)
        if p.sum() > 0:
            p /= p.sum()
        q = np.zeros(n_nodes)
        if prior_weight > 0:
            for key, weight in prior.items():
                at = self.node_index.get(key)
                if at is not None and at >= n and steps.visible[at] and at not in prior_nodes:
                    q[at] = float(weight)
                    prior_nodes.append(at)
        if q.sum() > 0:
            p += prior_weight * q / q.sum() if p.sum() > 0 else q / q.sum()
        scores = personalized_pagerank(steps.matrix, p, restart=restart)
        if q.sum() == 0:
            prior_nodes = []
        return WalkScores(
            scores, tuple(self.nodes[i] for i in seed_nodes), tuple(self.nodes[i] for i in prior_nodes), self, steps
        )
