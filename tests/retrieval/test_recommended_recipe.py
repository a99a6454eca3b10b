"""The recommended recipe (GRAPH_HYBRID) and the walk settings it uses, on the real workshop index."""

from __future__ import annotations

import pytest

from agrag_lab import Graph, recipes
from agrag_lab.errors import RecipeError
from agrag_lab.recipes import GRAPH_HYBRID, RECOMMENDED, Recipe
from agrag_lab.retrieval.engine import SearchEngine
from agrag_lab.retrieval.methods import REGISTRY

QUERY = "Who suggested that Ada Lovelace translate Menabrea's paper?"
UNNAMED_QUERY = "who designed a calculating engine"


@pytest.fixture(scope="module")
def engine(workshop_graph: Graph) -> SearchEngine:
    return workshop_graph.engine()


def test_the_recommended_recipe_is_known_by_name_and_not_a_spec_builtin() -> None:
    assert RECOMMENDED is GRAPH_HYBRID
    assert recipes.get("graph_hybrid") is GRAPH_HYBRID
    assert "GRAPH_HYBRID" not in recipes.BUILTINS and len(recipes.BUILTINS) == 6
    assert Recipe.from_toml(GRAPH_HYBRID.to_toml()) == GRAPH_HYBRID


def test_passages_and_walk_are_fused_and_entity_hits_only_seed(engine: SearchEngine, workshop_graph: Graph) -> None:
    run = engine.run(QUERY, GRAPH_HYBRID)
    assert run.results and all(r.kind == "chunk" for r in run.results)
    walk = run.trace.outcome.walk
    assert walk is not None and walk.strategy == "ppr" and walk.additions
    store = workshop_graph.graph_store
    assert walk.seeds and all(store.names_entity(QUERY, s) for s in walk.seeds)
    dense = [h.key for h in run.trace.method("passage").hits]
    assert dense, "the passage method ran"
    for item in run.trace.outcome.fusion.items[: GRAPH_HYBRID.limit]:
        sources = {c.source: c for c in item.contributions}
        assert set(sources) <= {"passage", "keyword", "walk", "entity"}
        assert sources.get("entity") is None or sources["entity"].term == 0.0  # weight 0: no vote
        assert item.score == pytest.approx(sum(c.term for c in item.contributions))
    # the first result is the walk's first passage or one of dense's first three (k = 5: top ranks count)
    assert run.results[0].id in {walk.additions[0].entity, *dense[:3]}
    # the walk's first passage that the dense leg also finds is in the first five
    both = [a.entity for a in walk.additions if a.entity in dense]
    assert both and run.keys.index(both[0]) < 5


def test_keyword_method_is_the_keyword_leg_of_chunk(engine: SearchEngine) -> None:
    keyword = engine.run(QUERY, Recipe("K", ("keyword",)))
    chunk = engine.run(QUERY, Recipe("C", ("chunk",)))
    hits = [h.key for h in keyword.trace.method("keyword").hits]
    assert hits and hits == [h.key for h in chunk.trace.method("chunk").legs["keyword"]][: len(hits)]
    assert set(keyword.trace.method("keyword").legs) == {"keyword"}


def test_with_no_entity_named_the_recipe_is_dense_plus_keyword(engine: SearchEngine) -> None:
    run = engine.run(UNNAMED_QUERY, GRAPH_HYBRID)
    walk = run.trace.outcome.walk
    assert walk is not None and walk.seeds == () and walk.additions == ()
    for item in run.trace.outcome.fusion.items[: GRAPH_HYBRID.limit]:
        assert {c.source for c in item.contributions if c.term > 0} <= {"passage", "keyword"}


def test_passage_method_is_the_dense_leg_of_chunk(engine: SearchEngine, workshop_graph: Graph) -> None:
    passage = engine.run(QUERY, Recipe("P", ("passage",)))
    chunk = engine.run(QUERY, Recipe("C", ("chunk",)))
    assert [h.key for h in passage.trace.method("passage").hits] == [
        h.key for h in chunk.trace.method("chunk").legs["dense"]
    ][: len(passage.trace.method("passage").hits)]
    assert "passage" in REGISTRY


def test_hybrid_prior_comes_from_the_chunk_method(engine: SearchEngine) -> None:
    hybrid = GRAPH_HYBRID.replace(name="H", **{"walk.prior": "hybrid"})
    run = engine.run(QUERY, hybrid)
    chunk = engine.run(QUERY, Recipe("C", ("chunk",), candidates=20))
    walk = run.trace.outcome.walk
    assert walk is not None and walk.prior
    assert set(walk.prior) <= {h.key for h in chunk.trace.method("chunk").hits}
    dense = engine.run(QUERY, GRAPH_HYBRID).trace.outcome.walk
    assert dense is not None and walk.prior != dense.prior


@pytest.mark.parametrize("unnamed", ["fallback", "prior", "skip"])
def test_what_the_walk_does_when_the_query_names_no_entity(engine: SearchEngine, unnamed: str) -> None:
    recipe = GRAPH_HYBRID.replace(name="U", **{"walk.unnamed": unnamed})
    run = engine.run(UNNAMED_QUERY, recipe)
    walk = run.trace.outcome.walk
    entities = [h.key for h in run.trace.method("entity").hits]
    assert walk is not None
    if unnamed == "fallback":
        assert walk.seeds == tuple(entities[:3]) and walk.additions
    elif unnamed == "prior":
        assert walk.seeds == () and walk.additions and walk.prior
        assert all(a.seed in walk.prior for a in walk.additions if a.seed)
    else:
        assert walk.seeds == () and walk.additions == ()
        alone = engine.run(UNNAMED_QUERY, recipe.replace(name="V", **{"walk.enabled": False}))
        assert run.keys == alone.keys  # no walk: the methods' fusion alone


def test_bad_walk_settings_are_clear_errors() -> None:
    with pytest.raises(RecipeError, match="prior: must be one of 'dense', 'hybrid'"):
        GRAPH_HYBRID.replace(**{"walk.prior": "keyword"})
    with pytest.raises(RecipeError, match="unnamed: must be one of 'fallback', 'prior', 'skip'"):
        GRAPH_HYBRID.replace(**{"walk.unnamed": "never"})
