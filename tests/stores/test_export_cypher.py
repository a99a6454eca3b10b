"""The exported Cypher script, loaded into a real FalkorDB server, holds the same nodes, edges and properties."""

from __future__ import annotations

import contextlib
from typing import Any

from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.export import Subgraph, whole
from agrag_lab.kg.export_formats import cypher_script


def _load(server: tuple[str, int], name: str, script: str) -> Any:
    from falkordb import FalkorDB

    from agrag_lab.graph_stores.falkordb.auth import find_password

    host, port = server
    graph = FalkorDB(host=host, port=port, password=find_password(host, port)).select_graph(name)
    with contextlib.suppress(Exception):  # a graph that does not exist yet
        graph.delete()
    for line in script.splitlines():
        graph.query(line)
    return graph


def _expected(sub: Subgraph) -> tuple[dict[str, Any], dict[tuple[str, str, str], dict[str, Any]]]:
    nodes = {n.id: {"kind": n.kind, **{k: list(v) if isinstance(v, tuple) else v for k, v in n.properties}}
             for n in sub.nodes}
    edges = {e.key: {k: list(v) if isinstance(v, tuple) else v for k, v in e.properties if k != "type"}
             for e in sub.edges}
    return nodes, edges


def test_the_cypher_export_loaded_into_falkordb_gives_the_same_graph(
    falkordb_server: tuple[str, int], reference: NetworkXGraphStore
) -> None:
    communities, reports = reference.stored()
    sub = whole(reference.graph, communities, reports, with_communities=True)
    assert any(n.kind == "community" for n in sub.nodes) and any("'" in str(v) for n in sub.nodes for _, v in n.properties)
    graph = _load(falkordb_server, "export-cypher", cypher_script(sub))
    expected_nodes, expected_edges = _expected(sub)
    rows = graph.query("MATCH (n) RETURN n.id, labels(n), properties(n)").result_set
    got_nodes = {node_id: {k: v for k, v in props.items() if k != "id"} for node_id, _, props in rows}
    assert got_nodes == expected_nodes
    labels = {node_id: set(found) for node_id, found, _ in rows}
    for n in sub.nodes:
        assert labels[n.id] == {{"entity": "Entity", "chunk": "Chunk", "community": "Community"}[n.kind], *n.labels}
    rows = graph.query("MATCH (a)-[r]->(b) RETURN a.id, b.id, type(r), properties(r)").result_set
    got_edges = {(s, t, kind): props for s, t, kind, props in rows}
    assert len(rows) == len(sub.edges) and got_edges == expected_edges
    graph.delete()
