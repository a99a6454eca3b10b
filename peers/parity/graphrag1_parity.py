"""What Microsoft GraphRAG 1.2.0's own local search selects over its stored vectors, for the parity tests.

Runs in the graphrag 1.x venv, inside ``make peers`` (after ``peers/graphrag1_index.py``): reads the output
tables 1.2 wrote (``create_final_*.parquet``) with its own adapters (``read_indexer_*``, at ``graphrag query``'s
default community level, 2), opens the entity vector store as 1.2's ``graphrag.api.query.local_search`` does
(``_get_embedding_store`` over ``embeddings.vector_store``: its LanceDB table ``default-entity-description``, the
vectors its indexer stored), builds the engine with its own factory (``get_local_search_engine``) and calls the
engine's ``context_builder.build_context`` (``LocalSearchMixedContext``) with the engine's own
``context_builder_params`` for each question of ``questions.json``, the query embedded by the engine's own
embedding model through the scripted endpoint. What each context holds (entities, relationships, text units,
reports; ids and order) goes to ``parity/<name>.json``, with ``local_mapped_entities``: the entity ids and scores
the store returned (``top_k_mapped_entities`` x 2), in its order.

``python peers/parity/graphrag1_parity.py --fixtures tests/fixtures/peers --root GRAPHRAG_ROOT [--questions FILE]
[--name graphrag1_vectors]``
"""

from __future__ import annotations

import argparse
import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pandas as pd
from graphrag.api.query import _get_embedding_store
from graphrag.config.load_config import load_config
from graphrag.config.resolve_path import resolve_paths
from graphrag.index.config.embeddings import entity_description_embedding
from graphrag.query.factory import get_local_search_engine
from graphrag.query.indexer_adapters import (
    read_indexer_entities,
    read_indexer_relationships,
    read_indexer_reports,
    read_indexer_text_units,
)

from peers.parity.graphrag_context import COMMUNITY_LEVEL, QUESTIONS, context


def record(root: Path, questions_file: Path) -> dict[str, Any]:
    config = load_config(root)
    resolve_paths(config)  # as graphrag query does: db_uri under the root
    out = root / "output"
    read = lambda name: pd.read_parquet(out / f"create_final_{name}.parquet")  # noqa: E731
    nodes, entities, reports = read("nodes"), read("entities"), read("community_reports")
    store = _get_embedding_store(config.embeddings.vector_store, entity_description_embedding)  # type: ignore[arg-type]
    local = get_local_search_engine(
        config=config,
        reports=read_indexer_reports(reports, nodes, COMMUNITY_LEVEL),
        text_units=read_indexer_text_units(read("text_units")),
        entities=read_indexer_entities(nodes, entities, COMMUNITY_LEVEL),
        relationships=read_indexer_relationships(read("relationships")),
        covariates={"claims": []},
        description_embedding_store=store,
        response_type="Multiple Paragraphs",
    )
    builder, params = local.context_builder, local.context_builder_params
    results: dict[str, Any] = {}
    for q in json.loads(questions_file.read_text(encoding="utf-8"))["questions"]:
        built = builder.build_context(query=q["text"], **params)
        mapped = store.similarity_search_by_text(
            q["text"], lambda t: builder.text_embedder.embed(t), k=params["top_k_mapped_entities"] * 2
        )
        results[q["id"]] = {
            "query": q["text"],
            "local": context(built.context_records),
            "local_mapped_entities": [[r.document.id, round(r.score, 6)] for r in mapped],
        }
    settings = {k: v for k, v in params.items() if isinstance(v, int | float | str | bool)}
    return {
        "peer": f"graphrag=={version('graphrag')}",
        "vectors": "GraphRAG's LanceDB store default-entity-description (its indexer's vectors)",
        "settings": {"local": settings, "community_level": COMMUNITY_LEVEL},
        "questions": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fixtures", required=True, type=Path)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--name", default="graphrag1_vectors", help="writes parity/NAME.json")
    args = parser.parse_args()
    target = args.fixtures.resolve() / "parity" / f"{args.name}.json"  # load_config may change directory
    data = record(args.root.resolve(), args.questions.resolve())
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"graphrag 1.x parity: {len(data['questions'])} questions -> {target}")


if __name__ == "__main__":
    main()
