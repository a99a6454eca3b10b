"""Issue 19 items 2-4: the folder knows its own shape, corrupt files are errors, lost stores are found.

Fixtures damage a private copy of a real tiny index the way an operator
would: an empty or missing ``documents.sqlite``, garbage in a SQLite file,
garbled HNSW files, a deleted ``graph.json.gz`` / ``keyword/`` / collection.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from agrag_lab import Graph, cli, recipes
from agrag_lab.errors import IndexFormatError, VectorStoreError
from agrag_lab.index.doctor import examine
from agrag_lab.storage.chroma_check import check_chroma_folder, persisted_segments
from agrag_lab.storage.vectors import ChromaVectorStore

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
       "PYTHONPATH": str(ROOT)}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agrag_lab.cli", *args], capture_output=True, text=True, env=ENV, cwd=ROOT,
        timeout=600, check=False,
    )


def _keyword_ids(path: Path, name: str) -> list[str]:
    ids: list[str] = json.loads((path / "keyword" / name / "ids.json").read_text())
    return ids


def _garble(path: Path) -> None:
    path.write_bytes(b"\xff" * path.stat().st_size)


# -- item 2: the folder knows its own shape ---------------------------------------------------------


@pytest.mark.parametrize("damage", ["empty", "missing"])
def test_a_lost_documents_sqlite_is_refused_never_a_silent_wipe(
    tiny_index: Path, tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    chunks, graph_bytes = _keyword_ids(tiny_index, "chunks"), (tiny_index / "graph.json.gz").stat().st_size
    db = tiny_index / "documents.sqlite"
    if damage == "empty":
        db.write_bytes(b"")
    else:
        db.unlink()
    doc = tmp_path / "one.md"
    doc.write_text("# One\n\nCharles Babbage.\n")
    assert cli.main(["ingest", str(doc), "--index", str(tiny_index)]) == 2  # today: rc 0 and 3 -> 1 chunks
    err = capsys.readouterr().err
    assert f"documents.sqlite is {damage}, but the folder holds derived stores with records" in err
    assert "agrag-lab repair --index" in err and "use a new folder" in err
    assert _keyword_ids(tiny_index, "chunks") == chunks
    assert (tiny_index / "graph.json.gz").stat().st_size == graph_bytes
    with pytest.raises(IndexFormatError, match=f"documents.sqlite is {damage}"):
        Graph.open(tiny_index, read_only=True)


def test_a_corrupt_documents_sqlite_is_a_clear_error(tiny_index: Path, embedder: object) -> None:
    (tiny_index / "documents.sqlite").write_bytes(os.urandom(8192))
    for read_only in (True, False):
        with pytest.raises(IndexFormatError, match=r"is not a readable SQLite database.*source of truth"):
            Graph.open(tiny_index, embedder=embedder, read_only=read_only)  # type: ignore[arg-type]
    done = _cli("search", "Babbage", "--index", str(tiny_index))
    assert done.returncode == 2 and "Traceback" not in done.stderr


# -- item 3: corrupt Chroma files are an error, never a SIGSEGV --------------------------------------


@contextlib.contextmanager
def _reading_chroma() -> Iterator[None]:
    """Read-only opens in this process read Chroma, as those of an index above the cached search's size do."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("agrag_lab.index.opening.CACHED_SEARCH_LIMIT", -1)
        yield


def test_a_garbage_chroma_sqlite3_is_an_error_and_a_writable_open_rebuilds_it(
    tiny_index: Path, embedder: object
) -> None:
    (tiny_index / "chroma" / "chroma.sqlite3").write_bytes(os.urandom(50_000))
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as cached:  # type: ignore[arg-type]
        assert cached.engine().run("Who worked with Babbage?", recipes.CHUNK).results  # reads no Chroma
    with _reading_chroma(), pytest.raises(VectorStoreError, match=f"cannot be opened.*repair --index {tiny_index}"):
        Graph.open(tiny_index, embedder=embedder, read_only=True)  # type: ignore[arg-type]
    with Graph.open(tiny_index, embedder=embedder) as g:  # type: ignore[arg-type]
        assert g.collection_counts()["chunks"] == len(_keyword_ids(tiny_index, "chunks"))
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as ro:  # type: ignore[arg-type]
        assert ro.engine().run("Who worked with Babbage?", recipes.CHUNK).results


@pytest.fixture
def persisted_chroma(tiny_index: Path) -> Path:
    """The tiny index with a 1,100-record collection: past Chroma's sync_threshold, its HNSW is read from disk."""
    store = ChromaVectorStore.local(str(tiny_index / "chroma"))
    n = 1100
    vectors = np.random.default_rng(0).random((n, 384), dtype=np.float32)
    for i in range(0, n, 1000):  # in Chroma's batches of 1,000, as a growing index writes them
        rows = slice(i, min(n, i + 1000))
        ids = [f"f{j}" for j in range(n)][rows]
        store.upsert("filler", ids, vectors[rows], ["x"] * len(ids), [{"fp": "x"}] * len(ids))
    (segment,) = persisted_segments(tiny_index / "chroma")
    return segment


def test_garbled_hnsw_files_are_an_error_never_a_segfault(tiny_index: Path, persisted_chroma: Path) -> None:
    _garble(persisted_chroma / "data_level0.bin")
    # what Chroma's native library does to a process that reads these files: it dies by a signal
    reader = (
        "import sys, numpy as np, chromadb\n"
        "c = chromadb.PersistentClient(path=sys.argv[1])\n"
        "x = c.get_collection('filler'); x.count()\n"
        "x.query(query_embeddings=[np.full(384, 0.5, dtype=np.float32)], n_results=1)\n"
    )
    crashed = subprocess.run([sys.executable, "-c", reader, str(tiny_index / "chroma")], env=ENV, timeout=300,
                             capture_output=True, check=False)
    assert crashed.returncode == -signal.SIGSEGV
    assert check_chroma_folder(tiny_index / "chroma") == "Chroma's native library crashed reading it (SIGSEGV)"
    done = _cli("search", "Babbage", "--index", str(tiny_index))
    assert done.returncode == 0 and "Babbage" in done.stdout, done.stderr  # a read-only search reads no Chroma
    with _reading_chroma(), pytest.raises(VectorStoreError, match=f"the Chroma files in .* are damaged.*"
                                                                  f"agrag-lab repair --index {tiny_index}"):
        Graph.open(tiny_index, read_only=True)  # an error, and this process is alive to say it
    assert cli.main(["repair", "--index", str(tiny_index)]) == 0  # in this process: the check runs in a child
    with Graph.open(tiny_index, read_only=True) as ro:
        assert ro.engine().run("Who worked with Babbage?", recipes.HYBRID).results


def test_a_sound_folder_is_checked_once_then_trusted_until_it_changes(tiny_index: Path, persisted_chroma: Path) -> None:
    assert check_chroma_folder(tiny_index / "chroma") is None  # checked in a child, verdict cached
    assert (tiny_index / "chroma-check.json").exists()
    _garble(persisted_chroma / "header.bin")  # changes the files: the cached verdict no longer applies
    assert check_chroma_folder(tiny_index / "chroma") is not None


# -- item 4: a lost derived store is detected ---------------------------------------------------------


def _lose(path: Path, part: str) -> None:
    if part == "graph.json.gz":
        (path / "graph.json.gz").unlink()
    elif part == "keyword":
        for name in ("chunks", "entities", "communities"):
            (path / "keyword" / name / "ids.json").unlink()
    else:
        ChromaVectorStore.local(str(path / "chroma")).drop("entities")


@pytest.mark.parametrize(
    ("part", "message"),
    [
        ("graph.json.gz", "graph.json.gz is missing"),
        ("keyword", "keyword/chunks is missing"),
        ("collection", "the vector collection 'entities' is missing"),
    ],
)
def test_a_lost_derived_store_is_reported_read_only_and_rebuilt_writable(
    tiny_index: Path, embedder: object, part: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    chunks, entities = _keyword_ids(tiny_index, "chunks"), _keyword_ids(tiny_index, "entities")
    _lose(tiny_index, part)
    # a lost Chroma collection matters to the readers of Chroma, not to those of the cached embeddings
    with _reading_chroma() if part == "collection" else contextlib.nullcontext():
        with pytest.raises(IndexFormatError, match=f"{message}.*agrag-lab repair --index {tiny_index}"):
            Graph.open(tiny_index, embedder=embedder, read_only=True)  # type: ignore[arg-type]
        # today: `graph` says "0 entities" with rc 0, search dies with KeyError or answers from vectors only
        assert cli.main(["graph", "--index", str(tiny_index)]) == 2
        assert message in capsys.readouterr().err
    with Graph.open(tiny_index, embedder=embedder) as g:  # type: ignore[arg-type]  # rebuilds it
        records = g.graph_store.records("entities")  # those one chunk's vector hosts have no copy of their own
        assert g.collection_counts()["entities"] == len(records.stored().ids) == len(entities) - len(records.hosted())
    assert _keyword_ids(tiny_index, "chunks") == chunks and _keyword_ids(tiny_index, "entities") == entities
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as ro:  # type: ignore[arg-type]
        run = ro.engine().run("Who worked with Babbage?", recipes.HYBRID)
        assert {m.name for m in run.trace.methods if m.ok} == set(recipes.HYBRID.methods)
        assert run.trace.warnings == ()


def test_the_truncated_graph_message_names_the_command_that_rebuilds_it(tiny_index: Path, embedder: object) -> None:
    graph = tiny_index / "graph.json.gz"
    graph.write_bytes(graph.read_bytes()[:500])
    with pytest.raises(IndexFormatError, match=f"graph.json.gz is truncated.*agrag-lab repair --index {tiny_index}"):
        Graph.open(tiny_index, embedder=embedder, read_only=True)  # type: ignore[arg-type]


def test_doctor_names_every_problem_and_repair_rebuilds_from_the_documents(
    tiny_index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sqlite3.connect(tiny_index / "documents.sqlite") as conn:
        documents = conn.execute("SELECT * FROM documents ORDER BY id").fetchall()
        embedded = conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    entities = _keyword_ids(tiny_index, "entities")
    (tiny_index / "graph.json.gz").write_bytes(b"\x1f\x8b\x08\x00")
    (tiny_index / "keyword" / "communities" / "ids.json").unlink()
    ChromaVectorStore.local(str(tiny_index / "chroma")).drop("chunks")
    assert cli.main(["doctor", "--index", str(tiny_index)]) == 1
    out = capsys.readouterr().out
    for problem in ("graph.json.gz is truncated", "keyword/communities is missing",
                    "the vector collection 'chunks' is missing"):
        assert f"FAIL  derived stores: {problem}\n      fix: `agrag-lab repair --index {tiny_index}`" in out
    assert cli.main(["repair", "--index", str(tiny_index)]) == 0
    assert "rebuilt from documents.sqlite" in capsys.readouterr().out
    report = examine(tiny_index)
    assert report.ok, str(report)
    assert _keyword_ids(tiny_index, "entities") == entities
    with sqlite3.connect(tiny_index / "documents.sqlite") as conn:
        assert conn.execute("SELECT * FROM documents ORDER BY id").fetchall() == documents  # never touched
        assert conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0] == embedded  # all from the cache


def test_doctor_of_a_file_says_it_is_not_an_index_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n")
    assert cli.main(["doctor", "--index", str(notes)]) == 1  # was: "notes.md/documents.sqlite is not a readable SQLite"
    out = capsys.readouterr().out
    assert f"FAIL  index folder: {notes} is a file, not an index folder; choose another path" in out
    assert "SQLite" not in out and "repair" not in out


def test_a_new_folder_is_complete_without_writing_stores_that_hold_nothing(tmp_path: Path, embedder: object) -> None:
    """A new folder holds nothing committed: its open creates the empty collections and records the derived
    generation, and writes no keyword index or graph file (the first write's sync does, once). It is searchable
    at once, a reader finds it complete, the doctor finds nothing but the missing documents, and the first
    ingest is found by every reader."""
    from agrag_lab.documents import Document

    path = tmp_path / "index"
    with Graph.open(path, embedder=embedder) as graph:  # type: ignore[arg-type]
        assert not (path / "graph.json.gz").exists() and not (path / "keyword").exists()
        run = graph.engine().run("Ada Lovelace", recipes.HYBRID)
        assert not run.results and not run.trace.warnings and not run.trace.failures()
    with Graph.open(path, embedder=embedder, read_only=True) as graph:  # type: ignore[arg-type]
        run = graph.engine().run("Ada Lovelace", recipes.HYBRID)
        assert not run.results and not run.trace.warnings and not run.trace.failures()
    problems = [f for f in examine(path).findings if not f.ok]
    assert [f.part for f in problems] == ["documents"], [str(f) for f in problems]  # no document yet, nothing else
    with Graph.open(path, embedder=embedder) as graph:  # type: ignore[arg-type]
        graph.ingest([Document("ada", "Ada", "Ada Lovelace wrote Note G on the Analytical Engine.")])
    assert (path / "graph.json.gz").exists() and (path / "keyword" / "chunks").is_dir()
    with Graph.open(path, embedder=embedder, read_only=True) as graph:  # type: ignore[arg-type]
        run = graph.engine().run("Ada Lovelace", recipes.HYBRID)
        assert "ada@" in " ".join(r.id for r in run.results) and not run.trace.warnings
    assert examine(path).ok
