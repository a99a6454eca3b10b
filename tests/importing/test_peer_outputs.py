"""Outputs written by the real tools (graphrag 3.3.0, lightrag-hku 1.5.7; tests/fixtures/peers/) and GraphRAG 0.3.6:
every row imported, fetch byte-exact, the builders' ids resolvable, a Chinese entity found by its name."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import polars as pl
import pytest
from carol_support import CAROL

from agrag_lab import Graph
from agrag_lab.agent import Agent
from agrag_lab.cli import format_results
from agrag_lab.cli import main as cli_main
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.importing import ImportReport, ImportSourceError
from agrag_lab.importing.graphml import read_graphml
from agrag_lab.importing.graphrag import read_graphrag
from agrag_lab.importing.lightrag import CHUNKS_FILE, DOCS_FILE, GRAPH_FILE, read_lightrag
from agrag_lab.names import display_width
from agrag_lab.recipes import BUILTINS

PEERS = Path(__file__).resolve().parents[1] / "fixtures" / "peers"
LIGHTRAG = PEERS / "lightrag"
GRAPHRAG = PEERS / "graphrag"


@pytest.fixture(scope="module")
def lightrag(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[tuple[Graph, ImportReport]]:
    path = tmp_path_factory.mktemp("lightrag") / "index"
    with Graph.open(path, embedder=embedder) as graph:
        report = graph.import_lightrag(LIGHTRAG)
    with Graph.open(path, embedder=embedder, read_only=True) as graph:
        yield graph, report


def _chunks() -> dict[str, dict[str, object]]:
    data: dict[str, dict[str, object]] = json.loads((LIGHTRAG / CHUNKS_FILE).read_text(encoding="utf-8"))
    return data


def test_a_lightrag_working_directory_imports_every_node_edge_and_chunk(lightrag: tuple[Graph, ImportReport]) -> None:
    graph, report = lightrag
    g = nx.read_graphml(LIGHTRAG / GRAPH_FILE)
    chunks = _chunks()
    docs = json.loads((LIGHTRAG / DOCS_FILE).read_text(encoding="utf-8"))
    assert report.format == "lightrag" and report.skipped == ()
    assert (report.entities, report.relations) == (g.number_of_nodes(), g.number_of_edges())
    assert (report.chunks, report.documents) == (len(chunks), len(docs))
    assert sum(report.placement.values()) == len(chunks) and report.placement["unplaced"] == 0
    # one chunk of the Chinese text starts inside a character LightRAG's token window split
    assert report.placement["approximate"] == sum("\ufffd" in str(c["content"]) for c in chunks.values()) == 1
    entity = graph.graph_store.entity_by_name("Ishmael")
    assert entity is not None and entity.chunk_ids and dict(entity.attributes)["described_by"] == "lightrag"
    edge = next(e for e in graph.graph_store.graph.edges if dict(e.attributes).get("keywords"))
    assert dict(edge.attributes)["weight"] > 0


def test_lightrag_chunks_fetch_byte_exact_by_their_own_ids(lightrag: tuple[Graph, ImportReport]) -> None:
    graph, _ = lightrag
    session = graph.evidence()
    for cid, record in _chunks().items():
        item = session.fetch(cid).items[0]
        assert item.ok, (cid, item)
        text = str(record["content"])
        if "\ufffd" in text:  # placed approximately: the document's own characters there
            assert item.text.endswith(text.strip("\ufffd")) and len(item.text) == len(text.strip("\ufffd")) + 1
        else:
            assert item.text == text


def test_a_chinese_entity_is_found_by_its_name_and_explored_by_the_builder_id(lightrag: tuple[Graph, ImportReport]) -> None:
    graph, _ = lightrag
    session = graph.evidence()
    found = session.find_entities("刘备").entities
    assert found and found[0].name == "刘备"
    assert session.explore("entity:刘备").entity.name == "刘备"
    assert graph.keyword_index("entities").scheme == graph.keyword_index("chunks").scheme == "cjk"  # recorded
    hits = session.discover("刘备与张飞", mode="keyword").hits
    assert hits and "刘备" in hits[0].snippet


@pytest.mark.parametrize(("question", "answer"), [("张角在哪里起事？", "巨鹿"), ("幽州太守是谁？", "刘焉")])
def test_the_offline_agent_answers_a_chinese_question_with_a_citation(
    lightrag: tuple[Graph, ImportReport], question: str, answer: str,
) -> None:
    graph, _ = lightrag
    session = graph.evidence()
    reply = Agent(session).ask(question)
    assert answer in reply.body and reply.all_valid and reply.cited_ids, reply.raw
    assert session.check_citations(reply.raw).all_valid


def test_entities_named_in_any_script_get_readable_ids(lightrag: tuple[Graph, ImportReport]) -> None:
    graph, _ = lightrag
    ids = {e.name: e.id for e in graph.graph_store.entities()}
    assert ids["刘备"] == "ent-liu-bei" and ids["黄巾军"] == "ent-huang-jin-jun"
    assert not any(i.startswith("ent-entity") for i in ids.values())


def test_cli_tables_align_chinese_names_by_display_width(lightrag: tuple[Graph, ImportReport]) -> None:
    graph, _ = lightrag
    table = format_results(graph.engine().run("刘备与张飞", BUILTINS["ENTITY"]))
    rows = [line for line in table.splitlines()[2:] if line[:3].strip().isdigit()]
    assert any(display_width(r) != len(r) for r in rows)  # some rows hold wide characters
    starts = {display_width(r[: r.rindex("  ") + 2]) for r in rows}  # where the id column starts, in columns
    assert len(starts) == 1, table


def test_hybrid_search_answers_from_lightrag_descriptions(lightrag: tuple[Graph, ImportReport]) -> None:
    graph, _ = lightrag
    run = graph.engine().run("Who went to sea when he had no money?", BUILTINS["HYBRID"])
    assert run.results and all(m.ok for m in run.trace.methods)
    assert any(r.title == "Ishmael" or "Ishmael" in (r.text or "") for r in run.results[:5])


def test_import_graphml_inside_a_lightrag_directory_says_to_use_import_lightrag() -> None:
    with pytest.raises(ImportSourceError, match="agrag-lab import lightrag"):
        read_graphml(LIGHTRAG / GRAPH_FILE)


def test_lightrag_without_full_docs_rebuilds_documents_from_chunks(tmp_path: Path) -> None:
    folder = tmp_path / "rag"
    folder.mkdir()
    for name in (GRAPH_FILE, CHUNKS_FILE):
        (folder / name).write_bytes((LIGHTRAG / name).read_bytes())
    imported = read_lightrag(folder)
    chunks = _chunks()
    assert sum(len(v.chunks) for v in imported.documents) == len(chunks)
    assert dict(imported.placement) == {"exact": len(chunks), "approximate": 0, "unplaced": 0}
    assert any("rebuilt from its chunks" in n for n in imported.notes)
    texts = {c.text for v in imported.documents for c in v.chunks}
    assert texts == {str(c["content"]) for c in chunks.values()}


def test_the_cli_imports_a_lightrag_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["import", "lightrag", str(LIGHTRAG), "--index", str(tmp_path / "idx")]) == 0
    out = capsys.readouterr().out
    assert "lightrag" in out and "placed exactly" in out


def test_graphrag_3_3_output_keeps_every_row_and_its_ids() -> None:
    imported = read_graphrag(GRAPHRAG)
    store = imported.store
    for table, count in (("entities", len(store.graph.entities)), ("relationships", len(store.graph.edges)),
                         ("communities", len(store.communities())), ("community_reports", len(store.reports()))):
        assert count == pl.read_parquet(GRAPHRAG / f"{table}.parquet").height, table
    units = pl.read_parquet(GRAPHRAG / "text_units.parquet")
    assert sum(len(v.chunks) for v in imported.documents) == units.height == sum(imported.placement.values())
    assert imported.placement["approximate"] == 1 and imported.skipped == ()
    for row in units.iter_rows(named=True):
        assert imported.aliases.resolve_as(row["id"], "source") == imported.aliases.resolve_as(
            f"source:{row['human_readable_id']}", "source") is not None
    entities = pl.read_parquet(GRAPHRAG / "entities.parquet")
    for row in entities.iter_rows(named=True):
        ours = imported.aliases.resolve_as(f"Entities:{row['human_readable_id']}", "entity")
        assert ours is not None and store.graph.entities[ours].name == row["title"]


def test_graphrag_0_3_output_reads_entities_from_create_final_nodes() -> None:
    imported = read_graphrag(CAROL / "v0")
    nodes = pl.read_parquet(CAROL / "v0" / "create_final_nodes.parquet")
    assert imported.format == "graphrag-0" and "0.x" in imported.notes[0]
    assert len(imported.store.graph.entities) == nodes.filter(pl.col("level") == 0).height == 261
    assert len(imported.store.graph.edges) == pl.read_parquet(CAROL / "v0" / "create_final_relationships.parquet").height
    assert len(imported.store.communities()) == 45 and len(imported.store.reports()) == 8
    scrooge = imported.store.entity_by_name("EBENEZER SCROOGE") or imported.store.entity_by_name("SCROOGE")
    assert scrooge is not None and scrooge.chunk_ids and scrooge.description
    members = {c.id: c.members for c in imported.store.communities()}
    assert all(members[f"com-0-{n}"] for n in range(8))  # level 0 from the nodes' community column
    assert dict(imported.placement) == {"exact": 42, "approximate": 0, "unplaced": 0}


@pytest.fixture(scope="module")
def graphrag_index(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    """GraphRAG 3.3.0's own output over the peer corpus (8 text units, 33 entities), imported."""
    path = tmp_path_factory.mktemp("graphrag-peers") / "index"
    with Graph.open(path, embedder=embedder) as graph:
        graph.import_graphrag(GRAPHRAG)
    with Graph.open(path, embedder=embedder, read_only=True) as graph:
        yield graph


@pytest.mark.parametrize("query", ["Who asked Holmes to get a photograph back?", "Who went to sea?", "黄巾军的首领是谁？"])
def test_real_graphrag_entities_with_different_descriptions_never_tie(graphrag_index: Graph, query: str) -> None:
    # a few long text units: the mean of each entity's units gave whole groups one vector (issue 25)
    entities = pl.read_parquet(GRAPHRAG / "entities.parquet")
    vector = graphrag_index.embedder.embed([query])[0]
    found = graphrag_index.vector_store.query("entities", vector, 500, None)
    own = dict((key, score) for key, score in found if "#" not in key)  # the entity records, not relation facets
    assert len(own) == entities.height
    store = graphrag_index.graph_store
    said = {key: store.graph.entities[key].description for key in own}
    assert len(set(said.values())) >= entities.height - 4  # GraphRAG gave a few entities one description
    for a, b in itertools.combinations(sorted(own), 2):
        if said[a] != said[b]:  # told apart by their descriptions: never one score
            assert round(own[a], 6) != round(own[b], 6), (a, b, own[a])


def test_a_chinese_graphrag_entity_is_found_by_its_name(graphrag_index: Graph) -> None:
    session = graphrag_index.evidence()
    for name in ("刘备", "黄巾军"):
        found = session.find_entities(name).entities
        assert found and found[0].name == name, (name, [e.name for e in found[:3]])
    assert session.explore("张飞").entity.name == "张飞"
