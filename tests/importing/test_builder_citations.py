"""Every builder id form is a citation: LightRAG chunk ids in brackets, GraphRAG 0.3-era ``[Data: Sources (0)]``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from carol_support import CAROL

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.importing.graphrag import read_graphrag

LIGHTRAG = Path(__file__).resolve().parents[1] / "fixtures" / "peers" / "lightrag"


@pytest.fixture(scope="module")
def lightrag_graph(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    path = tmp_path_factory.mktemp("lightrag-citations") / "index"
    with Graph.open(path, embedder=embedder) as graph:
        graph.import_lightrag(LIGHTRAG)
    with Graph.open(path, embedder=embedder, read_only=True) as graph:
        yield graph


def test_a_lightrag_chunk_id_in_brackets_is_checked_like_the_passage_it_names(lightrag_graph: Graph) -> None:
    chunks = json.loads((LIGHTRAG / "kv_store_text_chunks.json").read_text(encoding="utf-8"))
    cid = next(k for k, v in chunks.items() if v["content"].startswith("Call me Ishmael"))
    session = lightrag_graph.evidence()
    answer = f"Ishmael had little or no money in his purse [{cid}]."
    assert session.check_citations(answer).checks[0].reason == "not_fetched"  # not "unresolved"
    assert session.fetch(cid).items[0].ok
    (check,) = session.check_citations(answer).checks
    assert (check.citation, check.valid, check.reason, check.support) == (cid, True, "fetched", "supported")
    assert session.render_citations(answer).body == "Ishmael had little or no money in his purse [1]."
    (wrong,) = session.check_citations(f"Ishmael flew to the moon in 1990 [{cid}].").checks
    assert wrong.reason == "unsupported"


def test_graphrag_0_3_sources_are_numbered_from_0_as_its_answers_cite_them() -> None:
    """GraphRAG 0.3's query reads text units with short_id_col=None: Sources (n) is the n-th row, from 0."""
    imported = read_graphrag(CAROL / "v0")
    rows = pl.read_parquet(CAROL / "v0" / "create_final_text_units.parquet")
    first = imported.aliases.resolve("source:0")
    assert first is not None and first == imported.aliases.resolve(str(rows["id"][0]))
    last = imported.aliases.resolve(f"source:{rows.height - 1}")
    assert last is not None and last == imported.aliases.resolve(str(rows["id"][rows.height - 1]))
    assert imported.aliases.resolve(f"source:{rows.height}") is None
