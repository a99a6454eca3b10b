"""Build cost and index size (issues 2 and 20): the whole MuSiQue build against a plain dense index.

The baseline is what a user compares us with: the same model, at the same batch
size, encoding the passage texts alone, longest first (``raw encode``). It is
measured twice, right before and right after the build, in the same process,
and the build is divided by their mean, so that a change of load on the shared
machine during the run moves both sides alike.

The index folder is measured part by part (:func:`folder_parts`): SQLite by
table, Chroma's SQLite and its HNSW segments, the graph file, the bm25s
indexes, against the bytes of the passage texts (UTF-8).

Run alone: ``python -m benchmarks.ingest --index-root /tmp/bench``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agrag_lab import Graph
from agrag_lab.datasets import musique
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.index.records import GRAPH_COLLECTIONS

TITLE = "Ingestion: build cost and index size (issues 2 and 20)"
Section = tuple[str, list[str]]


def _bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def sqlite_tables(path: Path) -> dict[str, int]:
    """Bytes of each table of a SQLite file, its indexes counted with it (``dbstat``)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_schema WHERE type='table'")}
        owner = dict(conn.execute("SELECT name, tbl_name FROM sqlite_schema"))
        out: dict[str, int] = {}
        for name, size in conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
            table = owner.get(name, name)
            if table not in tables:  # an FTS shadow table, or a table-less page
                table = next((t for t in tables if name.startswith(t)), name)
            out[table] = out.get(table, 0) + int(size)
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))
    finally:
        conn.close()


def folder_parts(path: Path) -> dict[str, int]:
    """Bytes of each part of an index folder, largest first; the parts add up to the folder."""
    parts: dict[str, int] = {}
    db = path / "documents.sqlite"
    if db.exists():
        tables = sqlite_tables(db)
        for table, size in tables.items():
            parts[f"documents.sqlite: {table}"] = size
        rest = _bytes(db) - sum(tables.values())
        wal = sum(_bytes(p) for p in path.glob("documents.sqlite-*"))
        parts["documents.sqlite: free pages, WAL"] = rest + wal
    chroma = path / "chroma"
    if chroma.exists():
        names = _collection_segments(chroma / "chroma.sqlite3")
        for sub in sorted(p for p in chroma.iterdir() if p.is_dir()):
            parts[f"chroma: HNSW of {names.get(sub.name, sub.name)}"] = _bytes(sub)
        for f in chroma.iterdir():
            if f.is_file():
                parts[f"chroma: {f.name}"] = _bytes(f)
    for f in sorted(path.iterdir()):
        if f.is_file() and not f.name.startswith("documents.sqlite") and f.name != "write.lock":
            parts[f.name] = _bytes(f)
    keyword = path / "keyword"
    if keyword.exists():
        for sub in sorted(keyword.iterdir()):
            parts[f"keyword: {sub.name}"] = _bytes(sub)
    return dict(sorted(parts.items(), key=lambda kv: -kv[1]))


def _collection_segments(chroma_db: Path) -> dict[str, str]:
    """Chroma segment folder -> collection name (its vector segments)."""
    if not chroma_db.exists():
        return {}
    conn = sqlite3.connect(f"file:{chroma_db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT s.id, c.name FROM segments s JOIN collections c ON c.id = s.collection"
        ).fetchall()
    except sqlite3.Error:
        return {}
    finally:
        conn.close()
    return {str(seg): str(name) for seg, name in rows}


def raw_encode(embedder: SentenceTransformerEmbedder, texts: Sequence[str]) -> float:
    """Seconds a plain dense index spends embedding ``texts``: the same model and batch size, longest first."""
    ordered = sorted(texts, key=len, reverse=True)
    start = time.perf_counter()
    embedder.embed(ordered)
    return time.perf_counter() - start


def bench_ingest(root: Path, embedder: SentenceTransformerEmbedder) -> tuple[Section, Graph]:
    """The whole MuSiQue build against raw encode of its passages, and the folder's bytes by part."""
    docs = musique().documents
    passages = [d.text for d in docs]
    corpus = sum(len(t.encode("utf-8")) for t in passages)
    path = root / "musique"
    if path.exists():
        shutil.rmtree(path)
    load = os.getloadavg()[0]
    before = raw_encode(embedder, passages)
    graph = Graph.open(path, embedder=embedder)
    start = time.perf_counter()
    report = graph.ingest(docs)
    build_s = time.perf_counter() - start
    after = raw_encode(embedder, passages)
    load = (load + os.getloadavg()[0]) / 2
    raw_s = (before + after) / 2
    chunk_texts = list(graph.chunk_records()[1])
    records = graph.graph_store.records
    graph_records = sum(len(records(n).ids) for n in GRAPH_COLLECTIONS)
    embedded_records = [t for n in GRAPH_COLLECTIONS for _, t in records(n).embedded()]
    stored = sum(graph.collection_counts()[n] or 0 for n in GRAPH_COLLECTIONS)
    start = time.perf_counter()
    again = graph.ingest(docs)
    reingest_s = time.perf_counter() - start
    graph.close()  # the folder as a user leaves it (WAL checkpointed)
    parts = folder_parts(path)
    graph = Graph.open(path, embedder=embedder)
    total = sum(parts.values())
    lines = [
        f"MuSiQue corpus: {len(docs)} passages ({corpus / 1e6:.2f} MB of text) -> {report.chunks} chunks; the "
        f"knowledge graph adds {graph_records} entity, relation-facet and report records, "
        f"{len(embedded_records)} of them embedded from their own text (the others take the mean vector of "
        "their supporting chunks, `agrag_lab/index/records.py`).",
        "",
        f"The machine's load average (1 min) over the run: {load:.1f} on {os.cpu_count()} cores; both sides of "
        "each ratio were measured under it.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| whole index build (chunk, embed, Chroma, bm25s, extract, graph, Leiden, reports, graph records) "
        f"| {build_s:.1f} s |",
        f"| raw encode of the passage texts alone (same model, batch {embedder.batch_size}, longest first), "
        f"before / after the build | {before:.1f} s / {after:.1f} s |",
        f"| **whole build / raw encode of the passages** (target <= 1.5) | **{build_s / raw_s:.2f}** |",
        f"| texts the build embeds | {len(chunk_texts)} chunk texts (title and headings first), "
        f"{len(embedded_records)} graph records |",
        f"| graph records with a vector of their own in Chroma | {stored} of {graph_records} (the others are "
        "exactly one chunk's vector: found through that chunk, `agrag_lab/index/vectors.py`) |",
        f"| re-ingest of the unchanged corpus | {reingest_s:.2f} s ({again.unchanged} unchanged, {again.embedded} embedded) |",
        f"| **re-ingest / first ingest** (target < 5%) | **{reingest_s / build_s:.1%}** |",
        f"| **index folder bytes / corpus text bytes** (target <= 40) | **{total / corpus:.1f}** "
        f"({total / 1e6:.1f} MB) |",
        "",
        "Where the bytes are (after the build; MB, share of the folder):",
        "",
        "| part | MB | share |",
        "|---|---|---|",
        *(f"| {name} | {size / 1e6:.2f} | {size / total:.0%} |" for name, size in parts.items() if size >= 10_000),
        f"| (parts under 10 kB) | {sum(s for s in parts.values() if s < 10_000) / 1e6:.2f} | |",
    ]
    return (TITLE, lines), graph


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--index-root", default=".agrag/bench")
    args = parser.parse_args(argv)
    root = Path(args.index_root)
    root.mkdir(parents=True, exist_ok=True)
    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    (title, lines), graph = bench_ingest(root, embedder)
    graph.close()
    print("\n".join([f"## {title}", "", *lines]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
