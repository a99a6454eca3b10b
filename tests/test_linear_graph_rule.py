"""The recommended recipe's rule as ``benchmarks.linear_graph`` applies it: issue 16's rule on every benchmark, and
on the multi-hop one not below GRAPH_EXPAND on the rule graph."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.linear_graph import CANDIDATES, MULTI_HOP, ORDER, candidate_verdicts
from benchmarks.retrieval import PRIMARY


def _entry(name: str, candidate: float, expand: float, why: str = "met") -> dict[str, Any]:
    metric = PRIMARY[name]
    systems = ["GRAPH_HYBRID @ rules", *(f"{c.name} @ rules" for c in CANDIDATES)]
    return {
        "means": {"GRAPH_EXPAND @ rules": {metric: expand}, **{s: {metric: candidate} for s in systems}},
        "rule": {s: why for s in systems},
        "paired": {metric: {f"{s} | GRAPH_EXPAND @ rules": 0.5 for s in systems}},
    }


@pytest.fixture
def saved() -> dict[str, Any]:
    """Every benchmark met by every candidate, each candidate above GRAPH_EXPAND on MuSiQue."""
    return {name: _entry(name, 0.8, 0.7) for name in ORDER}


def test_a_candidate_that_meets_the_rule_everywhere_and_reaches_graph_expand_is_chosen(saved: dict[str, Any]) -> None:
    assert all(ok for _, ok, _ in candidate_verdicts(saved))


def test_a_candidate_below_graph_expand_on_multi_hop_is_not_met(saved: dict[str, Any]) -> None:
    saved[MULTI_HOP] = _entry(MULTI_HOP, 0.69, 0.7)
    verdicts = candidate_verdicts(saved)
    assert not any(ok for _, ok, _ in verdicts)
    assert all("vs GRAPH_EXPAND 0.700" in cells[ORDER.index(MULTI_HOP)] for _, _, cells in verdicts)


def test_a_benchmark_failed_or_not_measured_is_not_met(saved: dict[str, Any]) -> None:
    saved["scifact"] = _entry("scifact", 0.8, 0.7, why="ndcg@10 0.885 < 0.890")
    assert not any(ok for _, ok, _ in candidate_verdicts(saved))
    del saved["scifact"]
    assert {cells[ORDER.index("scifact")] for _, _, cells in candidate_verdicts(saved)} == {"not measured"}
