"""The embedding cache in ``documents.sqlite``: doctor finds what is wrong with it, repair fixes only that.

The faults are made in a real index's SQLite file the way a disk, an older
version or a second model leaves them: a truncated vector, a vector of the
wrong dimension, NaN values, a lost row, another model's rows, and a vector
no chunk has.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from agrag_lab import Graph, cli, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder, default_model_path
from agrag_lab.errors import ArgumentError
from agrag_lab.index.doctor import examine
from agrag_lab.storage.vectors import ChromaVectorStore

MODEL = "all-MiniLM-L6-v2"


def _rows(path: Path) -> dict[str, bytes]:
    with sqlite3.connect(path / "documents.sqlite") as conn:
        return dict(conn.execute("SELECT content_hash, vector FROM embeddings WHERE model=?", (MODEL,)).fetchall())


def _chunk_hashes(path: Path) -> list[str]:
    with sqlite3.connect(path / "documents.sqlite") as conn:
        return [r[0] for r in conn.execute("SELECT content_hash FROM chunks ORDER BY document_id, idx")]


def test_doctor_names_every_fault_of_the_cache_and_repair_embeds_only_the_broken_and_missing(
    tiny_index: Path, embedder: SentenceTransformerEmbedder, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _rows(tiny_index)
    truncated, narrow, nan, lost = _chunk_hashes(tiny_index)[:4]
    with sqlite3.connect(tiny_index / "documents.sqlite") as conn:
        put = "UPDATE embeddings SET vector=? WHERE model=? AND content_hash=?"
        conn.execute(put, (before[truncated][:-1], MODEL, truncated))
        conn.execute(put, (np.ones(256, dtype=np.float32).tobytes(), MODEL, narrow))
        conn.execute(put, (np.full(384, np.nan, dtype=np.float32).tobytes(), MODEL, nan))
        conn.execute("DELETE FROM embeddings WHERE model=? AND content_hash=?", (MODEL, lost))
        conn.executemany("INSERT INTO embeddings VALUES(?,?,?)",
                         [("paraphrase-MiniLM-L3-v2", h, v) for h, v in list(before.items())[:2]])
        conn.execute("INSERT INTO embeddings VALUES(?,?,?)", (MODEL, "0" * 64, before[lost]))

    # a native search reads the cache: its dense leg fails with the fix named, not with numpy's ValueError
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as ro:
        failed = ro.engine(native=True).run("Who worked with Babbage?", recipes.CHUNK).trace.failures()
    assert failed["chunk.dense"].startswith(f"IndexFormatError: 4 embeddings of the model '{MODEL}' are missing")
    assert f"or broken; `agrag-lab repair --index {tiny_index}` embeds them again (only those)" in failed["chunk.dense"]

    assert cli.main(["doctor", "--index", str(tiny_index)]) == 1
    out = capsys.readouterr().out
    fix = f"`agrag-lab repair --index {tiny_index}`"
    assert "FAIL  embedding cache: 3 cached vectors of 'all-MiniLM-L6-v2' are broken (" in out
    for why in ("1535 bytes, not whole float32 values", "256 values, not 384", "values that are not finite"):
        assert why in out
    assert f"fix: {fix} embeds again the 3 of them the index reads (only those) and deletes the other 0" in out
    assert "1 of the texts the index reads (current chunks, graph records) have no cached vector" in out
    assert f"fix: {fix} embeds these 1 (only these; the rest come from the cache)" in out
    assert "2 cached vectors are of other models than the index's 'all-MiniLM-L6-v2' " \
           "('paraphrase-MiniLM-L3-v2': 2); this index never reads them" in out
    assert "1 cached vectors belong to no stored chunk and no graph record" in out
    assert out.count(f"fix: {fix} deletes them") == 2

    assert cli.main(["repair", "--index", str(tiny_index)]) == 0
    said = capsys.readouterr().out
    assert "4 texts embedded (the rest from the embedding cache), 3 unused cached vectors deleted" in said
    report = examine(tiny_index)
    assert report.ok, str(report)
    after = _rows(tiny_index)
    assert set(after) == set(before)  # the orphan gone, the lost one back, nothing else changed
    for h in before:
        np.testing.assert_allclose(np.frombuffer(after[h], np.float32), np.frombuffer(before[h], np.float32), atol=1e-5)
    with sqlite3.connect(tiny_index / "documents.sqlite") as conn:
        assert conn.execute("SELECT DISTINCT model FROM embeddings").fetchall() == [(MODEL,)]
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as ro:
        assert ro.engine(native=True).run("Who worked with Babbage?", recipes.CHUNK).results


def test_an_index_opened_with_another_model_is_re_embedded_and_readers_are_told(
    tiny_index: Path, tmp_path: Path, embedder: SentenceTransformerEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    """The same weights under another name: a real second model as far as the cache key goes."""
    (tmp_path / "other-minilm").symlink_to(default_model_path())
    other = SentenceTransformerEmbedder(str(tmp_path / "other-minilm"))
    first = _chunk_hashes(tiny_index)[0]
    with Graph.open(tiny_index, embedder=other, read_only=True) as ro:
        run = ro.engine().run("Who worked with Babbage?", recipes.CHUNK)
    assert any("searched in another vector space than it was built in" in w and "'all-MiniLM-L6-v2'" in w
               for w in run.trace.warnings), run.trace.warnings
    # a chunk's vector in Chroma made stale behind the fingerprint's back: only a rewrite mends it
    store = ChromaVectorStore.local(str(tiny_index / "chroma"))
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as ro:
        ids, _, _, hashes = ro.chunk_records()
    chunk_id = ids[hashes.index(first)]
    fp = store.fingerprints("chunks")[chunk_id]
    store.upsert("chunks", [chunk_id], np.eye(1, 384, dtype=np.float32), [""], [{"fp": fp}])
    with caplog.at_level(logging.WARNING), Graph.open(tiny_index, embedder=other) as g:
        assert g.embedded_count == len(set(_chunk_hashes(tiny_index)))  # every chunk, under the new name
        own = g.embeddings([first])[0]
        assert g.vector_store.query("chunks", own, 1)[0] == (chunk_id, pytest.approx(1.0, abs=1e-4))
        assert g.engine().run("Who worked with Babbage?", recipes.CHUNK).trace.warnings == ()
    assert "its vectors were made by the model 'all-MiniLM-L6-v2', and it is opened with 'other-minilm'" in caplog.text
    found = examine(tiny_index)
    assert not found.ok
    assert any("of other models than the index's 'other-minilm' ('all-MiniLM-L6-v2':" in f.problem
               for f in found.findings)
    # the CLI's repair has the default model: it must not re-embed everything and delete the index's own vectors
    rows = {m: n for m, n in _models(tiny_index).items()}
    with pytest.raises(ArgumentError, match="A repair rebuilds from the cached vectors of the index's own model"):
        Graph.open(tiny_index, embedder=embedder, rebuild=True)
    assert _models(tiny_index) == rows
    with Graph.open(tiny_index, embedder=other, rebuild=True) as g:  # its own model: from the cache alone
        assert g.embedded_count == 0 and g.pruned_embeddings == rows[MODEL]
    assert set(_models(tiny_index)) == {"other-minilm"}


def _models(path: Path) -> dict[str, int]:
    with sqlite3.connect(path / "documents.sqlite") as conn:
        return dict(conn.execute("SELECT model, COUNT(*) FROM embeddings GROUP BY model").fetchall())
