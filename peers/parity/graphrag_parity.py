"""What Microsoft GraphRAG 3.3.0's own query code selects, recorded for the parity tests.

Runs in the peers venv, inside ``make peers`` (after ``peers/graphrag_index.py``): loads
the output tables and the LanceDB vectors GraphRAG wrote (our model's vectors, through the
scripted server), and calls GraphRAG's own ``graphrag.api.basic_search``, ``local_search``
and ``global_search`` for each question of ``questions.json``. The context each search
built (``context_data``: which text units, entities, relationships and reports, in the
order the context lists them) is written to ``parity/graphrag.json``. The answers come
from the scripted model and are not recorded.

``python peers/parity/graphrag_parity.py --url URL --fixtures tests/fixtures/peers --root GRAPHRAG_ROOT``
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import pandas as pd
from graphrag import api
from graphrag.config.load_config import load_config

QUESTIONS = Path(__file__).with_name("questions.json")


def _table(frame: Any) -> list[dict[str, Any]]:
    if not isinstance(frame, pd.DataFrame):
        return []
    keep = [c for c in ("id", "entity", "title", "source", "target", "rank", "weight", "in_context", "occurrence weight", "links") if c in frame.columns]
    return json.loads(frame[keep].to_json(orient="records", force_ascii=False))


def _context(data: Any) -> dict[str, list[dict[str, Any]]]:
    if not isinstance(data, dict):
        return {}
    return {str(k): _table(v) for k, v in data.items()}


async def record(root: Path) -> dict[str, Any]:
    config = load_config(root)
    out = root / "output"
    read = lambda name: pd.read_parquet(out / f"{name}.parquet")  # noqa: E731
    entities, communities, reports = read("entities"), read("communities"), read("community_reports")
    text_units, relationships = read("text_units"), read("relationships")
    level = int(communities["level"].max()) if len(communities) else 0
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    results: dict[str, Any] = {}
    for q in questions:
        _, basic = await api.basic_search(config=config, text_units=text_units, response_type="Multiple Paragraphs", query=q["text"])
        _, local = await api.local_search(
            config=config,
            entities=entities,
            communities=communities,
            community_reports=reports,
            text_units=text_units,
            relationships=relationships,
            covariates=None,
            community_level=2,
            response_type="Multiple Paragraphs",
            query=q["text"],
        )
        _, global_ = await api.global_search(
            config=config,
            entities=entities,
            communities=communities,
            community_reports=reports,
            community_level=2,
            dynamic_community_selection=False,
            response_type="Multiple Paragraphs",
            query=q["text"],
        )
        results[q["id"]] = {
            "query": q["text"],
            "basic": _context(basic),
            "local": _context(local),
            "global": _context(global_),
        }
    settings = {
        "basic_search.k": config.basic_search.k,
        "local_search.top_k_entities": config.local_search.top_k_entities,
        "local_search.top_k_relationships": config.local_search.top_k_relationships,
        "local_search.text_unit_prop": config.local_search.text_unit_prop,
        "local_search.community_prop": config.local_search.community_prop,
        "local_search.max_context_tokens": config.local_search.max_context_tokens,
        "global_search.max_context_tokens": config.global_search.max_context_tokens,
        "community_level": 2,
        "max_level_in_output": level,
    }
    return {"peer": "graphrag==3.3.0", "settings": settings, "questions": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--fixtures", required=True, type=Path)
    parser.add_argument("--root", required=True, type=Path)
    args = parser.parse_args()
    data = asyncio.run(record(args.root))
    target = args.fixtures / "parity" / "graphrag.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"graphrag parity: {len(data['questions'])} questions -> {target}")


if __name__ == "__main__":
    main()
