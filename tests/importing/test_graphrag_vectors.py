"""A GraphRAG output searched by its builder's model with the vectors GraphRAG stored: its LanceDB tables
(``output/lancedb``) and its ``embeddings.*.parquet`` snapshots. The import embeds nothing GraphRAG embedded, a
search embeds only its query at the builder's endpoint, and a missing ``lancedb`` is said, never dropped.

The outputs were written by graphrag 3.3.0's own indexer (``make peers``: ``graphrag_vectors/`` over the peer
corpus, ``graphrag_zh/`` over its Chinese texts) through ``peers/server.py``, the bundled all-MiniLM-L6-v2 behind
``/v1/embeddings``, the endpoint these tests serve again.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from agrag_lab import Graph, recipes
from agrag_lab.embedding import EndpointEmbedder, SentenceTransformerEmbedder
from agrag_lab.errors import MissingExtraError
from agrag_lab.importing.graphrag import read_graphrag
from agrag_lab.importing.graphrag_vectors import read_vectors
from agrag_lab.importing.report import ImportReport
from agrag_lab.importing.writer import embedded_texts, stored_by_hash
from agrag_lab.index.doctor import examine
from peers import server

PEERS = Path(__file__).resolve().parents[1] / "fixtures" / "peers"
ENGLISH = PEERS / "graphrag_vectors"
CHINESE = PEERS / "graphrag_zh"
MODEL = "all-MiniLM-L6-v2"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with server.serve() as url:
        yield url


def _sent() -> list[str]:
    """Every text the endpoint has embedded so far, in order."""
    out: list[str] = []
    for kind, body in server.LOG:
        if kind == "embeddings":
            out += [body["input"]] if isinstance(body["input"], str) else list(body["input"])
    return out


@pytest.fixture(scope="module", params=[ENGLISH, CHINESE], ids=["english", "chinese"])
def imported(request: pytest.FixtureRequest, endpoint: str,
             tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, ImportReport, list[str]]:
    """(source, index folder, report, texts the endpoint embedded during the import)."""
    source: Path = request.param
    path = tmp_path_factory.mktemp("graphrag-vectors") / "index"
    before = len(_sent())
    with Graph.open(path, embedder=EndpointEmbedder(MODEL, endpoint)) as graph:
        report = graph.import_graphrag(source)
    return source, path, report, _sent()[before:]


@pytest.mark.parametrize("source", [ENGLISH, CHINESE], ids=["english", "chinese"])
def test_graphrags_lancedb_tables_are_read_by_its_own_ids(source: Path, embedder: SentenceTransformerEmbedder) -> None:
    vectors = read_vectors(source)
    assert vectors is not None and vectors.dimension == 384 and not vectors.unread
    assert {"entity_description", "text_unit_text", "community_full_content"} <= set(vectors.by_id)
    entities = pl.read_parquet(source / "entities.parquet")
    assert set(vectors.of("entity_description")) == set(entities["id"])  # keyed by the entity's GraphRAG id
    assert set(vectors.of("text_unit_text")) == set(pl.read_parquet(source / "text_units.parquet")["id"])
    # what GraphRAG embedded for an entity: its title:description, whole
    row = entities.row(0, named=True)
    mine = embedder.embed([f"{row['title']}:{row['description']}"])[0]
    assert float(np.dot(mine, vectors.of("entity_description")[row["id"]])) == pytest.approx(1.0, abs=1e-4)


def test_the_snapshot_files_hold_the_same_vectors_as_the_tables(tmp_path: Path) -> None:
    """GraphRAG's ``embeddings.<name>.parquet`` (snapshots.embeddings) is read when there is no LanceDB folder."""
    folder = tmp_path / "output"
    shutil.copytree(CHINESE, folder, ignore=shutil.ignore_patterns("lancedb"))
    tables, snapshots = read_vectors(CHINESE), read_vectors(folder)
    assert tables is not None and snapshots is not None and snapshots.source.startswith("embeddings.")
    assert set(snapshots.by_id) == set(tables.by_id)
    for name, rows in tables.by_id.items():
        assert set(snapshots.of(name)) == set(rows)
        for rid, vector in rows.items():
            np.testing.assert_allclose(snapshots.of(name)[rid], vector, atol=1e-6)


def test_the_import_reuses_graphrags_vectors_and_embeds_only_what_it_did_not(
    imported: tuple[Path, Path, ImportReport, list[str]],
) -> None:
    source, _, report, sent = imported
    read = read_graphrag(source)
    reused = stored_by_hash(read)
    assert report.reused == len(reused) > 0
    assert f"searched by {MODEL} through http://127.0.0.1" in str(report)
    # every chunk, entity and report vector came from GraphRAG; the endpoint saw one probe for its vector
    # length, then exactly the texts GraphRAG did not embed (its relationship descriptions, for our relation records)
    stored = read.stored
    assert stored is not None
    assert len(stored.chunks) == report.chunks and len(stored.reports) == report.reports
    assert len(stored.entities) == report.entities
    assert len(sent) == 1 + report.embedded
    from agrag_lab.index.records import content_hash

    assert not {content_hash(t) for t in sent[1:]} & set(reused)
    assert set(sent[1:]) <= set(embedded_texts(read))
    assert "the builder embedded no relationship descriptions" in str(report)


def test_doctor_says_which_model_searches_and_what_was_reused(
    imported: tuple[Path, Path, ImportReport, list[str]],
) -> None:
    _, path, report, _ = imported
    doctor = str(examine(path))
    assert f"searched by {MODEL} through http://127.0.0.1" in doctor
    assert f"the builder's model; {report.reused} of its stored vectors reused" in doctor
    assert "the builder embedded no relationship descriptions" in doctor


def test_searching_embeds_only_the_query_and_equals_the_same_vectors_in_process(
    imported: tuple[Path, Path, ImportReport, list[str]], embedder: SentenceTransformerEmbedder,
) -> None:
    _, path, _, _ = imported
    queries = ["Where did Ishmael go?", "刘备、关羽、张飞在哪里结为兄弟？"]
    through: dict[str, list[tuple[str, float]]] = {}
    with Graph.open(path, read_only=True) as graph:  # reopened: the endpoint is recorded, no key stored
        assert isinstance(graph.embedder, EndpointEmbedder)
        engine = graph.engine()
        for query in queries:
            before = len(_sent())
            run = engine.run(query, recipes.get("GRAPHRAG_LOCAL"))
            assert _sent()[before:] == [query]  # the query, once, and nothing else
            through[query] = [(r.id, round(r.score, 6)) for r in run.results]
    with Graph.open(path, embedder=embedder, read_only=True) as graph:
        engine = graph.engine()
        for query in queries:
            run = engine.run(query, recipes.get("GRAPHRAG_LOCAL"))
            assert [(r.id, round(r.score, 6)) for r in run.results] == through[query]


def test_a_chinese_question_finds_the_entity_it_names_by_its_chinese_name(
    endpoint: str, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Searched through the builder's endpoint, a Chinese question finds the entity it names by its Chinese name:
    the keyword leg (jieba's words against the entity names) ranks it first. The vector leg does not: the builder's
    model here (all-MiniLM-L6-v2) is English-only, so GraphRAG's own local search, and GRAPHRAG_LOCAL with the same
    stored vectors, map "孙悟空的名字是谁起的？" to other entities (parity/graphrag_zh.json). Cross-lingual or
    Chinese vector search needs a multilingual builder model (docs/importing.md)."""
    path = tmp_path_factory.mktemp("zh") / "index"
    with Graph.open(path, embedder=EndpointEmbedder(MODEL, endpoint)) as graph:
        graph.import_graphrag(CHINESE)
    with Graph.open(path, read_only=True) as graph:
        engine = graph.engine()
        store = graph.graph_store
        for question, name in (("孙悟空的名字是谁起的？", "孙悟空"), ("须菩提祖师住在哪里？", "须菩提祖师")):
            before = len(_sent())
            (entity,) = engine.run(question, recipes.get("ENTITY")).trace.methods
            assert _sent()[before:] == [question]  # embedded at the builder's endpoint, alone
            assert store.entity(entity.legs["keyword"][0].key).name == name  # type: ignore[union-attr]
        run = engine.run("孙悟空的名字是谁起的？", recipes.get("GRAPHRAG_LOCAL"))
        mapped = next(m for m in run.trace.methods if m.name == "entity_passages").legs["entities"]
        assert "孙悟空" not in [store.entity(h.key).name for h in mapped[:3]]  # type: ignore[union-attr]


def test_an_entity_graphrag_lost_is_reported_and_embedded(endpoint: str, tmp_path: Path) -> None:
    folder = tmp_path / "output"
    shutil.copytree(CHINESE, folder, ignore=shutil.ignore_patterns("lancedb"))
    snapshot = folder / "embeddings.entity_description.parquet"
    entities = pl.read_parquet(folder / "entities.parquet")
    lost = entities.filter(pl.col("title") == "孙悟空")["id"][0]
    pl.read_parquet(snapshot).filter(pl.col("id") != lost).write_parquet(snapshot)
    with Graph.open(tmp_path / "index", embedder=EndpointEmbedder(MODEL, endpoint)) as graph:
        report = graph.import_graphrag(folder)
    text = str(report)
    assert "1 described entities have no vector record of the builder (first: '孙悟空')" in text
    assert "GraphRAG's own search cannot find them by vector" in text


def test_without_lancedb_the_vectors_are_said_not_read(endpoint: str, tmp_path: Path,
                                                       embedder: SentenceTransformerEmbedder,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "lancedb", None)  # as on an install without the extra
    vectors = read_vectors(ENGLISH)
    assert vectors is not None and not vectors.by_id and "pip install 'agrag_lab[graphrag]'" in vectors.unread
    with Graph.open(tmp_path / "endpoint", embedder=EndpointEmbedder(MODEL, endpoint)) as graph, \
            pytest.raises(MissingExtraError, match=r"without --embedding-model/--embedding-url"):
        graph.import_graphrag(ENGLISH)
    with Graph.open(tmp_path / "endpoint", read_only=True) as graph:
        assert not graph.db.documents()  # refused before anything was written
    with Graph.open(tmp_path / "local", embedder=embedder) as graph:  # a local model: imported, and said
        report = graph.import_graphrag(ENGLISH)
    assert report.chunks and "the lancedb package is not installed" in str(report)


def test_offline_the_report_and_doctor_say_another_model_searches_the_index(
    tmp_path: Path, embedder: SentenceTransformerEmbedder,
) -> None:
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        report = graph.import_graphrag(ENGLISH)
    text = str(report)
    assert report.reused == 0 and "another model than its builder's" in text and "lancedb/entity_description" in text
    assert "import with --embedding-url http://127.0.0.1" in text and f"names the model, {MODEL}" in text
    doctor = str(examine(tmp_path / "index"))
    assert f"embedding model: searched by {MODEL} (local)" in doctor and "another model than its builder's" in doctor


def test_the_cli_reads_the_builders_model_from_settings_yaml(endpoint: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from agrag_lab.cli import main as cli_main

    assert cli_main(["import", "graphrag", str(CHINESE), "--index", str(tmp_path / "idx"),
                     "--embedding-url", endpoint]) == 0  # the model: settings.yaml's embedding_models entry
    out = capsys.readouterr().out
    assert f"searched by {MODEL} through {endpoint}" in out and "of the builder's vectors reused" in out


def test_graphrag_1x_tables_and_snapshots_are_read_by_their_names(tmp_path: Path) -> None:
    """GraphRAG 1.x and 2.x name a table ``<container>-<embedding>`` with dots as dashes and store ``id``, ``text``,
    ``vector`` (float64 lists), ``attributes`` (graphrag 1.2's ``LanceDBVectorStore.load_documents``); their
    snapshots are ``embeddings.entity.description.parquet`` and the like. The 3.x vectors, written in that form."""
    import pyarrow as pa

    from agrag_lab.importing.graphrag_vectors import lancedb_module

    given = read_vectors(CHINESE)
    assert given is not None
    folder = tmp_path / "output"
    shutil.copytree(CHINESE, folder, ignore=shutil.ignore_patterns("lancedb", "embeddings.*"))
    db = lancedb_module().connect(str(folder / "lancedb"))
    names = {"entity_description": "entity.description", "text_unit_text": "text_unit.text"}
    for new, old in names.items():
        rows = given.of(new)
        db.create_table(f"mine-{old}".replace(".", "-"), data=pa.table({
            "id": list(rows), "text": ["" for _ in rows], "vector": [v.astype(float).tolist() for v in rows.values()],
            "attributes": ["{}" for _ in rows],
        }))
    reports = given.of("community_full_content")
    pl.DataFrame({"id": list(reports), "embedding": [v.tolist() for v in reports.values()]}).write_parquet(
        folder / "embeddings.community.full_content.parquet")
    read = read_vectors(folder)
    assert read is not None and set(read.by_id) == set(given.by_id)
    assert "lancedb/mine-entity-description" in read.source and "embeddings.community.full_content.parquet" in read.source
    for name, rows in given.by_id.items():
        for rid, vector in rows.items():
            np.testing.assert_allclose(read.of(name)[rid], vector, atol=1e-6)


def test_the_stored_vectors_are_held_to_the_byte_limit() -> None:
    from agrag_lab.errors import ImportLimitError
    from agrag_lab.importing.validate import ImportLimits

    with pytest.raises(ImportLimitError, match=r"GraphRAG's stored vectors in .*graphrag_vectors holds [0-9,]+ bytes"):
        read_vectors(ENGLISH, ImportLimits(bytes=10_000))
    assert read_vectors(ENGLISH, ImportLimits(bytes=10_000_000)) is not None
