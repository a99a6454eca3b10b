"""Every tool answer has a size cap: a long text is cut, the cut is marked, and text_offset reads the rest."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.evidence.answer_cap import MAX_ANSWER_CHARS, MAX_FIELD_CHARS, cap_answer
from agrag_lab.evidence.tools import run_tool
from agrag_lab.importing.validate import ImportLimits

PEERS = Path(__file__).resolve().parents[1] / "fixtures" / "peers"
#: A description far over every cap (and the import's default description limit).
LONG = "".join(f"Holmes observed clue number {n}. " for n in range(9000))


@pytest.fixture(scope="module")
def huge_entity_graph(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    """The GraphRAG fixture with SHERLOCK HOLMES described in 300,000 characters."""
    folder = tmp_path_factory.mktemp("huge") / "graphrag"
    shutil.copytree(PEERS / "graphrag", folder)
    path = folder / "entities.parquet"
    pl.read_parquet(path).with_columns(
        pl.when(pl.col("title") == "SHERLOCK HOLMES").then(pl.lit(LONG)).otherwise(pl.col("description")).alias("description")
    ).write_parquet(path)
    index = folder.parent / "index"
    with Graph.open(index, embedder=embedder) as graph:
        graph.import_graphrag(folder, limits=ImportLimits(description=len(LONG)))
    with Graph.open(index, embedder=embedder, read_only=True) as graph:
        yield graph


def test_find_entities_on_a_huge_description_answers_within_the_cap_and_reads_the_rest(huge_entity_graph: Graph) -> None:
    assert len(LONG) > 30 * MAX_FIELD_CHARS
    session = huge_entity_graph.evidence()
    first = run_tool(session, "find_entities", {"query": "SHERLOCK HOLMES", "limit": 3})
    assert len(json.dumps(first, ensure_ascii=False)) <= MAX_ANSWER_CHARS
    holmes = next(i for i, e in enumerate(first["entities"]) if e["name"] == "SHERLOCK HOLMES")
    cut = next(c for c in first["capped"]["fields"] if c["path"] == f"entities[{holmes}].description")
    assert cut["chars"] == len(LONG) and cut["shown"] == [0, MAX_FIELD_CHARS]
    assert first["entities"][holmes]["description"] == LONG[:MAX_FIELD_CHARS]
    read = first["entities"][holmes]["description"]
    offset = first["capped"]["next_text_offset"]
    for _ in range(2):  # the next parts, exactly where the last one stopped
        part = run_tool(session, "find_entities", {"query": "SHERLOCK HOLMES", "limit": 3, "text_offset": offset})
        read += part["entities"][holmes]["description"]
        offset = part["capped"]["next_text_offset"]
    assert read == LONG[:offset]
    last = run_tool(session, "find_entities", {"query": "SHERLOCK HOLMES", "limit": 3,
                                               "text_offset": len(LONG) - 10})
    assert last["entities"][holmes]["description"] == LONG[-10:] and "next_text_offset" not in last["capped"]


def test_a_small_answer_is_returned_unchanged() -> None:
    data = {"items": [{"id": "a@0123456789ab#c0", "text": "Marley was dead."}]}
    assert cap_answer(data) is data


def test_an_answer_over_the_total_cap_cuts_texts_shorter_and_then_leaves_items_off_counted() -> None:
    data = {"items": [{"id": f"d@0123456789ab#c{n}", "text": "x" * 7000} for n in range(50)]}
    capped = cap_answer(data)
    assert len(json.dumps(capped)) <= MAX_ANSWER_CHARS
    assert capped["capped"]["field_chars"] < 7000 and len(capped["items"]) == 50
    many = {"items": [{"id": f"d@0123456789ab#c{n}", "text": "y" * 600} for n in range(1000)]}
    capped = cap_answer(many)
    assert len(json.dumps(capped)) <= MAX_ANSWER_CHARS
    left = capped["capped"]["items_left_off"][0]
    assert left["path"] == "items" and left["count"] + len(capped["items"]) == 1000
