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

Two ways to compute it (``method``, a recipe's ``walk.pagerank``):

* ``"push"`` (the default), :func:`push_pagerank`: forward push from the
  restart points, whose work is bounded by their neighbourhood (at most
  ``1 / (PUSH_EPSILON * restart)`` steps read), not by the graph. Each score is
  the probability from below, short of it by at most :data:`PUSH_EPSILON` per
  step of the node (its mentions and relations) and by the push's residual
  mass in total (:attr:`WalkScores.error`).
* ``"power"``, :func:`personalized_pagerank`: the power iteration over the whole
  graph, to within :data:`TOLERANCE`; its cost grows with the graph.

The path that explains a walked passage (:meth:`WalkScores.routes`) is searched
outward from the restart points only as far as the farthest passage asked
for, and no farther than the recipe's hop limit.

Everything here is a pure function of frozen arrays, so a store can build the
graph once per index and run a walk per query in milliseconds. Both walks are
written by hand over scipy sparse matrices: networkx's ``pagerank`` rebuilds a
sparse matrix from the graph on every call, which costs more than the walk itself.

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
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.graph_store import Direction
from agrag_lab.kg.model import Edge, KnowledgeGraph
from agrag_lab.kg.paths import PathStep
from agrag_lab.limits import restart_problem
from agrag_lab.walk_methods import METHODS as METHODS  # re-exported: their home is the leaf module
from agrag_lab.walk_methods import WalkMethod as WalkMethod

if TYPE_CHECKING:  # scipy is imported where a walk runs: 0.3 s of a search that runs none (issue 30)
    import scipy.sparse as sp

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
#: Residual per unit of out-degree that the forward push leaves unspread (see :func:`push_pagerank`).
PUSH_EPSILON = 1e-6


def _check_restart(restart: float) -> None:
    """Refuse a restart probability whose walk would not end in bounded work (or would divide by zero)."""
    problem = restart_problem(restart)
    if problem is not None:
        raise KnowledgeGraphError(f"restart {problem}; the walk's work grows as 1/restart, 0.3 is a good start")


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
        ``restart`` is outside [0.01, 1] (:data:`~agrag_lab.limits.MIN_WALK_RESTART`), or a weight is negative.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> m = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> personalized_pagerank(m, np.array([1.0, 0.0]), restart=0.5).round(3).tolist()
    [0.667, 0.333]
    """
    _check_restart(restart)
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


def csr_positions(indptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Positions in a CSR ``indices`` array of every entry of ``rows``, row after row."""
    counts = indptr[rows + 1] - indptr[rows]
    starts = np.repeat(indptr[rows] - np.cumsum(counts) + counts, counts)
    return np.asarray(starts + np.arange(len(starts)), dtype=np.int64)


def unique_unsorted(nodes: np.ndarray, seen: np.ndarray, place: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(nodes, return_inverse=True)`` without sorting ``nodes``: only the distinct ones are sorted.

    ``seen`` and ``place`` are scratch arrays with a slot per node, whose
    contents are never read before this call writes them (they may be
    uninitialised), so the work is that of ``nodes``, not of the graph.

    Examples
    --------
    >>> nodes = np.array([7, 2, 7, 5, 2])
    >>> distinct, slot = unique_unsorted(nodes, np.empty(8, dtype=np.int64), np.empty(8, dtype=np.int64))
    >>> distinct.tolist(), slot.tolist()
    ([2, 5, 7], [2, 0, 2, 1, 0])
    """
    order = np.arange(len(nodes))
    seen[nodes] = order  # the last position of each node wins
    distinct = np.sort(nodes[seen[nodes] == order])
    place[distinct] = np.arange(len(distinct))
    return distinct, place[nodes]


def push_pagerank(
    out_steps: sp.csr_array,
    personalization: np.ndarray,
    *,
    restart: float,
    epsilon: float = PUSH_EPSILON,
    out_weight: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """Personalised PageRank by forward push: work bounded by the restart set's neighbourhood.

    Andersen, Chung and Lang's push (FOCS 2006): every node holds an estimate
    and a residual (mass not yet spread; at first, all of ``personalization``).
    A node whose residual is at least ``epsilon`` times its out-weight is
    pushed: ``restart`` of the residual joins its estimate, the rest is spread
    over its out-steps (or, at a node with none, back over
    ``personalization``, as :func:`personalized_pagerank` restarts it). All
    nodes over the threshold are pushed at once each round (numpy over CSR
    slices, no per-node Python loop); the rounds stop when none is left. Each push spreads at least
    ``epsilon * restart`` mass per unit of out-weight, so the out-steps read
    add up to at most ``1 / (epsilon * restart)``, whatever the size of the
    graph; only the dense vectors (one float per node) are allocated per walk.

    The result is the PageRank probability from below: every estimate is at
    most the probability, and the estimates fall short of it by exactly the
    residual mass left, in total (the second value returned). When the steps
    go both ways (a symmetric matrix, the ``"both"`` direction), the shortfall
    at a node is also at most ``epsilon`` times its out-weight (its steps).

    Parameters
    ----------
    out_steps : scipy.sparse.csr_array
        ``out_steps[j, i]`` is the weight of the step ``j -> i`` (row ``j``
        holds the out-steps of node ``j``: the transpose of the matrix
        :func:`personalized_pagerank` takes).
    personalization : numpy.ndarray
        Non-negative restart weights, one per node (normalised here).
    restart : float
        Probability in (0, 1] of jumping back to ``personalization`` at each step.
    epsilon : float
        Residual per unit of out-weight (at least 1) left unspread; > 0.
        Smaller is closer to the stationary distribution and costs more.
    out_weight : numpy.ndarray, optional
        Row sums of ``out_steps``, when the caller keeps them (computed here otherwise).

    Returns
    -------
    tuple of numpy.ndarray and float
        The estimates (one per node) and the residual mass left: the L1
        distance to the stationary distribution. All zeros and 0.0 when
        ``personalization`` is all zeros.

    Raises
    ------
    KnowledgeGraphError
        ``restart`` is outside [0.01, 1] (:data:`~agrag_lab.limits.MIN_WALK_RESTART`), ``epsilon`` is not > 0, or a weight is negative.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> m = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> p = np.array([1.0, 0.0])
    >>> scores, error = push_pagerank(m, p, restart=0.5, epsilon=1e-9)
    >>> scores.round(3).tolist(), error < 1e-8
    ([0.667, 0.333], True)
    >>> exact = personalized_pagerank(m.T.tocsr(), p, restart=0.5)
    >>> bool((scores <= exact).all() and abs((exact - scores).sum() - error) < 1e-9)
    True
    """
    _check_restart(restart)
    if not epsilon > 0.0:
        raise KnowledgeGraphError(f"epsilon must be > 0 (got {epsilon!r}); {PUSH_EPSILON:g} is the default")
    if (personalization < 0).any():
        raise KnowledgeGraphError("personalization weights must be >= 0; a walk cannot restart with negative mass")
    total = float(personalization.sum())
    if total <= 0:
        return np.zeros(personalization.shape, dtype=float), 0.0
    n_nodes = len(personalization)
    weight = np.asarray(out_steps.sum(axis=1), dtype=float).ravel() if out_weight is None else out_weight
    p = personalization.astype(float) / total
    support = np.flatnonzero(p)
    estimate, residual = np.zeros(n_nodes), p.copy()
    keep = 1.0 - restart
    indptr, indices, data = out_steps.indptr, out_steps.indices, out_steps.data
    # scratch for unique_unsorted, never read before written: uninitialised, so no per-walk pass over the graph
    seen, place = np.empty(n_nodes, dtype=np.int64), np.empty(n_nodes, dtype=np.int64)
    candidates = support
    while len(candidates):
        pushed = candidates[residual[candidates] >= epsilon * np.maximum(weight[candidates], 1.0)]
        if not len(pushed):
            break
        mass = residual[pushed]
        residual[pushed] = 0.0
        estimate[pushed] += restart * mass
        out = weight[pushed]
        stuck = out <= 0
        spread = keep * np.divide(mass, out, out=np.zeros_like(mass), where=~stuck)
        # the out-steps of every pushed node, the mass each carries, summed per receiving node
        positions = csr_positions(indptr, pushed)
        received, slot = unique_unsorted(indices[positions], seen, place)
        per_step = np.repeat(spread, indptr[pushed + 1] - indptr[pushed]) * data[positions]
        residual[received] += np.bincount(slot, per_step, minlength=len(received))
        candidates = received
        if stuck.any():  # mass at a node without out-steps restarts
            residual[support] += keep * float(mass[stuck].sum()) * p[support]
            candidates = np.union1d(candidates, support)
    return estimate, float(residual.sum())


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

    @cached_property
    def out_weight(self) -> np.ndarray:
        """Out-steps of every node (kept once per steps, so a push walk need not sum the matrix)."""
        return np.asarray(self.transposed.sum(axis=1), dtype=float).ravel()


@dataclass(frozen=True, eq=False)
class ShortestPaths:
    """Shortest walk paths from a set of start nodes to the nodes searched for.

    ``distance`` holds each node's steps from the nearest start, as far as the
    search went (< 0: not reached). Among equal shortest paths, a target's
    path comes from the first of its nearest starts in the order given, and
    steps to the lowest-numbered node at each level (:meth:`route`).
    """

    starts: tuple[str, ...]
    distance: np.ndarray = field(repr=False)

    @classmethod
    def search(
        cls,
        graph: PassageGraph,
        steps: WalkSteps,
        starts: list[int],
        targets: Collection[int],
        max_steps: int | None = None,
    ) -> ShortestPaths:
        """Shortest paths along the walk's steps from the ``starts`` nodes to ``targets``, up to ``max_steps``.

        A breadth-first search, level by level, stops at the level where the
        last target is found (or at ``max_steps``, or when nothing new is
        reached), so its work is the neighbourhood of the starts out to the
        farthest target, not the graph. It also looks from the other end:
        before a level is expanded, a target that a node of the level steps
        to is one step farther; when every target left is, the level's
        out-steps (the widest read) are not read at all. The path to each
        target is then picked from the levels by :meth:`route`.
        """
        names = tuple(graph.nodes[i] for i in dict.fromkeys(starts))
        distance = np.full(len(graph.nodes), -1, dtype=np.int32)
        if not names:
            return cls(names, distance)
        indptr, indices = steps.transposed.indptr, steps.transposed.indices  # out-steps by node
        in_ptr, in_steps = steps.matrix.indptr, steps.matrix.indices  # in-steps by node
        frontier = np.array(list(dict.fromkeys(starts)), dtype=np.int64)
        distance[frontier] = 0
        wanted = np.array(sorted(set(targets)), dtype=np.int64)
        level = 0
        fresh = np.zeros(len(graph.nodes), dtype=bool)
        while max_steps is None or level < max_steps:
            missing = wanted[distance[wanted] < 0]
            if not len(missing):
                break
            before = in_steps[csr_positions(in_ptr, missing)]
            owner = np.repeat(np.arange(len(missing)), in_ptr[missing + 1] - in_ptr[missing])
            next_to = np.zeros(len(missing), dtype=bool)
            next_to[owner[distance[before] == level]] = True
            if next_to.all():  # every target left is one step from this level
                distance[missing] = level + 1
                break
            reached = indices[csr_positions(indptr, frontier)]
            reached = reached[distance[reached] < 0]
            if not len(reached):
                break
            fresh[reached] = True  # the new nodes, sorted and once each, without sorting the steps read
            frontier = np.flatnonzero(fresh)
            fresh[frontier] = False
            level += 1
            distance[frontier] = level
        return cls(names, distance)

    def route(self, graph: PassageGraph, steps: WalkSteps, node: int) -> tuple[str, tuple[PathStep, ...]] | None:
        """``(start, path)`` of the shortest path to ``node``, or None when the search did not reach it.

        Among equal shortest paths: the one from the first of the nearest
        starts in the order given (the best-ranked seed, or prior passage),
        then, step by step from it, to the lowest-numbered node that still
        leads to ``node`` in the fewest steps. Only the nodes on the shortest
        paths to ``node`` are read (from ``node`` back, level by level).
        """
        level = int(self.distance[node])
        if level < 0:
            return None
        in_ptr, in_steps = steps.matrix.indptr, steps.matrix.indices
        layers = [np.array([node], dtype=np.int64)]  # layers[i]: the nodes i steps back from ``node`` on its paths
        for nearer in range(level - 1, -1, -1):
            before = in_steps[csr_positions(in_ptr, layers[-1])]
            layers.append(np.unique(before[self.distance[before] == nearer]))
        order = {name: place for place, name in enumerate(self.starts)}
        names = graph.nodes
        numbers = [min((int(n) for n in layers[-1]), key=lambda n: order[names[n]])]
        out_ptr, out_steps = steps.transposed.indptr, steps.transposed.indices
        for layer in reversed(layers[:-1]):
            after = out_steps[out_ptr[numbers[-1]] : out_ptr[numbers[-1] + 1]]
            numbers.append(int(after[np.isin(after, layer)].min()))
        path = tuple(
            PathStep(names[a], graph.step_relation(a, b, steps), names[b]) for a, b in itertools.pairwise(numbers)
        )
        return names[numbers[0]], path


@dataclass(frozen=True, eq=False)
class WalkScores:
    """One walk's result: every node's score, and the paths there.

    :meth:`passages` and :meth:`entities` rank the reached nodes; ``seeds``
    are the seed entities that took part and ``prior`` the prior passages
    (best first): together, the walk's restart points. :meth:`routes`
    explains how the walk gets to the nodes asked for.

    ``method`` says how the scores were computed and ``error`` bounds them:
    with ``"push"``, each score is the PageRank probability from below and
    the scores fall short of it by ``error`` in total (by at most
    :data:`PUSH_EPSILON` times the node's steps, at each node, when the steps
    go both ways); with ``"power"``, the stationary distribution to within
    ``error`` (:data:`TOLERANCE`) in L1.
    """

    scores: np.ndarray = field(repr=False)
    seeds: tuple[str, ...]
    prior: tuple[str, ...]
    graph: PassageGraph = field(repr=False)
    steps: WalkSteps = field(repr=False)
    method: WalkMethod = "push"
    error: float = 0.0

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
        """The reached passages as ``(key, score)``, best first (at most ``limit``)."""
        return self._ranked(True, limit)

    def entities(self, limit: int | None = None) -> tuple[tuple[str, float], ...]:
        """The reached entities as ``(key, score)``, best first (at most ``limit``)."""
        return self._ranked(False, limit)

    def routes(
        self, keys: Collection[str], max_steps: int | None = None
    ) -> dict[str, tuple[str, tuple[PathStep, ...]] | None]:
        """How the walk reaches each of ``keys``: ``(restart point, path)``, or None.

        The shortest path from the nearest seed entity when it has at most
        ``max_steps`` steps; otherwise the one from the nearest prior passage,
        when it has at most ``max_steps`` (a prior passage is its own restart
        point, with an empty path); otherwise None. Each search goes out only
        as far as the farthest of ``keys`` it finds, and never past
        ``max_steps``; among equal shortest paths, the one from the best-ranked
        nearest seed (or prior passage), then the lowest-numbered node at each
        step (:meth:`ShortestPaths.route`).

        Examples
        --------
        >>> from agrag_lab.kg.model import Entity, KnowledgeGraph
        >>> kg = KnowledgeGraph.create([Entity("ent-a", "A", "Thing", chunk_ids=("d1#c0", "d2#c0"))], [],
        ...                            chunk_documents={"d1#c0": "d1", "d2#c0": "d2"})
        >>> pg = PassageGraph.from_graph(kg)
        >>> walk = pg.walk({"ent-a": 1.0}, {"d2#c0": 1.0}, pg.steps())
        >>> {key: (start, len(path)) for key, (start, path) in walk.routes(["d1#c0", "d2#c0"]).items()}
        {'d1#c0': ('ent-a', 1), 'd2#c0': ('ent-a', 1)}
        >>> walk.routes(["d2#c0", "nowhere"], max_steps=0)
        {'d2#c0': ('d2#c0', ()), 'nowhere': None}
        """
        index = self.graph.node_index
        known = {key: index[key] for key in keys if key in index}
        found: dict[str, tuple[str, tuple[PathStep, ...]] | None] = dict.fromkeys(keys)
        for starts in (self.seeds, self.prior):
            todo = {key: node for key, node in known.items() if found[key] is None}
            if not todo or not starts:
                continue
            paths = ShortestPaths.search(
                self.graph, self.steps, [index[k] for k in starts], set(todo.values()), max_steps
            )
            for key, node in todo.items():
                found[key] = paths.route(self.graph, self.steps, node)
        return found

    def route(self, key: str, max_steps: int | None = None) -> tuple[str, tuple[PathStep, ...]] | None:
        """How the walk reaches ``key``: :meth:`routes` of that one key."""
        return self.routes([key], max_steps)[key]



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
        return cls.from_parts({e: entity.chunk_ids for e, entity in graph.entities.items()}, graph.edges,
                              graph.chunk_documents, graph.current_chunks)

    @classmethod
    def from_parts(
        cls,
        chunks_of: Mapping[str, Sequence[str]],
        edges: Sequence[Edge],
        documents: Mapping[str, str],
        current_chunks: Collection[str],
    ) -> PassageGraph:
        """Arrays of entities (``chunks_of``: each one's chunk ids), relations (``edges``, in key order, as a
        :class:`~agrag_lab.kg.model.KnowledgeGraph` holds them) and passages, without building a graph first."""
        entities = tuple(sorted(chunks_of))
        index = {e: i for i, e in enumerate(entities)}
        mentioned = {c for e in entities for c in chunks_of[e]}
        passages = tuple(sorted(mentioned | set(current_chunks)))
        p_index = {c: len(entities) + i for i, c in enumerate(passages)}
        edges = [
            e for e in edges
            if e.source in index and e.target in index and e.source != e.target and e.chunk_ids
        ]
        types = tuple(sorted({e.type for e in edges}))
        t_index = {t: i for i, t in enumerate(types)}
        mentions = [(index[e], p_index[c]) for e in entities for c in chunks_of[e]]
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
    def _node_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Relation edge numbers by entity node, either end: ``(indptr, edges)``, CSR-like.

        Built by one sort of the edge ends (at 100k passages, 178k relations:
        milliseconds; a dict of node pairs built in Python took seconds at the
        first walk of an index).
        """
        ends = np.concatenate([self.edge_source, self.edge_target])
        numbers = np.tile(np.arange(len(self.edge_source), dtype=np.int64), 2)
        order = np.argsort(ends, kind="stable")
        indptr = np.zeros(len(self.entities) + 1, dtype=np.int64)
        np.cumsum(np.bincount(ends, minlength=len(self.entities)), out=indptr[1:])
        return indptr, numbers[order]

    def _pair_edges(self, a: int, b: int) -> np.ndarray:
        """Relation edge numbers between the entity nodes ``a`` and ``b``, either way (read from the end with fewer)."""
        indptr, edges = self._node_edges
        near, far = (a, b) if indptr[a + 1] - indptr[a] <= indptr[b + 1] - indptr[b] else (b, a)
        mine = edges[indptr[near] : indptr[near + 1]]
        return np.asarray(mine[(self.edge_source[mine] == far) | (self.edge_target[mine] == far)], dtype=np.int64)

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
        for edge in self._pair_edges(a, b).tolist():
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
        import scipy.sparse as sp

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
        method: WalkMethod = "push",
    ) -> WalkScores:
        """Walk from ``seeds`` (entity -> weight) and the passage ``prior`` (passage -> weight).

        Seed weights are multiplied by the seed's specificity (1 / the
        passages it reaches in ``steps``) and normalised to sum 1; prior
        weights are normalised to sum ``prior_weight`` (with no seed, the
        prior alone; with ``prior_weight == 0``, no prior). Unknown keys and
        nodes ``steps`` leaves out are ignored. ``method`` is one of
        :data:`METHODS`: ``"push"`` (:func:`push_pagerank`, local, the
        probabilities from below to within :data:`PUSH_EPSILON` per step of a
        node) or ``"power"`` (:func:`personalized_pagerank` over the whole
        graph, to within :data:`TOLERANCE`).
        """
        if method not in METHODS:
            known = ", ".join(repr(m) for m in METHODS)
            raise KnowledgeGraphError(f"method must be one of {known} (got {method!r}); 'push' is the local walk")
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
        if method == "push":
            scores, error = push_pagerank(
                steps.transposed, p, restart=restart, epsilon=PUSH_EPSILON, out_weight=steps.out_weight
            )
        else:
            scores, error = personalized_pagerank(steps.matrix, p, restart=restart), TOLERANCE
        if q.sum() == 0:
            prior_nodes = []
        return WalkScores(
            scores, tuple(self.nodes[i] for i in seed_nodes), tuple(self.nodes[i] for i in prior_nodes), self, steps,
            method, error if p.sum() > 0 else 0.0,
        )
