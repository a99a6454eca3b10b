"""The server path: vectors in a real ``chroma run`` server, nothing else changes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from chroma_support import chroma_server as started_chroma
from chroma_support import free_port
from index.index_support import CountingEmbedder, as_older_layout

from agrag_lab import Document, Graph, cli
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import AllRetrievalMethodsFailedError, VectorStoreError
from agrag_lab.index.folder import keyword_counts
from agrag_lab.recipes import CHUNK, ENTITY
from agrag_lab.storage.vectors import COLLECTIONS, ChromaVectorStore


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    with started_chroma(tmp_path / "server") as server:
        yield server


def test_index_with_vectors_on_a_chroma_server(
    chroma_server: tuple[subprocess.Popen[bytes], int], tmp_path: Path, embedder: object, small_docs: list[Document]
) -> None:
    proc, port = chroma_server
    store = ChromaVectorStore.http("127.0.0.1", port)
    with Graph.open(tmp_path / "ix", embedder=embedder, vector_store=store) as g:  # type: ignore[arg-type]
        report = g.ingest(small_docs)
        assert report.new == 3
        assert not (tmp_path / "ix" / "chroma").exists()  # nothing local
        vector = g.embedder.embed_query("the loom in Lyon")
        hits = store.query("chunks", vector, 3)
        assert hits[0][0].startswith("jacquard@")
        native = g.engine(native=True)
        served = g.engine()
        assert served.run("loom in Lyon", CHUNK).keys == native.run("loom in Lyon", CHUNK).keys
        # the vector-by-id read (a scoped entity leg averages in-scope passages read so) holds what was written
        chunks = [k for k, _ in hits] + ["no-such-chunk"]
        read = store.vectors("chunks", chunks)
        cached = g.graph_store.vectors("chunks", chunks)
        assert set(read) == set(cached) == set(chunks[:-1])
        assert all(np.allclose(read[k], cached[k], atol=1e-6) for k in read)
        proc.kill()
        proc.wait()
        with pytest.raises(VectorStoreError, match=f"127.0.0.1:{port}.*chroma run --host 127.0.0.1 --port {port}"):
            store.query("chunks", vector, 3)
        with pytest.raises(VectorStoreError) as caught:
            store.query("chunks", vector, 3)
        failed = str(AllRetrievalMethodsFailedError({"chunk": caught.value}))
        assert "The vector store failed: its message above says how to fix it" in failed
        assert "built with Graph.open" not in failed


def test_an_older_index_on_a_server_is_converted_by_a_writable_open_without_the_model(
    chroma_server: tuple[subprocess.Popen[bytes], int], tmp_path: Path, embedder: SentenceTransformerEmbedder,
    small_docs: list[Document],
) -> None:
    _, port = chroma_server
    store = ChromaVectorStore.http("127.0.0.1", port)
    with Graph.open(tmp_path / "ix", embedder=embedder, vector_store=store) as g:
        g.ingest(small_docs)
        stored, keys = g.collection_counts(), g.engine().run("Who worked with Babbage?", ENTITY).keys
    as_older_layout(tmp_path / "ix", embedder, store)
    assert store.count("entities") == keyword_counts(tmp_path / "ix")["entities"] > (stored["entities"] or 0)
    counting = CountingEmbedder(embedder)
    with Graph.open(tmp_path / "ix", embedder=counting, vector_store=store) as g:  # type: ignore[arg-type]
        assert g.collection_counts() == stored
        assert g.engine().run("Who worked with Babbage?", ENTITY).keys == keys
    assert counting.texts == 0
    assert not (tmp_path / "ix" / "chroma").exists()


def _agrag(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    return subprocess.run([sys.executable, "-m", "agrag_lab.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=900, env=env, stdin=subprocess.DEVNULL)


def test_sync_pushes_an_existing_local_index_into_a_server(
    chroma_server: tuple[subprocess.Popen[bytes], int], tmp_path: Path, embedder: object, small_docs: list[Document]
) -> None:
    proc, port = chroma_server
    index = tmp_path / "ix"
    with Graph.open(index, embedder=embedder) as g:  # type: ignore[arg-type]
        g.ingest(small_docs)
        local_keys = g.engine().run("loom in Lyon", CHUNK).keys
    server = ChromaVectorStore.http("127.0.0.1", port)
    assert server.fingerprints("chunks") == {}

    done = _agrag("sync", "--index", index, "--chroma", f"127.0.0.1:{port}")
    assert done.returncode == 0, done.stderr
    local = ChromaVectorStore.local(str(index / "chroma"))
    for name in COLLECTIONS:
        assert server.fingerprints(name) == local.fingerprints(name) != {}, name
    assert f"holds {len(local.fingerprints('chunks'))} chunks" in done.stdout
    with Graph.open(index, embedder=embedder, vector_store=server, read_only=True) as g:  # type: ignore[arg-type]
        assert g.engine().run("loom in Lyon", CHUNK).keys == local_keys
    with Graph.open(index, embedder=embedder, read_only=True) as g:  # type: ignore[arg-type]  # its own copy serves too
        assert g.engine().run("loom in Lyon", CHUNK).keys == local_keys

    with Graph.open(index, embedder=embedder) as g:  # type: ignore[arg-type]
        g.remove("jacquard")
    again = _agrag("sync", "--index", index, "--chroma", f"127.0.0.1:{port}")
    assert again.returncode == 0, again.stderr
    assert not any(i.startswith("jacquard@") for i in server.fingerprints("chunks"))

    proc.kill()
    proc.wait()
    dead = _agrag("search", "loom in Lyon", "--index", index, "--chroma", f"127.0.0.1:{port}")
    assert dead.returncode == 2 and "Traceback" not in dead.stderr
    assert f"cannot reach the Chroma server at http://127.0.0.1:{port}" in dead.stderr
    assert f"Start the server with `chroma run --host 127.0.0.1 --port {port}`" in dead.stderr


def test_sync_needs_an_index_and_an_address(tmp_path: Path) -> None:
    missing = _agrag("sync", "--index", tmp_path / "none", "--chroma", "127.0.0.1:1")
    assert missing.returncode == 2 and "holds no index yet (documents.sqlite missing): check the path" in missing.stderr
    assert not (tmp_path / "none").exists()
    bad = _agrag("sync", "--index", tmp_path, "--chroma", "localhost")
    assert bad.returncode == 2 and "must be HOST:PORT of a Chroma server, e.g. 127.0.0.1:8000" in bad.stderr


def test_a_server_that_is_down_names_its_address() -> None:
    port = free_port()
    with pytest.raises(VectorStoreError, match=f"Chroma server at http://127.0.0.1:{port}.*chroma run"):
        ChromaVectorStore.http("127.0.0.1", port)


def test_an_index_built_on_a_server_says_so_when_opened_without_it(
    chroma_server: tuple[subprocess.Popen[bytes], int], tmp_path: Path, embedder: object, small_docs: list[Document],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, port = chroma_server
    index = tmp_path / "ix"
    with Graph.open(index, embedder=embedder, vector_store=ChromaVectorStore.http("127.0.0.1", port)) as g:  # type: ignore[arg-type]
        g.ingest(small_docs)
    said = f"keeps its vectors in the Chroma server at 127.0.0.1:{port}: pass `--chroma 127.0.0.1:{port}`"
    start = f"`chroma run --host 127.0.0.1 --port {port} --path SERVER_DATA_DIR`"
    for read_only in (True, False):  # today: "the vector collection 'chunks' is missing ... repair"
        with pytest.raises(VectorStoreError) as caught:
            Graph.open(index, embedder=embedder, read_only=read_only)  # type: ignore[arg-type]
        assert said in str(caught.value) and start in str(caught.value), caught.value
        assert "repair" not in str(caught.value) and "missing" not in str(caught.value)
    assert cli.main(["search", "loom in Lyon", "--index", str(index)]) == 2
    err = capsys.readouterr().err
    assert said in err and start in err
    assert cli.main(["doctor", "--index", str(index)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL  vectors: the index {index} {said}" in out and start in out
    assert f"fix: `agrag-lab doctor --index {index} --chroma 127.0.0.1:{port}` checks the server's collections" in out
    assert not (index / "chroma").exists()  # nothing was made in the folder by any of these
    assert cli.main(["doctor", "--index", str(index), "--chroma", f"127.0.0.1:{port}"]) == 0, capsys.readouterr().out
    assert f"ok    vectors: Chroma server at http://127.0.0.1:{port}: chunks " in capsys.readouterr().out
    assert cli.main(["search", "loom in Lyon", "--index", str(index), "--chroma", f"127.0.0.1:{port}"]) == 0
    assert "jacquard@" in capsys.readouterr().out
