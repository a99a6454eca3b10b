"""GraphCurator on a writable copy of the workshop index: pick a candidate, merge, see it redrawn, undo."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import ArgumentError
from agrag_lab.widgets.graph_curator import GraphCurator

PAIR = ("ent-ada-byron", "ent-augusta-ada-byron")


@pytest.fixture
def curator(workshop_path: Path, tmp_path: Path, embedder: SentenceTransformerEmbedder) -> Iterator[GraphCurator]:
    path = tmp_path / "index"
    shutil.copytree(workshop_path, path)
    graph = Graph.open(path, embedder=embedder)
    yield GraphCurator(graph, who="a reviewer")
    graph.close()


def test_a_merge_in_the_curator_is_kept_redrawn_and_undone(curator: GraphCurator) -> None:
    with pytest.raises(ArgumentError, match="pick a candidate first"):
        curator.merge()
    index = next(i for i, c in enumerate(curator.candidates) if c.entities == PAIR)
    assert "|".join(PAIR) in curator.table.row_keys
    assert curator.pick(index) == PAIR
    assert "Ada Byron" in curator.left.value and "Augusta Ada Byron" in curator.right.value
    assert curator.passages.options and curator.canvas.selected == PAIR[0]
    curator.why.value = "one person"
    outcome = curator.merge()
    assert outcome.status == "applied"
    assert "|".join(PAIR) not in curator.table.row_keys
    assert PAIR[0] in curator.canvas.view["ids"] and PAIR[1] not in curator.canvas.view["ids"]
    assert "Augusta Ada Byron" in curator.left.value and curator.right.value == ""  # now an alias of the left
    (row,) = curator.edit_log.rows
    assert row["status"] == "applied" and row["why"] == "one person"
    record, _ = curator.graph.edits()[0]
    assert record.who == "a reviewer"
    curator.undo()
    assert "|".join(PAIR) in curator.table.row_keys
    assert "Augusta Ada Byron" in curator.right.value and curator.edit_log.rows[0]["status"] == "undone"


def test_an_edit_that_does_not_apply_is_shown_and_a_split_redraws(curator: GraphCurator) -> None:
    curator.show_pair("ent-charles-babbage", "ent-ada-lovelace")
    curator._act(lambda: curator.rename("Charles Babbage"))  # its name already: the edit does not apply
    assert "already" in curator.status.value and curator.graph.edits() == ()
    chunk = curator.passages.options[-1][1]
    outcome = curator.split((chunk,), "Babbage in one passage")
    assert outcome.status == "applied" and "1 passages of ent-charles-babbage moved" in curator.status.value
    new = curator.graph.graph_store.entity_by_name("Babbage in one passage")
    assert new is not None and new.chunk_ids == (chunk,)
    babbage = curator.graph.graph_store.entity("ent-charles-babbage")
    assert babbage is not None and chunk not in babbage.chunk_ids and chunk not in dict(curator.passages.options).values()
