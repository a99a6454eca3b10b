"""What a notebook is given (agrag_lab.notebook_inputs): its index, questions and recipes, and the examples it picks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agrag_lab import Graph
from agrag_lab.cli import build_parser
from agrag_lab.errors import DatasetError, IndexFormatError
from agrag_lab.notebook_inputs import INDEX_ENV, is_cjk, open_index, pick_examples, read_questions, recipe_list

PEERS = Path(__file__).resolve().parent / "fixtures" / "peers"


def test_examples_are_picked_from_the_index_and_say_so(peer_graphrag_path: Path) -> None:
    with Graph.open(peer_graphrag_path, read_only=True) as graph:
        examples = pick_examples(graph)
        degrees = {e.name: len(graph.graph_store.neighbours(e.id)) for e in graph.graph_store.entities()}
        titles = {r.title for r in graph.graph_store.reports()}
    assert examples.entity is not None and degrees[examples.entity] == max(degrees.values())
    assert examples.report in titles
    assert examples.entity in examples.questions["entity"] and examples.entity in examples.note
    assert examples.passage is not None and examples.questions["passage"] == examples.passage_words
    assert "picked from this index" in examples.note


def test_an_index_without_reports_gets_no_report_question(peer_lightrag_path: Path) -> None:
    with Graph.open(peer_lightrag_path, read_only=True) as graph:
        examples = pick_examples(graph)
    assert examples.report is None and "report" not in examples.questions
    assert examples.entity is not None


def test_questions_come_from_a_file_a_list_or_the_examples(tmp_path: Path, peer_lightrag_path: Path) -> None:
    lines = tmp_path / "questions.txt"
    lines.write_text("# mine\n刘备是谁？\n\nWho is Ishmael?\n", encoding="utf-8")
    assert read_questions(str(lines)) == {"q1": "刘备是谁？", "q2": "Who is Ishmael?"}
    listed = tmp_path / "questions.json"
    listed.write_text(json.dumps({"a": "Who?"}), encoding="utf-8")
    assert read_questions(listed) == {"a": "Who?"}
    records = tmp_path / "queries.jsonl"
    records.write_text('{"_id": "x1", "text": "Where?"}\n', encoding="utf-8")
    assert read_questions(records) == {"x1": "Where?"}
    with Graph.open(peer_lightrag_path, read_only=True) as graph:
        examples = pick_examples(graph)
    assert read_questions(None, examples) == dict(examples.questions)
    assert read_questions(None, examples, default=["bundled"]) == {"q1": "bundled"}
    assert read_questions(["given"], examples, default=["bundled"]) == {"q1": "given"}
    with pytest.raises(DatasetError, match="no questions"):
        read_questions([" "])


def test_chinese_is_told_apart() -> None:
    assert is_cjk("话说天下大势，分久必合") and not is_cjk("Call me Ishmael")


def test_recipes_by_name_any_case() -> None:
    assert [r.name for r in recipe_list(["graph_hybrid", "GRAPHRAG_LOCAL"])] == ["GRAPH_HYBRID", "GRAPHRAG_LOCAL"]


def test_a_builders_output_is_no_index_and_the_error_says_how_to_import_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(INDEX_ENV, raising=False)
    with pytest.raises(IndexFormatError, match="agrag-lab import graphrag"):
        open_index(PEERS / "graphrag", lambda: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(IndexFormatError, match="agrag-lab import lightrag"):
        open_index(PEERS / "lightrag", lambda: None)  # type: ignore[arg-type,return-value]


def test_lab_index_opens_the_notebooks_on_that_index_and_builds_nothing(
    peer_graphrag_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workshop = tmp_path / "workshop"
    args = build_parser().parse_args(
        ["lab", "--index", str(peer_graphrag_path), "--workshop-index", str(workshop), "--prepare-only"]
    )
    assert args.func(args) == 0
    assert not workshop.exists()  # nothing bundled built
    monkeypatch.setenv(INDEX_ENV, str(peer_graphrag_path))
    graph = open_index(None, lambda: None)  # type: ignore[arg-type,return-value]
    assert graph.path == peer_graphrag_path and not graph.writable
    graph.close()
    with pytest.raises(IndexFormatError, match="import it first"):
        bad = build_parser().parse_args(["lab", "--index", str(PEERS / "graphrag"), "--prepare-only"])
        bad.func(bad)
