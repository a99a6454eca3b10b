"""A GraphRAG output searched by its builder's model with the vectors GraphRAG stored: its LanceDB tables
(``output/lancedb``) and its ``embeddings.*.parquet`` snapshots. The import embeds nothing GraphRAG embedded, a
search embeds only its query at the builder's endpoint, and a missing ``lancedb`` is said, never dropped.

The outputs were written by graphrag 3.3.0's own indexer (``make peers``: ``graphrag_vectors/`` over the peer
corpus, ``graphrag_zh/`` over its Chinese texts) and by graphrag 1.2.0's (``graphrag1_vectors/``: the 1.x layout,
``create_final_*.parquet`` and LanceDB tables ``default-entity-description`` and the like, over the peer corpus)
through ``peers/server.py``, the bundled all-MiniLM-L6-v2 behind ``/v1/embeddings``, the endpoint these tests serve
again. GraphRAG 0.3's entity vectors, a column of its entity table, are read from the 0.3-era Christmas Carol output.
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
GRAPHRAG1 = PEERS / "graphrag1_vectors"
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


def _table(source: Path, name: str) -> pl.DataFrame:
    """A table of an output, by its 3.x name (``create_final_<name>.parquet`` in a 1.x output)."""
    path = source / f"{name}.parquet"
    return pl.read_parquet(path if path.is_file() else source / f"create_final_{name}.parquet")


@pytest.fixture(scope="module", params=[ENGLISH, CHINESE, GRAPHRAG1], ids=["english", "chinese", "graphrag1"])
def imported(request: pytest.FixtureRequest, endpoint: str,
             tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, ImportReport, list[str]]:
    """(source, index folder, report, texts the endpoint embedded during the import)."""
    source: Path = request.param
    path = tmp_path_factory.mktemp("graphrag-vectors") / "index"
    before = len(_sent())
    with Graph.open(path, embedder=EndpointEmbedder(MODEL, endpoint)) as graph:
        report = graph.import_graphrag(source)
    return source, path, report, _sent()[before:]


@pytest.mark.parametrize("source", [ENGLISH, CHINESE, GRAPHRAG1], ids=["english", "chinese", "graphrag1"])
def test_graphrags_lancedb_tables_are_read_by_its_own_ids(source: Path, embedder: SentenceTransformerEmbedder) -> None:
    vectors = read_vectors(source)
    assert vectors is not None and vectors.dimension == 384 and not vectors.unread
    assert {"entity_description", "text_unit_text", "community_full_content"} <= set(vectors.by_id)
    entities = _table(source, "entities")
    assert set(vectors.of("entity_description")) == set(entities["id"])  # keyed by the entity's GraphRAG id
    assert set(vectors.of("text_unit_text")) == set(_table(source, "text_units")["id"])
    assert set(vectors.of("community_full_content")) == set(_table(source, "community_reports")["id"])
    # what GraphRAG embedded for an entity: its title:description, whole
    row = entities.row(0, named=True)
    mine = embedder.embed([f"{row['title']}:{row['description']}"])[0]
    assert float(np.dot(mine, vectors.of("entity_description")[row["id"]])) == pytest.approx(1.0, abs=1e-4)
    # a text unit's text alone, a report's full_content
    unit = _table(source, "text_units").row(0, named=True)
    report = _table(source, "community_reports").row(0, named=True)
    for text, vector in ((unit["text"], vectors.of("text_unit_text")[unit["id"]]),
                         (report["full_content"], vectors.of("community_full_content")[report["id"]])):
        assert float(np.dot(embedder.embed([text])[0], vector)) == pytest.approx(1.0, abs=1e-4)


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


@pytest.mark.parametrize("source", [CHINESE, GRAPHRAG1], ids=["graphrag3", "graphrag1"])
def test_the_cli_reads_the_builders_model_from_settings_yaml(source: Path, endpoint: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from agrag_lab.cli import main as cli_main

    assert cli_main(["import", "graphrag", str(source), "--index", str(tmp_path / "idx"),
                     "--embedding-url", endpoint]) == 0  # the model: embedding_models (3.x), embeddings.llm (1.x)
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


CAROL_V0 = Path(__file__).resolve().parents[2] / "datasets" / "msgraphrag_christmas_carol" / "v0"


@pytest.fixture(scope="module")
def carol_v0(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """The 0.3-era Christmas Carol output (GraphRAG's own, ``datasets/msgraphrag_christmas_carol/v0``) with the
    ``create_final_entities.parquet`` graphrag 0.3.x writes beside its nodes, which this copy of the output lacks.

    graphrag 0.3.6 cannot be installed here (it pins ``lancedb<0.14``, which the package index no longer serves),
    so the table is written from the output's own ``create_final_nodes`` rows at their lowest level, in 0.3.x's
    columns (``id``, ``name``, ``type``, ``description``, ``human_readable_id``, ``text_unit_ids``), and its
    ``description_embedding`` is the bundled model's vector of ``name:description``, the text 0.3.x's
    ``create_final_entities`` workflow embeds (its ``merge`` of name and description with ``:``, then
    ``text_embed``), as if the builder's model were the bundled one.
    """
    folder = tmp_path_factory.mktemp("carol-v0") / "output"
    shutil.copytree(CAROL_V0, folder)
    nodes = pl.read_parquet(folder / "create_final_nodes.parquet")
    rows = nodes.filter(pl.col("level") == nodes["level"].min()).unique("id", keep="first", maintain_order=True)
    texts = [f"{n}:{d}" for n, d in zip(rows["title"], rows["description"], strict=True)]
    pl.DataFrame({
        "id": rows["id"], "name": rows["title"], "type": rows["type"], "description": rows["description"],
        "human_readable_id": rows["human_readable_id"],
        "text_unit_ids": [s.split(",") for s in rows["source_id"]],
        "description_embedding": [v.astype(float).tolist() for v in embedder.embed(texts)],
    }).write_parquet(folder / "create_final_entities.parquet")
    return folder


def test_graphrag_0_3s_description_embedding_column_is_read_as_its_entity_vectors(carol_v0: Path) -> None:
    read = read_graphrag(carol_v0)
    assert read.format == "graphrag-0" and read.stored is not None
    assert read.stored.source == "create_final_entities.parquet:description_embedding" and read.stored.dimension == 384
    entities = pl.read_parquet(carol_v0 / "create_final_entities.parquet")
    assert len(read.stored.entities) == entities.height == len(read.store.graph.entities)
    row = entities.row(0, named=True)
    ours = read.aliases.resolve_as(row["id"], "entity")
    assert ours is not None
    np.testing.assert_allclose(read.stored.entities[ours], row["description_embedding"], atol=1e-6)
    assert not read.stored.chunks and read.stored.kinds == {"entities"}  # 0.3 stored no text unit vectors here


def test_graphrag_0_3s_entity_vectors_are_reused_through_the_builders_endpoint(
    carol_v0: Path, endpoint: str, tmp_path: Path,
) -> None:
    from agrag_lab.index.records import content_hash

    read = read_graphrag(carol_v0)
    before = len(_sent())
    with Graph.open(tmp_path / "index", embedder=EndpointEmbedder(MODEL, endpoint)) as graph:
        report = graph.import_graphrag(carol_v0)
    sent = _sent()[before:]
    assert read.stored is not None and len(read.stored.entities) == report.entities
    assert report.reused == len(stored_by_hash(read)) > 0  # one per distinct text
    assert len(sent) == 1 + report.embedded  # a probe for the length, then only what 0.3 did not embed
    assert not {content_hash(t) for t in sent[1:]} & set(stored_by_hash(read))
    assert f"{report.reused} of the builder's vectors reused" in str(report)
    assert "the builder embedded no community reports, no text units" in str(report)  # said, then embedded


def test_graphrag_0_3s_entity_vectors_of_another_length_are_refused_through_an_endpoint(
    carol_v0: Path, endpoint: str, tmp_path: Path,
) -> None:
    from agrag_lab.embedding import STATIC_DEFAULT_NAME
    from agrag_lab.errors import ImportSourceError

    with Graph.open(tmp_path / "index", embedder=EndpointEmbedder(STATIC_DEFAULT_NAME, endpoint)) as graph:
        with pytest.raises(ImportSourceError, match=r"384 long") as caught:
            graph.import_graphrag(carol_v0)
        assert not graph.db.documents(include_removed=True)
    assert "nothing was written" in str(caught.value)


def test_graphrag_0_3s_entity_vectors_offline_are_said_and_re_embedded(
    carol_v0: Path, tmp_path: Path,
) -> None:
    from agrag_lab.embedding import StaticEmbedder

    with Graph.open(tmp_path / "index", embedder=StaticEmbedder()) as graph:  # a local model of another length
        report = graph.import_graphrag(carol_v0)
    text = str(report)
    assert report.reused == 0 and report.embedded > 0 and report.entities > 0
    assert "another model than its builder's" in text and "create_final_entities.parquet:description_embedding" in text


def test_graphrag_0_3s_column_of_mixed_lengths_is_refused_and_nothing_is_written(
    carol_v0: Path, tmp_path: Path,
) -> None:
    from agrag_lab.errors import ImportSourceError

    folder = tmp_path / "output"
    shutil.copytree(carol_v0, folder)
    path = folder / "create_final_entities.parquet"
    entities = pl.read_parquet(path)
    vectors = entities["description_embedding"].to_list()
    vectors[1] = vectors[1][:10]  # one row cut short
    entities.with_columns(pl.Series("description_embedding", vectors)).write_parquet(path)
    with Graph.open(tmp_path / "index") as graph:
        with pytest.raises(ImportSourceError, match=r"description_embedding: its vectors have different lengths \[10, 384\]"):
            graph.import_graphrag(folder)
        assert not graph.db.documents(include_removed=True)


def test_a_column_joins_the_stored_tables_only_at_their_length(carol_v0: Path) -> None:
    from agrag_lab.errors import ImportSourceError
    from agrag_lab.importing.graphrag_vectors import GraphRAGVectors, column_vectors, with_columns

    stored = read_vectors(GRAPHRAG1)
    assert stored is not None
    units = GraphRAGVectors(stored.dimension, stored.source, {"text_unit_text": dict(stored.of("text_unit_text"))})
    rows = pl.read_parquet(carol_v0 / "create_final_entities.parquet").to_dicts()
    where = {"entities": "create_final_entities.parquet"}
    columns = column_vectors({"entities": rows}, where)
    joined = with_columns(units, columns)  # 384 and 384: the column fills the embedding the tables lack
    assert joined is not None and set(joined.by_id) == {"text_unit_text", "entity_description"}
    assert joined.source == f"{stored.source}, create_final_entities.parquet:description_embedding"
    both = with_columns(stored, columns)  # the tables win where both hold an embedding
    assert both is not None and both.source == stored.source
    assert set(both.of("entity_description")) == set(stored.of("entity_description"))
    short = column_vectors({"entities": [dict(r, description_embedding=r["description_embedding"][:8]) for r in rows]}, where)
    with pytest.raises(ImportSourceError, match=r"different lengths \[8, 384\]"):
        with_columns(units, short)
