"""The fusion ledger fits 1366x768: a narrower item column, and no column that repeats another.

The browser gallery measures the ledger (every number of a row in view); these tests hold its columns.
"""

from __future__ import annotations

from agrag_lab.retrieval.run import SearchRun
from agrag_lab.widgets import FusionInspector
from agrag_lab.widgets.fusion_inspector import LEDGER_TITLE_WIDTH


def _columns(inspector: FusionInspector) -> dict[str, dict[str, object]]:
    return {c["key"]: c for c in inspector.ledger_table.columns}


def test_the_fused_rank_is_shown_only_where_it_differs_from_the_final_rank(runs: dict[str, SearchRun]) -> None:
    plain = FusionInspector(runs["GRAPH_EXPAND"])
    assert all(r["fused_rank"] == r["position"] for r in plain.view.ledger)
    assert "fused_rank" not in _columns(plain)
    reranked = FusionInspector(runs["HYBRID_GD"])
    differs = any(r["fused_rank"] != r["position"] for r in reranked.view.ledger)
    assert differs, "the graph-distance re-rank moves an item"
    assert "fused_rank" in _columns(reranked) and "rerank_rank" in _columns(reranked)


def test_the_item_column_is_narrower_and_cut_with_its_whole_name_in_the_hover(runs: dict[str, SearchRun]) -> None:
    columns = _columns(FusionInspector(runs["GRAPH_EXPAND"]))
    assert columns["title"]["max_width"] == LEDGER_TITLE_WIDTH
    assert all(c["max_width"] == "" for k, c in columns.items() if k != "title")
