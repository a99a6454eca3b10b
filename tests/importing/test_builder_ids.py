"""GraphRAG's own ids (``id`` and ``human_readable_id`` of every table) are aliases of ours, on every surface."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from carol_support import CAROL, table

from agrag_lab import Graph
from agrag_lab.cli import main as cli_main
from agrag_lab.evidence.results import FetchedText
from agrag_lab.importing import ImportReport
from agrag_lab.recipes import BUILTINS

PREFIX = "title: a-christmas-carol.txt.\n"


def test_fetch_takes_graphrag_text_unit_ids_byte_exact(carol: tuple[str, Graph, ImportReport]) -> None:
    version, graph, report = carol
    session = graph.evidence()
    units = table(version, "text_units")
    assert report.aliases >= units.height * 2
    for n, row in enumerate(units.iter_rows(named=True)):  # GraphRAG's query numbers a text unit by its row, from 0
        by_id, by_number = session.fetch([row["id"], f"source:{n}"]).items
        assert by_id.ok and by_number.ok and by_id.id == by_number.id
        assert isinstance(by_id, FetchedText) and by_id.text == row["text"].removeprefix(PREFIX)
    if version == "v1":  # 1.x writes human_readable_id from 1: its answers' Sources (n) is the row numbered n + 1
        assert units["human_readable_id"][0] == 1
        (second,) = session.fetch([f"source:{units['human_readable_id'][0]}"]).items
        assert isinstance(second, FetchedText) and second.text == units["text"][1].removeprefix(PREFIX)


def test_find_entities_and_explore_take_graphrag_entity_ids(carol: tuple[str, Graph, ImportReport]) -> None:
    version, graph, _ = carol
    session = graph.evidence()
    row = table(version, "entities").filter(pl.col("title") == "JACOB MARLEY").row(0, named=True)
    for given in (row["id"], f"entity:{row['human_readable_id']}", f"Entities:{row['human_readable_id']}"):
        assert session.find_entities(given).entities[0].name == "JACOB MARLEY"
        assert session.explore(given).entity.name == "JACOB MARLEY"
    relation = table(version, "relationships").filter(pl.col("source") == "JACOB MARLEY").row(0, named=True)
    assert session.explore(f"relationship:{relation['human_readable_id']}").entity.name == "JACOB MARLEY"


def test_check_citations_reads_graphrag_reference_groups(carol: tuple[str, Graph, ImportReport]) -> None:
    version, graph, _ = carol
    session = graph.evidence()
    units = table(version, "text_units").with_row_index("row")  # Sources (n): the n-th row, from 0
    entity = table(version, "entities").filter(pl.col("title") == "JACOB MARLEY").row(0, named=True)
    first_unit = units.filter(pl.col("id") == entity["text_unit_ids"][0]).row(0, named=True)
    unread = units.filter(~pl.col("id").is_in(list(entity["text_unit_ids"]))).row(0, named=True)
    session.fetch(first_unit["id"])
    said = " ".join(w.strip("?!.;:'\"") for w in first_unit["text"].removeprefix(PREFIX).split()[:12])  # the passage's words
    answer = (
        f"{said} [Data: Sources ({first_unit['row']}); "
        f"Entities ({entity['human_readable_id']}, +more)]. Scrooge signed it [Data: Sources ({unread['row']})]."
    )
    checks = session.check_citations(answer).checks
    assert [c.reason for c in checks] == ["fetched", "fetched", "not_fetched"], checks
    assert checks[0].id == checks[1].id  # the entity is valid through the passage that was read
    assert session.check_citations("[Data: Entities (999999)]").checks[0].reason == "unknown"


def test_the_ledger_and_explain_show_graphrag_ids_beside_ours(carol: tuple[str, Graph, ImportReport]) -> None:
    version, graph, _ = carol
    run = graph.engine().run("Jacob Marley", BUILTINS["ENTITY"])
    ledger = run.to_polars()
    ids = set(table(version, "entities")["id"])
    assert ledger.height and set(ledger["builder_id"].to_list()) <= ids
    assert "its builder's id:" in run.explain(0)


def test_a_text_unit_shows_its_own_graphrag_id_never_a_claims(carol_v3: tuple[Path, ImportReport], embedder: object) -> None:
    path, report = carol_v3
    units = dict(table("v3", "text_units").select("id", "human_readable_id").iter_rows())
    claims = set(table("v3", "covariates")["id"])
    assert report.claims and claims
    with Graph.open(path, embedder=embedder, read_only=True) as graph:  # type: ignore[arg-type]
        run = graph.engine().run("What did Scrooge promise the ghost?", BUILTINS["CHUNK"])
        ledger = run.to_polars()
        shown = [graph.graph_store.item_info(r.id).builder_id for r in run.results]  # type: ignore[union-attr]
        explained = [run.explain(i) for i in range(min(3, len(run.results)))]
    assert shown and set(shown) <= set(units) and not set(shown) & claims
    assert all(f"(its builder's id: {given})" in text for given, text in zip(shown, explained, strict=False))
    assert set(ledger["builder_id"].to_list()) <= set(units)


def test_search_document_takes_the_graphrag_document_id(
    carol_v3: tuple[Path, ImportReport], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = carol_v3
    gid = table("v3", "documents")["id"][0]
    assert cli_main(["search", "Marley", "--index", str(path), "--document", gid, "--limit", "2"]) == 0
    assert "Marley" in capsys.readouterr().out


@pytest.mark.parametrize("index", ["range", "labels"])
def test_sources_n_is_the_text_units_pandas_index_as_graphrag_reads_it(index: str, tmp_path: Path) -> None:
    """GraphRAG's query numbers a text unit by its label in the pandas index the table comes back with (a table
    written from a filtered frame keeps its labels: a range from another start, or ``__index_level_0__``)."""
    import shutil

    import pandas as pd

    from agrag_lab.importing.graphrag import read_graphrag

    folder = tmp_path / "output"
    shutil.copytree(CAROL / "v1", folder)
    path = folder / "create_final_text_units.parquet"
    units = pd.read_parquet(path)
    labels = range(100, 100 + 3 * len(units), 3) if index == "range" else [7 * n + 5 for n in reversed(range(len(units)))]
    units.set_axis(pd.RangeIndex(100, 100 + 3 * len(units), 3) if index == "range" else pd.Index(labels)).to_parquet(path)
    read = read_graphrag(folder)
    for label, unit_id in zip(labels, units["id"], strict=True):
        assert read.aliases.resolve_as(f"source:{label}", "source") == read.aliases.resolve_as(unit_id, "source") is not None
    assert read.aliases.resolve_as("source:1", "source") is None  # no row carries the label 1
