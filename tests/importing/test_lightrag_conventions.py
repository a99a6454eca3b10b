"""LightRAG's own conventions where they decide what is searched: relation ends from its vector records,
names of the 2024-2025 layout without their literal quotes, and the offline keyword rule in any case."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import networkx as nx
import pytest

from agrag_lab import Graph
from agrag_lab.agent import Agent
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.importing.lightrag import CHUNKS_FILE, DOCS_FILE, GRAPH_FILE, read_lightrag
from agrag_lab.importing.lightrag_vectors import RELATIONS_VDB
from agrag_lab.retrieval.query_keywords import rule_keywords

LIGHTRAG = Path(__file__).resolve().parents[1] / "fixtures" / "peers" / "lightrag"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "rag"
    folder.mkdir()
    for name in (GRAPH_FILE, CHUNKS_FILE, DOCS_FILE):
        shutil.copyfile(LIGHTRAG / name, folder / name)
    return folder


@pytest.fixture
def old_layout(tmp_path: Path) -> Path:
    """The fixture as LightRAG's 2024-2025 releases wrote it: node ids in literal quotes, upper case, no entity_id."""
    folder = _copy(tmp_path)
    g = nx.read_graphml(folder / GRAPH_FILE)
    g = nx.relabel_nodes(g, {n: f'"{n.upper()}"' for n in g.nodes})
    for _, attrs in g.nodes(data=True):
        attrs.pop("entity_id", None)
    nx.write_graphml(g, folder / GRAPH_FILE)
    return folder


def _ends(folder: Path) -> set[tuple[str, str]]:
    store = read_lightrag(folder).store
    names = {e.id: e.name for e in store.entities()}
    return {(names[e.source], names[e.target]) for e in store.graph.edges}


def test_relation_ends_are_sorted_by_name_without_vector_records(tmp_path: Path) -> None:
    ends = _ends(_copy(tmp_path))
    assert ends and all(a < b for a, b in ends)  # lightrag-hku 1.5.7 writes src_id <= tgt_id


def test_relation_ends_follow_the_builders_vector_records(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    flipped = sorted(_ends(folder))[:3]
    records = [{"__id__": f"rel-{i}", "src_id": b, "tgt_id": a, "content": f"\t{b}\n{a}\n"} for i, (a, b) in enumerate(flipped)]
    (folder / RELATIONS_VDB).write_text(json.dumps({"embedding_dim": 2, "data": records}), encoding="utf-8")
    ends = _ends(folder)
    assert {(b, a) for a, b in flipped} <= ends and not set(flipped) & ends


def test_quoted_names_of_the_old_layout_are_stripped_and_kept_as_aliases(old_layout: Path) -> None:
    imported = read_lightrag(old_layout)
    names = {e.name: e for e in imported.store.entities()}
    assert "SHERLOCK HOLMES" in names and not any(n.startswith('"') for n in names)
    assert names["SHERLOCK HOLMES"].aliases == ('"SHERLOCK HOLMES"',)
    eid = names["SHERLOCK HOLMES"].id
    assert imported.aliases.resolve("entity:SHERLOCK HOLMES") == ("entity", eid)
    assert imported.aliases.resolve('entity:"SHERLOCK HOLMES"') == ("entity", eid)
    assert any("2024-2025 layout" in n for n in imported.notes)


def test_explore_finds_an_old_layout_entity_by_its_builder_id(old_layout: Path, tmp_path: Path,
                                                              embedder: SentenceTransformerEmbedder) -> None:
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        report = graph.import_lightrag(old_layout)
        session = graph.evidence()
        assert session.explore("entity:SHERLOCK HOLMES").entity.name == "SHERLOCK HOLMES"
        assert session.explore('entity:"SHERLOCK HOLMES"').entity.name == "SHERLOCK HOLMES"
        # a Chinese name of the quoted layout: stripped, explored by itself and by the builder's quoted id
        assert session.explore("entity:刘备").entity.name == "刘备"
        explored = session.explore('entity:"刘备"')
        assert explored.entity.name == "刘备" and {"张飞", "关羽"} <= {r.entity.name for r in explored.reached}
        words = rule_keywords("Which kings visited sherlock holmes?", [e.name for e in graph.graph_store.entities()])
        # the offline agent answers a Chinese question over the quoted layout, with a checked citation
        reply = Agent(session).ask("张角在哪里起事？")
        assert "巨鹿" in reply.body and reply.all_valid and reply.cited_ids, reply.raw
        assert session.check_citations(reply.raw).all_valid
    assert "SHERLOCK HOLMES" in words.low  # the quoted name, found in lower case
    assert "searched by all-MiniLM-L6-v2 (local)" in str(report)


def test_the_offline_rule_matches_names_in_any_case_and_plural() -> None:
    names = ["SHERLOCK HOLMES", "Company", "Ada", "刘备"]
    words = rule_keywords("Which companies did sherlock holmes and 刘备 visit in Canada?", names)
    assert words.low[:3] == ("Company", "SHERLOCK HOLMES", "刘备")
    assert "Ada" not in words.low  # a name matches whole words only
