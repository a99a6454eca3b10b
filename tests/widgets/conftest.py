"""Runs of the workshop index shared by the widget tests (each search runs once per session)."""

from __future__ import annotations

import pytest

from agrag_lab import Graph
from agrag_lab.recipes import GRAPH_EXPAND, HYBRID
from agrag_lab.retrieval.engine import SearchEngine
from agrag_lab.retrieval.run import SearchRun

#: --doctest-modules would import this file as a module named "conftest", which clashes with
#: the other conftest.py files of tests/ (not packages); pytest loads it as a plugin anyway.
collect_ignore = ["conftest.py"]

QUERY = "Who worked with Babbage?"


@pytest.fixture(scope="session")
def widget_engine(workshop_graph: Graph) -> SearchEngine:
    return workshop_graph.engine()


@pytest.fixture(scope="session")
def runs(widget_engine: SearchEngine) -> dict[str, SearchRun]:
    """HYBRID, GRAPH_EXPAND (walk + communities) and a graph-distance re-rank, on one query."""
    reranked = HYBRID.replace(
        name="HYBRID_GD", **{"communities.enabled": True, "rerank.kind": "graph_distance"}
    )
    return {
        "HYBRID": widget_engine.run(QUERY, HYBRID),
        "GRAPH_EXPAND": widget_engine.run(QUERY, GRAPH_EXPAND),
        "HYBRID_GD": widget_engine.run(QUERY, reranked),
    }
