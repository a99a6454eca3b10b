"""The query is embedded once, and only when a step of the recipe reads its vector."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agrag_lab import Graph, recipes
from agrag_lab.embedding import Embedder
from agrag_lab.retrieval.engine import SearchEngine

QUERY = "Who worked with Charles Babbage on the Analytical Engine?"


class CountingQueries:
    """The index's real model, counting the queries it embeds."""

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.name = model.name
        self.dimension = model.dimension
        self.queries: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.model.embed(texts)

    def warm(self) -> float:
        return 0.0  # the model is warm: the session's fixture loaded it

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return self.model.embed_query(text)


def _engine(graph: Graph, counting: CountingQueries) -> SearchEngine:
    return SearchEngine(graph_store=graph.graph_store, embedder=counting, vector_store=graph.vector_store)


def test_graphrag_global_ranks_reports_without_embedding_the_query(workshop_graph: Graph) -> None:
    counting = CountingQueries(workshop_graph.embedder)
    run = _engine(workshop_graph, counting).run(QUERY, recipes.get("GRAPHRAG_GLOBAL"))
    assert run.results and counting.queries == []
    assert "embed" not in {name for name, _ in run.trace.spans}


def test_a_dense_recipe_embeds_the_query_once(workshop_graph: Graph) -> None:
    counting = CountingQueries(workshop_graph.embedder)
    run = _engine(workshop_graph, counting).run(QUERY, recipes.get("HYBRID"))
    assert run.results and counting.queries == [QUERY]
