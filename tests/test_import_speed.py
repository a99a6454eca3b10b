"""The read-and-write baseline of ``make bench-import`` writes what the import wrote, into the same stores, so
that import ÷ read and write measures our import logic only (``benchmarks/import_speed.py``)."""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

import chromadb
from chromadb.config import Settings

from agrag_lab.embedding import SentenceTransformerEmbedder
from benchmarks.import_speed import Source, import_once, write_rows, written_rows

LIGHTRAG = Path(__file__).resolve().parent / "fixtures" / "peers" / "lightrag_vectors"


def _tables(path: Path) -> dict[str, int]:
    with sqlite3.connect(path / "documents.sqlite") as conn:
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
        return {n: conn.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0] for n in names}


def _collections(path: Path) -> dict[str, int]:
    client = chromadb.PersistentClient(path=str(path / "chroma"), settings=Settings(anonymized_telemetry=False))
    return {c.name: c.count() for c in client.list_collections()}


def test_the_baseline_writes_the_rows_the_import_wrote(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> None:
    source = Source.parse(f"lightrag:embed={LIGHTRAG}")
    corpora: dict[str, list[str]] = {}
    report = import_once(source, embedder, tmp_path / "import", lambda name, texts: corpora.__setitem__(name, list(texts)))
    written = written_rows(tmp_path / "import", corpora)
    write_rows(written, tmp_path / "baseline")
    assert _tables(tmp_path / "baseline") == _tables(tmp_path / "import")
    assert _collections(tmp_path / "baseline") == _collections(tmp_path / "import")
    assert sum(_collections(tmp_path / "import").values()) > 0 and report.chunks == len(corpora["chunks"]) == 8
    assert sorted(corpora) == ["chunks", "communities", "entities"]
    for name, texts in corpora.items():
        assert (tmp_path / "baseline" / "keyword" / name).is_dir() == bool(texts)
    assert gzip.decompress((tmp_path / "baseline" / "graph.json.gz").read_bytes()) == \
        gzip.decompress((tmp_path / "import" / "graph.json.gz").read_bytes())
