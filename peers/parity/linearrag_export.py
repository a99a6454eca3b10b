"""Export what LinearRAG reads, from an agrag_lab tri-graph index, for ``linearrag_parity.py``.

Runs in agrag_lab's venv: ingests the English texts of ``peers/corpus`` into a temporary index built
with ``extractor="linear"`` (the tri-graph) and writes JSON with the passages (our ids and texts, in
corpus order) and a table text -> vector of every text LinearRAG will embed: each passage (our
stored chunk vector), each entity and sentence of our graph (their records' vectors: the text
alone), each question and each of its entities (lower-cased, spaCy), all our embedder's. LinearRAG's
own recognizer, in its venv, finds the same entities and sentences when both read the same spaCy
pipeline; a text missing from the table stops the harness with its name.

``python -m peers.parity.linearrag_export OUT.json``
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from agrag_lab import Graph
from agrag_lab.documents import Document
from agrag_lab.kg.extract.spacy_ner import question_entities
from agrag_lab.retrieval.methods.linear_ppr import tri_view

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = json.loads((ROOT / "peers" / "parity" / "questions.json").read_text(encoding="utf-8"))["questions"]
#: The English texts of the corpus (LinearRAG reads every passage with spaCy's English pipeline;
#: the Chinese text is read by our CJK rule, tested apart).
TEXTS = ("pride_and_prejudice", "scandal_in_bohemia", "moby_dick")


def _unit(v: np.ndarray) -> list[float]:
    v = np.asarray(v, dtype=np.float64)
    out: list[float] = (v / np.linalg.norm(v)).tolist()
    return out


#: The questions LinearRAG is asked (q5 is Chinese).
ENGLISH_QUESTIONS = [q for q in QUESTIONS if q["id"] != "q5"]


def build_index(folder: Path) -> Path:
    """Our tri-graph of the English texts of the corpus (``extractor="linear"``) in ``folder``."""
    corpus = ROOT / "peers" / "corpus"
    documents = [Document(name, name.replace("_", " ").title(), (corpus / f"{name}.txt").read_text(encoding="utf-8"),
                          format="text") for name in TEXTS]
    with Graph.open(folder, extractor="linear") as graph:
        graph.ingest(documents)
    return folder


def main(out: str, index: str | None = None) -> None:
    """Write the export to ``out``, from the index at ``index`` (built there, or kept as it is when it holds the
    same texts; default: a temporary one)."""
    questions = ENGLISH_QUESTIONS
    with tempfile.TemporaryDirectory() as tmp:
        folder = build_index(Path(index) if index else Path(tmp) / "index")  # an index built before: unchanged
        with Graph.open(folder, read_only=True) as graph:
            store: Any = graph.engine().graph_store
            build = store._index  # the index's own cached vectors, as the method reads them
            view = tri_view(store)
            chunks = store.records("chunks")  # what our index embeds of a passage: its title and text
            chunk_vectors = dict(zip(chunks.ids, build.record_vectors(chunks), strict=True))
            records = store.records("entities")
            table = {text: _unit(v) for text, v in zip(records.texts, build.record_vectors(records), strict=True)}
            for passage in view.passages:
                table[view.texts[passage]] = _unit(chunk_vectors[passage])
            for q in questions:
                table[q["text"]] = _unit(graph.embedder.embed_query(q["text"]))
                names = question_entities(q["text"])
                for name, v in zip(names, graph.embedder.embed(names), strict=True) if names else ():
                    table[name] = _unit(v)
            data = {
                "passages": [{"id": p, "text": view.texts[p]} for p in view.passages],
                "questions": questions,
                "vectors": table,
            }
    Path(out).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
