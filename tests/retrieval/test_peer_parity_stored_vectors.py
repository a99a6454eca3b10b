"""GraphRAG's recipes on an output searched with the vectors GraphRAG's own indexer stored, against GraphRAG's
own query code searching the same LanceDB tables (fixtures recorded by ``make peers``; CI only reads them).

``tests/fixtures/peers/graphrag_vectors/`` (the peer corpus) and ``graphrag_zh/`` (its Chinese texts, Chinese
entity names) hold graphrag 3.3.0's output with its ``lancedb/`` tables; ``parity/graphrag_vectors.json`` and
``parity/graphrag_zh.json`` what its ``LocalSearchMixedContext``, ``BasicSearchContext`` and
``GlobalCommunityContext`` selected over those tables (``peers/parity/graphrag_parity.py --stored-vectors``),
each question embedded by its engine's own model at the scripted endpoint. Here the output is imported through
that same endpoint (``peers/server.py``, the bundled model), reusing the stored vectors; the endpoint embeds the
query only. The same tests run on an import that re-embeds every text in process with the same model.

``graphrag1_vectors/`` is graphrag 1.2.0's output over the same corpus (the 1.x layout: ``create_final_*.parquet``,
LanceDB tables ``default-entity-description`` and the like), and ``parity/graphrag1_vectors.json`` what 1.2's own
``LocalSearchMixedContext`` selected searching its tables (``peers/parity/graphrag1_parity.py``): GRAPHRAG_LOCAL
is held to it the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from agrag_lab import Graph, recipes
from agrag_lab.embedding import EndpointEmbedder, SentenceTransformerEmbedder
from peers import server

PEERS = Path(__file__).resolve().parent.parent / "fixtures" / "peers"
FIXTURES = ("graphrag_vectors", "graphrag_zh")
#: graphrag 1.2.0's output (local search recorded).
GRAPHRAG1 = "graphrag1_vectors"


def _parity(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PEERS / "parity" / f"{name}.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with server.serve() as url:
        yield url


def _imported(name: str, how: str, endpoint: str, embedder: SentenceTransformerEmbedder,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Graph]]:
    path = tmp_path_factory.mktemp(name) / "index"
    chosen = EndpointEmbedder("all-MiniLM-L6-v2", endpoint) if how == "stored" else embedder
    with Graph.open(path, embedder=chosen) as graph:
        report = graph.import_graphrag(PEERS / name)
    assert (report.reused > 0) == (how == "stored")
    with Graph.open(path, read_only=True) as graph:
        yield name, how, graph


@pytest.fixture(scope="module", params=[(f, how) for f in FIXTURES for how in ("stored", "re-embedded")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def peer(request: pytest.FixtureRequest, endpoint: str, embedder: SentenceTransformerEmbedder,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Graph]]:
    name, how = request.param
    yield from _imported(name, how, endpoint, embedder, tmp_path_factory)


@pytest.fixture(scope="module", params=["stored", "re-embedded"], ids=lambda how: f"{GRAPHRAG1}-{how}")
def peer1(request: pytest.FixtureRequest, endpoint: str, embedder: SentenceTransformerEmbedder,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Graph]]:
    """graphrag 1.2.0's output, imported reusing its stored vectors or re-embedding them in process."""
    yield from _imported(GRAPHRAG1, request.param, endpoint, embedder, tmp_path_factory)


def _rows(name: str, table: str) -> list[dict[str, Any]]:
    """A table of a fixture, by its 3.x name (``create_final_<name>.parquet`` in a 1.x output)."""
    path = PEERS / name / f"{table}.parquet"
    rows: list[dict[str, Any]] = pl.read_parquet(
        path if path.is_file() else path.with_name(f"create_final_{path.name}")).to_dicts()
    return rows


def _unit_short_ids(name: str, graph: Graph, keys: list[str]) -> list[str]:
    """Our chunk ids as GraphRAG's text unit short ids, by the unit each chunk came from (its GraphRAG id); the short
    id is the unit's row, from 0, as GraphRAG's query reads it (3.x's human_readable_id; 1.x's is one more)."""
    short = {r["id"]: str(n) for n, r in enumerate(_rows(name, "text_units"))}
    short.update({v: v for v in list(short.values())})
    out = []
    for key in keys:
        info = graph.graph_store.item_info(key)
        assert info is not None and info.builder_id in short, key
        out.append(short[info.builder_id])
    return out


def _ties_in_order(names: list[str], q: dict[str, Any], fixture: str) -> list[str]:
    """``names`` with each run of entities GraphRAG scored exactly alike (``local_mapped_entities``: identical
    stored vectors) in name order: the one order the two sides may differ in (ties: docs/peers/GRAPHRAG_LOCAL.md)."""
    title = {r["id"]: r["title"] for r in _rows(fixture, "entities")}
    score = {title[gid]: s for gid, s in q["local_mapped_entities"]}
    out: list[str] = []
    for name in names:
        if out and name in score and score.get(out[-1]) == score[name]:
            run = [n for n in out if score.get(n) == score[name]]
            out = out[: len(out) - len(run)] + sorted([*run, name])
        else:
            out.append(name)
    return out


def _assert_local_parity(name: str, graph: Graph) -> set[str]:
    """GRAPHRAG_LOCAL's mapped entities, text units and reports, each in the order of ``parity/<name>.json``; the
    questions whose entity lists differ before exact ties are put in name order."""
    parity = _parity(name)
    tied: set[str] = set()
    title_of = {str(e["human_readable_id"]): e["title"] for e in _rows(name, "entities")}
    engine = graph.engine()
    store = graph.graph_store
    for qid, q in parity["questions"].items():
        run = engine.run(q["query"], recipes.get("GRAPHRAG_LOCAL"))
        passages = next(m for m in run.trace.methods if m.name == "entity_passages")
        ours = [store.entity(h.key).name for h in passages.legs["entities"]]  # type: ignore[union-attr]
        theirs = [title_of[row["id"]] for row in q["local"]["entities"]]
        assert _ties_in_order(ours, q, name) == _ties_in_order(theirs, q, name), qid  # the list, in its order
        if ours != theirs:
            tied.add(qid)
        assert _unit_short_ids(name, graph, [h.key for h in passages.hits]) == [r["id"] for r in q["local"]["sources"]], qid
        reports = next(m for m in run.trace.methods if m.name == "entity_reports")
        assert [h.key.rsplit("-", 1)[1] for h in reports.hits] == [r["id"] for r in q["local"].get("reports", [])], qid
    return tied


def test_graphrag_local_selects_graphrags_entities_text_units_and_reports(peer: tuple[str, str, Graph]) -> None:
    name, _how, graph = peer
    _assert_local_parity(name, graph)


def test_graphrag_local_selects_graphrag_1xs_entities_text_units_and_reports(peer1: tuple[str, str, Graph]) -> None:
    """On graphrag 1.2.0's own output and its own local search over its stored vectors."""
    name, _how, graph = peer1
    parity = _parity(name)
    assert parity["peer"] == "graphrag==1.2.0"
    tied = _assert_local_parity(name, graph)
    # where the lists differ, it is the one exact tie of the corpus (docs/peers/GRAPHRAG_LOCAL.md): 张角 and 巨鹿,
    # one description sentence, scored alike by GraphRAG's own store
    ids = {r["title"]: r["id"] for r in _rows(name, "entities")}
    for qid in tied:
        score = {gid: s for gid, s in parity["questions"][qid]["local_mapped_entities"]}
        assert score[ids["张角"]] == score[ids["巨鹿"]], qid


def test_graphrag_basic_selects_graphrags_text_units_in_its_order(peer: tuple[str, str, Graph]) -> None:
    """The units GraphRAG's basic search takes from its store, in the store's order (``basic_ranked``), and its
    context's set (which lists them in table order), with the builder's vectors and re-embedded alike: an imported
    chunk's vector embeds the unit's text alone, as GraphRAG does, that text as GraphRAG stored it even where its
    token window split a character (docs/peers/GRAPHRAG_BASIC.md)."""
    name, how, graph = peer
    short = {r["id"]: str(n) for n, r in enumerate(_rows(name, "text_units"))}
    engine = graph.engine()
    for qid, q in _parity(name)["questions"].items():
        run = engine.run(q["query"], recipes.get("GRAPHRAG_BASIC"))
        (method,) = run.trace.methods
        ours = _unit_short_ids(name, graph, [h.key for h in method.hits])
        assert ours == [short[uid] for uid, _ in q["basic_ranked"]], (qid, how)
        assert set(ours) == {row["id"] for row in q["basic"]["sources"]}, qid


def test_graphrag_global_reads_graphrags_reports(peer: tuple[str, str, Graph]) -> None:
    name, _, graph = peer
    engine = graph.engine()
    for qid, q in _parity(name)["questions"].items():
        before = len(server.LOG)
        run = engine.run(q["query"], recipes.get("GRAPHRAG_GLOBAL"))
        assert len(server.LOG) == before  # it ranks reports by rating: the query is not embedded
        ours = [r.id.rsplit("-", 1)[1] for r in run.results]
        assert sorted(ours) == sorted(row["id"] for row in q["global"]["reports"]), qid  # GraphRAG shuffles them
