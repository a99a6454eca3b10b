"""SearchEngine on the real workshop index: the spec's rules, each with a test."""

from __future__ import annotations

import itertools
import json
import math
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from agrag_lab import Graph
from agrag_lab.errors import AllRetrievalMethodsFailedError, ScopeDeniedError, UnknownRecipeMethodError
from agrag_lab.recipes import CHUNK, ENTITY, GRAPH_EXPAND, HYBRID, THEMATIC, Recipe
from agrag_lab.retrieval import methods as methods_module
from agrag_lab.retrieval.engine import SearchEngine
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.methods import MethodResult
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.retrieval.settings import RetrievalSettings
from agrag_lab.retrieval.trace import Hit
from agrag_lab.retrieval.tracing import RecordingTracer

QUERY = "Who worked with Babbage?"
#: GRAPH_EXPAND with the spec's breadth-first walk (the built-in walks by PageRank).
BFS_EXPAND = GRAPH_EXPAND.replace(name="BFS_EXPAND", **{"walk.strategy": "bfs", "fusion.weights": {}})


@pytest.fixture(scope="module")
def engine(workshop_graph: Graph) -> SearchEngine:
    return workshop_graph.engine()


def _doc(key: str) -> str:
    return key.split("@", 1)[0]


def test_the_spec_worked_example_holds(engine: SearchEngine, workshop_graph: Graph) -> None:
    results = engine.search(QUERY, HYBRID)
    names = {r.title for r in results if r.kind == "entity"}
    assert {"Charles Babbage", "Ada Lovelace"} <= names
    chunks = [r for r in results if r.kind == "chunk"]
    both = [r for r in chunks if "Babbage" in r.text and "Lovelace" in r.text]
    assert both, [r.text[:80] for r in chunks]
    assert both[0].heading_path and both[0].heading_path[0] == both[0].title


def test_ledger_terms_sum_to_scores_and_fusion_runs_for_one_method(engine: SearchEngine) -> None:
    run = engine.run(QUERY, ENTITY)
    fusion = run.trace.outcome.fusion
    assert fusion.items and all(set(item.sources) == {"entity"} for item in fusion.items)
    for item in run.trace.outcome.fusion.items:
        assert math.isclose(sum(c.term for c in item.contributions), item.score, rel_tol=0, abs_tol=1e-15)
    assert len(set(run.keys)) == len(run.keys)
    assert [r.score for r in run.results] == sorted((r.score for r in run.results), reverse=True)


def test_hybrid_legs_are_both_in_the_ledger(engine: SearchEngine) -> None:
    run = engine.run(QUERY, HYBRID)
    for name in ("entity", "chunk"):
        method = run.trace.method(name)
        assert method.status == "ok" and set(method.legs) == {"dense", "keyword"}
        assert method.legs["dense"] and method.legs["keyword"]
    text = run.explain(0)
    assert "dense rank" in text and "term" in text


def test_refuse_equals_a_fresh_run_with_the_same_settings(engine: SearchEngine) -> None:
    for recipe in (HYBRID, GRAPH_EXPAND):
        run = engine.run(QUERY, recipe)
        weights = {recipe.methods[-1]: 2.0}
        refused = run.refuse(k=5, weights=weights, convention="paper")
        fresh = engine.run(QUERY, recipe.replace(**{"fusion.k": 5.0, "fusion.weights": weights}))
        assert refused.keys == fresh.keys
        assert [r.score for r in refused.results] == pytest.approx([r.score for r in fresh.results])
        assert refused.trace.outcome.fusion.k == 5


def test_refuse_with_another_convention_changes_the_ledger(engine: SearchEngine) -> None:
    run = engine.run(QUERY, HYBRID)
    llama = run.refuse(convention="llamaindex")
    item = llama.trace.outcome.fusion.items[0]
    assert item.contributions[0].effective_rank == item.contributions[0].rank - 1


def test_run_round_trips_through_json(engine: SearchEngine) -> None:
    run = engine.run(QUERY, GRAPH_EXPAND)
    data = json.loads(json.dumps(run.to_dict()))
    again = SearchRun.from_dict(data)
    assert again.keys == run.keys
    assert again.trace.to_dict() == run.to_dict()
    assert again.explain(0) == run.explain(0)


def test_to_polars_is_the_long_ledger(engine: SearchEngine) -> None:
    run = engine.run(QUERY, HYBRID)
    table = run.to_polars()
    assert {"key", "source", "source_rank", "term", "fused_score", "final_rank"} <= set(table.columns)
    sums = table.group_by("key").agg(pl.col("term").sum().alias("t"), pl.col("fused_score").first().alias("s"))
    for row in sums.iter_rows(named=True):
        assert row["t"] == pytest.approx(row["s"])


def test_graph_walk_is_fused_in_a_second_time(engine: SearchEngine) -> None:
    run = engine.run(QUERY, BFS_EXPAND)
    walk = run.trace.outcome.walk
    assert walk is not None and walk.seeds and walk.additions
    hops = [a.hop for a in walk.additions]
    assert hops == sorted(hops)
    fused_sources = {s for item in run.trace.outcome.fusion.items for s in item.sources}
    assert "walk" in fused_sources
    first_keys = set(run.trace.outcome.first_fusion.keys)
    added = [a.entity for a in walk.additions if a.entity not in first_keys]
    assert added and all(a.path for a in walk.additions)
    walked = [i for i, r in enumerate(run.results) if "walk" in next(
        it for it in run.trace.outcome.fusion.items if it.key == r.id).sources]
    assert walked and "graph walk" in run.explain(walked[0])


@pytest.mark.parametrize("recipe", [BFS_EXPAND, GRAPH_EXPAND], ids=["bfs", "ppr"])
def test_walk_respects_relation_types_and_direction(engine: SearchEngine, recipe: Recipe) -> None:
    passage_steps = {"MENTIONED_IN", "MENTIONS"}
    only = recipe.replace(**{"walk.relation_types": ("WORKED_WITH",)})
    run = engine.run(QUERY, only)
    assert run.trace.outcome.walk is not None
    for addition in run.trace.outcome.walk.additions:
        assert {s.relation for s in addition.path} <= {"WORKED_WITH", *passage_steps}
    filtered = engine.run(QUERY, recipe, filters=SearchFilters(relation_types=frozenset({"WROTE"})))
    for addition in filtered.trace.outcome.walk.additions:  # type: ignore[union-attr]
        assert {s.relation for s in addition.path} <= {"WROTE", *passage_steps}


def test_pagerank_walk_proposes_passages_from_the_entities_the_query_names(
    engine: SearchEngine, workshop_graph: Graph
) -> None:
    run = engine.run(QUERY, GRAPH_EXPAND)
    walk = run.trace.outcome.walk
    assert walk is not None and walk.strategy == "ppr"
    store = workshop_graph.graph_store
    assert walk.seeds and all(store.names_entity(QUERY, s) for s in walk.seeds)
    assert "ent-charles-babbage" in walk.seeds
    assert walk.additions and all(run.trace.items[a.entity].kind == "chunk" for a in walk.additions)
    scores = [a.score for a in walk.additions]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    assert walk.prior and all(run.trace.items[p].kind == "chunk" for p in walk.prior)
    for a in walk.additions:  # a path runs from a restart point to the passage, step by step
        origins = walk.seeds if a.seed in walk.seeds else walk.prior
        assert a.seed_rank == origins.index(a.seed) + 1
        assert a.prior_rank == (walk.prior.index(a.entity) + 1 if a.entity in walk.prior else 0)
        if a.seed == a.entity:
            assert a.path == () and a.hop == 0
        else:
            assert a.path[0].source == a.seed and a.path[-1].target == a.entity and a.hop == len(a.path)
            assert a.hop <= 2 * GRAPH_EXPAND.walk.depth + 1  # no path is searched farther than the depth allows
            assert all(x.target == y.source for x, y in itertools.pairwise(a.path))
    assert any(a.seed in walk.seeds for a in walk.additions), "some passage is explained by a seed path"
    top = next(i for i, r in enumerate(run.results) if r.kind == "chunk")
    assert "graph walk (PageRank)" in run.explain(top)
    # the walk's weight doubles its terms in the ledger
    item = next(it for it in run.trace.outcome.fusion.items if it.key == run.results[top].id)
    walk_term = next(c for c in item.contributions if c.source == "walk")
    assert walk_term.weight == 2.0



def test_push_walk_ranks_and_explains_as_the_power_iteration(engine: SearchEngine) -> None:
    """The default walk (forward push) against the power iteration over the whole graph, on the workshop index:
    the same passages in the same order, with the same paths; each score at most the power iteration's, short
    of it by no more than the push's residual."""
    power = GRAPH_EXPAND.replace(name="POWER", **{"walk.pagerank": "power"})
    assert GRAPH_EXPAND.walk.pagerank == "push"
    for query in (QUERY, "What did Ada Lovelace write about the Analytical Engine?"):
        pushed, exact = engine.run(query, GRAPH_EXPAND).trace.outcome.walk, engine.run(query, power).trace.outcome.walk
        assert pushed is not None and exact is not None and pushed.additions
        assert [(a.entity, a.seed, a.path) for a in pushed.additions] == [(a.entity, a.seed, a.path) for a in exact.additions]
        for a, b in zip(pushed.additions, exact.additions, strict=True):
            assert 0 <= b.score - a.score <= 0.01 * b.score  # 1e-6 per step of the passage: well under 1% here


def test_pagerank_walk_falls_back_to_the_top_entity_hits(engine: SearchEngine) -> None:
    run = engine.run("who designed a calculating engine", GRAPH_EXPAND)
    walk = run.trace.outcome.walk
    entities = [h.key for h in run.trace.method("entity").hits]
    assert walk is not None and walk.seeds == tuple(entities[:3])


@pytest.mark.parametrize("docs", [{"charles-babbage", "ada-lovelace"}, {"ada-lovelace"}, {"timeline"}])
def test_pagerank_walk_stays_inside_document_filters(
    engine: SearchEngine, workshop_graph: Graph, docs: set[str]
) -> None:
    run = engine.run(QUERY, GRAPH_EXPAND, filters=SearchFilters(document_ids=frozenset(docs)))
    walk = run.trace.outcome.walk
    assert walk is not None and walk.additions
    assert {_doc(a.entity) for a in walk.additions} <= docs
    assert {_doc(r.id) for r in run.results if r.kind == "chunk"} <= docs
    assert {_doc(p) for p in walk.prior} <= docs
    kg = workshop_graph.graph_store.graph
    for addition in walk.additions:
        for step in addition.path:
            assert step.source in run.trace.items and step.target in run.trace.items  # shown as scoped
            if step.relation in ("MENTIONED_IN", "MENTIONS"):
                chunk = step.target if step.relation == "MENTIONED_IN" else step.source
                assert _doc(chunk) in docs
                continue
            backing = [
                e for e in kg.edges
                if e.type == step.relation and {e.source, e.target} == {step.source, step.target}
            ]
            assert any(kg.chunk_documents.get(c) in docs for e in backing for c in e.chunk_ids), step


def test_pagerank_walk_passages_have_graph_distances(engine: SearchEngine) -> None:
    recipe = GRAPH_EXPAND.replace(**{"rerank.kind": "graph_distance"})
    run = engine.run(QUERY, recipe)
    walk = run.trace.outcome.walk
    assert walk is not None and run.trace.outcome.rerank is not None
    moves = {m.key: m for m in run.trace.outcome.rerank.moves}
    walked = [a.entity for a in walk.additions if a.entity in moves]
    assert walked and any(moves[k].score > 1.0 / 100 for k in walked)


def test_pagerank_walk_refuse_and_round_trip(engine: SearchEngine) -> None:
    run = engine.run(QUERY, GRAPH_EXPAND)
    for k, weights in ((10.0, {"walk": 1.0}), (60.0, {"entity": 3.0})):
        refused = run.refuse(k=k, weights=weights)
        fresh = engine.run(QUERY, GRAPH_EXPAND.replace(**{"fusion.k": k, "fusion.weights": weights}))
        assert refused.keys == fresh.keys
    again = SearchRun.from_dict(json.loads(json.dumps(run.to_dict())))
    assert again.trace.context.walk == run.trace.context.walk and again.keys == run.keys


def test_community_reports_overlap_the_entities_found(engine: SearchEngine) -> None:
    run = engine.run(QUERY, GRAPH_EXPAND)
    added = run.trace.outcome.communities
    assert added
    overlaps = [a.overlap for a in added]
    assert overlaps == sorted(overlaps, reverse=True)
    assert any(r.kind == "community" for r in run.results)


def test_thematic_searches_reports_directly(engine: SearchEngine) -> None:
    results = engine.search("main themes of the Analytical Engine design", THEMATIC)
    assert 0 < len(results) <= 5 and {r.kind for r in results} == {"community"}


def test_cut_is_recorded(engine: SearchEngine) -> None:
    run = engine.run(QUERY, HYBRID.replace(limit=3))
    assert len(run.results) == 3
    cut = run.trace.outcome.cut
    assert cut.limit == 3 and cut.candidates > 3 and cut.dropped


class _Raises:
    name = "boom"
    collection = "chunks"

    def search(self, *args: object, **kwargs: object) -> MethodResult:
        raise RuntimeError("index exploded")


class _Hangs:
    name = "slow"
    collection = "chunks"

    def __init__(self) -> None:
        self.release = threading.Event()

    def search(self, *args: object, **kwargs: object) -> MethodResult:
        self.release.wait()  # until teardown releases it
        return MethodResult((Hit("x", 1.0, 1),), {})


@pytest.fixture
def extra_methods(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Hangs]:
    hangs = _Hangs()
    monkeypatch.setitem(methods_module.REGISTRY, "boom", _Raises())
    monkeypatch.setitem(methods_module.REGISTRY, "slow", hangs)
    yield hangs
    hangs.release.set()


@pytest.mark.timeout(300)  # "slow" never returns until teardown: a search that waited for it would hang here
def test_a_failing_and_a_hanging_method_do_not_fail_the_search(
    workshop_graph: Graph, extra_methods: _Hangs, caplog: pytest.LogCaptureFixture
) -> None:
    engine = workshop_graph.engine(settings=RetrievalSettings(method_timeout=0.5))
    recipe = Recipe("mixed", ("chunk", "boom", "slow"))
    run = engine.run(QUERY, recipe)
    assert not extra_methods.release.is_set()  # the search returned while "slow" was still hanging
    status = {m.name: m.status for m in run.trace.methods}
    assert status == {"chunk": "ok", "boom": "failed", "slow": "timeout"}
    assert "index exploded" in (run.trace.method("boom").error or "")
    assert run.results and all(r.kind == "chunk" for r in run.results)
    assert any("boom" in r.message for r in caplog.records)


def test_all_methods_failing_raises_with_each_cause(workshop_graph: Graph, extra_methods: _Hangs) -> None:
    engine = workshop_graph.engine(settings=RetrievalSettings(method_timeout=0.3))
    with pytest.raises(AllRetrievalMethodsFailedError) as info:
        engine.run(QUERY, Recipe("bad", ("boom", "slow")))
    assert set(info.value.causes) == {"boom", "slow"}
    assert isinstance(info.value.causes["slow"], TimeoutError)


class _LoadsSlowly:
    """A method with a one-time load slower than the method deadline, then an instant search."""

    name = "loads"
    collection = "chunks"

    def __init__(self, chunk_id: str) -> None:
        self.chunk_id = chunk_id
        self.prepared: list[str] = []

    def prepare(self, query: str) -> None:
        if not self.prepared:
            time.sleep(1.0)  # a model loading: longer than the 0.3 s method deadline below
        self.prepared.append(query)

    def search(self, *args: object, **kwargs: object) -> MethodResult:
        return MethodResult((Hit(self.chunk_id, 1.0, 1),), {})


def test_a_methods_one_time_load_is_outside_its_deadline(workshop_graph: Graph, monkeypatch: pytest.MonkeyPatch) -> None:
    loads = _LoadsSlowly(workshop_graph.chunk_records()[0][0])
    monkeypatch.setitem(methods_module.REGISTRY, "loads", loads)
    engine = workshop_graph.engine(settings=RetrievalSettings(method_timeout=0.3))
    first = engine.run(QUERY, Recipe("loading", ("loads", "chunk")))
    second = engine.run("Who wrote Note G?", Recipe("loading", ("loads", "chunk")))
    assert {m.name: m.status for m in first.trace.methods} == {"loads": "ok", "chunk": "ok"}
    assert loads.chunk_id in first.keys and second.trace.method("loads").status == "ok"
    assert loads.prepared == [QUERY, "Who wrote Note G?"]  # each run prepares before its search


def test_unknown_method_is_a_configuration_error(engine: SearchEngine) -> None:
    with pytest.raises(UnknownRecipeMethodError, match="chunks"):
        engine.search(QUERY, Recipe("typo", ("chunks",)))


def test_methods_run_concurrently(workshop_graph: Graph, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each method waits at a barrier until all three are inside search() at once: run one
    # after another, the first would wait alone and the barrier would break (no wall-clock
    # figure is asserted; the timeout only keeps a serial engine from hanging the test).
    barrier = threading.Barrier(3, timeout=60)
    met: list[str] = []

    class Meeting:
        collection = "chunks"

        def __init__(self, name: str) -> None:
            self.name = name

        def search(self, *args: object, **kwargs: object) -> MethodResult:
            barrier.wait()
            met.append(self.name)
            return MethodResult((Hit(chunk_id, 1.0, 1),), {})

    chunk_id = workshop_graph.chunk_records()[0][0]
    for name in ("s1", "s2", "s3"):
        monkeypatch.setitem(methods_module.REGISTRY, name, Meeting(name))
    engine = workshop_graph.engine()
    run = engine.run(QUERY, Recipe("par", ("s1", "s2", "s3")))
    assert sorted(met) == ["s1", "s2", "s3"]  # all three passed the barrier together
    assert not barrier.broken
    assert run.keys == (chunk_id,)
    assert [m.name for m in run.trace.methods] == ["s1", "s2", "s3"]  # the trace keeps the recipe's order


def test_document_filter_applies_to_every_method(engine: SearchEngine, workshop_graph: Graph) -> None:
    docs = frozenset({"ada-lovelace", "note-g"})
    filters = SearchFilters(document_ids=docs)
    run = engine.run(QUERY, HYBRID.replace(methods=("entity", "chunk", "community")), filters=filters)
    store = workshop_graph.graph_store
    for method in run.trace.methods:
        for leg in method.legs.values():
            for hit in leg:
                if method.name == "chunk":
                    assert _doc(hit.key) in docs
                elif method.name == "entity":
                    entity = store.entity(hit.key)
                    assert entity is not None and set(entity.document_ids) & docs
                else:
                    report = store.report(hit.key)
                    assert report is not None and {_doc(c) for c in report.chunk_ids} & docs
    assert run.trace.method("chunk").hits


def test_filters_restrict_before_the_limit(engine: SearchEngine) -> None:
    # a filter pushed into the query still fills the limit; filtering after it would not
    filters = SearchFilters(document_ids=frozenset({"timeline"}))
    run = engine.run("Babbage", CHUNK.replace(limit=5, candidates=5), filters=filters)
    assert len(run.results) == 5 and {_doc(r.id) for r in run.results} == {"timeline"}


def test_label_filter_applies_to_entity_search_only(engine: SearchEngine, workshop_graph: Graph) -> None:
    filters = SearchFilters(labels=frozenset({"Person"}))
    run = engine.run(QUERY, HYBRID, filters=filters)
    store = workshop_graph.graph_store
    entity_hits = [h.key for leg in run.trace.method("entity").legs.values() for h in leg]
    assert entity_hits and all(store.entity(k).label == "Person" for k in entity_hits)  # type: ignore[union-attr]
    assert run.trace.method("chunk").hits


def test_property_filter(tmp_path: Path, embedder: object, small_docs: list) -> None:  # type: ignore[type-arg]
    with Graph.open(tmp_path / "ix", embedder=embedder) as g:  # type: ignore[arg-type]
        g.ingest(small_docs)
        engine = g.engine()
        run = engine.run("Lovelace loom engine", HYBRID, filters=SearchFilters(properties={"era": "victorian"}))
        chunk_docs = {_doc(r.id) for r in run.results if r.kind == "chunk"}
        assert chunk_docs == {"lovelace"}
        for r in run.results:
            if r.kind == "entity":
                assert g.graph_store.entity(r.id) is not None
                assert "lovelace" in g.graph_store.entity(r.id).document_ids  # type: ignore[union-attr]


def test_native_and_chroma_paths_rank_the_same(workshop_graph: Graph) -> None:
    served = workshop_graph.engine()
    native = workshop_graph.engine(native=True)
    for recipe in (ENTITY, CHUNK, HYBRID, THEMATIC, GRAPH_EXPAND):
        a, b = served.run(QUERY, recipe), native.run(QUERY, recipe)
        assert a.keys == b.keys, recipe.name
        for m1, m2 in zip(a.trace.methods, b.trace.methods, strict=True):
            served_keys, exact_keys = [h.key for h in m1.legs["dense"]], [h.key for h in m2.legs["dense"]]
            # Chroma's HNSW is approximate and the native search exact: the heads agree, and the
            # whole candidate lists nearly (benchmarks/hosted_agreement.py: .995-.999 on MuSiQue)
            assert served_keys[:10] == exact_keys[:10], recipe.name
            assert len(set(served_keys) & set(exact_keys)) >= 0.95 * len(exact_keys), recipe.name


def test_find_entity_relationships_and_traverse(engine: SearchEngine) -> None:
    babbage = engine.find_entity("Charles Babbage")
    assert babbage is not None and babbage.title == "Charles Babbage" and babbage.kind == "entity"
    types = engine.list_relationship_types(babbage)
    assert types and types == sorted(set(types))
    assert engine.list_relationship_types(babbage, relation_type_filter=types[0]) == [types[0]]
    neighbours = engine.traverse(babbage, depth=1, limit=5)
    assert 0 < len(neighbours) <= 5 and babbage.id not in {n.id for n in neighbours}
    with_reports = engine.traverse(babbage, limit=3, community_expand=True, community_top_k=2)
    assert any(r.kind == "community" for r in with_reports)


def test_traverse_returns_each_neighbours_hop_and_path_from_the_seed(engine: SearchEngine) -> None:
    babbage = engine.find_entity("Charles Babbage")
    assert babbage is not None
    neighbours = engine.traverse(babbage, depth=2, limit=200)  # past the seed's direct neighbours
    assert {n.hop for n in neighbours} == {1, 2}
    for n in neighbours:
        assert n.hop is not None and len(n.path) == n.hop and n.score == 1.0 / (1 + n.hop)
        # the path is a chain of relations from the seed to this neighbour
        assert n.path[0].source == babbage.id and n.path[-1].target == n.id
        assert all(a.target == b.source for a, b in zip(n.path, n.path[1:], strict=False))
    fused = engine.traverse(babbage, depth=2, limit=200, community_expand=True)
    assert {(r.id, r.path) for r in fused if r.kind == "entity"} == {(n.id, n.path) for n in neighbours}
    assert all(r.hop is None and r.path == () for r in fused if r.kind == "community")


def test_entity_outside_the_filter_resolves_to_none(engine: SearchEngine) -> None:
    # the inputs: "Charles Babbage" with labels={Place} resolved to "London"
    assert engine.find_entity("Charles Babbage") is not None
    assert engine.find_entity("Charles Babbage", filters=SearchFilters(labels=frozenset({"Place"}))) is None


def test_traverse_cannot_widen_the_scope(engine: SearchEngine) -> None:
    babbage = engine.find_entity("Charles Babbage")
    assert babbage is not None
    with pytest.raises(ScopeDeniedError, match="cannot widen"):
        engine.traverse(babbage, relation_type="MARRIED", filters=SearchFilters(relation_types=frozenset({"WROTE"})))


def test_constructor_checks_entity_labels(workshop_graph: Graph) -> None:
    with pytest.raises(ValueError, match="must name exactly the labels"):
        SearchEngine(graph_store=workshop_graph.graph_store, embedder=workshop_graph.embedder, entity_labels=["Person"])
    ok = SearchEngine(
        graph_store=workshop_graph.graph_store, embedder=workshop_graph.embedder,
        entity_labels=list(workshop_graph.graph_store.graph.schema.entity_labels),
    )
    assert ok.graph_schema.entity_labels


def test_tracer_spans_nest(workshop_graph: Graph) -> None:
    tracer = RecordingTracer()
    engine = SearchEngine(graph_store=workshop_graph.graph_store, embedder=workshop_graph.embedder, tracer=tracer)
    engine.run(QUERY, HYBRID)
    names = [s.name for s in tracer.spans]
    assert names[-1] == "search"
    assert {"embed", "method.entity", "method.chunk", "context", "fuse", "cut"} <= set(names)
    (search,) = tracer.named("search")
    for name in ("embed", "method.entity", "method.chunk", "context", "fuse", "cut"):
        (span,) = tracer.named(name)
        assert (span.parent_id, span.depth) == (search.span_id, 1), name  # method spans too, from the pool threads


def test_rrf_k_comes_from_the_environment(workshop_graph: Graph, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RETRIEVAL_RRF_K", "7")
    run = workshop_graph.engine().run(QUERY, ENTITY)
    assert run.trace.outcome.fusion.k == 7
    assert np.isclose(run.trace.outcome.fusion.items[0].contributions[0].term, 1 / 8)
