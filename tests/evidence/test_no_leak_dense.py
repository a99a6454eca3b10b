"""The no-leak oracle for the similarity legs: nothing stored only out of scope moves a scoped ranking.

Issue 31: the stored entity vectors average passages of every document, so an
entity a scope can see was ranked, in every entity dense leg, partly by text the
scope may not read. The oracle: a copy of the workshop index whose every
out-of-scope passage vector and every stored entity vector (records and
relation facets) is replaced by noise must answer every scoped search exactly
as the real index does, for the built-in recipes and the GraphRAG-local, LightRAG and
HippoRAG 2 peers: each method's legs, the fused results, their explanations and
``find_entities``. Before the scoped entity vectors this failed on its first
example (scope ``ada-lovelace``, query "Babbage": the entity legs ranked by the
stored, noised vectors).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from evidence_support import Universe
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrag_lab import Graph, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.evidence import Scope
from agrag_lab.evidence.recipe_search import search
from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.storage.vectors import ChromaVectorStore

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ["Babbage", "Lovelace", "Analytical Engine", "punched cards", "who worked with Babbage?", "Turin",
           "Bernoulli numbers", "Science Museum", "loom"]  # fmt: skip


def _recipes() -> list[Recipe]:
    peers = [Recipe.load(ROOT / "recipes" / "peers" / f"{name}.toml") for name in ("graphrag_local", "lightrag_hybrid", "hipporag2")]
    return [recipes.ENTITY, recipes.HYBRID, recipes.GRAPH_EXPAND, recipes.GRAPH_HYBRID, *peers]


def _shown(universe: Universe) -> frozenset[str]:
    """The documents a scope may draw from: every other one of the workshop's (the rest is noised)."""
    return frozenset(sorted(universe.docs)[::2])


@pytest.fixture(scope="module")
def noised_graph(
    workshop_path: Path, universe: Universe, tmp_path_factory: pytest.TempPathFactory,
    embedder: SentenceTransformerEmbedder,
) -> Iterator[Graph]:
    """The workshop index with noise for every vector a scope within :func:`_shown` must not rank by."""
    path = tmp_path_factory.mktemp("noised") / "index"
    shutil.copytree(workshop_path, path)
    shown = _shown(universe)
    store = ChromaVectorStore.local(str(path / "chroma"))
    rng = np.random.default_rng(31)
    for collection, keep in (("entities", lambda _: False), ("chunks", lambda key: key.split("@")[0] in shown)):
        ids = sorted(k for k in store.fingerprints(collection) if not keep(k))
        if not ids:
            continue
        noise = rng.normal(size=(len(ids), embedder.dimension)).astype(np.float32)
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        store._collection(collection).update(ids=ids, embeddings=noise)
    graph = Graph.open(path, embedder=embedder, read_only=True)
    yield graph
    graph.close()


def _answers(graph: Graph, scope: frozenset[str], query: str, recipe: Recipe) -> Any:
    run = graph.engine().run(query, recipe, filters=SearchFilters(document_ids=scope))
    legs = {(m.name, leg): [(h.key, round(h.score, 5)) for h in hits]
            for m in run.trace.methods for leg, hits in m.legs.items()}
    session = graph.evidence(Scope(document_ids=scope))
    explained = [(r.id, r.explanation) for r in search(session, query, recipe).results]
    return run.keys, legs, explained


@pytest.mark.timeout(1800)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(data=st.data())
def test_noise_out_of_scope_changes_no_scoped_ranking(
    workshop_graph: Graph, noised_graph: Graph, universe: Universe, data: st.DataObject
) -> None:
    shown = _shown(universe)
    scope = data.draw(st.frozensets(st.sampled_from(sorted(shown)), min_size=1), label="scope")
    query = data.draw(st.sampled_from(QUERIES), label="query")
    for recipe in _recipes():
        real, noised = _answers(workshop_graph, scope, query, recipe), _answers(noised_graph, scope, query, recipe)
        assert real == noised, (recipe.name, scope, query)
    real_found = workshop_graph.evidence(Scope(document_ids=scope)).find_entities(query, limit=10)
    noised_found = noised_graph.evidence(Scope(document_ids=scope)).find_entities(query, limit=10)
    assert real_found.to_dict() == noised_found.to_dict()
    assert any(hit.vector_rank for hit in real_found.entities) or not real_found.entities
