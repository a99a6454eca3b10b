"""An index searched by its builder's model through an OpenAI-compatible endpoint, with the vectors the builder
stored: the import embeds nothing the builder embedded, a search embeds only its query there, and the results
equal the same vectors searched in process. Offline, the report says the index is searched by another model.

The endpoint is ``peers/server.py`` (the bundled all-MiniLM-L6-v2 behind ``/v1/embeddings``), the server the
peers' own code built ``tests/fixtures/peers/lightrag_vectors/`` with (lightrag-hku 1.5.7, ``make peers``).
"""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from agrag_lab import Graph, recipes
from agrag_lab.embedding import EndpointEmbedder, SentenceTransformerEmbedder
from agrag_lab.importing.lightrag import read_lightrag
from agrag_lab.importing.lightrag_vectors import ENTITIES_VDB, read_vdb
from agrag_lab.importing.writer import stored_by_hash
from agrag_lab.index.doctor import examine
from peers import server

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "peers" / "lightrag_vectors"
QUERIES = ["Where did Ishmael go to sea?", "Who is Irene Adler?", "刘备与张飞"]


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with server.serve() as url:
        yield url


def _embedded_texts() -> int:
    return sum(len(body["input"]) if isinstance(body["input"], list) else 1
               for kind, body in server.LOG if kind == "embeddings")


@pytest.fixture(scope="module")
def imported(endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object, int]:
    path = tmp_path_factory.mktemp("builder-model") / "index"
    before = _embedded_texts()
    with Graph.open(path, embedder=EndpointEmbedder("all-MiniLM-L6-v2", endpoint)) as graph:
        report = graph.import_lightrag(FOLDER)
    return path, report, _embedded_texts() - before


def test_the_import_reuses_the_builders_vectors(imported: tuple[Path, object, int]) -> None:
    _, report, embedded = imported
    stored = read_lightrag(FOLDER).stored
    assert stored is not None and stored.dimension == 384
    assert report.reused == len(stored_by_hash(read_lightrag(FOLDER))) > 0  # type: ignore[attr-defined]
    assert "searched by all-MiniLM-L6-v2 through http://127.0.0.1" in str(report)
    # one probe for the endpoint's vector length, then only what the builder did not embed (here: nothing)
    assert embedded == 1 + report.embedded == 1  # type: ignore[attr-defined]


def test_an_entity_the_builder_lost_is_reported_and_embedded(endpoint: str, tmp_path: Path) -> None:
    folder = tmp_path / "rag"
    shutil.copytree(FOLDER, folder)
    raw = json.loads((folder / ENTITIES_VDB).read_text(encoding="utf-8"))
    keep = [i for i, r in enumerate(raw["data"]) if r["entity_name"] != "Ishmael"]
    matrix = np.frombuffer(base64.b64decode(raw["matrix"]), dtype=np.float32).reshape(len(raw["data"]), -1)
    raw["data"] = [raw["data"][i] for i in keep]
    raw["matrix"] = base64.b64encode(matrix[keep].tobytes()).decode()
    (folder / ENTITIES_VDB).write_text(json.dumps(raw), encoding="utf-8")
    with Graph.open(tmp_path / "index", embedder=EndpointEmbedder("all-MiniLM-L6-v2", endpoint)) as graph:
        report = graph.import_lightrag(folder)
    assert report.embedded == 1 and "1 described entities have no vector record" in str(report)
    assert "'Ishmael'" in str(report)


def test_the_builders_entity_vector_is_the_one_searched(imported: tuple[Path, object, int]) -> None:
    path, _, _ = imported
    records = read_vdb(FOLDER / ENTITIES_VDB)
    assert records is not None and records.vectors is not None
    row = records.by("entity_name")["Ishmael"]
    with Graph.open(path, read_only=True) as graph:  # reopened: the endpoint recorded, no key stored
        assert isinstance(graph.embedder, EndpointEmbedder)
        eid = next(e.id for e in graph.graph_store.entities() if e.name == "Ishmael")
        (found, score), *_ = graph.vector_store.query("entities", records.vectors[row], 1)
    assert found == eid and score == pytest.approx(1.0, abs=1e-3)


def test_searching_embeds_only_the_query_and_equals_the_same_vectors_in_process(
    imported: tuple[Path, object, int], embedder: SentenceTransformerEmbedder,
) -> None:
    path, _, _ = imported
    through_endpoint = {}
    with Graph.open(path, read_only=True) as graph:
        engine = graph.engine()
        for query in QUERIES:
            before = _embedded_texts()
            run = engine.run(query, recipes.get("HYBRID"))
            assert _embedded_texts() - before == 1  # the query, and nothing else
            through_endpoint[query] = [(r.id, round(r.score, 6)) for r in run.results]
    with Graph.open(path, embedder=embedder, read_only=True) as graph:  # the same model, in process
        engine = graph.engine()
        for query in QUERIES:
            before = _embedded_texts()
            run = engine.run(query, recipes.get("HYBRID"))
            assert _embedded_texts() == before
            assert [(r.id, round(r.score, 6)) for r in run.results] == through_endpoint[query]


def test_offline_the_report_says_another_model_searches_the_index(tmp_path: Path,
                                                                  embedder: SentenceTransformerEmbedder) -> None:
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        report = graph.import_lightrag(FOLDER)
    text = str(report)
    assert report.reused == 0 and "another model than its builder's" in text and "--embedding-url" in text
    assert np.isfinite(report.embedding_seconds)
    doctor = str(examine(tmp_path / "index"))
    assert "embedding model: searched by all-MiniLM-L6-v2 (local)" in doctor and "another model than its builder's" in doctor


def test_the_cli_imports_with_the_builders_endpoint(endpoint: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from agrag_lab.cli import main as cli_main

    assert cli_main(["import", "lightrag", str(FOLDER), "--index", str(tmp_path / "idx"),
                     "--embedding-model", "all-MiniLM-L6-v2", "--embedding-url", endpoint]) == 0
    out = capsys.readouterr().out
    assert f"searched by all-MiniLM-L6-v2 through {endpoint}" in out and "of the builder's vectors reused" in out
