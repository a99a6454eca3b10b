"""A dead Chroma server fails only the dense legs: recipe search answers from its keyword legs, partial."""

from __future__ import annotations

import subprocess
from pathlib import Path

from test_chroma_server import chroma_server  # noqa: F401  (the real `chroma run` server fixture)

from agrag_lab import Document, Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.recipes import HYBRID
from agrag_lab.storage.vectors import ChromaVectorStore


def test_a_dead_chroma_server_degrades_recipe_search_to_the_keyword_legs(
    chroma_server: tuple[subprocess.Popen[bytes], int],  # noqa: F811
    tmp_path: Path,
    embedder: SentenceTransformerEmbedder,
    small_docs: list[Document],
) -> None:
    proc, port = chroma_server
    with Graph.open(tmp_path / "ix", embedder=embedder, vector_store=ChromaVectorStore.http("127.0.0.1", port)) as g:
        g.ingest(small_docs)
        engine = g.engine()
        alive = engine.run("Lovelace loom engine", HYBRID)
        assert alive.trace.status == "ok" and {m.status for m in alive.trace.methods} == {"ok"}
        proc.kill()
        proc.wait()
        run = engine.run("Lovelace loom engine", HYBRID)
        assert run.trace.status == "partial" and run.results
        failures = run.trace.failures()
        assert set(failures) == {"entity.dense", "chunk.dense"}
        assert all("VectorStoreError" in why and f"127.0.0.1:{port}" in why for why in failures.values())
        keyword_only = {h.key for m in run.trace.methods for h in m.legs["keyword"]}
        assert set(run.keys) <= keyword_only
        session = g.evidence()
        found = session.search("Lovelace loom engine", "HYBRID")
        assert found.status == "partial" and found.results
        assert all("the dense leg failed" in (m.error or "") for m in found.methods)
        discovered = session.discover("Lovelace loom engine")  # evidence search degrades the same way
        assert discovered.status == "partial" and discovered.hits
