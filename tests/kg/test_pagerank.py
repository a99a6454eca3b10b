"""Personalised PageRank over entities and passages (agrag_lab.kg.algorithms.pagerank)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from agrag_lab.kg.algorithms.pagerank import (
    MENTIONED_IN,
    MENTIONS,
    PUSH_EPSILON,
    PassageGraph,
    ShortestPaths,
    personalized_pagerank,
    push_pagerank,
    unique_unsorted,
)
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph


@pytest.fixture(scope="module")
def graph() -> PassageGraph:
    """Five entities, six passages in four documents, typed relations."""
    entities = [
        Entity("ent-a", "A", "Thing", chunk_ids=("d1#c0",)),
        Entity("ent-b", "B", "Thing", chunk_ids=("d1#c0", "d2#c0")),
        Entity("ent-c", "C", "Thing", chunk_ids=("d3#c0",)),
        Entity("ent-d", "D", "Thing", chunk_ids=("d4#c0", "d4#c1")),
        Entity("ent-hub", "Hub", "Thing", chunk_ids=("d1#c0", "d2#c0", "d3#c0", "d4#c0", "d4#c1", "d2#c1")),
    ]
    edges = [
        Edge("ent-b", "ent-c", "NEAR", ("d2#c0",)),
        Edge("ent-c", "ent-d", "FAR", ("d3#c0",)),
        Edge("ent-a", "ent-d", "SECRET", ("d4#c1",)),  # supported only in d4
        Edge("ent-d", "ent-a", "BACK", ("d4#c0", "d4#c1")),
    ]
    documents = {c: c.split("#")[0] for e in entities for c in e.chunk_ids}
    return PassageGraph.from_graph(KnowledgeGraph.create(entities, edges, chunk_documents=documents))


def test_power_iteration_equals_networkx_pagerank() -> None:
    rng = np.random.default_rng(7)
    g = nx.gnp_random_graph(40, 0.08, seed=3, directed=True)
    nodes = list(g)
    p = rng.random(len(nodes))
    p[rng.random(len(nodes)) < 0.6] = 0.0
    p[0] = 1.0
    expected = nx.pagerank(g, alpha=0.7, personalization=dict(zip(nodes, p, strict=True)), tol=1e-12, max_iter=500)
    adjacency = nx.to_scipy_sparse_array(g, nodelist=nodes, format="csr")
    ours = personalized_pagerank(sp.csr_array(adjacency.T), p, restart=0.3, tol=1e-13)
    assert ours == pytest.approx([expected[n] for n in nodes], abs=1e-8)
    assert ours.sum() == pytest.approx(1.0)


def test_restart_must_be_a_probability() -> None:
    with pytest.raises(KnowledgeGraphError, match="restart must be a number in"):
        personalized_pagerank(sp.csr_array(np.eye(2)), np.ones(2), restart=0.0)


def test_no_seed_and_no_prior_gives_nothing(graph: PassageGraph) -> None:
    walk = graph.walk({}, {}, graph.steps())
    assert walk.passages() == () and walk.entities() == () and walk.seeds == ()


def test_the_second_hop_passage_outranks_unrelated_ones(graph: PassageGraph) -> None:
    walk = graph.walk({"ent-a": 1.0}, {}, graph.steps(relation_types={"NEAR", "FAR"}))
    ranked = [key for key, _ in walk.passages()]
    assert ranked[0] == "d1#c0"
    assert ranked.index("d3#c0") < ranked.index("d2#c1")  # through B -NEAR- C, not only the hub
    start, path = walk.route("d3#c0") or ("", ())
    assert start == "ent-a" and path[0].source == "ent-a" and path[-1].target == "d3#c0"
    assert path[0].relation == MENTIONED_IN and path[1].relation == MENTIONS
    assert walk.route("ent-a") == ("ent-a", ()) and walk.route("unknown") is None


def test_specific_seeds_pull_harder_than_hubs(graph: PassageGraph) -> None:
    walk = graph.walk({"ent-a": 1.0, "ent-hub": 1.0}, {}, graph.steps())
    scores = dict(walk.passages())
    # the hub's weight is spread over six passages; A's sits on one
    assert scores["d1#c0"] == max(scores.values())


def test_relation_types_and_direction_limit_the_steps(graph: PassageGraph) -> None:
    b, c = graph.node_index["ent-b"], graph.node_index["ent-c"]
    only_far = graph.steps(relation_types={"FAR"})
    assert only_far.matrix[c, b] == 0 and only_far.matrix[b, c] == 0
    out = graph.steps(direction="out").matrix
    assert out[c, b] == 1 and out[b, c] == 0  # B -> C only
    inward = graph.steps(direction="in").matrix
    assert inward[b, c] == 1 and inward[c, b] == 0
    walk = graph.walk({"ent-b": 1.0}, {}, only_far)
    for key, _ in walk.passages():
        _, path = walk.route(key) or ("", ())
        assert {s.relation for s in path} <= {"FAR", MENTIONED_IN, MENTIONS}
    with pytest.raises(KnowledgeGraphError, match="direction"):
        graph.steps(direction="sideways")  # type: ignore[arg-type]


def test_a_path_names_a_relation_the_walk_could_follow(graph: PassageGraph) -> None:
    a, d = graph.node_index["ent-a"], graph.node_index["ent-d"]
    # A -SECRET-> D and D -BACK-> A: going out from A, only SECRET leads to D
    assert graph.step_relation(a, d, graph.steps(direction="out")) == "SECRET"
    assert graph.step_relation(a, d, graph.steps(direction="in")) == "BACK"
    assert graph.step_relation(a, d, graph.steps()) == "BACK"  # both ways: the better supported one


def test_documents_limit_passages_entities_and_relations(graph: PassageGraph) -> None:
    steps = graph.steps(documents={"d1", "d2", "d3", "d4"} - {"d4"})
    walk = graph.walk({"ent-a": 1.0}, {"d4#c0": 1.0, "d2#c0": 0.5}, steps)
    assert {key.split("#")[0] for key, _ in walk.passages()} <= {"d1", "d2", "d3"}
    assert "ent-d" not in dict(walk.entities())  # mentioned only in d4
    for key, _ in walk.passages():
        _, path = walk.route(key) or ("", ())
        assert {s.relation for s in path} <= {"NEAR", MENTIONED_IN, MENTIONS}
    hidden = graph.walk({"ent-d": 1.0}, {}, steps)
    assert hidden.seeds == () and hidden.passages() == ()


def test_a_small_restart_still_converges() -> None:
    import networkx as nx

    g = nx.complete_bipartite_graph(3, 4)  # periodic: the hardest case for a power iteration
    m = sp.csr_array(nx.to_scipy_sparse_array(g, format="csr").T)
    p = np.zeros(7)
    p[0] = 1.0
    expected = nx.pagerank(g, alpha=0.99, personalization={0: 1.0}, tol=1e-14, max_iter=100_000)
    ours = personalized_pagerank(m, p, restart=0.01)
    assert ours == pytest.approx([expected[i] for i in range(7)], abs=1e-6)
    with pytest.raises(KnowledgeGraphError, match=">= 0"):
        personalized_pagerank(m, -p, restart=0.5)


def test_prior_only_passages_have_no_seed(graph: PassageGraph) -> None:
    walk = graph.walk({}, {"d4#c1": 1.0, "d3#c0": 0.5}, graph.steps())
    assert next(key for key, _ in walk.passages()) == "d4#c1"
    assert walk.route("d4#c1") == ("d4#c1", ())
    assert walk.prior == ("d4#c1", "d3#c0") and walk.seeds == ()


def test_a_route_prefers_a_short_seed_path_to_the_prior(graph: PassageGraph) -> None:
    walk = graph.walk({"ent-a": 1.0}, {"d3#c0": 1.0}, graph.steps(relation_types={"NEAR", "FAR"}))
    start, path = walk.route("d3#c0") or ("", ())
    assert start == "ent-a" and len(path) == 3  # through the hub's passage
    assert walk.route("d3#c0", max_steps=2) == ("d3#c0", ())  # too far from the seed: its own restart point
    assert graph.walk({}, {"d4#c1": 1.0}, graph.steps(), prior_weight=0.0).passages() == ()


def test_no_route_farther_than_the_limit(graph: PassageGraph) -> None:
    walk = graph.walk({"ent-a": 1.0}, {"d1#c0": 1.0}, graph.steps(relation_types={"NEAR", "FAR"}))
    assert walk.route("d3#c0", max_steps=3) == walk.route("d3#c0")  # 3 steps from the seed
    assert walk.route("d3#c0", max_steps=2) is not None  # d1#c0 -> hub -> d3#c0, from the prior passage
    assert walk.route("d3#c0", max_steps=1) is None  # neither restart point is that near
    assert walk.routes(["d1#c0", "d3#c0", "unknown"], max_steps=1) == {
        "d1#c0": walk.route("d1#c0"), "d3#c0": None, "unknown": None,
    }


def _textbook_iteration(matrix: sp.csr_array, personalization: np.ndarray, restart: float, tol: float) -> np.ndarray:
    """The power iteration written plainly, one expression a step (the form before it used buffers)."""
    p = personalization.astype(float) / float(personalization.sum())
    out_weight = np.asarray(matrix.sum(axis=0), dtype=float).ravel()
    inverse = np.divide(1.0, out_weight, out=np.zeros_like(out_weight), where=out_weight > 0)
    dangling = out_weight == 0
    x = p.copy()
    for _ in range(10_000):
        new = restart * p + (1.0 - restart) * (np.asarray(matrix @ (inverse * x), dtype=float) + float(x[dangling].sum()) * p)
        if float(np.abs(new - x).sum()) < tol:
            return new
        x = new
    raise AssertionError("did not converge")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_power_iteration_is_the_textbook_one_to_the_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    g = nx.gnp_random_graph(300, 0.01, seed=seed, directed=True)  # sparse: many dangling nodes
    adjacency = sp.csr_array(nx.to_scipy_sparse_array(g, nodelist=list(g), format="csr").T)
    p = np.where(rng.random(300) < 0.05, rng.random(300), 0.0)
    p[0] = 0.5
    for restart in (0.3, 0.5, 0.9):
        expected = _textbook_iteration(adjacency, p, restart, 1e-9)
        assert np.array_equal(personalized_pagerank(adjacency, p, restart=restart), expected)


def test_ranking_with_a_limit_is_the_head_of_the_full_ranking() -> None:
    """Ties at the cut keep node order, as the full stable sort does."""
    entities = [Entity(f"ent-{i}", f"E{i}", "Thing", chunk_ids=tuple(f"d{j}#c0" for j in range(i % 4 + 1)))
                for i in range(12)]
    documents = {f"d{j}#c0": f"d{j}" for j in range(4)}
    pg = PassageGraph.from_graph(KnowledgeGraph.create(entities, [], chunk_documents=documents))
    walk = pg.walk({"ent-0": 1.0, "ent-5": 1.0}, {"d2#c0": 1.0}, pg.steps())
    full_passages, full_entities = walk.passages(), walk.entities()
    assert len(set(score for _, score in full_entities)) < len(full_entities)  # there are ties
    for limit in range(len(full_entities) + 2):
        assert walk.entities(limit) == full_entities[:limit]
        assert walk.passages(limit) == full_passages[:limit]


def _symmetric(seed: int, n: int = 300, p: float = 0.015) -> sp.csr_array:
    g = nx.gnp_random_graph(n, p, seed=seed)
    g.add_edges_from((i, i + 1) for i in range(0, 40, 2))  # a few pairs, some isolated nodes stay
    return sp.csr_array(nx.to_scipy_sparse_array(g, nodelist=range(n), format="csr"))


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("epsilon", [1e-3, 1e-5, PUSH_EPSILON])
def test_push_is_the_power_iteration_from_below_within_its_bound(seed: int, epsilon: float) -> None:
    """Each estimate is at most the probability, short of it by ``epsilon`` per step at most (steps both
    ways), and short by exactly the residual mass the push reports, in total."""
    steps = _symmetric(seed)
    rng = np.random.default_rng(seed)
    p = np.where(rng.random(300) < 0.03, rng.random(300), 0.0)
    p[0] = 0.5
    degree = np.asarray(steps.sum(axis=1)).ravel()
    for restart in (0.3, 0.5):
        exact = personalized_pagerank(steps, p, restart=restart, tol=1e-14)
        pushed, error = push_pagerank(steps, p, restart=restart, epsilon=epsilon)
        shortfall = exact - pushed
        assert shortfall.min() >= -1e-12
        assert shortfall.sum() == pytest.approx(error, abs=1e-11)
        assert (shortfall <= epsilon * np.maximum(degree, 1.0) + 1e-12).all()
        assert 0 < error < 1.0



@pytest.mark.parametrize("seed", [1, 2])
def test_distinct_nodes_are_numpy_unique_with_their_inverse(seed: int) -> None:
    """The push's per-round grouping (no sort of every step read) gives ``np.unique``'s answer, scratch reused."""
    rng = np.random.default_rng(seed)
    seen, place = np.empty(500, dtype=np.int64), np.empty(500, dtype=np.int64)
    for size in (0, 1, 7, 300, 2_000):
        nodes = rng.integers(0, 500 if size > 7 else 5, size)
        distinct, slot = unique_unsorted(nodes, seen, place)
        expected, inverse = np.unique(nodes, return_inverse=True)
        assert distinct.tolist() == expected.tolist()
        assert slot.tolist() == inverse.tolist()


def _push_with_unique(out_steps: sp.csr_array, p: np.ndarray, restart: float, epsilon: float) -> np.ndarray:
    """The push as it was written before ``unique_unsorted``: ``np.unique`` of the steps read each round."""
    weight = np.asarray(out_steps.sum(axis=1), dtype=float).ravel()
    p = p / p.sum()
    estimate, residual, candidates = np.zeros(len(p)), p.copy(), np.flatnonzero(p)
    indptr, indices, data = out_steps.indptr, out_steps.indices, out_steps.data
    while len(candidates):
        pushed = candidates[residual[candidates] >= epsilon * np.maximum(weight[candidates], 1.0)]
        if not len(pushed):
            break
        mass = residual[pushed]
        residual[pushed] = 0.0
        estimate[pushed] += restart * mass
        spread = (1.0 - restart) * (mass / weight[pushed])
        counts = indptr[pushed + 1] - indptr[pushed]
        positions = np.concatenate([np.arange(indptr[i], indptr[i + 1]) for i in pushed])
        received, slot = np.unique(indices[positions], return_inverse=True)
        residual[received] += np.bincount(slot, np.repeat(spread, counts) * data[positions], minlength=len(received))
        candidates = received
    return estimate


@pytest.mark.parametrize("seed", [1, 2])
def test_push_scores_are_those_of_the_unique_based_push_to_the_bit(seed: int) -> None:
    """Same sums in the same order: every score is equal, not only close (so rankings and ties cannot move)."""
    steps = _symmetric(seed)
    g = steps.tolil()
    for i in range(steps.shape[0]):  # no node without out-steps: the reference does not restart their mass
        if not g.rows[i]:
            g[i, (i + 1) % steps.shape[0]] = 1.0
            g[(i + 1) % steps.shape[0], i] = 1.0
    steps = sp.csr_array(g.tocsr())
    rng = np.random.default_rng(seed)
    p = np.where(rng.random(300) < 0.05, rng.random(300), 0.0)
    p[3] = 1.0
    pushed, _ = push_pagerank(steps, p, restart=0.3, epsilon=1e-6)
    assert pushed.tolist() == _push_with_unique(steps, p, 0.3, 1e-6).tolist()


def test_push_work_does_not_grow_with_the_graph() -> None:
    """The same local structure in a graph 10x larger: the push reaches no more nodes (at most 1 / (eps * restart))."""
    reached = []
    for n in (2_000, 20_000):
        steps = sp.csr_array(nx.to_scipy_sparse_array(nx.random_regular_graph(4, n, seed=1), format="csr"))
        p = np.zeros(n)
        p[0] = 1.0
        pushed, _ = push_pagerank(steps, p, restart=0.3, epsilon=1e-4)
        reached.append(int((pushed > 0).sum()))
    assert reached[1] <= 1 / (1e-4 * 0.3) and reached[1] < 2 * reached[0] < 2_000


def test_push_on_one_way_steps_stays_below_the_probability() -> None:
    """Directed steps, many nodes without out-steps (their mass restarts): still a lower bound, short by the residual."""
    g = nx.gnp_random_graph(300, 0.01, seed=5, directed=True)
    matrix = sp.csr_array(nx.to_scipy_sparse_array(g, nodelist=list(g), format="csr").T)
    p = np.zeros(300)
    p[[0, 7, 9]] = [1.0, 0.5, 0.25]
    exact = personalized_pagerank(matrix, p, restart=0.3, tol=1e-14)
    pushed, error = push_pagerank(matrix.T.tocsr(), p, restart=0.3, epsilon=1e-7)
    assert (exact - pushed).min() >= -1e-12 and (exact - pushed).sum() == pytest.approx(error, abs=1e-11)
    assert error < 1e-3
    nothing, no_error = push_pagerank(matrix.T.tocsr(), np.zeros(300), restart=0.3)
    assert nothing.tolist() == [0.0] * 300 and no_error == 0.0
    with pytest.raises(KnowledgeGraphError, match="epsilon"):
        push_pagerank(matrix, p, restart=0.3, epsilon=0.0)
    with pytest.raises(KnowledgeGraphError, match=">= 0"):
        push_pagerank(matrix, -p, restart=0.3)


@pytest.fixture(scope="module")
def random_graph() -> PassageGraph:
    """60 entities over 200 passages, hubs included, and random relations."""
    rng = np.random.default_rng(11)
    passages = [f"d{i // 2}#c{i % 2}" for i in range(200)]
    entities = []
    for i in range(60):
        mentions = 40 if i < 3 else int(rng.integers(1, 6))  # three hubs
        chunks = tuple(sorted({passages[j] for j in rng.choice(200, mentions, replace=False)}))
        entities.append(Entity(f"ent-{i:02d}", f"E{i}", "Thing", chunk_ids=chunks))
    edges = [Edge(f"ent-{a:02d}", f"ent-{b:02d}", "REL", (passages[int(rng.integers(200))],))
             for a, b in rng.integers(0, 60, size=(40, 2)) if a != b]
    documents = {c: c.split("#")[0] for c in passages}
    return PassageGraph.from_graph(KnowledgeGraph.create(entities, edges, chunk_documents=documents))


def _lowest_paths(graph: PassageGraph, steps: object, starts: list[int]) -> tuple[np.ndarray, list[list[int]]]:
    """The reference: every node's distance from the nearest start over the whole graph (scipy's dijkstra), and
    each node's predecessors one step nearer."""
    distance = dijkstra(steps.transposed, directed=True, indices=starts,  # type: ignore[attr-defined]
                        unweighted=True, min_only=True)
    matrix = steps.matrix.tocoo()  # type: ignore[attr-defined]
    before: list[list[int]] = [[] for _ in graph.nodes]
    for j, i in zip(matrix.col.tolist(), matrix.row.tolist(), strict=True):  # matrix[i, j]: the step j -> i
        if np.isfinite(distance[i]) and distance[j] == distance[i] - 1:
            before[i].append(j)
    return distance, before


@pytest.mark.parametrize("direction", ["both", "out"])
def test_paths_are_shortest_from_the_first_start_through_the_lowest_nodes(
    random_graph: PassageGraph, direction: str,
) -> None:
    """Each path is a shortest one over the whole graph, from the first nearest start in the order given, through
    the lowest-numbered node that leads on at each step."""
    steps = random_graph.steps(direction=direction)  # type: ignore[arg-type]
    n, m = len(random_graph.entities), len(random_graph.passages)
    rng = np.random.default_rng(3)
    ties = start_ties = 0
    for trial in range(12):
        starts = [int(x) for x in rng.choice(n, 1 + trial % 4, replace=False)]
        if trial % 3 == 0:
            starts.append(n + int(rng.integers(m)))  # a passage among the starts, as the prior is
        distance, before = _lowest_paths(random_graph, steps, starts)
        targets = [n + int(x) for x in rng.choice(m, 10, replace=False)]
        for limit in (None, 3, 5):
            local = ShortestPaths.search(random_graph, steps, starts, targets, limit)
            for t in targets:
                if not np.isfinite(distance[t]) or (limit is not None and distance[t] > limit):
                    assert local.route(random_graph, steps, t) is None
                    continue
                layers = [{t}]  # the nodes on t's shortest paths, level by level back
                while distance[next(iter(layers[-1]))] > 0:
                    layers.append({b for node in layers[-1] for b in before[node]})
                start_ties += len(layers[-1]) > 1
                ties += any(len(layer) > 1 for layer in layers[:-1])
                chain = [min(layers[-1], key=starts.index)]  # the first nearest start, in the order given
                for layer in reversed(layers[:-1]):
                    chain.append(min(node for node in layer if chain[-1] in before[node]))
                route = local.route(random_graph, steps, t)
                assert route is not None
                start, path = route
                assert start == random_graph.nodes[chain[0]] and int(distance[chain[0]]) == 0
                assert [s.target for s in path] == [random_graph.nodes[i] for i in chain[1:]]
                assert len(path) == distance[t]
    assert ties and start_ties  # equal shortest paths, from one start and from several: both tie-breaks tested


def test_paths_stop_a_level_short_when_every_target_is_next_to_it() -> None:
    """Read from the targets' end: the level whose nodes step to every target left is not expanded."""
    kg = KnowledgeGraph.create(
        [Entity("ent-a", "A", "Thing", chunk_ids=("d1#c0", "d2#c0")),
         Entity("ent-b", "B", "Thing", chunk_ids=("d2#c0", "d3#c0")),
         Entity("ent-c", "C", "Thing", chunk_ids=("d3#c0", "d4#c0"))],
        [], chunk_documents={f"d{i}#c0": f"d{i}" for i in range(1, 5)},
    )
    graph = PassageGraph.from_graph(kg)
    steps = graph.steps()
    index = graph.node_index
    near = ShortestPaths.search(graph, steps, [index["ent-a"]], [index["d2#c0"]])
    # d2 is one step from the start: found without expanding the start's level, so d1 (the start's other
    # passage) is never reached
    assert near.distance[index["d2#c0"]] == 1 and near.distance[index["d1#c0"]] == -1
    far = ShortestPaths.search(graph, steps, [index["ent-a"]], [index["d4#c0"]])
    assert far.distance[index["d4#c0"]] == 5 and far.distance[index["d3#c0"]] == 3
    route = far.route(graph, steps, index["d4#c0"])
    assert route is not None
    assert route[0] == "ent-a"
    assert [(s.source, s.target) for s in route[1]] == [
        ("ent-a", "d2#c0"), ("d2#c0", "ent-b"), ("ent-b", "d3#c0"), ("d3#c0", "ent-c"), ("ent-c", "d4#c0")]


def test_push_and_power_walks_rank_alike(random_graph: PassageGraph) -> None:
    steps = random_graph.steps()
    prior = {random_graph.passages[i]: 1.0 / r for r, i in enumerate(range(0, 40, 4), 1)}
    push = random_graph.walk({"ent-10": 1.0, "ent-20": 1.0}, prior, steps)
    power = random_graph.walk({"ent-10": 1.0, "ent-20": 1.0}, prior, steps, method="power")
    assert push.method == "push" and power.method == "power"
    assert [k for k, _ in push.passages(10)] == [k for k, _ in power.passages(10)]
    exact, approx = dict(power.passages()), dict(push.passages())
    assert all(0 <= exact[k] - v <= push.error + 1e-9 for k, v in approx.items())
    assert 0 < push.error < 0.5 and power.error <= 1e-9
    with pytest.raises(KnowledgeGraphError, match="method must be one of"):
        random_graph.walk({"ent-10": 1.0}, {}, steps, method="exact")  # type: ignore[arg-type]
