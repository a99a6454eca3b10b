"""Export what HippoRAG 2's retrieval reads, from an agrag_lab index, for ``hipporag_parity.py``.

Runs in agrag_lab's venv: imports the LightRAG working directory of ``tests/fixtures/peers/lightrag``
into a temporary index (its relations are the facts), then writes JSON with the entities (our ids,
the passages mentioning each), the passages (our ids and vectors), the facts (each relation once:
its ends, its supporting passage count, its record's vector) and each question's vector, all our
embedder's, unit length.

``python -m peers.parity.hipporag_export OUT.json [INDEX]`` (INDEX: an index folder to export instead)
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from agrag_lab import Graph
from agrag_lab.index.records import relation_facets

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = json.loads((ROOT / "peers" / "parity" / "questions.json").read_text(encoding="utf-8"))["questions"]


def _unit(m: np.ndarray) -> list[list[float]]:
    m = np.asarray(m, dtype=np.float64)
    rows: list[list[float]] = (m / np.linalg.norm(m, axis=-1, keepdims=True)).tolist()
    return rows


def export(graph: Graph) -> dict[str, object]:
    """What HippoRAG's retrieval reads, from an opened index (see the module docstring)."""
    store = graph.graph_store
    build = graph._build  # the index's own cached vectors, as the method reads them
    chunks = store.records("chunks")
    entity_records = store.records("entities")
    vectors = build.record_vectors(entity_records)
    facets = relation_facets(store.whole_graph("the HippoRAG export"))
    facts: dict[str, dict[str, object]] = {}
    for row, record in enumerate(entity_records.ids):
        edge = facets.get(record)
        if edge is not None and "|".join(edge.key) not in facts:
            facts["|".join(edge.key)] = {"subject": edge.source, "object": edge.target,
                                         "support": len(edge.chunk_ids), "vector": _unit(vectors[row])}
    return {
        "entities": {e: list(store.graph.entities[e].chunk_ids) for e in sorted(store.graph.entities)},
        "passages": list(chunks.ids),
        "passage_vectors": _unit(build.record_vectors(chunks)),
        "facts": facts,
        "questions": {q["id"]: {"query": q["text"], "vector": _unit(graph.embedder.embed_query(q["text"]))}
                      for q in QUESTIONS},
    }


def main(out: str, index: str = "") -> None:
    """Export ``index`` (an index folder), or by default the import of the LightRAG fixture, to ``out``."""
    if index:
        with Graph.open(index, read_only=True) as graph:
            data = export(graph)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            with Graph.open(Path(tmp) / "index") as graph:
                graph.import_lightrag(ROOT / "tests" / "fixtures" / "peers" / "lightrag")
            with Graph.open(Path(tmp) / "index", read_only=True) as graph:
                data = export(graph)
    Path(out).write_text(json.dumps(data), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
