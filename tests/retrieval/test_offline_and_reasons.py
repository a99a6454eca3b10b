"""Every built-in runs offline with the bundled model alone; no result without a reason; tied legs are said."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from agrag_lab import Graph, recipes
from agrag_lab.cli import format_results
from agrag_lab.retrieval.trace import Hit, MethodTrace, tie_note

QUERY = "Who worked with Babbage on the Analytical Engine?"


def _blocked(*_: Any, **__: Any) -> Any:
    raise OSError("network blocked by the test")


@pytest.mark.parametrize("name", sorted(recipes.RECIPES))  # the six of the spec and the recommended one
def test_every_builtin_recipe_runs_with_the_network_blocked(
    name: str, workshop_graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(socket.socket, "connect", _blocked)
    monkeypatch.setattr(socket, "create_connection", _blocked)
    run = workshop_graph.engine().run(QUERY, recipes.RECIPES[name])
    assert run.results, name
    assert run.trace.status == "ok", run.trace.failures()
    assert all(r.score != 0 or run.trace.outcome.rerank is not None for r in run.results)


def test_graph_hybrid_returns_no_zero_score_result_and_the_ledger_says_why(workshop_graph: Graph) -> None:
    recipe = recipes.GRAPH_HYBRID
    assert recipe.fusion.weights.get("entity") == 0.0  # the entity leg only seeds the walk: its votes weigh 0
    run = workshop_graph.engine().run(QUERY, recipe)
    out = run.trace.outcome
    fused = out.fusion.scores
    assert run.results and all(fused[r.id] > 0 for r in run.results)
    zero = [k for k in out.fusion.keys if fused[k] == 0.0]
    assert zero, "the entity hits of the question are fused with weight 0"
    assert set(out.cut.zero_score) == set(zero) and not set(zero) & {r.id for r in run.results}
    assert out.cut.candidates == len(out.fusion.keys)
    assert "with fused score 0 not returned" in run.explain(0)
    assert "with fused score 0 not returned" in format_results(run, explain=True)
    # re-fused with a weight for the entity leg, the entities come back: the rule is the score, not the kind
    again = run.refuse(weights={**recipe.fusion.weights, "entity": 1.0})
    assert not again.trace.outcome.cut.zero_score and any(r.kind == "entity" for r in again.results)


def test_a_leg_whose_scores_all_tie_says_so() -> None:
    tied = MethodTrace("passage", "ok", 0.0, (Hit("a", 0.2, 1), Hit("b", 0.1, 2)),
                       legs={"dense": (Hit("a", 0.9, 1), Hit("b", 0.8, 2)), "keyword": (Hit("a", 1.5, 1), Hit("b", 1.5, 2))})
    assert tied.tied == ("keyword",)
    assert "keyword: all 2 hits scored 1.5 (a tie" in tie_note(tied)
    assert MethodTrace("keyword", "ok", 0.0, (Hit("a", 1.0, 1),)).tied == ()
    assert MethodTrace.__dataclass_fields__["tied"].default == ()
    # it is in the ledger (the JSON trace) as data
    from agrag_lab.serialize import to_data

    assert to_data(tied)["tied"] == ["keyword"]
