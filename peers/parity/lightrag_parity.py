"""What LightRAG 1.5.7's own query code selects, recorded for the parity tests.

Runs in the peers venv, inside ``make peers`` (after ``peers/lightrag_index.py``): opens a
copy of the working directory LightRAG wrote (with its vector files: our model's vectors,
through the scripted server) and calls LightRAG's own ``aquery_data`` (retrieval without
generation) in the modes ``local``, ``global``, ``hybrid``, ``mix`` and ``naive`` for each
question of ``questions.json``. The keywords are given (``QueryParam.hl_keywords`` /
``ll_keywords``), made by the offline rule agrag_lab uses without an LLM
(``peers.scripted_model.lightrag_keywords``), so both sides start from the same keywords;
re-rank is off (no re-rank model is configured). Entities, relationships and chunks, in the
order LightRAG returns them, go to ``parity/lightrag.json`` (``--name``: another file, for a working directory
written with another embedding model: ``--embedding-model``, ``--embedding-dim``).

``python peers/parity/lightrag_parity.py --url URL --fixtures tests/fixtures/peers --workdir LIGHTRAG_WORKDIR
[--name lightrag_dim --embedding-model static-all-MiniLM-L6-v2-256 --embedding-dim 256]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from lightrag import LightRAG, QueryParam
from lightrag.llm.openai import openai_complete_if_cache, openai_embed
from lightrag.utils import EmbeddingFunc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
from peers.scripted_model import lightrag_keywords

QUESTIONS = Path(__file__).with_name("questions.json")
MODES = ("local", "global", "hybrid", "mix", "naive")


async def record(url: str, workdir: Path, model: str = "all-MiniLM-L6-v2", dimension: int = 384) -> dict[str, Any]:
    async def complete(prompt: str, system_prompt: str | None = None, history_messages: Any = None, **kwargs: Any) -> str:
        kwargs.pop("keyword_extraction", None)
        return await openai_complete_if_cache(
            "scripted", prompt, system_prompt=system_prompt, history_messages=history_messages or [], base_url=url, api_key="scripted", **kwargs
        )

    embed = EmbeddingFunc(
        embedding_dim=dimension,
        func=partial(openai_embed.func, model=model, base_url=url, api_key="scripted"),
        model_name=model,
    )
    rag = LightRAG(
        working_dir=str(workdir),
        llm_model_func=complete,
        embedding_func=embed,
        enable_llm_cache=False,
        default_embedding_timeout=600,
        default_llm_timeout=600,
    )
    await rag.initialize_storages()
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    results: dict[str, Any] = {}
    default = QueryParam()
    try:
        for q in questions:
            words = json.loads(lightrag_keywords(q["text"]))
            per_mode: dict[str, Any] = {}
            for mode in MODES:
                param = QueryParam(
                    mode=mode,  # type: ignore[arg-type]
                    hl_keywords=list(words["high_level_keywords"]),
                    ll_keywords=list(words["low_level_keywords"]),
                    enable_rerank=False,
                )
                got = await rag.aquery_data(q["text"], param)
                data = got.get("data", {})
                per_mode[mode] = {
                    "status": got.get("status"),
                    "entities": [e["entity_name"] for e in data.get("entities", [])],
                    "relationships": [[r["src_id"], r["tgt_id"]] for r in data.get("relationships", [])],
                    "chunks": [c["chunk_id"] for c in data.get("chunks", [])],
                }
            results[q["id"]] = {"query": q["text"], "keywords": words, "modes": per_mode}
    finally:
        await rag.finalize_storages()
    settings = {
        "top_k": default.top_k,
        "chunk_top_k": default.chunk_top_k,
        "max_entity_tokens": default.max_entity_tokens,
        "max_relation_tokens": default.max_relation_tokens,
        "max_total_tokens": default.max_total_tokens,
        "cosine_better_than_threshold": rag.vector_db_storage_cls_kwargs.get("cosine_better_than_threshold"),
        "related_chunk_number": rag.related_chunk_number,
        "kg_chunk_pick_method": rag.kg_chunk_pick_method,
        "enable_rerank": False,
        "embedding_model": model,
        "embedding_dim": dimension,
    }
    return {"peer": "lightrag-hku==1.5.7", "settings": settings, "questions": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--fixtures", required=True, type=Path)
    parser.add_argument("--workdir", required=True, type=Path)
    parser.add_argument("--name", default="lightrag", help="the parity file's name (without .json)")
    parser.add_argument("--embedding-model", default="all-MiniLM-L6-v2")
    parser.add_argument("--embedding-dim", default=384, type=int)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lightrag-parity-") as tmp:
        copy = Path(tmp) / "work"
        shutil.copytree(args.workdir, copy)
        data = asyncio.run(record(args.url, copy, args.embedding_model, args.embedding_dim))
    target = args.fixtures / "parity" / f"{args.name}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"lightrag parity: {len(data['questions'])} questions -> {target}")


if __name__ == "__main__":
    main()
