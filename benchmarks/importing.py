"""Import speed (issue 14): each bundled GraphRAG format imported into a fresh folder, against a raw encode.

The raw encode is one ``SentenceTransformer.encode`` call over exactly the texts
the import embeds (chunks, entity records, report records), measured in the
same run just before and just after the import (``measure_raw_encode=True``);
the two are averaged, since other work on a shared machine makes single timings swing.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.importing.graphrag import read_graphrag
from agrag_lab.importing.writer import embedded_texts
from agrag_lab.lab import carol_source

Section = tuple[str, list[str]]
TITLE = "Import of a GraphRAG index (issue 14)"


def bench_import(root: Path, embedder: SentenceTransformerEmbedder) -> Section:
    """Import v3 and v1 of the bundled output into fresh folders under ``root``; re-import each once."""
    lines = [
        "The bundled Microsoft GraphRAG output of \"A Christmas Carol\" (`datasets/msgraphrag_christmas_carol/`), "
        "each format imported into a fresh index folder: read and map the parquet (polars), embed chunks, entity "
        "and report records in batches, write SQLite, sync Chroma and bm25s.",
        "",
        "| format | texts embedded | import | of which embedding | raw encode of the same texts (before / after, mean) | **import / raw encode** | embedding / raw encode | re-import |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for version in ("v3", "v1"):
        folder = root / f"import-{version}"
        shutil.rmtree(folder, ignore_errors=True)
        texts = embedded_texts(read_graphrag(carol_source(version)))
        started = time.perf_counter()
        embedder.embed(texts)
        before = time.perf_counter() - started
        with Graph.open(folder, embedder=embedder) as graph:
            report = graph.import_graphrag(carol_source(version), measure_raw_encode=True)
            started = time.perf_counter()
            again = graph.import_graphrag(carol_source(version))
            reimport = time.perf_counter() - started
        after = report.raw_encode_seconds or float("nan")
        import_only = report.seconds - after  # the raw encode ran inside the call, after the import's own work
        raw = (before + after) / 2
        lines.append(
            f"| {report.format} ({report.entities} entities, {report.relations} relations, {report.reports} reports) "
            f"| {report.embedded} | {import_only:.1f} s | {report.embedding_seconds:.1f} s "
            f"| {before:.1f} / {after:.1f} s, {raw:.1f} s "
            f"| **{import_only / raw:.2f}** | {report.embedding_seconds / raw:.2f} "
            f"| {reimport:.2f} s ({'unchanged' if again.unchanged else 'CHANGED'}) |"
        )
    return TITLE, lines


if __name__ == "__main__":
    import sys

    emb = SentenceTransformerEmbedder()
    emb.embed(["warm up"])
    title, body = bench_import(Path(sys.argv[1] if len(sys.argv) > 1 else ".agrag/bench"), emb)
    print(f"## {title}\n\n" + "\n".join(body))
