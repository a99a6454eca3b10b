"""The peer recipes on an index whose graph is served by FalkorDB (the session's server fixture).

GraphRAG's three and LinearRAG read the graph through the store Protocol and answer as in process,
ledger and all (LinearRAG on its own tri-graph: ``test_peer_parity_linearrag.py``); LightRAG's four and HippoRAG 2 read the whole graph in-process and refuse, naming the fix;
the fix (the same index opened without the server) runs them.
"""

from __future__ import annotations

from typing import Any

import pytest

from agrag_lab import Graph
from agrag_lab.errors import AgragError
from agrag_lab.eval import workshop
from agrag_lab.recipes import peers
from agrag_lab.retrieval.capabilities import IN_PROCESS_FIX

PROTOCOL = ("GRAPHRAG_BASIC", "GRAPHRAG_GLOBAL", "GRAPHRAG_LOCAL", "LINEARRAG")
IN_PROCESS = ("HIPPORAG2", "LIGHTRAG_GLOBAL", "LIGHTRAG_HYBRID", "LIGHTRAG_LOCAL", "LIGHTRAG_MIX")
TIMINGS = {"seconds", "spans", "model_load_seconds"}


def _ledger(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _ledger(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_ledger(v) for v in value]
    return value


def test_the_peer_recipes_are_all_named_here() -> None:
    assert sorted((*PROTOCOL, *IN_PROCESS)) == sorted(peers())


@pytest.mark.parametrize("name", PROTOCOL)
def test_graphrag_recipes_answer_from_the_server_as_in_process(
    workshop_graph: Graph, served_workshop_graph: Graph, name: str
) -> None:
    recipe = peers()[name]
    local, remote = workshop_graph.engine(), served_workshop_graph.engine()
    for query in list(workshop().queries.values())[:3]:
        a, b = local.run(query, recipe), remote.run(query, recipe)
        assert a.results and b.results == a.results, (name, query)
        assert _ledger(b.to_dict()) == _ledger(a.to_dict()), (name, query)


@pytest.mark.parametrize("name", IN_PROCESS)
def test_whole_graph_recipes_refuse_a_served_graph_naming_the_fix(
    workshop_graph: Graph, served_workshop_graph: Graph, name: str
) -> None:
    query = workshop().queries[workshop().judged_queries[0]]
    with pytest.raises(AgragError) as refused:
        served_workshop_graph.engine().run(query, peers()[name])
    assert IN_PROCESS_FIX in str(refused.value) and "ServedGraphStore" in str(refused.value)
    # the fix: the same index folder opened without the server runs it (each step in its ledger)
    ran = workshop_graph.engine().run(query, peers()[name]).trace.methods
    assert len(ran) == 1 and {"passages", "keyword_source"} & set(ran[0].legs), ran
