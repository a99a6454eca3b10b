"""Every record an import reads is checked: a bad one is named (file, record, field, fix), never a traceback,
a duplicate id is a named merge or a named error, and a source past a size limit is refused before it is read."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from agrag_lab.cli import main
from agrag_lab.errors import ImportLimitError
from agrag_lab.importing import ImportSourceError
from agrag_lab.importing.graphml import read_graphml
from agrag_lab.importing.graphrag import read_graphrag
from agrag_lab.importing.lightrag import CHUNKS_FILE, DOCS_FILE, read_lightrag
from agrag_lab.importing.validate import ImportLimits

PEERS = Path(__file__).parent.parent / "fixtures" / "peers"


@pytest.fixture
def lightrag_dir(tmp_path: Path) -> Path:
    """A writable copy of the LightRAG working directory fixture."""
    folder = tmp_path / "lightrag"
    shutil.copytree(PEERS / "lightrag", folder)
    return folder


@pytest.fixture
def graphrag_dir(tmp_path: Path) -> Path:
    """A writable copy of the GraphRAG 2.x/3.x output fixture."""
    folder = tmp_path / "graphrag"
    shutil.copytree(PEERS / "graphrag", folder)
    return folder


def _edit_json(folder: Path, file: str, change: Callable[[dict[str, Any]], None]) -> str:
    """Change one record of a kv_store file; return the key of the first record."""
    path = folder / file
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return next(iter(data))


def _edit_table(folder: Path, table: str, change: Callable[[pl.DataFrame], pl.DataFrame]) -> None:
    path = folder / f"{table}.parquet"
    change(pl.read_parquet(path)).write_parquet(path)


@pytest.mark.parametrize("record", ["Call me Ishmael.", ["Call me Ishmael."], 7])
def test_a_chunk_record_that_is_not_an_object_is_named(lightrag_dir: Path, record: object) -> None:
    def change(data: dict[str, Any]) -> None:
        data[next(iter(data))] = record

    key = _edit_json(lightrag_dir, CHUNKS_FILE, change)
    with pytest.raises(ImportSourceError) as caught:
        read_lightrag(lightrag_dir)
    message = str(caught.value)
    assert CHUNKS_FILE in message and repr(key) in message
    assert f"is a {type(record).__name__}" in message and "not an object with fields content" in message
    assert "fix or remove that record" in message


def test_a_chunk_whose_content_is_null_names_the_field_not_an_unplaced_document(lightrag_dir: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        data[next(iter(data))]["content"] = None

    key = _edit_json(lightrag_dir, CHUNKS_FILE, change)
    with pytest.raises(ImportSourceError, match=rf"record {key!r} field 'content' is null; it must be a string") as caught:
        read_lightrag(lightrag_dir)
    assert "unplaced" not in str(caught.value)


def test_a_mistyped_field_of_a_document_record_is_named(lightrag_dir: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        data[next(iter(data))]["content"] = {"text": "It is a truth"}

    key = _edit_json(lightrag_dir, DOCS_FILE, change)
    with pytest.raises(ImportSourceError, match=rf"{DOCS_FILE}: record {key!r} field 'content' is a dict"):
        read_lightrag(lightrag_dir)


def test_a_null_text_of_a_graphrag_text_unit_is_named(graphrag_dir: Path) -> None:
    _edit_table(graphrag_dir, "text_units", lambda d: d.with_columns(
        pl.when(pl.col("human_readable_id") == 2).then(None).otherwise(pl.col("text")).alias("text")))
    with pytest.raises(ImportSourceError, match=r"text_units\.parquet row \d+: record '.+' field 'text' is null"):
        read_graphrag(graphrag_dir)


def test_duplicate_graphrag_document_ids_are_a_named_error(graphrag_dir: Path) -> None:
    """Two documents under one id used to import silently, half their text units kept 'unplaced'."""
    ids = pl.read_parquet(graphrag_dir / "documents.parquet")["id"].to_list()
    _edit_table(graphrag_dir, "documents", lambda d: d.with_columns(pl.Series("id", [ids[0], ids[0], *ids[2:]])))
    _edit_table(graphrag_dir, "text_units", lambda d: d.with_columns(pl.col("document_id").replace({ids[1]: ids[0]})))
    with pytest.raises(ImportSourceError, match=rf"documents\.parquet: id {ids[0]!r} is on row 0 and row 1, which differ in column"):
        read_graphrag(graphrag_dir)


def test_an_exactly_repeated_graphrag_row_is_a_named_merge(graphrag_dir: Path) -> None:
    before = read_graphrag(graphrag_dir)
    _edit_table(graphrag_dir, "text_units", lambda d: pl.concat([d, d.head(2)]))
    after = read_graphrag(graphrag_dir)
    assert after.placement == before.placement and after.placement["unplaced"] == 0
    assert [c.text for v in after.documents for c in v.chunks] == [c.text for v in before.documents for c in v.chunks]
    assert any("text_units.parquet: 2 rows repeat another row exactly (same id" in n for n in after.notes)


def test_a_repeated_human_readable_id_is_refused_since_citations_would_be_ambiguous(graphrag_dir: Path) -> None:
    _edit_table(graphrag_dir, "entities", lambda d: d.with_columns(
        pl.when(pl.col("human_readable_id") == 1).then(0).otherwise(pl.col("human_readable_id")).alias("human_readable_id")))
    with pytest.raises(ImportSourceError, match=r"entities\.parquet: human_readable_id '0' is on row \d+ and row \d+"):
        read_graphrag(graphrag_dir)


def test_a_table_past_the_row_limit_is_refused_from_its_metadata_with_the_option_to_raise_it(graphrag_dir: Path) -> None:
    rows = 2001
    pl.DataFrame({
        "id": [str(n) for n in range(rows)], "human_readable_id": list(range(rows)),
        "title": [f"E{n}" for n in range(rows)], "type": ["T"] * rows, "description": ["d"] * rows,
        "text_unit_ids": [["missing-unit"]] * rows,
    }).write_parquet(graphrag_dir / "entities.parquet")
    with pytest.raises(ImportLimitError, match=r"entities\.parquet holds 2,001 rows, more than the limit of 2,000 rows.*--max-rows 2001"):
        read_graphrag(graphrag_dir, limits=ImportLimits(rows=2000))
    # raised: the table is read, and its first row names a text unit that does not exist
    with pytest.raises(ImportSourceError, match="names text unit 'missing-unit'"):
        read_graphrag(graphrag_dir, limits=ImportLimits(rows=rows))


def test_a_huge_file_is_refused_by_its_size_before_it_is_read(lightrag_dir: Path) -> None:
    with (lightrag_dir / CHUNKS_FILE).open("r+b") as f:  # a sparse 3 GiB file: reading it would take minutes
        f.truncate(3 * 1024**3)
    started = time.perf_counter()
    with pytest.raises(ImportLimitError, match=rf"{CHUNKS_FILE} 3,221,225,472 bytes.*--max-bytes"):
        read_lightrag(lightrag_dir)
    assert time.perf_counter() - started < 2.0


def test_a_description_past_the_limit_names_the_record_and_the_override_reads_it(graphrag_dir: Path) -> None:
    long = "Holmes observes. " * 15_000  # 255,000 characters
    _edit_table(graphrag_dir, "entities", lambda d: d.with_columns(
        pl.when(pl.col("title") == "SHERLOCK HOLMES").then(pl.lit(long)).otherwise(pl.col("description")).alias("description")))
    with pytest.raises(ImportLimitError, match=r"record 'SHERLOCK HOLMES' field 'description' holds 255,000 characters.*--max-description 255000"):
        read_graphrag(graphrag_dir)
    imported = read_graphrag(graphrag_dir, limits=ImportLimits(description=len(long)))
    assert next(e for e in imported.store.entities() if e.name == "SHERLOCK HOLMES").description == long


def test_graphml_nodes_past_the_limit_are_refused(tmp_path: Path) -> None:
    nodes = "".join(f'<node id="n{i}"/>' for i in range(12))
    path = tmp_path / "g.graphml"
    path.write_text(f'<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected">{nodes}</graph></graphml>')
    with pytest.raises(ImportLimitError, match=r"g\.graphml \(nodes\) holds 12 rows"):
        read_graphml(path, limits=ImportLimits(rows=10))
    assert len(read_graphml(path).store.entities()) == 12


def test_the_cli_takes_each_limit_and_refuses_before_making_the_index(
    graphrag_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    index = tmp_path / "index"
    assert main(["import", "graphrag", str(graphrag_dir), "--index", str(index), "--max-rows", "5"]) == 2
    err = capsys.readouterr().err
    assert "more than the limit of 5 rows per table" in err and "--max-rows" in err
    assert not index.exists()
    with pytest.raises(SystemExit):
        main(["import", "graphrag", str(graphrag_dir), "--index", str(index), "--max-bytes", "0"])
