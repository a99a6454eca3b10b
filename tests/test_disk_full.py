"""A full disk during any write is one clear line (exit 2), and the previous state is intact.

Issue 31, finding 7: ``ulimit -f`` during an ingest ended in a traceback, SQLite's
"cannot rollback - no transaction is active" hiding the disk error. The real CLI
runs in a subprocess with ``RLIMIT_FSIZE`` set (and ``SIGXFSZ`` ignored, so a write
past the limit fails with ``EFBIG`` instead of killing the process); the index is
made in-process with the session's model first.

What really happens: SQLite (ours and Chroma's) reports a write past the limit as
``SQLITE_IOERR_WRITE`` ("disk I/O error", Chroma's "code: 778"), never ``EFBIG``;
the message names the limit because the process has one. Linux refuses any write
at an offset past the limit, also inside a file already larger, so the limit is
chosen above every file the run must rewrite before the write under test (Chroma's
HNSW file, 167,600 bytes, is rewritten when the collection loads). Chroma's own
file holds every text, vector and a trigram index, so it is always larger than
the keyword and graph files: the keyword and graph write points are reached with
the vectors in a Chroma server (a real ``chroma run``; the limit is the CLI's own).
"""

from __future__ import annotations

import errno
import os
import random
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agrag_lab import Document, Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import DiskWriteError, StoreError, VectorStoreError
from agrag_lab.storage.disk import disk_write_error, write_failure
from agrag_lab.storage.vectors import ChromaVectorStore

ROOT = Path(__file__).resolve().parents[1]


def _limited(size: int | None) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return apply


def agrag(*args: str | Path, cwd: Path, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
           "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "agrag_lab.cli", *map(str, args)], capture_output=True, text=True, timeout=900,
        env=env, cwd=cwd, stdin=subprocess.DEVNULL, preexec_fn=_limited(limit),
    )


def _state(index: Path) -> tuple[int, list[tuple[str, str]]]:
    with sqlite3.connect(f"file:{index / 'documents.sqlite'}?mode=ro", uri=True) as conn:
        generation = int((conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone() or [0])[0])
        docs = conn.execute("SELECT id, current_version FROM documents ORDER BY id").fetchall()
    return generation, [(str(a), str(b)) for a, b in docs]


def _big_text(size: int, seed: int) -> str:
    rng = random.Random(seed)
    words = [f"{rng.choice('bcdfghklmnprstvz')}{rng.choice('aeiou')}{rng.choice('lmnrst')}{n}" for n in range(4000)]
    out, total = ["# A long report\n\n"], 0
    while total < size:
        sentence = " ".join(rng.choice(words) for _ in range(12)) + ".\n\n"
        out.append(sentence)
        total += len(sentence)
    return "".join(out)



ADA = Document("ada", "Ada", "# Ada\n\nAda Lovelace wrote Note G about the Analytical Engine.\n")
TINY = "# Tiny\n\nA tiny note on the Difference Engine.\n"


def _words(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3)) for _ in range(count)]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def chroma_port(tmp_path: Path) -> Iterator[int]:
    """A real Chroma server (``chroma run``) on a free loopback port, its data in this test's folder."""
    exe = Path(sys.executable).parent / "chroma"
    port = _free_port()
    proc = subprocess.Popen(
        [str(exe) if exe.exists() else (shutil.which("chroma") or "chroma"), "run", "--host", "127.0.0.1",
         "--port", str(port), "--path", str(tmp_path / "chroma-server")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 240  # its start imports chromadb: 33 s at load 15
        while True:
            try:
                ChromaVectorStore.http("127.0.0.1", port)
                break
            except VectorStoreError:
                assert proc.poll() is None, f"chroma run exited with {proc.returncode}"
                assert time.monotonic() < deadline, "chroma run did not answer within 240 s"
                time.sleep(0.5)
        yield port
    finally:
        proc.kill()
        proc.wait()


def _one_line(done: subprocess.CompletedProcess[str], command: str) -> str:
    """The run failed with exit 2 and said so in exactly one line, naming the file-size limit."""
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    assert "Traceback" not in done.stderr and "cannot rollback" not in done.stderr, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith(f"agrag-lab {command}:")]
    assert len(lines) == 1, done.stderr[-3000:]
    assert "size limit (ulimit -f)" in lines[0], lines[0]
    return lines[0]


def _answers(index: Path, embedder: SentenceTransformerEmbedder, port: int | None = None) -> dict[str, object]:
    """What a reader sees: vector and keyword counts, the graph's entities, and two searches' answers."""
    store = None if port is None else ChromaVectorStore.http("127.0.0.1", port)
    with Graph.open(index, embedder=embedder, read_only=True, vector_store=store) as graph:
        session = graph.evidence()
        return {
            "vectors": graph.collection_counts(),
            "keywords": {name: len(graph.keyword_index(name).ids) for name in ("chunks", "entities", "communities")},
            "entities": len(graph.graph_store.entities()),
            "hybrid top": session.discover("Note G Lovelace", mode="hybrid", limit=3).hits[0].location.document_id,
            "keyword": [h.location.document_id for h in session.discover("Difference Engine", mode="keyword").hits],
        }


def _same(after: dict[str, object], before: dict[str, object], *keys: str) -> None:
    assert {k: after[k] for k in keys} == {k: before[k] for k in keys}


def _completes(index: Path, embedder: SentenceTransformerEmbedder, port: int | None = None) -> None:
    """Nothing is lost: once the limit is gone, a writable open completes the sync and the new note is found."""
    store = None if port is None else ChromaVectorStore.http("127.0.0.1", port)
    with Graph.open(index, embedder=embedder, vector_store=store) as graph:
        assert not graph.index_warnings()
        hits = graph.evidence().discover("Difference Engine", mode="hybrid", limit=3).hits
        assert hits and hits[0].location.document_id == "tiny", [h.location.document_id for h in hits]


@pytest.mark.timeout(900)
def test_a_file_size_limit_during_the_document_commit_is_one_line_and_loses_nothing(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    with Graph.open(tmp_path / "ix", embedder=embedder) as graph:
        graph.ingest([ADA])
    before, answers = _state(tmp_path / "ix"), _answers(tmp_path / "ix", embedder)
    (tmp_path / "big.md").write_text(_big_text(400_000, 1), encoding="utf-8")  # stored twice: past the limit
    done = agrag("ingest", "big.md", "--index", "ix", "--chunk-size", "100000", cwd=tmp_path, limit=200 * 1024)
    line = _one_line(done, "ingest")
    assert "writing documents.sqlite" in line and "the index is as it was before" in line, line
    assert _state(tmp_path / "ix") == before
    assert _answers(tmp_path / "ix", embedder) == answers


@pytest.mark.timeout(900)
def test_a_file_size_limit_at_the_chroma_write_is_one_line_and_loses_nothing(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    with Graph.open(tmp_path / "ix", embedder=embedder) as graph:
        graph.ingest([ADA])
    assert (tmp_path / "ix" / "chroma" / "chroma.sqlite3").stat().st_size > 180 * 1024  # its new pages: past it
    answers = _answers(tmp_path / "ix", embedder)
    words = _words(4, 400)
    paragraphs = [" ".join(random.Random(n).choice(words) for _ in range(30)) + "." for n in range(12)]
    (tmp_path / "tiny.md").write_text(TINY + "\n\n".join(paragraphs) + "\n", encoding="utf-8")  # new Chroma pages
    done = agrag("ingest", "tiny.md", "--index", "ix", "--chunk-size", "200", cwd=tmp_path, limit=180 * 1024)
    line = _one_line(done, "ingest")
    assert "writing the vectors of the chunks (Chroma)" in line and "nothing stored before is lost" in line, line
    assert _answers(tmp_path / "ix", embedder) == answers
    _completes(tmp_path / "ix", embedder)


@pytest.mark.timeout(900)
def test_a_file_size_limit_at_the_keyword_write_is_one_line_and_loses_nothing(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, chroma_port: int
) -> None:
    rng, words = random.Random(2), _words(2, 20000)
    many = [Document(f"d{i}", f"Doc {i}", "# D\n\n" + " ".join(rng.choice(words) for _ in range(300)) + ".\n")
            for i in range(60)]
    store = ChromaVectorStore.http("127.0.0.1", chroma_port)
    with Graph.open(tmp_path / "ix", embedder=embedder, vector_store=store) as graph:
        graph.ingest([ADA, *many])
    vocab = tmp_path / "ix" / "keyword" / "chunks" / "bm25s" / "vocab.index.json"
    assert vocab.stat().st_size > 150 * 1024  # rewritten whole by every sync: past the limit
    keyword = {p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "ix" / "keyword").rglob("*") if p.is_file()}
    answers = _answers(tmp_path / "ix", embedder, chroma_port)
    (tmp_path / "tiny.md").write_text(TINY, encoding="utf-8")
    done = agrag("ingest", "tiny.md", "--index", "ix", "--chroma", f"127.0.0.1:{chroma_port}", cwd=tmp_path,
                 limit=128 * 1024)
    line = _one_line(done, "ingest")
    assert "writing the keyword index of the chunks (bm25s)" in line and "nothing stored before is lost" in line, line
    after = {p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "ix" / "keyword").rglob("*") if p.is_file()}
    assert after == keyword  # no half-written copy left beside it either
    # the vectors of "tiny" went in before the keyword write: everything else answers as before
    _same(_answers(tmp_path / "ix", embedder, chroma_port), answers, "keywords", "entities", "hybrid top", "keyword")
    _completes(tmp_path / "ix", embedder, chroma_port)


@pytest.mark.timeout(900)
def test_a_file_size_limit_at_the_graph_write_is_one_line_and_loses_nothing(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, chroma_port: int
) -> None:
    rng, words = random.Random(3), _words(3, 20000)
    entities = [{"name": f"Thing {i}", "label": "concept", "description": " ".join(rng.choice(words) for _ in range(30))}
                for i in range(1200)]
    facts = Document("facts", "Facts", "# Facts\n\nThing 1 and Thing 2 are facts.\n", metadata={"entities": entities})
    store = ChromaVectorStore.http("127.0.0.1", chroma_port)
    with Graph.open(tmp_path / "ix", embedder=embedder, vector_store=store) as graph:
        graph.ingest([ADA, facts])
    graph_file = tmp_path / "ix" / "graph.json.gz"
    assert graph_file.stat().st_size > 140 * 1024  # rewritten whole by every sync: past the limit
    saved, answers = graph_file.read_bytes(), _answers(tmp_path / "ix", embedder, chroma_port)
    (tmp_path / "tiny.md").write_text(TINY, encoding="utf-8")
    done = agrag("ingest", "tiny.md", "--index", "ix", "--chroma", f"127.0.0.1:{chroma_port}", cwd=tmp_path,
                 limit=128 * 1024)
    line = _one_line(done, "ingest")
    assert "writing the graph file graph.json.gz" in line and "nothing stored before is lost" in line, line
    assert graph_file.read_bytes() == saved
    assert not [p for p in graph_file.parent.iterdir() if p.name.endswith(".tmp")]
    # the chunks' vectors and keywords went in before the graph write: the graph and its records answer as before
    after = _answers(tmp_path / "ix", embedder, chroma_port)
    _same(after, answers, "entities", "hybrid top")
    assert {k: v for k, v in after["keywords"].items() if k != "chunks"} == {  # type: ignore[attr-defined]
        k: v for k, v in answers["keywords"].items() if k != "chunks"}  # type: ignore[attr-defined]
    _completes(tmp_path / "ix", embedder, chroma_port)


def test_write_failures_are_told_apart_from_other_errors() -> None:
    assert write_failure(OSError(errno.EFBIG, "File too large")) is not None
    assert write_failure(sqlite3.OperationalError("disk I/O error"), size_limit=None) == (
        "the device reported an I/O error (disk I/O error)"
    )
    limited = write_failure(sqlite3.OperationalError("disk I/O error"), size_limit=1 << 20)
    assert limited is not None and "size limit (ulimit -f) of this process, 1,048,576 bytes" in limited
    wrapped = RuntimeError("chroma failed")
    wrapped.__cause__ = sqlite3.OperationalError("database or disk is full")
    error = disk_write_error(wrapped, "the vectors")
    assert isinstance(error, DiskWriteError) and isinstance(error, StoreError)
    assert str(error).startswith("writing the vectors failed: the disk is full")
    assert write_failure(sqlite3.OperationalError("no such table: x")) is None
