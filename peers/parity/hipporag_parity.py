"""HippoRAG 2's own retrieval code over agrag_lab's graph and vectors: what it ranks, recorded.

Runs in the peers venv (``make peers``): ``hipporag==2.0.0a3`` from PyPI, installed with
``--no-deps`` beside what its modules import (``peers/requirements-hipporag.txt``: python-igraph,
CPU torch, transformers, gritlm without deps...). That release imports vLLM at module level
(``HippoRAG.py`` -> ``information_extraction/openie_vllm_offline.py`` -> ``llm/vllm_offline.py``:
``from vllm import SamplingParams, LLM``) for its offline OpenIE, which retrieval never reaches, and
vLLM does not install on a CPU-only machine: where vLLM is absent, :func:`_without_vllm` registers a
``vllm`` module whose two names raise if anything calls them, so any use of vLLM fails loudly and
HippoRAG's retrieval runs as released. With ``HIPPORAG_SRC`` (``src/`` of a checkout of
OSU-NLP-Group/HippoRAG; its newer source imports vLLM lazily) that source runs instead.

Nothing of HippoRAG is re-implemented: a ``HippoRAG`` object is made without
its ``__init__`` (which would load an embedding model and an LLM), given the graph, vectors and
maps its ``index`` would have built (nodes named by its ``compute_mdhash_id``, edges added by its
own ``add_new_edges`` from ``node_to_node_stats`` filled as ``add_fact_edges`` and
``add_passage_edges`` fill it), and each question goes through its own ``get_fact_scores``,
``rerank_facts``, ``graph_search_with_fact_entities`` (``run_ppr``, ``dense_passage_retrieval``) as
``retrieve`` calls them. The recognition-memory filter (``rerank_filter``, an LLM) keeps the
candidate facts as they are, as the recipe does without an LLM.

``python peers/parity/hipporag_parity.py INPUT.json OUT.json [COMMIT]`` (COMMIT: the source's, when
``HIPPORAG_SRC`` is set)
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import sys
import time
import types
from pathlib import Path
from typing import Any

import igraph as ig
import numpy as np


def _without_vllm() -> bool:
    """Register a ``vllm`` module whose names raise when called, if vLLM is not installed; True if so."""
    if importlib.util.find_spec("vllm") is not None:
        return False

    class _Absent:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise RuntimeError("vLLM is not installed: HippoRAG's offline OpenIE needs it, its retrieval does not")

    module = types.ModuleType("vllm")
    module.SamplingParams = _Absent  # type: ignore[attr-defined]
    module.LLM = _Absent  # type: ignore[attr-defined]
    sys.modules["vllm"] = module
    return True


SOURCE = os.environ.get("HIPPORAG_SRC", "")
if SOURCE:
    sys.path.insert(0, SOURCE)
WITHOUT_VLLM = _without_vllm()

from hipporag.HippoRAG import HippoRAG  # noqa: E402
from hipporag.utils.config_utils import BaseConfig  # noqa: E402
from hipporag.utils.misc_utils import compute_mdhash_id  # noqa: E402


class _Rows:
    """The part of HippoRAG's EmbeddingStore that retrieval reads: ``get_row(s)`` -> content."""

    def __init__(self, rows: dict[str, str]) -> None:
        self.rows = rows

    def get_row(self, key: str) -> dict[str, str]:
        return {"content": self.rows[key]}

    def get_rows(self, keys: list[str]) -> dict[str, dict[str, str]]:
        return {k: {"content": self.rows[k]} for k in keys}


def build(data: dict[str, Any]) -> HippoRAG:
    h = HippoRAG.__new__(HippoRAG)
    h.global_config = BaseConfig()  # its defaults: linking_top_k 5, passage_node_weight 0.05, damping 0.5
    h.ppr_time = 0.0
    entity_key = {e: compute_mdhash_id(content=e.lower(), prefix="entity-") for e in data["entities"]}
    passage_key = {p: compute_mdhash_id(content=p, prefix="chunk-") for p in data["passages"]}
    names = list(entity_key.values()) + [passage_key[p] for p in data["passages"]]
    h.graph = ig.Graph(directed=False)
    h.graph.add_vertices(len(names), attributes={"name": names})
    h.node_name_to_vertex_idx = {n: i for i, n in enumerate(names)}
    h.ent_node_to_chunk_ids = {entity_key[e]: {passage_key[c] for c in cs} for e, cs in data["entities"].items()}
    h.node_to_node_stats = {}
    for fact in data["facts"].values():  # add_fact_edges: +1 per triple, both directions
        a, b = entity_key[fact["subject"]], entity_key[fact["object"]]
        h.node_to_node_stats[(a, b)] = h.node_to_node_stats.get((a, b), 0.0) + fact["support"]
        h.node_to_node_stats[(b, a)] = h.node_to_node_stats.get((b, a), 0.0) + fact["support"]
    for e, cs in data["entities"].items():  # add_passage_edges
        for c in cs:
            h.node_to_node_stats[(passage_key[c], entity_key[e])] = 1.0
    h.add_new_edges()
    h.passage_node_keys = [passage_key[p] for p in data["passages"]]
    h.passage_node_idxs = [h.node_name_to_vertex_idx[k] for k in h.passage_node_keys]
    h.passage_embeddings = np.array(data["passage_vectors"])
    h.chunk_embedding_store = _Rows({passage_key[p]: p for p in data["passages"]})
    fact_ids = list(data["facts"])
    h.fact_node_keys = fact_ids
    h.fact_embeddings = np.array([data["facts"][f]["vector"] for f in fact_ids])
    h.fact_embedding_store = _Rows({
        f: repr((data["facts"][f]["subject"], "related", data["facts"][f]["object"])) for f in fact_ids})
    h.rerank_filter = lambda query, facts, indices, len_after_rerank: (indices[:len_after_rerank],
                                                                     facts[:len_after_rerank], {})
    return h


def peer(commit: str) -> str:
    """Which HippoRAG ran: the source checkout (and its commit), or the installed release."""
    if SOURCE:
        return f"OSU-NLP-Group/HippoRAG@{commit or 'source'} (source: {SOURCE})"
    vllm = ", vllm absent: its import met by a module that raises if called" if WITHOUT_VLLM else ""
    return f"hipporag {importlib.metadata.version('hipporag')} (PyPI{vllm})"


def main(source: str, out: str, commit: str = "") -> None:
    data = json.loads(Path(source).read_text(encoding="utf-8"))
    h = build(data)
    by_key = {compute_mdhash_id(content=p, prefix="chunk-"): p for p in data["passages"]}
    recorded: dict[str, Any] = {}
    for qid, q in data["questions"].items():
        v = np.array(q["vector"])
        h.query_to_embedding = {"triple": {q["query"]: v}, "passage": {q["query"]: v}}
        started = time.perf_counter()
        scores = h.get_fact_scores(q["query"])
        indices, facts, _ = h.rerank_facts(q["query"], scores)
        if not facts:
            ids, doc_scores = h.dense_passage_retrieval(q["query"])
        else:
            ids, doc_scores = h.graph_search_with_fact_entities(
                query=q["query"], link_top_k=h.global_config.linking_top_k, query_fact_scores=scores,
                top_k_facts=facts, top_k_fact_indices=indices, passage_node_weight=h.global_config.passage_node_weight)
        recorded[qid] = {
            "query": q["query"],
            "facts": [[f[0], f[2]] for f in facts],
            "passages": [by_key[h.passage_node_keys[i]] for i in ids.tolist()],
            "scores": [float(s) for s in doc_scores],
            "seconds": time.perf_counter() - started,
        }
    settings = {k: getattr(h.global_config, k) for k in ("linking_top_k", "passage_node_weight", "damping")}
    Path(out).write_text(json.dumps({"peer": peer(commit), "settings": settings, "questions": recorded},
                                    ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:4])
