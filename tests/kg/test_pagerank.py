"""Personalised PageRank over entities and passages (agrag_lab.kg.pagerank)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.pagerank import MENTIONED_IN, MENTIONS, PassageGraph, personalized_pagerank


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
    ours = personalized_pagerank(sp.csr_array(adjacency.T), p, restart=0.3, tol=1e-13, max_iter=500)
    assert ours == pytest.approx([expected[n] for n in nodes], abs=1e-8)
    assert ours.sum() == pytest.approx(1.0)


def test_restart_must_be_a_probability() -> None:
    with pytest.raises(KnowledgeGraphError, match="restart must be in"):
        personalized_pagerank(sp.csr_array(np.eye(2)), np.ones(2), restart=0.0)


def test_no_seed_and_no_prior_gives_nothing(graph: PassageGraph) -> None:
    walk = graph.walk({}, {})
    assert walk.passages == () and walk.entities == () and walk.seeds == ()


def test_the_second_hop_passage_outranks_unrelated_ones(graph: PassageGraph) -> None:
    walk = graph.walk({"ent-a": 1.0}, {})
    ranked = [key for key, _ in walk.passages]
    assert ranked[0] == "d1#c0"
    assert ranked.index("d3#c0") < ranked.index("d2#c1")  # through B -NEAR- C, not only the hub
    path = walk.path_to("d3#c0")
    assert path[0].source == "ent-a" and path[-1].target == "d3#c0"
    assert path[0].relation == MENTIONED_IN and path[1].relation == MENTIONS
    assert walk.seed_of("d3#c0") == "ent-a" and walk.path_to("ent-a") == ()


def test_specific_seeds_pull_harder_than_hubs(graph: PassageGraph) -> None:
    walk = graph.walk({"ent-a": 1.0, "ent-hub": 1.0}, {})
    scores = dict(walk.passages)
    # the hub's weight is spread over six passages; A's sits on one
    assert scores["d1#c0"] == max(scores.values())


def test_relation_types_and_direction_limit_the_steps(graph: PassageGraph) -> None:
    only_far = graph.matrix(relation_types={"FAR"})
    b, c = graph.node_index["ent-b"], graph.node_index["ent-c"]
    assert only_far[c, b] == 0 and only_far[b, c] == 0
    out = graph.matrix(direction="out")
    assert out[c, b] == 1 and out[b, c] == 0  # B -> C only
    inward = graph.matrix(direction="in")
    assert inward[b, c] == 1 and inward[c, b] == 0
    walk = graph.walk({"ent-b": 1.0}, {}, relation_types={"FAR"}, matrix=only_far)
    assert all(step.relation in {"FAR", MENTIONED_IN, MENTIONS} for key, _ in walk.passages for step in walk.path_to(key))
    with pytest.raises(KnowledgeGraphError, match="direction"):
        graph.matrix(direction="sideways")  # type: ignore[arg-type]


def test_documents_limit_the_passages(graph: PassageGraph) -> None:
    m = graph.matrix(documents={"d1", "d2"})
    walk = graph.walk({"ent-a": 1.0}, {"d4#c0": 1.0}, matrix=m)
    assert {key.split("#")[0] for key, _ in walk.passages} <= {"d1", "d2", "d4"}
    # a prior passage outside the documents keeps only its restart mass: it leads nowhere
    assert "d3#c0" not in dict(walk.passages)


def test_prior_only_passages_have_no_seed(graph: PassageGraph) -> None:
    walk = graph.walk({}, {"d4#c1": 1.0, "d3#c0": 0.5})
    assert next(key for key, _ in walk.passages) == "d4#c1"
    assert walk.seed_of("d4#c1") is None and walk.path_to("d4#c1") == ()
