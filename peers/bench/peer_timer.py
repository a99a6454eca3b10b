"""Time the peers' own query code, one question at a time, for ``make bench-peers`` (runs in the peers venv).

Loads, once, what each peer's own query code reads: a GraphRAG root (``settings.yaml`` and
``output/*.parquet``), searched by GraphRAG 3.3.0's own engines from its factory (the parameters
``graphrag query`` uses) with the vectors of the texts GraphRAG's indexer embeds (``title:description``
of an entity, a text unit's text) from the scripted server; and a LightRAG working directory with its
``vdb_*.json`` files, searched by lightrag-hku 1.5.7's ``aquery_data`` (retrieval without generation,
keywords given as the parity run gives them, re-rank off). Then it answers requests on standard input,
one JSON object a line, ``{"peer": "graphrag", "method": "local", "query": "..."}``, with one line
``{"seconds": S, "items": N}``: the wall time of the context builder's ``build_context`` (GraphRAG) or of
``aquery_data`` (LightRAG), the query's embedding through the endpoint included, as the peer runs it.

``python peers/bench/peer_timer.py --url URL [--graphrag ROOT ...] [--lightrag WORKDIR]``
(``--graphrag`` may be given several times: ``name=ROOT``.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "parity"))


def _graphrag_engines(root: Path, url: str) -> dict[str, Any]:
    """GraphRAG's own engines over ``root``, as the parity run builds them (:func:`graphrag_parity.engines`)."""
    from graphrag_parity import engines

    return engines(root, url)[0]


def _graphrag_time(engines: dict[str, Any], method: str, query: str) -> tuple[float, int]:
    engine = engines[method]
    start = time.perf_counter()
    if method == "global":
        built = asyncio.run(engine.context_builder.build_context(query=query, **engine.context_builder_params))
    else:
        built = engine.context_builder.build_context(query=query, **engine.context_builder_params)
    seconds = time.perf_counter() - start
    records = built.context_records if isinstance(built.context_records, dict) else {}
    return seconds, sum(len(v) for v in records.values() if hasattr(v, "__len__"))


class _LightRAG:
    """One LightRAG instance over a working directory, on its own event loop."""

    def __init__(self, workdir: Path, url: str) -> None:
        from lightrag import LightRAG
        from lightrag.llm.openai import openai_complete_if_cache, openai_embed
        from lightrag.utils import EmbeddingFunc

        async def complete(prompt: str, system_prompt: str | None = None, history_messages: Any = None,
                           **kwargs: Any) -> str:  # keywords are given and generation is off: not expected
            kwargs.pop("keyword_extraction", None)
            return await openai_complete_if_cache("scripted", prompt, system_prompt=system_prompt,
                                                  history_messages=history_messages or [], base_url=url,
                                                  api_key="scripted", **kwargs)

        self.loop = asyncio.new_event_loop()
        self.rag = LightRAG(
            working_dir=str(workdir),
            llm_model_func=complete,
            embedding_func=EmbeddingFunc(
                embedding_dim=384,
                func=partial(openai_embed.func, model="all-MiniLM-L6-v2", base_url=url, api_key="scripted"),
                model_name="all-MiniLM-L6-v2",
            ),
            enable_llm_cache=False,
            default_embedding_timeout=600,
            default_llm_timeout=600,
        )
        self.loop.run_until_complete(self.rag.initialize_storages())

    def time(self, mode: str, query: str) -> tuple[float, int]:
        from lightrag import QueryParam

        from peers.scripted_model import lightrag_keywords

        words = json.loads(lightrag_keywords(query))
        param = QueryParam(mode=mode, hl_keywords=list(words["high_level_keywords"]),  # type: ignore[arg-type]
                           ll_keywords=list(words["low_level_keywords"]), enable_rerank=False)
        start = time.perf_counter()
        got = self.loop.run_until_complete(self.rag.aquery_data(query, param))
        seconds = time.perf_counter() - start
        data = got.get("data", {})
        return seconds, sum(len(data.get(k, [])) for k in ("entities", "relationships", "chunks"))

    def close(self) -> None:
        self.loop.run_until_complete(self.rag.finalize_storages())
        pending = [task for task in asyncio.all_tasks(self.loop) if not task.done()]
        for task in pending:  # LightRAG's background workers: stopped before the loop closes
            task.cancel()
        self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.loop.close()


class _HippoRAG:
    """HippoRAG 2's own retrieval (``hipporag_parity.build``: its graph, maps and vectors as its ``index`` makes
    them) over an exported index; the question embedded through the endpoint, as HippoRAG embeds it."""

    def __init__(self, exported: Path, url: str) -> None:
        import numpy as np
        from hipporag_parity import build
        from openai import OpenAI

        self.np = np
        self.h = build(json.loads(exported.read_text(encoding="utf-8")))
        self.client = OpenAI(base_url=url, api_key="scripted")

    def time(self, query: str) -> tuple[float, int]:
        h, np = self.h, self.np
        start = time.perf_counter()
        got = self.client.embeddings.create(model="all-MiniLM-L6-v2", input=[query])
        v = np.asarray(got.data[0].embedding, dtype=np.float64)
        v = v / np.linalg.norm(v)
        h.query_to_embedding = {"triple": {query: v}, "passage": {query: v}}
        scores = h.get_fact_scores(query)
        indices, facts, _ = h.rerank_facts(query, scores)
        if not facts:
            ids, _scores = h.dense_passage_retrieval(query)
        else:
            ids, _scores = h.graph_search_with_fact_entities(
                query=query, link_top_k=h.global_config.linking_top_k, query_fact_scores=scores, top_k_facts=facts,
                top_k_fact_indices=indices, passage_node_weight=h.global_config.passage_node_weight)
        return time.perf_counter() - start, len(ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--graphrag", action="append", default=[], help="NAME=ROOT (a GraphRAG root)")
    parser.add_argument("--lightrag", default="", help="a LightRAG working directory with its vdb files")
    parser.add_argument("--hipporag", default="", help="an index exported by peers.parity.hipporag_export")
    args = parser.parse_args()
    # the answers go to the real standard output; whatever the peers print goes to standard error
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    graphrag = {name: _graphrag_engines(Path(root).resolve(), args.url)
                for name, root in (item.split("=", 1) for item in args.graphrag)}
    lightrag = _LightRAG(Path(args.lightrag), args.url) if args.lightrag else None
    hipporag = _HippoRAG(Path(args.hipporag), args.url) if args.hipporag else None
    print(json.dumps({"ready": True}), file=answers, flush=True)
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            ask = json.loads(line)
            if ask["peer"] == "lightrag" and lightrag is not None:
                seconds, items = lightrag.time(ask["method"], ask["query"])
            elif ask["peer"] == "hipporag" and hipporag is not None:
                seconds, items = hipporag.time(ask["query"])
            else:
                seconds, items = _graphrag_time(graphrag[ask["index"]], ask["method"], ask["query"])
            print(json.dumps({"seconds": seconds, "items": items}), file=answers, flush=True)
    finally:
        if lightrag is not None:
            lightrag.close()


if __name__ == "__main__":
    main()
