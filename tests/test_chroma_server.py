"""The server path: vectors in a real ``chroma run`` server, nothing else changes."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agrag_lab import Document, Graph
from agrag_lab.errors import VectorStoreError
from agrag_lab.storage.vectors import ChromaVectorStore


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _chroma() -> str:
    exe = Path(sys.executable).parent / "chroma"
    return str(exe) if exe.exists() else (shutil.which("chroma") or "chroma")


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = _free_port()
    proc = subprocess.Popen(
        [_chroma(), "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(tmp_path / "server")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            ChromaVectorStore.http("127.0.0.1", port)
            break
        except VectorStoreError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("chroma run did not start within 60 s")
    yield proc, port
    proc.kill()
    proc.wait()


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
        from agrag_lab.recipes import CHUNK

        assert served.run("loom in Lyon", CHUNK).keys == native.run("loom in Lyon", CHUNK).keys
        proc.kill()
        proc.wait()
        with pytest.raises(VectorStoreError, match=f"127.0.0.1:{port}"):
            store.query("chunks", vector, 3)


def test_a_server_that_is_down_names_its_address() -> None:
    port = _free_port()
    with pytest.raises(VectorStoreError, match=f"Chroma server at http://127.0.0.1:{port}.*chroma run"):
        ChromaVectorStore.http("127.0.0.1", port)
