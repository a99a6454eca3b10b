"""GraphML import (a LightRAG-style file written from the real GraphRAG entities), and the CLI."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import polars as pl
import pytest
from carol_support import table

from agrag_lab import Graph
from agrag_lab.cli import main
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import AgragError, EvidenceIdError, NotFoundError
from agrag_lab.evidence.access import NO_PASSAGES as NO_PASSAGES_NOTE
from agrag_lab.evidence.access import no_passages_note, unknown_id_message, unreadable_message
from agrag_lab.evidence.results import FetchError
from agrag_lab.evidence.session import Scope
from agrag_lab.importing import ImportReport, ImportSourceError
from agrag_lab.importing.graphml import NO_PASSAGES, read_graphml
from agrag_lab.recipes import BUILTINS

#: Entities in the GraphML test file (kept small: each is embedded).
NODES = 40


@pytest.fixture(scope="module")
def lightrag_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """LightRAG's layout (entity_id, entity_type, description, source_id; edges with keywords and weight),
    filled with the 1.x output's most connected entities and the relationships between them."""
    nodes = table("v1", "nodes").filter(pl.col("level") == 0).sort("degree", descending=True).head(NODES)
    entities = table("v1", "entities").filter(pl.col("title").is_in(nodes["title"].implode()))
    g = nx.Graph()
    for row in entities.iter_rows(named=True):
        g.add_node(row["title"], entity_id=row["title"], entity_type=row["type"], description=row["description"],
                   source_id="<SEP>".join(row["text_unit_ids"]))
    rels = table("v1", "relationships").filter(
        pl.col("source").is_in(nodes["title"].implode()) & pl.col("target").is_in(nodes["title"].implode()))
    for row in rels.iter_rows(named=True):
        g.add_edge(row["source"], row["target"], description=row["description"], weight=row["weight"], keywords="")
    path = tmp_path_factory.mktemp("lightrag") / "graph_chunk_entity_relation.graphml"
    nx.write_graphml(g, path)
    return path, g.number_of_edges()


@pytest.fixture(scope="module")
def graphml_index(lightrag_file: tuple[Path, int], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The GraphML file imported through the CLI (``agrag-lab import graphml``)."""
    path = tmp_path_factory.mktemp("graphml") / "index"
    assert main(["import", "graphml", str(lightrag_file[0]), "--index", str(path)]) == 0
    return path


def test_graphml_nodes_and_edges_become_entities_and_relations(
    lightrag_file: tuple[Path, int], graphml_index: Path, embedder: SentenceTransformerEmbedder
) -> None:
    imported = read_graphml(lightrag_file[0])
    assert imported.rows == {"nodes": NODES, "edges": lightrag_file[1]} and NO_PASSAGES in imported.notes
    with Graph.open(graphml_index, embedder=embedder, read_only=True) as graph:
        store = graph.graph_store
        assert len(store.entities()) == NODES and len(store.graph.edges) == lightrag_file[1]
        scrooge = store.entity_by_name("EBENEZER SCROOGE")
        row = table("v1", "entities").filter(pl.col("title") == "EBENEZER SCROOGE").row(0, named=True)
        assert scrooge is not None and (scrooge.label, scrooge.description) == ("PERSON", row["description"])
        assert dict(scrooge.attributes)["source_id"].split("<SEP>") == row["text_unit_ids"]
        run = graph.engine().run("Scrooge's clerk", BUILTINS["ENTITY"])
        assert run.results and {r.kind for r in run.results} == {"entity"}
        walk = graph.engine().run("Scrooge", BUILTINS["GRAPH_EXPAND"].replace(**{"walk.strategy": "bfs"})).trace.outcome.walk
        assert walk is not None and walk.additions
        session = graph.evidence()
        found = session.discover("Marley was dead")
        assert found.hits == () and "holds no passages" in found.message
        explored = session.explore("EBENEZER SCROOGE")
        assert explored.edges and all(e.kind == "path" for e in explored.edges)  # no passage supports them
        assert not graph.evidence(Scope(document_ids={"a-book"})).find_entities("Scrooge").entities


def test_the_cli_imports_graphrag_and_a_reimport_changes_nothing(
    carol_v1: tuple[Path, ImportReport], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = carol_v1
    from carol_support import CAROL

    assert main(["import", "graphrag", str(CAROL / "v1"), "--index", str(path)]) == 0
    assert "unchanged: the index already holds this import" in capsys.readouterr().out
    assert main(["import", "graphrag", str(CAROL / "v3"), "--index", str(path)]) == 2
    assert "an import needs an index folder of its own" in capsys.readouterr().err
    assert main(["search", "Who is Tiny Tim?", "--recipe", "THEMATIC", "--index", str(path)]) == 0
    titles = set(table("v1", "community_reports")["title"])
    out = capsys.readouterr().out
    assert any(t in out for t in titles)


def test_a_file_that_is_not_graphml(tmp_path: Path) -> None:
    bad = tmp_path / "g.graphml"
    bad.write_text("<graphml><graph><node", encoding="utf-8")
    with pytest.raises(ImportSourceError, match="cannot be read as GraphML"):
        read_graphml(bad)
    with pytest.raises(ImportSourceError, match="is not a file"):
        read_graphml(tmp_path / "missing.graphml")


def test_fetch_navigate_and_cite_on_a_graph_without_passages_say_it_has_none(
    graphml_index: Path, embedder: SentenceTransformerEmbedder
) -> None:
    """An imported GraphML graph has entities but no passages: every id-reading function says so,
    not the generic "unknown evidence id" (which would send the user hunting for a better id)."""
    wanted = "a-book@0123456789ab#c1"
    with Graph.open(graphml_index, embedder=embedder, read_only=True) as graph:
        session = graph.evidence()
        assert no_passages_note(session) == NO_PASSAGES_NOTE
        assert unreadable_message(session, wanted) != unknown_id_message(wanted)
        found = session.discover("Marley was dead")
        assert found.message.endswith(f"; {NO_PASSAGES_NOTE}")
        for raw in (wanted, "a-book@0123456789ab#s0-40"):
            (item,) = session.fetch(raw).items
            assert isinstance(item, FetchError) and item.reason == "unknown"
            assert item.message == f"cannot read {raw!r}: {NO_PASSAGES_NOTE}"
            assert "imported from GraphML without source text" in item.message
            assert "unknown evidence id" not in item.message
        with pytest.raises(NotFoundError, match="imported from GraphML without source text") as caught:
            session.navigate(wanted, "next")
        assert isinstance(caught.value, AgragError) and "unknown evidence id" not in str(caught.value)
        (check,) = session.check_citations([wanted]).checks
        assert (check.valid, check.reason) == (False, "unknown") and NO_PASSAGES_NOTE in check.message
        with pytest.raises(EvidenceIdError):  # a malformed id is still malformed, not "no passages"
            session.navigate("not an id", "next")
