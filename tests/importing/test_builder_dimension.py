"""A LightRAG working directory built with another model than ours (``tests/fixtures/peers/lightrag_dim/``:
lightrag-hku 1.5.7's own insert with the static model distilled from the bundled one, 256 dimensions, through
``peers/server.py``): the import reads the vectors' length from the vector files, refuses an endpoint whose
model answers another length (naming both and the fix, writing nothing), and offline says plainly that
another model searches the index.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agrag_lab import Graph, recipes
from agrag_lab.embedding import STATIC_DEFAULT_NAME, EndpointEmbedder, SentenceTransformerEmbedder
from agrag_lab.errors import ImportSourceError
from agrag_lab.importing.lightrag import read_lightrag
from agrag_lab.index.doctor import examine
from peers import server

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "peers" / "lightrag_dim"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with server.serve() as url:
        yield url


def test_the_vectors_length_is_read_from_the_vector_files() -> None:
    stored = read_lightrag(FOLDER).stored
    written = {json.loads((FOLDER / name).read_text(encoding="utf-8"))["embedding_dim"]
               for name in ("vdb_entities.json", "vdb_relationships.json", "vdb_chunks.json")}
    assert stored is not None and written == {stored.dimension} == {256}
    assert len(stored.entities) == 33 and len(stored.chunks) == 8


def test_an_endpoint_of_another_length_is_refused_and_nothing_is_written(endpoint: str, tmp_path: Path) -> None:
    path = tmp_path / "index"
    with Graph.open(path, embedder=EndpointEmbedder("all-MiniLM-L6-v2", endpoint)) as graph:
        with pytest.raises(ImportSourceError) as caught:
            graph.import_lightrag(FOLDER)
        assert not graph.db.documents(include_removed=True)
    message = str(caught.value)
    assert "are 256 long" in message and "all-MiniLM-L6-v2" in message and "vectors of 384" in message
    assert "--embedding-model" in message and "nothing was written" in message
    # the same folder then takes the import through the builder's model
    with Graph.open(path, embedder=EndpointEmbedder(STATIC_DEFAULT_NAME, endpoint)) as graph:
        report = graph.import_lightrag(FOLDER)
    assert report.reused > 0 and report.embedded == 0
    assert f"searched by {STATIC_DEFAULT_NAME} through {endpoint}" in str(report)


def test_offline_another_model_searches_it_and_the_report_and_doctor_say_so(
    tmp_path: Path, embedder: SentenceTransformerEmbedder,
) -> None:
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        report = graph.import_lightrag(FOLDER)
    text = str(report)
    assert report.reused == 0 and report.embedded > 0
    assert "vectors of length 256" in text and "another model than its builder's" in text
    assert "--embedding-url" in text
    doctor = str(examine(tmp_path / "index"))
    assert "searched by all-MiniLM-L6-v2 (local)" in doctor and "another model than its builder's" in doctor
    with Graph.open(tmp_path / "index", embedder=embedder, read_only=True) as graph:
        run = graph.engine().run("Who is Irene Adler?", recipes.get("ENTITY"))
    assert run.results[0].id == "ent-irene-adler"  # searched whole, by the local model's own vectors
