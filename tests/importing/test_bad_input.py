"""Bad GraphRAG input: a clear ImportSourceError naming the file and the column, nothing written."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from carol_support import CAROL

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.importing import ImportSourceError
from agrag_lab.importing.graphrag import read_graphrag
from agrag_lab.importing.locate import locate_unit
from agrag_lab.importing.tables import V1, V3, detect_format


def _copy(tmp_path: Path, version: str) -> Path:
    folder = tmp_path / version
    shutil.copytree(CAROL / version, folder)
    for p in folder.iterdir():
        p.chmod(0o644)
    return folder


def _edit(folder: Path, file: str, change: Callable[[pl.DataFrame], pl.DataFrame]) -> None:
    path = folder / file
    change(pl.read_parquet(path)).write_parquet(path)


def test_both_formats_are_found_from_their_files() -> None:
    assert detect_format(CAROL / "v3") is V3
    assert detect_format(CAROL / "v1") is V1


def test_an_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(ImportSourceError, match=r"holds no \.parquet files.*empty.*entities\.parquet"):
        read_graphrag(tmp_path)


def test_a_folder_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(ImportSourceError, match="is not a folder"):
        read_graphrag(tmp_path / "missing")


def test_a_missing_table_is_named(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "v3")
    (folder / "relationships.parquet").unlink()
    with pytest.raises(ImportSourceError, match=r"closest to GraphRAG 2\.x/3\.x but lacks relationships\.parquet; found"):
        read_graphrag(folder)


def test_a_folder_of_neither_format_lists_expected_and_found(tmp_path: Path) -> None:
    pl.DataFrame({"a": [1]}).write_parquet(tmp_path / "something.parquet")
    with pytest.raises(ImportSourceError, match=r"neither GraphRAG layout.*found something\.parquet; expected GraphRAG 2\.x/3\.x: .*GraphRAG 1\.x: .*create_final_nodes"):
        read_graphrag(tmp_path)


def test_a_missing_column_names_file_and_column(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "v1")
    _edit(folder, "create_final_entities.parquet", lambda d: d.drop("description"))
    with pytest.raises(ImportSourceError, match=r"create_final_entities\.parquet has no column 'description' \(its columns: id, "):
        read_graphrag(folder)


def test_a_text_unit_naming_an_unknown_document(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "v3")
    _edit(folder, "text_units.parquet", lambda d: d.with_columns(
        pl.when(pl.col("human_readable_id") == 3).then(pl.lit("no-such-doc")).otherwise(pl.col("document_id")).alias("document_id")))
    with pytest.raises(ImportSourceError, match=r"text_units\.parquet: text unit .* names document 'no-such-doc' in column document_id"):
        read_graphrag(folder)


def test_an_entity_whose_text_units_do_not_exist(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "v1")
    _edit(folder, "create_final_entities.parquet", lambda d: d.with_columns(
        pl.when(pl.col("title") == "JACOB MARLEY").then(pl.lit(["unit-x"])).otherwise(pl.col("text_unit_ids")).alias("text_unit_ids")))
    with pytest.raises(ImportSourceError, match=r"create_final_entities\.parquet: row \d+ \('JACOB MARLEY'\) names text unit 'unit-x' in column text_unit_ids"):
        read_graphrag(folder)


def test_a_corrupt_parquet_file(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "v1")
    path = folder / "create_final_communities.parquet"
    path.write_bytes(path.read_bytes()[: 500])
    with pytest.raises(ImportSourceError, match=r"create_final_communities\.parquet cannot be read as parquet"):
        read_graphrag(folder)


def test_bad_input_writes_nothing_into_the_index(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> None:
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        with pytest.raises(ImportSourceError):
            graph.import_graphrag(tmp_path / "missing")
        assert graph.stats()["documents"] == 0 and graph.db.get_meta("import_source") is None


def test_a_unit_that_cannot_be_located_is_counted_and_explained() -> None:
    assert locate_unit("Marley was dead: to begin with.", "title: x.\nauthor: y.\nto begin with") is not None
    assert locate_unit("Marley was dead.", "Scrooge knew he was dead.") is None


def test_an_unlocatable_unit_is_kept_unplaced_byte_exact_with_everything_built_on_it(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "v1")
    lost = "A text that is in no document."
    _edit(folder, "create_final_text_units.parquet", lambda d: d.with_columns(
        pl.when(pl.col("human_readable_id") == 5).then(pl.lit(lost)).otherwise(pl.col("text")).alias("text")))
    units = pl.read_parquet(folder / "create_final_text_units.parquet")
    unit_id = units.filter(pl.col("human_readable_id") == 5)["id"][0]
    imported = read_graphrag(folder)
    assert not [s for s in imported.skipped if s.table == "text_units"]
    assert dict(imported.placement) == {"exact": 41, "approximate": 0, "unplaced": 1}
    assert sum(len(d.chunks) for d in imported.documents) == 42
    home = next(d for d in imported.documents if d.document.id.endswith(".unplaced"))
    assert "not a substring" in home.document.metadata["unplaced"]
    assert home.chunks[0].text == lost and home.document.text[home.chunks[0].start : home.chunks[0].end] == lost
    chunk_id = imported.aliases.resolve_as(unit_id, "source")
    assert chunk_id == home.chunks[0].id
    entities = pl.read_parquet(folder / "create_final_entities.parquet")
    on_it = entities.filter(pl.col("text_unit_ids").list.contains(unit_id))
    assert on_it.height > 0 and len(imported.store.graph.entities) == entities.height
    supported = [e for e in imported.store.graph.entities.values() if chunk_id in e.chunk_ids]
    assert {e.name for e in supported} == set(on_it["title"])


def test_a_unit_split_inside_a_multibyte_character_is_placed_approximately(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "v1")
    units = pl.read_parquet(folder / "create_final_text_units.parquet")
    text = units.filter(pl.col("human_readable_id") == 3)["text"][0]
    # what decoding a token window cut inside a character gives: U+FFFD at both ends
    _edit(folder, "create_final_text_units.parquet", lambda d: d.with_columns(
        pl.when(pl.col("human_readable_id") == 3).then(pl.lit("\ufffd" + text[1:-1] + "\ufffd\ufffd"))
        .otherwise(pl.col("text")).alias("text")))
    imported = read_graphrag(folder)
    assert dict(imported.placement) == {"exact": 41, "approximate": 1, "unplaced": 0}
    assert any(c.text == text for d in imported.documents for c in d.chunks)
    assert any("multi-byte character" in n for n in imported.notes)


def test_an_empty_optional_covariates_table_is_a_note(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "v3")
    (folder / "covariates.parquet").write_bytes(b"")
    imported = read_graphrag(folder)
    assert imported.claims == 0 and any("covariates.parquet is empty" in n for n in imported.notes)
    assert len(imported.store.graph.entities) == pl.read_parquet(CAROL / "v3" / "entities.parquet").height
