"""The offline agent answers "who ..." questions from an imported GraphRAG index's entity descriptions."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrag_lab import Graph
from agrag_lab.agent import Agent
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.importing import ImportReport


@pytest.fixture(scope="module")
def carol_graph(carol_v3: tuple[Path, ImportReport], embedder: SentenceTransformerEmbedder) -> Graph:
    path, _ = carol_v3
    graph = Graph.open(path, embedder=embedder, read_only=True)
    yield graph  # type: ignore[misc]
    graph.close()


@pytest.mark.parametrize(("question", "answer", "described"), [
    ("Who is Bob Cratchit's employer?", "Ebenezer Scrooge", "BOB CRATCHIT"),
    ("Who leads the firm of Scrooge and Marley now that Marley is dead?", "operated by Scrooge", "SCROOGE AND MARLEY"),
])
def test_who_questions_are_answered_from_the_graph_descriptions(
    carol_graph: Graph, question: str, answer: str, described: str
) -> None:
    session = carol_graph.evidence()
    reply = Agent(session).ask(question)
    assert answer.casefold() in reply.body.casefold(), reply.raw
    assert reply.all_valid and reply.cited_ids
    assert [s.tool for s in reply.steps][:3] == ["search_evidence", "fetch_evidence", "find_entities"]
    # the description is quoted (and cited by a passage fetched for it), and the notes say whose it is
    assert any(described.casefold() in note.casefold() for note in reply.notes), reply.notes
    assert session.check_citations(reply.raw).all_valid
