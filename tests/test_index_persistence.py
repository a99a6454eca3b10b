"""Persistence across processes, the writer lock, and an ingest killed half-way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
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
    # the child dies by SIGKILL when its second batch of chunk embeddings starts: the first batch of the
    # new chunks is committed (a named progress step, as tests/index/test_index_crashes.py; no polling)
    killed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(
            """
            import os, signal, sys
            from agrag_lab import Graph
            from agrag_lab.datasets import musique

            def progress(items, total, description):
                if description != "embedding chunks":
                    return items
                def batches():
                    for n, item in enumerate(items):
                        if n == 1:
                            os.kill(os.getpid(), signal.SIGKILL)
                        yield item
                return batches()

            docs = list(musique().documents[:200])
            with Graph.open(sys.argv[1]) as g:
                g.ingest(docs, progress=progress)
            """
        ), str(path)],
        env={**os.environ, "HF_HUB_OFFLINE": "1"}, cwd=ROOT, capture_output=True, text=True, timeout=600,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    with Graph.open(path, embedder=embedder, read_only=True) as ro:  # type: ignore[arg-type]
        assert ro.stats() == before
        assert [k for k, _ in ro.keyword_index("chunks").search(docs[3].title, 3)] == before_hits
    with Graph.open(path, embedder=embedder) as g:  # type: ignore[arg-type]
        report = g.ingest(docs)
        assert report.new == 180 and report.embedded < report.chunks  # work kept from the killed run
        assert g.stats()["documents"] == 200
        assert len(g.vector_store.fingerprints("chunks")) == g.stats()["chunks"]
