"""Relationships their builder described are searchable relation records (issues 25 and 26).

On the bundled GraphRAG 3.x import (the session's ``carol_v3`` fixture): every relationship
GraphRAG described has a relation record (source, target, description), LightRAG's high-level
keyword search and HippoRAG 2's facts read them, and an entity found through one stands for
that relationship's text units.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from carol_support import table

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.importing import ImportReport
from agrag_lab.importing.writer import builder_aliases
from agrag_lab.index.records import described_by, graph_records, relation_facets, relation_text
from agrag_lab.kg.facets import facet_owner
from agrag_lab.kg.model import Edge
from agrag_lab.recipes import get as recipe
from agrag_lab.retrieval.methods.keyword_graph import relation_key

#: Its answer is only in a relationship's description ("SCROOGE -> FAN: Fan is Scrooge's beloved younger
#: sister who comes to bring him home from school for Christmas"), in no entity's.
QUERY = "Which sister comes to bring him home from school for Christmas?"


@pytest.fixture(scope="module")
def carol(carol_v3: tuple[Path, ImportReport], embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    with Graph.open(carol_v3[0], embedder=embedder, read_only=True) as graph:
        yield graph


def _row(source: str, target: str) -> dict[str, object]:
    rows = table("v3", "relationships").filter((pl.col("source") == source) & (pl.col("target") == target))
    return rows.row(0, named=True)


def _edge(graph: Graph, source: str, target: str) -> Edge:
    store = graph.graph_store
    ends = {store.entity_by_name(source).id, store.entity_by_name(target).id}  # type: ignore[union-attr]
    return next(e for e in store.graph.edges if {e.source, e.target} == ends)


def test_every_relationship_graphrag_described_has_a_relation_record_of_its_text(carol: Graph) -> None:
    store = carol.graph_store
    described = [e for e in store.graph.edges if e.description.strip()]
    assert described and all(described_by(e.attributes) == "graphrag" for e in described)
    facets = relation_facets(store)
    assert {relation_key(e) for e in facets.values()} == {relation_key(e) for e in described}
    fan = _edge(carol, "SCROOGE", "FAN")
    records = graph_records(store)["entities"]
    texts = {rid: text for rid, text in zip(records.ids, records.texts, strict=True)}
    own = sorted(rid for rid, edge in facets.items() if edge.key == fan.key)
    assert [facet_owner(rid) for rid in own] == sorted([fan.source, fan.target])  # one record per end
    assert {texts[rid] for rid in own} == {relation_text("SCROOGE", "FAN", "", str(_row("SCROOGE", "FAN")["description"]))}


def test_lightrag_global_finds_the_relationship_whose_description_matches(carol: Graph) -> None:
    run = carol.engine().run(QUERY, recipe("LIGHTRAG_GLOBAL"))
    method = run.trace.method("keyword_relations")
    assert method.status == "ok"
    relations = [h.key for h in method.legs["relations"]]
    row = _row("SCROOGE", "FAN")
    aliases = builder_aliases(carol)
    # the ledger names the relation by our key, which GraphRAG's relationship id resolves to
    assert relations[0] == relation_key(_edge(carol, "SCROOGE", "FAN")) == aliases.resolve_as(row["id"], "relationship")
    units = list(row["text_unit_ids"])  # type: ignore[call-overload]
    assert len(units) == 1
    told = aliases.resolve_as(units[0], "source")
    picked = [h.key for leg in ("entity_passages", "relation_passages") for h in method.legs[leg]]
    assert told in picked
    assert run.results[0].id == told  # the text unit that tells it comes first


def test_hipporag2_facts_are_relation_records_and_seed_the_walk(carol: Graph) -> None:
    run = carol.engine().run(QUERY, recipe("HIPPORAG2"))
    legs = run.trace.method("fact_ppr").legs
    every = {relation_key(e) for e in carol.graph_store.graph.edges}
    facts = [h.key for h in legs["facts"]]
    assert len(facts) == 5 and set(facts) <= every
    assert facts[0] == relation_key(_edge(carol, "SCROOGE", "FAN"))
    assert carol.graph_store.entity_by_name("FAN").id in {h.key for h in legs["seed_entities"]}  # type: ignore[union-attr]
    # the walk moved the passages: not the dense order HIPPORAG2 falls back to without facts
    assert [h.key for h in legs["passages"]] != [h.key for h in legs["dense_passages"]]


def test_an_entity_found_through_a_relation_record_stands_for_that_relations_text_units(carol: Graph) -> None:
    run = carol.engine().run("Who came to the school to take young Scrooge home for Christmas?", recipe("ENTITY"))
    hits = {h.key: h for h in run.trace.method("entity").hits}
    fan = _edge(carol, "SCROOGE", "FAN")
    scrooge = carol.graph_store.entity_by_name("SCROOGE")
    assert scrooge is not None and scrooge.id in hits
    via = hits[scrooge.id].via
    assert via and facet_owner(via) == scrooge.id
    edge = relation_facets(carol.graph_store)[via]
    result = next(r for r in run.results if r.id == scrooge.id)
    # the hub holds many text units; the hit stands for those of the relation that matched
    assert set(result.passages()) == set(edge.chunk_ids) & set(scrooge.chunk_ids)
    assert len(scrooge.chunk_ids) > 10 > len(result.passages())
    assert any(relation_facets(carol.graph_store)[h.via].key == fan.key for h in hits.values() if h.via)
    at = next(i for i, r in enumerate(run.results) if r.id == scrooge.id)
    assert f"found through its relation record {via}" in run.explain(at)
    ledger = run.to_polars().filter(key=scrooge.id, source="entity")
    assert ledger["via"].to_list() == [via]
    assert set(run.to_polars().filter(source="entity", via="")["key"]) == {h.key for h in hits.values() if not h.via}
