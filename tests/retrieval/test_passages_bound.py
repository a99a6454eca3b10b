"""The passage order's dense leg is bounded (issue 30): more than PASSAGES_EXACT passages are ranked
among the query's nearest ones: every chunk of an index of at most PASSAGES_WHOLE (the exact order), the
PASSAGES_NEAREST nearest of a larger one."""

from __future__ import annotations

import numpy as np
import pytest

from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.graph import Graph
from agrag_lab.retrieval.fusion import rrf
from agrag_lab.retrieval.steps import passages as passage_order

QUERY = "How does the graph walk rank passages?"


def _ranks(
    graph: Graph, embedder: SentenceTransformerEmbedder, wanted: frozenset[str], *, store: bool = True,
) -> dict[str, int]:
    return passage_order.passage_ranks(
        QUERY, embedder.embed_query(QUERY), wanted, graph_store=graph.graph_store,
        vector_store=graph.vector_store if store else None, k=60.0,
    )


def _chunks(graph: Graph) -> list[str]:
    return list(graph.graph_store.keyword_index("chunks").ids)


def test_passages_beyond_the_exact_bound_keep_the_exact_order_on_a_small_index(
    workshop_graph: Graph, embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch,
) -> None:
    chunks = _chunks(workshop_graph)
    wanted = frozenset(chunks[::2])
    assert 5 < len(chunks) <= passage_order.PASSAGES_WHOLE  # the nearest read holds every chunk
    exact = _ranks(workshop_graph, embedder, wanted)
    monkeypatch.setattr(passage_order, "PASSAGES_EXACT", 5)  # every run now reads the nearest passages
    assert _ranks(workshop_graph, embedder, wanted) == exact
    assert len(exact) == len(wanted)


def test_passages_beyond_the_nearest_ones_get_only_their_keyword_rank(
    workshop_graph: Graph, embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch,
) -> None:
    chunks = _chunks(workshop_graph)
    wanted = frozenset(chunks)
    monkeypatch.setattr(passage_order, "PASSAGES_EXACT", 5)
    monkeypatch.setattr(passage_order, "PASSAGES_WHOLE", len(chunks) - 1)  # an index too large to be read whole
    monkeypatch.setattr(passage_order, "PASSAGES_NEAREST", 10)
    ranks = _ranks(workshop_graph, embedder, wanted)
    nearest = workshop_graph.vector_store.query("chunks", embedder.embed_query(QUERY), 10)
    keyword = workshop_graph.graph_store.keyword_index("chunks").search(QUERY, len(wanted))
    assert len(nearest) == 10
    expected = rrf({"dense": [key for key, _ in nearest], "keyword": [key for key, _ in keyword]}, k=60.0)
    assert ranks == {item.key: rank for rank, item in enumerate(expected.items, 1)}
    # a passage neither among the ten nearest nor a keyword hit is not ranked: it keeps its stored order
    unranked = wanted - set(ranks)
    assert unranked and not unranked & {key for key, _ in nearest}
    assert _ranks(workshop_graph, embedder, wanted, store=False) == ranks  # the graph store's own vectors alike


def test_the_keyword_leg_masks_the_passages_by_their_rows(workshop_graph: Graph) -> None:
    """The keyword leg's mask is read from the passages' rows: the same mask as the predicate over every id."""
    index = workshop_graph.graph_store.keyword_index("chunks")
    wanted = set(index.ids[1::3]) | {"not-a-chunk"}
    assert np.array_equal(index.mask_of(wanted), index.mask(wanted.__contains__))
    assert int(index.mask_of(wanted).sum()) == len(wanted) - 1
