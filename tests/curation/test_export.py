"""Exports of the workshop graph and of what a search used: every format holds the graph's nodes, edges and properties."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import networkx as nx
import pytest

from agrag_lab import Graph
from agrag_lab.cli import main
from agrag_lab.errors import ArgumentError, NotFoundError
from agrag_lab.recipes import GRAPH_EXPAND, GRAPH_HYBRID
from agrag_lab.retrieval.run import SearchRun

QUERY = "Who suggested that Ada Lovelace translate Menabrea's paper?"


@pytest.fixture(scope="module")
def hybrid_run(workshop_graph: Graph) -> SearchRun:
    return workshop_graph.engine().run(QUERY, GRAPH_HYBRID)


def test_graphml_opens_in_networkx_with_the_graphs_counts_and_values(workshop_graph: Graph, tmp_path: Path) -> None:
    kg = workshop_graph.graph_store.graph
    path = workshop_graph.export(tmp_path / "g.graphml")
    read = nx.read_graphml(path, force_multigraph=True)
    assert read.number_of_nodes() == len(kg.entities) and read.number_of_edges() == len(kg.edges)
    assert {(s, t, k) for s, t, k in read.edges(keys=True)} == {e.key for e in kg.edges}
    entity = max(kg.entities.values(), key=lambda e: e.mention_count)
    node = read.nodes[entity.id]
    assert node["name"] == entity.name and node["entity_label"] == entity.label
    assert json.loads(node["chunk_ids"]) == list(entity.chunk_ids)
    assert node["mention_count"] == entity.mention_count


def test_gexf_and_graphology_json_hold_the_same_graph(workshop_graph: Graph, tmp_path: Path) -> None:
    kg = workshop_graph.graph_store.graph
    gexf = nx.read_gexf(workshop_graph.export(tmp_path / "g.gexf"))
    assert gexf.number_of_nodes() == len(kg.entities) and gexf.number_of_edges() == len(kg.edges)
    web = json.loads(workshop_graph.export(tmp_path / "g.json").read_text())
    assert web["options"]["multi"] is True
    assert {n["key"] for n in web["nodes"]} == set(kg.entities)
    assert {(e["source"], e["target"], e["attributes"]["type"]) for e in web["edges"]} == {e.key for e in kg.edges}
    one = next(n for n in web["nodes"] if n["key"] == kg.edges[0].source)
    assert one["attributes"]["label"] == kg.entities[one["key"]].name


def test_neo4j_csv_has_admin_import_headers_and_every_row(workshop_graph: Graph, tmp_path: Path) -> None:
    kg = workshop_graph.graph_store.graph
    folder = workshop_graph.export(tmp_path / "neo4j", "neo4j-csv")
    nodes = list(csv.reader((folder / "nodes.csv").open(encoding="utf-8")))
    edges = list(csv.reader((folder / "relationships.csv").open(encoding="utf-8")))
    assert nodes[0][:2] == ["id:ID", ":LABEL"] and "chunk_ids:string[]" in nodes[0] and "mention_count:long" in nodes[0]
    assert edges[0][:3] == [":START_ID", ":END_ID", ":TYPE"]
    assert len(nodes) - 1 == len(kg.entities) and len(edges) - 1 == len(kg.edges)
    column = nodes[0].index("chunk_ids:string[]")
    row = next(r for r in nodes[1:] if r[0] == kg.edges[0].source)
    assert row[column].split(";") == list(kg.entities[row[0]].chunk_ids)
    assert row[1].split(";")[0] == "Entity"


def test_a_community_and_a_neighbourhood_export_their_part(workshop_graph: Graph, tmp_path: Path) -> None:
    store = workshop_graph.graph_store
    kg = store.graph
    biggest = max(store.communities(), key=lambda c: c.size)
    part = nx.read_graphml(workshop_graph.export(tmp_path / "c.graphml", community=biggest.id), force_multigraph=True)
    members = {m for m in biggest.members if m in kg.entities}
    assert set(part.nodes) == members | {biggest.id}
    inside = {e.key for e in kg.edges if e.source in members and e.target in members}
    assert {k for k in part.edges(keys=True) if k[2] != "IN_COMMUNITY"} == inside
    centre = max(kg.entities.values(), key=lambda e: len(kg.neighbour_ids[e.id]))
    near = nx.read_graphml(workshop_graph.export(tmp_path / "n.graphml", around=centre.name), force_multigraph=True)
    assert set(near.nodes) == {centre.id, *kg.neighbour_ids[centre.id]}
    assert near.nodes[centre.id]["hop"] == 0
    with pytest.raises(NotFoundError, match="no current entity"):
        workshop_graph.export(tmp_path / "x.graphml", around="Nobody At All")
    with pytest.raises(ArgumentError, match="one part at a time"):
        workshop_graph.export(tmp_path / "x.graphml", around=centre.id, community=biggest.id)
    with pytest.raises(ArgumentError, match="cannot tell the export format"):
        workshop_graph.export(tmp_path / "x.txt")


def test_the_subgraph_a_graph_hybrid_search_used_exports_with_its_paths(
    workshop_graph: Graph, hybrid_run: SearchRun, tmp_path: Path
) -> None:
    walk = hybrid_run.trace.outcome.walk
    assert walk is not None and walk.additions and any(a.path for a in walk.additions)
    cited = hybrid_run.results[0].id
    read = nx.read_graphml(workshop_graph.export(tmp_path / "used.graphml", run=hybrid_run, cited=[cited]),
                           force_multigraph=True)
    roles = {n: set(json.loads(d["roles"])) for n, d in read.nodes(data=True)}
    assert {s for s in walk.seeds} <= {n for n, r in roles.items() if "seed" in r}
    assert {r.id for r in hybrid_run.results} <= {n for n, r in roles.items() if "result" in r}
    assert "cited" in roles[cited]
    walked = {(s, t, k): d for s, t, k, d in read.edges(keys=True, data=True) if d.get("walked")}
    for addition in walk.additions:
        for step in addition.path:
            found = walked.get((step.source, step.target, step.relation))
            assert found is not None, step
            assert found["path_rank"] <= addition.rank
        assert read.nodes[addition.entity]["walk_rank"] == addition.rank
        if addition.score:
            assert read.nodes[addition.entity]["walk_score"] == pytest.approx(addition.score)
    first = hybrid_run.results[0]
    assert read.nodes[first.id]["rank"] == 1 and read.nodes[first.id]["score"] == pytest.approx(first.score)


def test_a_graph_expand_search_exports_its_reports_with_their_entities(workshop_graph: Graph, tmp_path: Path) -> None:
    run = workshop_graph.engine().run("Who worked with Charles Babbage on the Analytical Engine?", GRAPH_EXPAND)
    added = run.trace.outcome.communities
    assert added
    web = json.loads(workshop_graph.export(tmp_path / "t.json", run=run).read_text())
    kinds = {n["key"]: n["attributes"]["kind"] for n in web["nodes"]}
    for c in added:
        assert kinds[c.community] == "community"
        links = {e["source"] for e in web["edges"] if e["target"] == c.community}
        assert links == set(c.entities)


def test_cli_export_writes_the_part_asked_for(workshop_path: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "used.cypher"
    assert main(["export", str(out), "--index", str(workshop_path), "--query", QUERY]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    script = out.read_text()
    assert script.startswith("CREATE INDEX") and '"walked": true' not in script and "`walked`: true" in script
    assert main(["export", str(tmp_path / "g.data"), "--index", str(workshop_path)]) == 2
    assert "cannot tell the export format" in capsys.readouterr().err


def test_the_ledger_view_exports_what_its_run_used(workshop_graph: Graph, hybrid_run: SearchRun, tmp_path: Path) -> None:
    from agrag_lab.widgets.fusion_inspector import FusionInspector

    inspector = FusionInspector(hybrid_run, session=workshop_graph)
    inspector.k = 60.0  # re-fused: the export follows the run as the view shows it
    web = json.loads(inspector.export_used(tmp_path / "used.json").read_text())
    ranks = {n["key"]: n["attributes"].get("rank") for n in web["nodes"]}
    assert [k for k, _ in sorted(((k, r) for k, r in ranks.items() if r), key=lambda kr: kr[1])] == list(inspector.run.keys)
    seeds = {n["key"] for n in web["nodes"] if "seed" in n["attributes"]["roles"]}
    assert seeds == set(hybrid_run.trace.outcome.walk.seeds)  # type: ignore[union-attr]
    entity = next(n for n in web["nodes"] if n["attributes"]["kind"] == "entity")
    assert entity["attributes"]["name"] == workshop_graph.graph_store.graph.entities[entity["key"]].name
