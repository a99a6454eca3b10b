"""A full disk during an ingest is one clear line (exit 2), and the index is as it was before.

Issue 31, finding 7: ``ulimit -f`` during an ingest ended in a traceback, SQLite's
"cannot rollback - no transaction is active" hiding the disk error. The real CLI
runs in a subprocess with ``RLIMIT_FSIZE`` set (and ``SIGXFSZ`` ignored, so a write
past the limit fails with ``EFBIG`` instead of killing the process); the index is
made in-process with the session's model first.
"""

from __future__ import annotations

import errno
import os
import random
import resource
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agrag_lab import Document, Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import DiskWriteError, StoreError
from agrag_lab.storage.disk import disk_write_error, write_failure

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


@pytest.mark.xfail(reason="issue 31 finding 7 is open: this end-to-end run under RLIMIT_FSIZE has not yet passed on any machine (the classifier below has); see the issue note", strict=False)
@pytest.mark.timeout(1800)
def test_a_file_size_limit_during_the_document_commit_is_one_line_and_loses_nothing(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    small = Document("ada", "Ada", "# Ada\n\nAda Lovelace wrote Note G.\n")
    with Graph.open(tmp_path / "ix", embedder=embedder) as graph:
        graph.ingest([small])
    before = _state(tmp_path / "ix")
    (tmp_path / "big.md").write_text(_big_text(3_000_000, 1), encoding="utf-8")
    done = agrag("ingest", "big.md", "--index", "ix", "--chunk-size", "100000", cwd=tmp_path, limit=512 * 1024)
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    assert "Traceback" not in done.stderr and "cannot rollback" not in done.stderr, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("agrag-lab ingest:")]
    assert len(lines) == 1, done.stderr[-3000:]
    assert "size limit (ulimit -f)" in lines[0] and "the index is as it was before" in lines[0], lines[0]
    assert _state(tmp_path / "ix") == before
    with Graph.open(tmp_path / "ix", embedder=embedder, read_only=True) as graph:
        hits = graph.evidence().discover("Note G", mode="hybrid", limit=3).hits
        assert hits and hits[0].location.document_id == "ada"


def test_write_failures_are_told_apart_from_other_errors() -> None:
    assert write_failure(OSError(errno.EFBIG, "File too large")) is not None
    assert write_failure(sqlite3.OperationalError("disk I/O error")) == (
        "the device reported an I/O error (disk I/O error)"
    )
    wrapped = RuntimeError("chroma failed")
    wrapped.__cause__ = sqlite3.OperationalError("database or disk is full")
    error = disk_write_error(wrapped, "the vectors")
    assert isinstance(error, DiskWriteError) and isinstance(error, StoreError)
    assert str(error).startswith("writing the vectors failed: the disk is full")
    assert write_failure(sqlite3.OperationalError("no such table: x")) is None
