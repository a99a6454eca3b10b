"""What Microsoft GraphRAG 3.3.0's own query code selects, recorded for the parity tests.

Runs in the peers venv, inside ``make peers`` (after ``peers/graphrag_index.py``): reads the
output tables GraphRAG wrote with GraphRAG's own adapters (``read_indexer_*``), builds its
search engines with its own factory (``graphrag.query.factory.get_basic_search_engine``,
``get_local_search_engine``, ``get_global_search_engine``: the parameters ``graphrag query``
uses) and calls each engine's own ``context_builder.build_context`` with the engine's own
``context_builder_params``, for each question of ``questions.json``. What each context holds
(text units, entities, relationships, reports; ids and order) goes to ``parity/graphrag.json``.

The vectors are our model's: the vector stores handed to GraphRAG are :class:`MemoryStore`,
an exact nearest-neighbour store over the embeddings the scripted server returns for the
texts GraphRAG's own indexer embeds (``title:description`` for entities, a text unit's
text), which is what LanceDB holds after GraphRAG's ``generate_text_embeddings``. With
``--stored-vectors`` they are GraphRAG's own LanceDB stores over the vectors its indexer stored
(``graphrag.utils.api.get_embedding_store``, as ``graphrag query`` opens them), the query embedded
by the engine's own embedding model through the same endpoint.

``python peers/parity/graphrag_parity.py --url URL --fixtures tests/fixtures/peers --root GRAPHRAG_ROOT
[--stored-vectors] [--questions FILE] [--name graphrag]`` (writes ``parity/<name>.json``)
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from graphrag.config.load_config import load_config
from graphrag.query.factory import get_basic_search_engine, get_global_search_engine, get_local_search_engine
from graphrag.query.indexer_adapters import (
    read_indexer_communities,
    read_indexer_entities,
    read_indexer_relationships,
    read_indexer_reports,
    read_indexer_text_units,
)
from graphrag_vectors.vector_store import VectorStoreDocument, VectorStoreSearchResult
from openai import OpenAI

from peers.parity.graphrag_context import COMMUNITY_LEVEL, QUESTIONS, context


class MemoryStore:
    """Exact cosine nearest neighbours over given vectors: the part of a GraphRAG
    ``VectorStore`` its context builders call (``similarity_search_by_text``)."""

    def __init__(self, ids: list[str], vectors: np.ndarray) -> None:
        self.ids = ids
        self.vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def similarity_search_by_text(self, text: str, text_embedder: Any, k: int = 10, **_: Any) -> list[VectorStoreSearchResult]:
        query = np.asarray(text_embedder(text), dtype=np.float64)
        scores = self.vectors @ (query / np.linalg.norm(query))
        order = sorted(range(len(self.ids)), key=lambda i: (-scores[i], i))[:k]
        return [VectorStoreSearchResult(VectorStoreDocument(self.ids[i], None), float(scores[i])) for i in order]


def _embed(client: OpenAI, texts: list[str]) -> np.ndarray:
    out = client.embeddings.create(model="all-MiniLM-L6-v2", input=texts)
    return np.asarray([d.embedding for d in out.data], dtype=np.float64)


def engines(root: Path, url: str, stored: bool = False) -> tuple[dict[str, Any], Any, OpenAI]:
    """GraphRAG's own basic, local and global search engines over the output in ``root`` (its factory, the
    parameters ``graphrag query`` uses), the entity vector store they read, and the endpoint's client.
    ``stored``: the LanceDB stores GraphRAG's indexer wrote, else :class:`MemoryStore` of the same texts."""
    config = load_config(root)
    out = root / "output"
    read = lambda name: pd.read_parquet(out / f"{name}.parquet")  # noqa: E731
    entities, communities, reports = read("entities"), read("communities"), read("community_reports")
    text_units, relationships = read("text_units"), read("relationships")
    level = COMMUNITY_LEVEL
    client = OpenAI(base_url=url, api_key="scripted")
    entity_store: Any
    unit_store: Any
    if stored:
        from graphrag.config.embeddings import entity_description_embedding, text_unit_text_embedding
        from graphrag.utils.api import get_embedding_store

        entity_store = get_embedding_store(config.vector_store, entity_description_embedding)
        unit_store = get_embedding_store(config.vector_store, text_unit_text_embedding)
    else:
        entity_store = MemoryStore(
            list(entities["id"]),
            _embed(client, [f"{t}:{d}" for t, d in zip(entities["title"], entities["description"], strict=True)]),
        )
        unit_store = MemoryStore(list(text_units["id"]), _embed(client, list(text_units["text"])))
    units_ = read_indexer_text_units(text_units)
    basic = get_basic_search_engine(text_units=units_, text_unit_embeddings=unit_store, config=config, response_type="Multiple Paragraphs")  # type: ignore[arg-type]
    local = get_local_search_engine(
        config=config,
        reports=read_indexer_reports(reports, communities, level),
        text_units=units_,
        entities=read_indexer_entities(entities, communities, level),
        relationships=read_indexer_relationships(relationships),
        covariates={"claims": []},
        description_embedding_store=entity_store,  # type: ignore[arg-type]
        response_type="Multiple Paragraphs",
    )
    global_ = get_global_search_engine(
        config=config,
        reports=read_indexer_reports(reports, communities, level),
        entities=read_indexer_entities(entities, communities, level),
        communities=read_indexer_communities(communities, reports),
        response_type="Multiple Paragraphs",
    )
    return {"basic": basic, "local": local, "global": global_}, entity_store, client


def record(root: Path, url: str, stored: bool = False, questions_file: Path = QUESTIONS) -> dict[str, Any]:
    built, entity_store, client = engines(root, url, stored)
    basic, local, global_ = built["basic"], built["local"], built["global"]
    questions = json.loads(questions_file.read_text(encoding="utf-8"))["questions"]
    results: dict[str, Any] = {}
    for q in questions:
        built_basic = basic.context_builder.build_context(query=q["text"], **basic.context_builder_params)
        built_local = local.context_builder.build_context(query=q["text"], **local.context_builder_params)
        built_global = asyncio.run(global_.context_builder.build_context(query=q["text"], **global_.context_builder_params))
        mapped = entity_store.similarity_search_by_text(
            q["text"], lambda t: _embed(client, [t])[0].tolist(), k=local.context_builder_params["top_k_mapped_entities"] * 2
        )
        ranked = basic.context_builder.text_unit_embeddings.similarity_search_by_text(
            q["text"], lambda t: _embed(client, [t])[0].tolist(), k=basic.context_builder_params["k"]
        )  # what basic search selects, in its store's order (its context then lists them in table order)
        results[q["id"]] = {
            "query": q["text"],
            "basic": context(built_basic.context_records),
            "basic_ranked": [[r.document.id, round(r.score, 6)] for r in ranked],
            "local": context(built_local.context_records),
            "local_mapped_entities": [[r.document.id, round(r.score, 6)] for r in mapped],
            "global": context(built_global.context_records),
        }
    params = {
        "basic": {k: v for k, v in basic.context_builder_params.items() if isinstance(v, int | float | str | bool)},
        "local": {k: v for k, v in local.context_builder_params.items() if isinstance(v, int | float | str | bool)},
        "global": {k: v for k, v in global_.context_builder_params.items() if isinstance(v, int | float | str | bool)},
        "community_level": COMMUNITY_LEVEL,
    }
    vectors = "GraphRAG's LanceDB stores (its indexer's vectors)" if stored else "MemoryStore (the same texts embedded)"
    return {"peer": "graphrag==3.3.0", "vectors": vectors, "settings": params, "questions": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--fixtures", required=True, type=Path)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--stored-vectors", action="store_true", help="search GraphRAG's own LanceDB tables")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--name", default="graphrag", help="writes parity/NAME.json")
    args = parser.parse_args()
    target = args.fixtures.resolve() / "parity" / f"{args.name}.json"  # GraphRAG's load_config changes directory
    data = record(args.root.resolve(), args.url, args.stored_vectors, args.questions.resolve())
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"graphrag parity: {len(data['questions'])} questions -> {target}")


if __name__ == "__main__":
    main()
