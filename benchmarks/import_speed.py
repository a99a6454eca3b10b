"""Import at the cost of reading: an import against reading its source and writing the same rows, in one run.

Each source is imported into a fresh index folder (``Graph.open`` through ``close``, as ``agrag-lab import``
runs it) and set against baselines measured in the same run, interleaved round by round:

- **read and write**: the builder's files read with the libraries our importer uses (polars for parquet,
  ``json`` for LightRAG's key-value and vector files, networkx for GraphML), then exactly the rows the import
  wrote written into fresh stores with the same libraries, without our import logic: every table of
  ``documents.sqlite`` (same schema, one transaction, WAL as ours), every Chroma collection (same configuration,
  the same ids, vectors and metadata), a bm25s index of each keyword corpus (bm25s's own tokenizer, the English
  stemmer), and the graph file (gzip JSON). The rows are taken from a warm-up import and are not timed: the
  baseline is what a mapping that cost nothing would still pay.
- **raw encode** (a source imported with re-embedding): one ``embed`` call of the same embedder over exactly the
  texts the import embeds (:func:`~agrag_lab.importing.writer.embedded_texts`).

A source is ``KIND:MODE=PATH``: KIND ``graphrag``, ``lightrag`` or ``graphml``; MODE ``reuse`` (the index is
searched by the builder's model through :mod:`peers.server`, the bundled model behind an OpenAI-compatible
endpoint, so the builder's stored vectors are reused) or ``embed`` (the bundled model in process: every text
embedded again). Reported: the median of each over ``--rounds`` rounds after one warm-up, import ÷ (read + write,
+ raw encode when it re-embeds; target <= 1.5 with reuse) and import ÷ raw encode (target <= 1.2 with re-embedding).

``python -m benchmarks.import_speed [--source KIND:MODE=PATH ...] [--rounds 3] [--root .agrag/bench-import]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import os
import platform
import shutil
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TITLE = "Import at the cost of reading (issue 43)"
#: What `make bench-import` imports: LightRAG's and GraphRAG's own outputs with their stored vectors (reused), and
#: the bundled Christmas Carol GraphRAG output (re-embedded: it stores no vectors).
DEFAULT_SOURCES = (
    "lightrag:reuse=tests/fixtures/peers/lightrag_vectors",
    "graphrag:reuse=tests/fixtures/peers/graphrag_vectors",
    "graphrag:reuse=tests/fixtures/peers/graphrag_zh",
    "graphrag:embed=datasets/msgraphrag_christmas_carol/v3",
)
KINDS = ("graphrag", "lightrag", "graphml")
MODES = ("reuse", "embed")


@dataclass(frozen=True)
class Source:
    """One import to measure: the builder's format, whether its vectors are reused, its folder or file."""

    kind: str
    mode: str
    path: Path

    @classmethod
    def parse(cls, text: str) -> Source:
        """``KIND:MODE=PATH`` (a relative path is read from the checkout).

        Examples
        --------
        >>> Source.parse("lightrag:reuse=tests/fixtures/peers/lightrag_vectors").mode
        'reuse'
        """
        head, sep, path = text.partition("=")
        kind, _, mode = head.partition(":")
        if not sep or kind not in KINDS or mode not in MODES:
            raise argparse.ArgumentTypeError(
                f"{text!r}: a source is KIND:MODE=PATH, KIND one of {', '.join(KINDS)}, MODE one of {', '.join(MODES)}"
            )
        where = Path(path)
        return cls(kind, mode, where if where.is_absolute() else ROOT / where)

    @property
    def name(self) -> str:
        return f"{self.path.name} ({self.kind}, {'vectors reused' if self.mode == 'reuse' else 're-embedded'})"


@dataclass
class Written:
    """The rows an import wrote, read back once (untimed): what the read-and-write baseline writes again."""

    tables: list[tuple[str, list[tuple[Any, ...]]]] = field(default_factory=list)  # (create SQL, rows) per table
    indexes: list[str] = field(default_factory=list)
    collections: dict[str, dict[str, Any]] = field(default_factory=dict)
    keywords: dict[str, list[str]] = field(default_factory=dict)
    graph: str = ""


def read_source(source: Source) -> int:
    """Read the builder's files as our importer reads them, nothing mapped; return the rows read."""
    rows = 0
    if source.kind == "graphrag":
        import polars as pl

        for table in sorted(source.path.glob("*.parquet")):
            rows += pl.read_parquet(table).height
        lance = source.path / "lancedb"
        if source.mode == "reuse" and lance.is_dir():  # the builder's vector store, where it kept one
            import lancedb  # type: ignore[import-not-found,unused-ignore]

            db = lancedb.connect(str(lance))
            for name in db.table_names():
                rows += db.open_table(name).to_arrow().num_rows
        return rows
    import networkx as nx  # type: ignore[import-untyped,unused-ignore]

    graphml = source.path if source.kind == "graphml" else source.path / "graph_chunk_entity_relation.graphml"
    graph = nx.read_graphml(graphml)
    rows += int(graph.number_of_nodes() + graph.number_of_edges())
    if source.kind == "lightrag":
        for file in sorted(source.path.glob("*.json")):
            data = json.loads(file.read_text(encoding="utf-8"))
            rows += len(data.get("data", data)) if isinstance(data, dict) else len(data)
            if isinstance(data, dict) and isinstance(data.get("matrix"), str):
                import base64

                import numpy as np

                np.frombuffer(base64.b64decode(data["matrix"]), dtype=np.float32)
    return rows


def written_rows(index: Path, keywords: dict[str, list[str]]) -> Written:
    """What the import wrote into ``index``: SQLite tables, Chroma collections, the graph file (untimed)."""
    import chromadb
    from chromadb.config import Settings

    out = Written(keywords=dict(keywords))
    with sqlite3.connect(index / "documents.sqlite") as conn:
        for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"):
            out.tables.append((sql, conn.execute(f'SELECT * FROM "{name}"').fetchall()))
        out.indexes = [sql for (sql,) in conn.execute("SELECT sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL")]
    client = chromadb.PersistentClient(path=str(index / "chroma"), settings=Settings(anonymized_telemetry=False))
    for coll in client.list_collections():
        got = coll.get(include=["embeddings", "metadatas"])
        out.collections[coll.name] = {"ids": got["ids"], "embeddings": got["embeddings"], "metadatas": got["metadatas"]}
    out.graph = gzip.decompress((index / "graph.json.gz").read_bytes()).decode("utf-8")
    return out


def write_rows(written: Written, folder: Path) -> None:
    """Write ``written`` into fresh stores under ``folder`` with the libraries ours use, and nothing more."""
    import bm25s
    import chromadb
    import Stemmer
    from chromadb.config import Settings

    folder.mkdir(parents=True)
    conn = sqlite3.connect(folder / "documents.sqlite")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    with conn:
        for sql, rows in written.tables:
            conn.execute(sql)
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                name = sql.split("(", 1)[0].split()[-1]
                conn.executemany(f"INSERT INTO {name} VALUES ({marks})", rows)
        for sql in written.indexes:
            conn.execute(sql)
    conn.close()
    client = chromadb.PersistentClient(path=str(folder / "chroma"), settings=Settings(anonymized_telemetry=False))
    for name, data in written.collections.items():
        coll = client.get_or_create_collection(name=name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
        for i in range(0, len(data["ids"]), 2000):
            if data["ids"][i : i + 2000]:
                coll.upsert(ids=data["ids"][i : i + 2000], embeddings=data["embeddings"][i : i + 2000],
                            metadatas=data["metadatas"][i : i + 2000])
    stemmer = Stemmer.Stemmer("english")
    for name, texts in written.keywords.items():
        if texts:
            retriever = bm25s.BM25(backend="numpy")
            retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
            retriever.save(str(folder / "keyword" / name))
    with gzip.open(folder / "graph.json.gz", "wt", encoding="utf-8") as f:
        f.write(written.graph)


@contextmanager
def embedder_for(source: Source, local: Any = None) -> Iterator[Any]:
    """The embedder an import of ``source`` is searched by: the builder's model through an endpoint (reuse),
    else ``local`` (default: the bundled model in process)."""
    from agrag_lab.embedding import EndpointEmbedder, SentenceTransformerEmbedder

    if source.mode == "embed":
        yield local if local is not None else SentenceTransformerEmbedder()
        return
    from peers import server

    with server.serve() as url:
        server.EMBEDDER.embed(["warm up"])
        yield EndpointEmbedder("all-MiniLM-L6-v2", url)


def import_once(source: Source, embedder: Any, folder: Path,
                on_keywords: Callable[[str, Sequence[str]], None] | None = None,
                on_embed: Callable[[Sequence[str]], None] | None = None) -> Any:
    """Import ``source`` into a fresh ``folder`` (open to close); ``on_keywords`` sees each keyword corpus,
    ``on_embed`` each batch of texts the import sends to its embedder."""
    from agrag_lab import Graph
    from agrag_lab.embedding import Embedder
    from agrag_lab.index import build as build_module
    from agrag_lab.index.build import IndexBuild
    from agrag_lab.index.long_texts import WINDOW_TOKENS, embed_whole

    shutil.rmtree(folder, ignore_errors=True)
    original = IndexBuild.write_keywords

    def recording(self: IndexBuild, name: str, ids: Sequence[str], texts: Sequence[str]) -> Any:
        if on_keywords is not None:
            on_keywords(name, texts)
        return original(self, name, ids, texts)

    def recording_embed(model: Embedder, texts: Sequence[str], tokens: int = WINDOW_TOKENS) -> np.ndarray:
        if on_embed is not None:
            on_embed(list(texts))
        return embed_whole(model, texts, tokens)

    IndexBuild.write_keywords = recording  # type: ignore[method-assign]
    try:  # embed_whole: what IndexBuild.embed_missing calls per batch of texts it embeds
        with patch.object(build_module, "embed_whole", recording_embed), Graph.open(folder, embedder=embedder) as graph:
            method = {"graphrag": graph.import_graphrag, "lightrag": graph.import_lightrag, "graphml": graph.import_graphml}
            return method[source.kind](source.path)
    finally:
        IndexBuild.write_keywords = original  # type: ignore[method-assign]


def _timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(source: Source, root: Path, rounds: int, local: Any = None) -> dict[str, Any]:
    """Seconds of each side per round (after one untimed warm-up), with what the import did (``local``: the
    embedder of a re-embedding import, default the bundled model)."""
    from agrag_lab.importing.graphml import read_graphml
    from agrag_lab.importing.graphrag import read_graphrag
    from agrag_lab.importing.lightrag import read_lightrag
    from agrag_lab.importing.writer import embedded_texts

    readers = {"graphrag": read_graphrag, "lightrag": read_lightrag, "graphml": read_graphml}
    texts = embedded_texts(readers[source.kind](source.path))
    times: dict[str, list[float]] = {"import": [], "read": [], "write": [], "encode": []}
    with embedder_for(source, local) as embedder:
        corpora: dict[str, list[str]] = {}
        fresh: list[str] = []  # what the import itself embeds: with reuse, only what the builder did not embed
        report = import_once(source, embedder, root / "warm", lambda n, t: corpora.__setitem__(n, list(t)),
                             fresh.extend)
        if source.mode == "reuse":
            texts = fresh
        written = written_rows(root / "warm", corpora)
        rows = read_source(source)
        shutil.rmtree(root / "baseline-warm", ignore_errors=True)
        write_rows(written, root / "baseline-warm")  # its libraries imported before the first timed round
        for turn in range(rounds):  # a new folder each round: Chroma keeps one client per path in a process
            shutil.rmtree(root / f"baseline-{turn}", ignore_errors=True)
            sides: list[tuple[str, Callable[[], Any]]] = [
                ("import", partial(import_once, source, embedder, root / f"import-{turn}")),
                ("read", partial(read_source, source)),
                ("write", partial(write_rows, written, root / f"baseline-{turn}")),
            ]
            if texts:
                sides.append(("encode", lambda: embedder.embed(texts)))
            for name, call in sides if turn % 2 == 0 else sides[::-1]:
                times[name].append(_timed(call))
    return {"source": source, "report": report, "texts": len(texts), "rows": rows, "written": written,
            "median": {k: statistics.median(v) for k, v in times.items() if v}, "rounds": rounds}


def table(results: Sequence[dict[str, Any]]) -> list[str]:
    """The Markdown rows: per source, each side's median and the two ratios (the baseline of a re-embedding
    import is read + write + raw encode)."""
    lines = ["| source | rows read / records written | texts embedded | import | read + write | raw encode "
             "| **import ÷ (read + write + encode)** | **import ÷ raw encode** |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        m, report, written = r["median"], r["report"], r["written"]
        records = sum(len(c["ids"]) for c in written.collections.values())
        encode = m.get("encode")
        baseline = m["read"] + m["write"] + (encode or 0.0)
        raw = f"{encode:.2f} s ({r['texts']} texts)" if encode else "— (nothing to embed)"
        per_encode = f"**{m['import'] / encode:.2f}**" if encode else "—"
        lines.append(
            f"| {r['source'].name} | {r['rows']} / {records} vectors, {report.chunks} chunks | {report.embedded} "
            f"(reused {report.reused}) | {m['import']:.2f} s | {m['read']:.2f} + {m['write']:.2f} s "
            f"| {raw} | **{m['import'] / baseline:.2f}** | {per_encode} |"
        )
    return lines


NOTES = (
    "Import: `Graph.open` of a fresh folder to its close, as `agrag-lab import` runs it. Read and write: the "
    "builder's files read with the libraries our importer uses (polars, json, networkx), then exactly the rows the "
    "import wrote (taken from a warm-up import, untimed) written into fresh stores with the same libraries: every "
    "SQLite table in one transaction, every Chroma collection, bm25s over each keyword corpus, the gzip graph file. "
    "Raw encode: one `embed` of the texts the import embeds, same model. With reuse the index is searched by the "
    "builder's model through an OpenAI-compatible endpoint (`peers/server.py`): one length probe, then only what the "
    "builder did not embed (GraphRAG stores no relationship vectors), timed as the raw encode through the same endpoint."
)


def section(sources: Sequence[Source], root: Path, rounds: int, local: Any = None) -> tuple[str, list[str]]:
    """The BENCHMARKS.md section of ``sources`` measured in one run (``make bench-import``, ``make bench``)."""
    results = []
    for n, source in enumerate(sources):
        print(f"import speed: {source.name}", file=sys.stderr, flush=True)
        results.append(measure(source, root.resolve() / str(n), rounds, local))
    return TITLE, [*table(results), "", NOTES]


def _shown(path: Path) -> str:
    """``path`` relative to the checkout where it lies inside it (no machine path in the figures)."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def main(argv: Sequence[str] | None = None) -> int:
    from benchmarks.benchmarks_md import BENCHMARKS, update

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", action="append", type=Source.parse, help="KIND:MODE=PATH (repeatable)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--root", type=Path, default=ROOT / ".agrag" / "bench-import")
    parser.add_argument("--out", type=Path, default=BENCHMARKS, help="the Markdown file whose section is replaced")
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    sources: list[Source] = args.source or [Source.parse(s) for s in DEFAULT_SOURCES]
    title, lines = section(sources, args.root, args.rounds)
    print("\n".join(lines))
    given = "".join(f" --source {s.kind}:{s.mode}={_shown(s.path)}" for s in args.source or ())
    command = f"`python -m benchmarks.import_speed{given}`"
    stamp = (f"Measured {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} on {platform.node()} ({os.cpu_count()} cores; "
             f"{command} (`make bench-import`), one run, median of {args.rounds} rounds after a warm-up, interleaved; "
             f"1-minute load average at the end {os.getloadavg()[0]:.1f}: ratios within the run only).")
    if not args.no_write:
        update(args.out, [(title, lines)], stamp)
        print(f"updated {TITLE!r} in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
