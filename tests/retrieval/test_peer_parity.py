"""Peer recipes against the peers' own code: fixtures recorded by ``make peers`` (CI only reads them).

``tests/fixtures/peers/parity/graphrag.json`` holds what GraphRAG 3.3.0's own context builders
selected over ``tests/fixtures/peers/graphrag/`` (GraphRAG's own output over the peer corpus),
with our model's vectors. Two levels of parity:

- the ranking rules (:func:`rank_passages`, :func:`rank_reports`, :func:`order_reports`), given
  GraphRAG's own mapped entities and GraphRAG's own tables: exactly GraphRAG's order;
- the recipes end to end on the imported index, through the engine and its ledger.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from agrag_lab import Graph, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.retrieval.methods.entity_context import rank_passages, rank_reports
from agrag_lab.retrieval.methods.level_reports import GLOBAL_COMMUNITY_LEVEL, order_reports

PEERS = Path(__file__).resolve().parent.parent / "fixtures" / "peers"
GRAPHRAG = PEERS / "graphrag"
PARITY = json.loads((PEERS / "parity" / "graphrag.json").read_text(encoding="utf-8"))
QUESTIONS = sorted(PARITY["questions"])


def _rows(table: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pl.read_parquet(GRAPHRAG / f"{table}.parquet").to_dicts()
    return rows


@pytest.fixture(scope="module")
def tables() -> dict[str, list[dict[str, Any]]]:
    return {t: _rows(t) for t in ("entities", "relationships", "text_units", "communities", "community_reports")}


def _short(rows: list[dict[str, Any]]) -> dict[str, str]:
    """GraphRAG id -> human_readable_id (as the context tables print it)."""
    return {r["id"]: str(r["human_readable_id"]) for r in rows}


@pytest.mark.parametrize("qid", QUESTIONS)
def test_text_unit_order_is_graphrags_given_its_entities(qid: str, tables: dict[str, list[dict[str, Any]]]) -> None:
    """GraphRAG local's sources, in its order, from its own selected entities (context 'entities' table)."""
    peer = PARITY["questions"][qid]["local"]
    by_short = {str(e["human_readable_id"]): e for e in tables["entities"]}
    selected = [by_short[row["id"]]["title"] for row in peer["entities"]]
    units_of = {e["title"]: list(e["text_unit_ids"]) for e in tables["entities"]}
    relations_of: dict[str, list[list[str]]] = {}
    for r in tables["relationships"]:
        for end in (r["source"], r["target"]):
            relations_of.setdefault(end, []).append(list(r["text_unit_ids"]))
    short = _short(tables["text_units"])
    ours = [short[unit] for unit, _, _ in rank_passages(selected, units_of, relations_of)]
    assert ours == [row["id"] for row in peer["sources"]]


@pytest.mark.parametrize("qid", QUESTIONS)
def test_report_order_is_graphrags_given_its_entities(qid: str, tables: dict[str, list[dict[str, Any]]]) -> None:
    peer = PARITY["questions"][qid]["local"]
    by_short = {str(e["human_readable_id"]): e["id"] for e in tables["entities"]}
    selected = [by_short[row["id"]] for row in peer["entities"]]
    communities_of: dict[str, list[str]] = {}
    for c in tables["communities"]:
        if c["level"] <= PARITY["settings"]["community_level"]:
            for eid in c["entity_ids"]:
                communities_of.setdefault(eid, []).append(str(c["community"]))
    rating = {str(r["community"]): r["rank"] for r in tables["community_reports"]}
    ours = [c for c, _, _ in rank_reports(selected, communities_of, rating)]
    assert ours == [row["id"] for row in peer.get("reports", [])]


def test_global_reports_are_graphrags_set(tables: dict[str, list[dict[str, Any]]]) -> None:
    """Global search's map input: the same reports (GraphRAG shuffles them with a seed; we order by rating)."""
    reports = [(str(r["community"]), r["level"], r["rank"]) for r in tables["community_reports"]]
    ours = order_reports(reports, GLOBAL_COMMUNITY_LEVEL)
    for qid in QUESTIONS:
        peer = [row["id"] for row in PARITY["questions"][qid]["global"]["reports"]]
        assert sorted(ours) == sorted(peer)
    rank = {c: r for c, _, r in reports}
    assert [rank[c] for c in ours] == sorted(rank.values(), reverse=True)


# -- end to end: the recipes on the imported GraphRAG output ---------------------------------------


@pytest.fixture(scope="module")
def peer_graph(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    path = tmp_path_factory.mktemp("peer-graphrag") / "index"
    with Graph.open(path, embedder=embedder) as graph:
        graph.import_graphrag(GRAPHRAG)
    with Graph.open(path, embedder=embedder, read_only=True) as graph:
        yield graph


def _unit_short_ids(graph: Graph, keys: list[str]) -> list[str]:
    """Our chunk ids as GraphRAG's text unit short ids: matched by the text, byte-exact, else
    (a unit GraphRAG cut inside a multi-byte character, placed approximately) by containment."""
    units = [(r["text"], str(r["human_readable_id"])) for r in _rows("text_units")]
    by_text = dict(units)
    out = []
    for key in keys:
        info = graph.chunk_info(key)
        assert info is not None, key
        if info.text in by_text:
            out.append(by_text[info.text])
            continue
        near = [s for t, s in units if info.text in t or t.strip("\ufffd") in info.text]
        assert len(near) == 1, (key, near)
        out.append(near[0])
    return out


def test_graphrag_basic_selects_graphrags_text_units(peer_graph: Graph) -> None:
    """The same set as GraphRAG's basic search, among the units the import could place."""
    placed = set(_unit_short_ids(peer_graph, _all_chunks(peer_graph)))
    engine = peer_graph.engine()
    for qid in QUESTIONS:
        q = PARITY["questions"][qid]
        run = engine.run(q["query"], recipes.get("GRAPHRAG_BASIC"))
        (method,) = run.trace.methods
        ours = _unit_short_ids(peer_graph, [h.key for h in method.hits])
        assert set(ours) == {row["id"] for row in q["basic"]["sources"]} & placed


def test_graphrag_local_ledger_follows_its_own_entities(peer_graph: Graph) -> None:
    """The ledger's passages are rank_passages of the ledger's own mapped entities (nothing recomputed elsewhere)."""
    engine = peer_graph.engine()
    store = peer_graph.graph_store
    q = PARITY["questions"]["q3"]
    run = engine.run(q["query"], recipes.get("GRAPHRAG_LOCAL"))
    passages = next(m for m in run.trace.methods if m.name == "entity_passages")
    entities = [h.key for h in passages.legs["entities"]]
    assert entities, "the query maps to entities"
    units_of = {e: list(store.entity(e).chunk_ids) for e in entities}  # type: ignore[union-attr]
    relations_of = {e: [list(edge.chunk_ids) for edge in store.neighbours(e)] for e in entities}
    assert [h.key for h in passages.hits] == [p for p, _, _ in rank_passages(entities, units_of, relations_of)]
    assert passages.hits[0].key in run.keys  # the fused results carry the method's first passage


def _all_chunks(graph: Graph) -> list[str]:
    ids, _, _, _ = graph.chunk_records()
    return ids


def test_graphrag_local_end_to_end_maps_graphrags_entities_and_orders_its_text_units(peer_graph: Graph) -> None:
    """Imported entities embed GraphRAG's own ``title:description``: the recipe maps the query to the
    entities GraphRAG's local search used, and lists their text units in its order (6/6 questions)."""
    engine = peer_graph.engine()
    store = peer_graph.graph_store
    title_of = {str(e["human_readable_id"]): e["title"].upper() for e in _rows("entities")}
    for qid in QUESTIONS:
        q = PARITY["questions"][qid]
        run = engine.run(q["query"], recipes.get("GRAPHRAG_LOCAL"))
        passages = next(m for m in run.trace.methods if m.name == "entity_passages")
        ours = [store.entity(h.key).name.upper() for h in passages.legs["entities"]]  # type: ignore[union-attr]
        assert ours == [title_of[row["id"]] for row in q["local"]["entities"]], qid  # the list, in its order
        assert _unit_short_ids(peer_graph, [h.key for h in passages.hits]) == [r["id"] for r in q["local"]["sources"]]


class _CountingVectors:
    """The index's own vector store, each query of a collection counted."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.queries: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def query(self, collection: str, *args: Any, **kwargs: Any) -> list[tuple[str, float]]:
        self.queries[collection] = self.queries.get(collection, 0) + 1
        found: list[tuple[str, float]] = self.store.query(collection, *args, **kwargs)
        return found


def test_graphrag_local_maps_the_query_to_entities_once_for_both_methods(peer_graph: Graph) -> None:
    """GRAPHRAG_LOCAL's two methods read one mapping of the query to entities per request (GraphRAG maps it once):
    the entity searches of both together are those of one alone, and both ledgers list the same entities."""
    from agrag_lab.retrieval.filters import SearchFilters
    from agrag_lab.retrieval.methods.entity_context import EntityPassages, EntityReports
    from agrag_lab.retrieval.methods.protocol import MethodRequest, QueryVector

    engine = peer_graph.engine()
    store, vectors = engine.stores()
    query = PARITY["questions"]["q3"]["query"]
    vector = QueryVector(engine.embedder.embed_query(query))

    def request(counted: _CountingVectors) -> MethodRequest:
        return MethodRequest(query, vector, 10, SearchFilters(), store, counted, 60.0, engine.embedder)

    alone, both = _CountingVectors(vectors), _CountingVectors(vectors)
    EntityPassages().search(request(alone))
    shared = request(both)
    passages, reports = EntityPassages().search(shared), EntityReports().search(shared)
    assert alone.queries.get("entities", 0) >= 1
    assert both.queries == alone.queries
    assert passages.legs["entities"] == reports.legs["entities"] and passages.legs["entities"]
