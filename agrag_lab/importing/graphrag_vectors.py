"""The vectors a GraphRAG output stored, read as values: its LanceDB tables and ``embeddings.*.parquet`` files.

GraphRAG's indexer (``generate_text_embeddings``) embeds three texts by default and stores each
vector under the ``id`` of its row:

=========================  ===================================  ====================================
embedding                  the text embedded                    keyed by
=========================  ===================================  ====================================
``entity_description``     ``title:description`` of an entity   the entity's ``id``
``text_unit_text``         a text unit's ``text``               the text unit's ``id``
``community_full_content`` a report's ``full_content``          the report's ``id``
=========================  ===================================  ====================================

(1.x and 2.x can also embed ``relationship.description``, keyed by the relationship's ``id``; it is read too.)

Where they are:

- 3.x: a LanceDB table per embedding in ``output/lancedb`` (``vector_store.db_uri``), named by the
  embedding (``entity_description``) or by ``vector_store.index_schema.<embedding>.index_name``;
  columns ``id``, ``vector`` (float32).
- 1.x and 2.x: the same folder, tables named ``<container>-<embedding>`` with dots as dashes
  (``default-entity-description``, ``default-text_unit-text``); columns ``id``, ``text``, ``vector``.
- any version with ``snapshots.embeddings``: ``embeddings.<embedding>.parquet`` beside the tables
  (``embeddings.entity.description.parquet`` in 1.x, ``embeddings.entity_description.parquet`` in 3.x),
  columns ``id`` and ``embedding``.

- 0.x (0.3-era): in a column of the output table itself, ``description_embedding`` of
  ``create_final_entities.parquet`` (``name:description``, keyed by the row's ``id``; its query loads them into its
  vector store from there): :func:`column_vectors`.

A LanceDB table is preferred (it is what GraphRAG's own query reads); reading one needs the ``lancedb``
package (the extra ``agrag_lab[graphrag]``). A snapshot is read with polars; a table's column is read with it.

Examples
--------
>>> embedding_of("default-entity-description"), embedding_of("embeddings.text_unit_text.parquet")
('entity_description', 'text_unit_text')
>>> embedding_of("default-community-full_content"), embedding_of("create_final_entities.parquet") is None
('community_full_content', True)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agrag_lab.errors import MissingExtraError
from agrag_lab.extras import require
from agrag_lab.importing.errors import ImportSourceError
from agrag_lab.importing.validate import ImportLimits, check_bytes

__all__ = ["COLUMNS", "EMBEDDINGS", "GraphRAGVectors", "column_vectors", "embedding_of", "lancedb_folders",
           "lancedb_module", "read_vectors", "with_columns"]

#: The embeddings GraphRAG stores, by their 3.x names (what each embeds: the module docstring).
EMBEDDINGS = ("entity_description", "text_unit_text", "community_full_content", "relationship_description")
#: Where a GraphRAG output keeps its LanceDB tables, relative to the output folder.
LANCEDB = "lancedb"
#: The columns of an output table that hold the builder's vectors (GraphRAG 0.x): table -> (column, embedding).
COLUMNS = {"entities": ("description_embedding", "entity_description")}


def embedding_of(name: str) -> str | None:
    """The embedding a LanceDB table or a snapshot file holds, from its name (None: not one of GraphRAG's)."""
    stem = name[: -len(".parquet")] if name.endswith(".parquet") else name
    if name.endswith(".parquet"):
        if not stem.startswith("embeddings."):
            return None
        stem = stem[len("embeddings."):]
    key = re.sub(r"[^0-9a-z]+", "_", stem.lower())
    for embedding in EMBEDDINGS:
        if key == embedding or key.endswith("_" + embedding):
            return embedding
    return None


@dataclass(frozen=True, eq=False)
class GraphRAGVectors:
    """The vectors one GraphRAG output stored: ``by_id[embedding][row id]``, all of ``dimension`` values;
    ``source`` names the tables or files read. ``unread`` says why stored vectors were not read (``""``:
    everything found was read)."""

    dimension: int
    source: str
    by_id: Mapping[str, Mapping[str, np.ndarray]] = field(default_factory=dict)
    unread: str = ""

    def of(self, embedding: str) -> Mapping[str, np.ndarray]:
        """The vectors of one embedding by row id (empty when it was not stored)."""
        return self.by_id.get(embedding, {})


def _settings_uri(output: Path) -> list[Path]:
    """The ``vector_store.db_uri`` of a ``settings.yaml`` in ``output`` or its parent, resolved both ways."""
    import yaml

    out: list[Path] = []
    for folder in (output, output.parent):
        for name in ("settings.yaml", "settings.yml"):
            path = folder / name
            if not path.is_file():
                continue
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, yaml.YAMLError):
                return out
            stores = [data.get("vector_store")] if isinstance(data, Mapping) else []
            embeddings = data.get("embeddings") if isinstance(data, Mapping) else None
            if isinstance(embeddings, Mapping):
                stores.append(embeddings.get("vector_store"))
            for store in stores:
                if isinstance(store, Mapping) and store.get("db_uri"):
                    uri = Path(str(store["db_uri"]))
                    out += [uri] if uri.is_absolute() else [folder / uri, output / uri.name]
            return out
    return out


def lancedb_folders(output: Path) -> list[Path]:
    """The folders that may hold the output's LanceDB tables: ``output/lancedb`` and the settings' ``db_uri``."""
    seen: list[Path] = []
    for path in (output / LANCEDB, *_settings_uri(output)):
        if path.is_dir() and path.resolve() not in [p.resolve() for p in seen]:
            seen.append(path)
    return seen


def _lance_tables(folder: Path) -> list[str]:
    """The tables a LanceDB folder holds (each is a ``<name>.lance`` directory)."""
    return sorted(p.name[: -len(".lance")] for p in folder.glob("*.lance") if p.is_dir())


def _rows_of(ids: Any, vectors: Any, where: str) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for rid, vector in zip(ids, vectors, strict=True):
        if vector is None or rid is None or str(rid) == "__DUMMY__":
            continue
        out[str(rid)] = np.asarray(vector, dtype=np.float32)
    lengths = {v.shape for v in out.values()}
    if len(lengths) > 1:
        raise ImportSourceError(f"{where}: its vectors have different lengths {sorted(s[0] for s in lengths)}; "
                                "copy the output of one GraphRAG run again")
    return out


def lancedb_module() -> Any:
    """The ``lancedb`` module (:class:`MissingExtraError` without it).

    lancedb registers a converter for Hugging Face's ``datasets`` when a module of that name is loaded; a
    folder named ``datasets`` on the path (this project's bundled corpora) is another module, so it is
    set aside while lancedb loads.
    """
    require("graphrag", "lancedb", feature="reading GraphRAG's stored vectors (LanceDB tables)")
    shadow = sys.modules.get("datasets")
    if shadow is None or hasattr(shadow, "Dataset"):
        import lancedb

        return lancedb
    del sys.modules["datasets"]
    try:
        import lancedb
    finally:
        sys.modules["datasets"] = shadow
    return lancedb


def _read_lance(folder: Path, tables: list[str]) -> dict[str, tuple[str, dict[str, np.ndarray]]]:
    db = lancedb_module().connect(str(folder))
    out: dict[str, tuple[str, dict[str, np.ndarray]]] = {}
    for name in tables:
        embedding = embedding_of(name)
        if embedding is None:
            continue
        try:
            frame = db.open_table(name).to_arrow()
        except Exception as exc:  # lancedb raises its own errors for a damaged table
            raise ImportSourceError(f"{folder / (name + '.lance')}: GraphRAG's LanceDB table cannot be read "
                                    f"({type(exc).__name__}: {exc}); copy the output folder again") from None
        columns = set(frame.column_names)
        if not {"id", "vector"} <= columns:
            raise ImportSourceError(f"{folder / (name + '.lance')}: a GraphRAG vector table has columns id and vector, "
                                    f"this one {sorted(columns)}")
        rows = _rows_of(frame.column("id").to_pylist(), frame.column("vector").to_pylist(), f"{folder / name}")
        if embedding in out and len(out[embedding][1]) >= len(rows):
            continue  # two containers: the fuller table (the ids are matched to the import's rows later)
        out[embedding] = (f"{folder.name}/{name}", rows)
    return out


def _read_snapshots(output: Path) -> dict[str, tuple[str, dict[str, np.ndarray]]]:
    import polars as pl

    out: dict[str, tuple[str, dict[str, np.ndarray]]] = {}
    for path in sorted(output.glob("embeddings.*.parquet")):
        embedding = embedding_of(path.name)
        if embedding is None:
            continue
        try:
            frame = pl.read_parquet(path)
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise ImportSourceError(f"{path}: GraphRAG's embeddings snapshot cannot be read ({exc})") from None
        if not {"id", "embedding"} <= set(frame.columns):
            raise ImportSourceError(f"{path}: an embeddings snapshot has columns id and embedding, this one "
                                    f"{frame.columns}")
        out[embedding] = (path.name, _rows_of(frame["id"].to_list(), frame["embedding"].to_list(), str(path)))
    return out


def read_vectors(output: str | Path, limits: ImportLimits | None = None) -> GraphRAGVectors | None:
    """The vectors a GraphRAG output folder stored (None: it stored none).

    Their files are held to ``limits.bytes`` (apart from the tables'), before anything is read.

    LanceDB tables are read when the ``lancedb`` package is installed; without it, the snapshots
    (``embeddings.*.parquet``) are read if there are any, and :attr:`GraphRAGVectors.unread` says which
    tables were left and how to read them.

    Raises
    ------
    ImportSourceError
        A table or file cannot be read, or the embeddings have vectors of different lengths.
    ImportLimitError
        The vector files hold more bytes than ``limits.bytes``.
    """
    folder = Path(output)
    files = [f for lance in lancedb_folders(folder) for t in _lance_tables(lance) if embedding_of(t)
             for f in (lance / f"{t}.lance").rglob("*")]
    files += [f for f in folder.glob("embeddings.*.parquet") if embedding_of(f.name)]
    check_bytes(files, limits or ImportLimits(), f"GraphRAG's stored vectors in {folder}")
    found: dict[str, tuple[str, dict[str, np.ndarray]]] = {}
    unread = ""
    for lance in lancedb_folders(folder):
        tables = [t for t in _lance_tables(lance) if embedding_of(t)]
        if not tables:
            continue
        try:
            for embedding, value in _read_lance(lance, tables).items():
                found.setdefault(embedding, value)
        except MissingExtraError:  # said in ``unread``, never dropped silently
            unread = (f"{lance} holds GraphRAG's stored vectors ({', '.join(tables)}) but the lancedb package is not "
                      "installed, so they were not read: install the extra (pip install 'agrag_lab[graphrag]') "
                      "to search with them")
    for embedding, value in _read_snapshots(folder).items():
        found.setdefault(embedding, value)
    found = {k: v for k, v in found.items() if v[1]}
    if not found:
        return GraphRAGVectors(0, "", {}, unread) if unread else None
    return _joined(found, ", ".join(source for source, _ in found.values()), unread, where=f"{folder}: ")


def column_vectors(rows: Mapping[str, Sequence[Mapping[str, Any]]], where: Mapping[str, str]) -> GraphRAGVectors | None:
    """The vectors a GraphRAG 0.x output keeps in its tables' columns (:data:`COLUMNS`), keyed by each row's ``id``
    (None: no such column holds a vector). ``rows`` are the tables' rows by table, ``where`` their file names.

    Raises
    ------
    ImportSourceError
        The vectors of a column, or of two columns, have different lengths.

    Examples
    --------
    >>> found = column_vectors({"entities": ({"id": "e1", "description_embedding": [0.6, 0.8]},
    ...                                      {"id": "e2", "description_embedding": None})},
    ...                        {"entities": "create_final_entities.parquet"})
    >>> found.dimension, found.source, sorted(found.of("entity_description"))
    (2, 'create_final_entities.parquet:description_embedding', ['e1'])
    """
    found: dict[str, tuple[str, dict[str, np.ndarray]]] = {}
    for table, (column, embedding) in COLUMNS.items():
        given = [r for r in rows.get(table, ()) if column in r]
        source = f"{where.get(table, table)}:{column}"
        vectors = _rows_of([r.get("id") for r in given], [r.get(column) for r in given], source)
        if vectors:
            found[embedding] = (source, vectors)
    return _joined(found, source=", ".join(s for s, _ in found.values())) if found else None


def with_columns(stored: GraphRAGVectors | None, columns: GraphRAGVectors | None) -> GraphRAGVectors | None:
    """``stored`` (the output's LanceDB tables or snapshots) with, for each embedding they lack, the vectors its
    tables' columns hold (:func:`column_vectors`); the tables and snapshots win where both hold one.

    Raises
    ------
    ImportSourceError
        The two hold vectors of different lengths.
    """
    if columns is None or not columns.by_id:
        return stored
    if stored is None:
        return columns
    found = {k: (stored.source, dict(v)) for k, v in stored.by_id.items()}
    for embedding, rows in columns.by_id.items():
        found.setdefault(embedding, (columns.source, dict(rows)))
    added = [columns.source] if any(k not in stored.by_id for k in columns.by_id) else []
    return _joined(found, source=", ".join(s for s in (stored.source, *added) if s), unread=stored.unread)


def _joined(found: Mapping[str, tuple[str, dict[str, np.ndarray]]], source: str, unread: str = "",
            where: str = "") -> GraphRAGVectors:
    """The embeddings ``found`` (embedding -> (source, vectors by id)) as one :class:`GraphRAGVectors`: the one home
    of the rule that every stored embedding of an output has one length (``where`` prefixes the error).

    Raises
    ------
    ImportSourceError
        Two embeddings hold vectors of different lengths.
    """
    dimensions = {next(iter(rows.values())).shape[0] for _, rows in found.values() if rows}
    if len(dimensions) > 1:
        raise ImportSourceError(f"{where}GraphRAG's stored vectors have different lengths {sorted(dimensions)} "
                                f"({', '.join(s for s, _ in found.values())}); copy the output of one run again")
    return GraphRAGVectors(dimensions.pop(), source, {k: rows for k, (_, rows) in found.items()}, unread)
