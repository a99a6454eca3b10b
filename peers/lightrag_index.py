"""Run LightRAG 1.5.7's own insert pipeline over peers/corpus (runs in the peers venv).

``python peers/lightrag_index.py --url http://127.0.0.1:PORT/v1 --out WORKDIR
[--embedding-model NAME --embedding-dim N]``

LightRAG's own OpenAI client functions talk to the scripted server (``--url``): chat for
entity extraction, embeddings for our bundled model's vectors (384 dimensions), or for
another model the server serves (``--embedding-model static-all-MiniLM-L6-v2-256
--embedding-dim 256``: a builder whose model is not the one we search with). Chunks
are 200 tokens with 20 overlap so a few short texts give several chunks. The working
directory (``graph_chunk_entity_relation.graphml``, ``kv_store_*.json``, ``vdb_*.json``) is
what LightRAG writes; ``peers/run.py`` keeps it for the parity run and checks in all of it
but the vector files and the LLM response cache.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
from collections.abc import Callable, Coroutine
from functools import partial
from pathlib import Path
from typing import Any

from lightrag import LightRAG
from lightrag.llm.openai import openai_complete_if_cache, openai_embed
from lightrag.utils import EmbeddingFunc

CORPUS = Path(__file__).with_name("corpus")


#: The embedding model LightRAG is given by default (the server's bundled one) and its vectors' length.
MODEL, DIMENSION = "all-MiniLM-L6-v2", 384


async def build(url: str, out: Path, model: str = MODEL, dimension: int = DIMENSION) -> None:
    async def complete(prompt: str, system_prompt: str | None = None, history_messages: Any = None, **kwargs: Any) -> str:
        kwargs.pop("keyword_extraction", None)
        return await openai_complete_if_cache(
            "scripted",
            prompt,
            system_prompt=system_prompt,
            history_messages=history_messages or [],
            base_url=url,
            api_key="scripted",
            **kwargs,
        )

    embed = EmbeddingFunc(
        embedding_dim=dimension,
        func=partial(openai_embed.func, model=model, base_url=url, api_key="scripted"),
        model_name=model,
    )
    rag = LightRAG(
        working_dir=str(out),
        llm_model_func=complete,
        embedding_func=embed,
        chunk_token_size=200,
        chunk_overlap_token_size=20,
        enable_llm_cache=False,
        # a loaded CI machine can take more than the default 30 s to embed a batch
        default_embedding_timeout=600,
        default_llm_timeout=600,
    )
    await rag.initialize_storages()
    try:
        texts = sorted(CORPUS.glob("*.txt"))
        await rag.ainsert(
            [t.read_text(encoding="utf-8") for t in texts],
            file_paths=[t.name for t in texts],
        )
    finally:
        await rag.finalize_storages()


def write_working_dir(make: Callable[[str, Path, str, int], Coroutine[Any, Any, None]], description: str | None,
                      what: str) -> None:
    """The command line of a LightRAG writer: ``--url`` of the scripted server, ``--out`` made anew, the embedding
    model (``--embedding-model``, ``--embedding-dim``), then ``make``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--embedding-model", default=MODEL)
    parser.add_argument("--embedding-dim", default=DIMENSION, type=int)
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    asyncio.run(make(args.url, args.out, args.embedding_model, args.embedding_dim))
    print(f"{what}: {sorted(p.name for p in args.out.iterdir())}")


def main() -> None:
    write_working_dir(build, __doc__, "lightrag")


if __name__ == "__main__":
    main()
