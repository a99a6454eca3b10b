"""``agrag-lab doctor`` names an index folder that a stopped first ingest or import left without a document,
instead of calling it sound."""

from __future__ import annotations

from pathlib import Path

from agrag_lab import Document, Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.index.doctor import examine


def test_an_index_with_no_document_is_named_and_one_ingest_makes_it_sound(
    tmp_path: Path, embedder: SentenceTransformerEmbedder,
) -> None:
    path = tmp_path / "index"
    with Graph.open(path, embedder=embedder):
        pass  # what a first ingest stopped before it wrote leaves
    report = examine(path)
    assert not report.ok
    (finding,) = [f for f in report.findings if f.part == "documents"]
    assert finding.problem.startswith("none:") and "stopped" in finding.problem
    assert f"--index {path}" in finding.fix and "sound" not in str(report)
    with Graph.open(path, embedder=embedder) as graph:
        graph.ingest([Document("marley", "Marley", "Marley was dead: to begin with.")])
    assert examine(path).ok
