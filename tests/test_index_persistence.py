"""Persistence across processes, the writer lock, and an ingest killed half-way."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agrag_lab import Document, Graph
from agrag_lab.datasets import musique
from agrag_lab.errors import IndexLockedError

ROOT = Path(__file__).resolve().parent.parent


def _python(code: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True, env=env,
        cwd=ROOT, check=check, timeout=600,
    )


def test_a_new_process_sees_the_same_state(index: Graph, small_docs: list[Document]) -> None:
    index.ingest(small_docs)
    expected = index.stats()
    hits = [k for k, _ in index.keyword_index("chunks").search("loom", 5)]
    path = index.path
    index.close()
    out = _python(
        """
        import json, sys
        from agrag_lab import Graph
        with Graph.open(sys.argv[1], read_only=True) as g:
            print(json.dumps([g.stats(), [k for k, _ in g.keyword_index("chunks").search("loom", 5)]]))
        """,
        str(path),
    )
    stats, other_hits = json.loads(out.stdout.strip().splitlines()[-1])
    assert stats == expected and other_hits == hits


def test_a_second_writer_gets_a_clear_error(index: Graph) -> None:
    out = _python(
        """
        import sys
        from agrag_lab import Graph
        from agrag_lab.errors import IndexLockedError
        try:
            Graph.open(sys.argv[1])
        except IndexLockedError as exc:
            print("LOCKED", exc)
        """,
        str(index.path),
    )
    assert "LOCKED" in out.stdout and "open for writing in another process" in out.stdout
    with pytest.raises(IndexLockedError):
        Graph.open(index.path)


def test_an_ingest_killed_midway_keeps_the_old_state_and_a_rerun_completes(tmp_path: Path, embedder: object) -> None:
    docs = list(musique().documents[:200])
    path = tmp_path / "ix"
    with Graph.open(path, embedder=embedder) as g:  # type: ignore[arg-type]
        g.ingest(docs[:20])
        before = g.stats()
        before_hits = [k for k, _ in g.keyword_index("chunks").search(docs[3].title, 3)]
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(
            """
            import sys
            from agrag_lab import Graph
            from agrag_lab.datasets import musique
            docs = list(musique().documents[:200])
            with Graph.open(sys.argv[1]) as g:
                g.ingest(docs)
            """
        ), str(path)],
        env={**os.environ, "HF_HUB_OFFLINE": "1"}, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    db = path / "documents.sqlite"
    with sqlite3.connect(db) as conn:
        baseline = conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    deadline = time.time() + 300
    embedded = 0
    while time.time() < deadline and proc.poll() is None:
        with sqlite3.connect(db) as conn:
            embedded = conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        if embedded > baseline:  # a first batch of the new chunks is committed
            break
        time.sleep(0.2)
    assert proc.poll() is None, "the ingest finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Graph.open(path, embedder=embedder, read_only=True) as ro:  # type: ignore[arg-type]
        assert ro.stats() == before
        assert [k for k, _ in ro.keyword_index("chunks").search(docs[3].title, 3)] == before_hits
    with Graph.open(path, embedder=embedder) as g:  # type: ignore[arg-type]
        report = g.ingest(docs)
        assert report.new == 180 and report.embedded < report.chunks  # work kept from the killed run
        assert g.stats()["documents"] == 200
        assert len(g.vector_store.fingerprints("chunks")) == g.stats()["chunks"]
