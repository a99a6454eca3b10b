"""How every GraphRAG version's context records are written into a parity record (pandas and json only).

Used by ``graphrag_parity.py`` (graphrag 3.3.0) and ``graphrag1_parity.py`` (1.2.0), each run in its version's venv.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

#: The English questions every GraphRAG parity record asks.
QUESTIONS = Path(__file__).with_name("questions.json")
#: graphrag query's default --community-level
COMMUNITY_LEVEL = 2
#: The columns of a context table the parity tests read.
COLUMNS = ("id", "entity", "title", "source", "target", "rank", "weight", "in_context", "occurrence weight", "links")


def table(frame: Any) -> list[dict[str, Any]]:
    """A context table's rows, in GraphRAG's order, with the columns of :data:`COLUMNS` it has (none for no table)."""
    if not isinstance(frame, pd.DataFrame):
        return []
    keep = [c for c in COLUMNS if c in frame.columns]
    rows: list[dict[str, Any]] = json.loads(frame[keep].to_json(orient="records", force_ascii=False))
    return rows


def context(data: Any) -> dict[str, list[dict[str, Any]]]:
    """Every table of a context builder's ``context_records``, by name."""
    if not isinstance(data, dict):
        return {}
    return {str(k): table(v) for k, v in data.items()}
