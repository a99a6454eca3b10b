"""A LightRAG working directory written by lightrag-hku 1.5.7's ``insert_custom_kg`` (tests/fixtures/peers/
lightrag_custom_kg/, made by ``make peers``: peers/lightrag_custom_kg.py): every node, edge and chunk imported,
the chunk ids LightRAG gave (``chunk-<md5>``, not the user's aliases) and its document ids resolvable, every
chunk fetched byte-exact, LightRAG's ``UNKNOWN`` placeholders kept and named."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.importing import ImportReport
from agrag_lab.importing.lightrag import CHUNKS_FILE, DOCS_FILE, GRAPH_FILE, SEP, UNKNOWN
from agrag_lab.importing.writer import builder_aliases

CUSTOM = Path(__file__).resolve().parents[1] / "fixtures" / "peers" / "lightrag_custom_kg"


@pytest.fixture(scope="module")
def custom(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[tuple[Graph, ImportReport]]:
    path = tmp_path_factory.mktemp("custom-kg") / "index"
    with Graph.open(path, embedder=embedder) as graph:
        report = graph.import_lightrag(CUSTOM)
    with Graph.open(path, embedder=embedder, read_only=True) as graph:
        yield graph, report


def _chunks() -> dict[str, dict[str, object]]:
    data: dict[str, dict[str, object]] = json.loads((CUSTOM / CHUNKS_FILE).read_text(encoding="utf-8"))
    return data


def test_the_fixture_is_a_custom_kg_directory() -> None:
    chunks = _chunks()
    assert not (CUSTOM / DOCS_FILE).exists()  # the custom-KG API writes no documents
    assert {str(c["source_id"]) for c in chunks.values()} >= {"pp-2", "sg-2", "md-0"}  # the user's aliases
    g = nx.read_graphml(CUSTOM / GRAPH_FILE)
    assert any(a.get("source_id") == UNKNOWN for _, a in g.nodes(data=True))
    assert any(a.get("description") == UNKNOWN for _, a in g.nodes(data=True))  # a relation's end LightRAG added


def test_a_custom_kg_imports_every_node_edge_and_chunk(custom: tuple[Graph, ImportReport]) -> None:
    graph, report = custom
    g = nx.read_graphml(CUSTOM / GRAPH_FILE)
    chunks = _chunks()
    assert report.skipped == ()
    assert (report.entities, report.relations, report.chunks) == (g.number_of_nodes(), g.number_of_edges(), len(chunks))
    assert report.documents == len({str(c["full_doc_id"]) for c in chunks.values()})
    assert dict(report.placement) == {"exact": len(chunks), "approximate": 0, "unplaced": 0}
    assert any("custom-KG" in note and UNKNOWN in note for note in report.notes)
    store = graph.graph_store
    aliases = builder_aliases(graph)
    by_name = {e.name: e for e in store.graph.entities.values()}
    for node, attrs in g.nodes(data=True):
        entity = by_name.get(str(attrs.get("entity_id") or node))
        assert entity is not None, node
        named = [c for c in str(attrs.get("source_id", "")).split(SEP) if c in chunks]
        assert set(entity.chunk_ids) == {aliases.resolve_as(c, "source") for c in named}, node
    longbourn = by_name["Longbourn"]  # its alias named no chunk: stored with its text, no supporting passage
    assert longbourn.chunk_ids == () and longbourn.description.startswith("The Bennets' estate")
    liu_yan = store.entity_by_name("刘焉")  # added by LightRAG as a relation's end
    assert liu_yan is not None and liu_yan.chunk_ids and "described_by" not in dict(liu_yan.attributes)


def test_custom_kg_chunks_and_documents_resolve_by_lightrag_ids(custom: tuple[Graph, ImportReport]) -> None:
    graph, _ = custom
    session = graph.evidence()
    aliases = builder_aliases(graph)
    for cid, record in _chunks().items():
        item = session.fetch(cid).items[0]
        assert item.ok and item.text == str(record["content"]), cid
        ours = aliases.resolve_as(cid, "source")
        assert ours is not None and aliases.resolve_as(str(record["full_doc_id"]), "document") == ours.split("@")[0]


def test_a_chinese_custom_kg_entity_is_found_by_its_name(custom: tuple[Graph, ImportReport]) -> None:
    graph, _ = custom
    session = graph.evidence()
    found = session.find_entities("张飞").entities
    assert found and found[0].name == "张飞" and "翼德" in found[0].description
    explored = session.explore("entity:张飞")
    assert explored.entity.name == "张飞" and "刘备" in {r.entity.name for r in explored.reached}


def test_a_document_without_a_file_is_named_by_its_first_words_not_its_hash(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    source = tmp_path / "workdir"
    shutil.copytree(CUSTOM, source)
    chunks = json.loads((source / CHUNKS_FILE).read_text(encoding="utf-8"))
    for record in chunks.values():
        record.pop("file_path", None)  # as LightRAG writes a document inserted without one
    (source / CHUNKS_FILE).write_text(json.dumps(chunks, ensure_ascii=False), encoding="utf-8")
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        graph.import_lightrag(source)
        documents = graph.db.documents()
        assert documents
        for record in documents:
            lightrag_id = str(record.metadata.get("lightrag_id", ""))
            assert record.title != lightrag_id and not record.title.startswith("doc-"), record.title
            text = " ".join(graph.db.chunks_of(record.id, record.current_version)[0].text.split())
            assert text.startswith(record.title.rstrip("…")), (record.title, text[:40])
