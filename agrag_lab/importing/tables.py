"""The tables of a Microsoft GraphRAG output folder: which format, which columns, read with polars.

Two layouts exist on disk. GraphRAG 2.x/3.x writes ``documents``,
``text_units``, ``entities``, ``relationships``, ``communities``,
``community_reports`` (and ``covariates`` when claims were extracted);
GraphRAG 1.x wrote the same tables as ``create_final_<name>``, plus
``create_final_nodes`` (each entity's community per level). The format is
found from the files *and* their columns, never from a flag.

Examples
--------
>>> sorted(V3.required)[:3]
['communities', 'community_reports', 'documents']
>>> V1.files["entities"]
'create_final_entities.parquet'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from agrag_lab.importing.errors import ImportSourceError

__all__ = ["FORMATS", "V1", "V3", "GraphRAGFormat", "GraphRAGTables", "detect_format", "read_tables"]


@dataclass(frozen=True)
class GraphRAGFormat:
    """One on-disk layout: a file per table and the columns the import reads from each.

    ``columns`` maps a table to groups of alternatives: each group is a tuple
    of column names of which at least one must be present (2.x text units name
    ``document_ids``, 3.x ``document_id``).
    """

    name: str
    files: Mapping[str, str]
    required: frozenset[str]
    columns: Mapping[str, tuple[tuple[str, ...], ...]]

    def file_of(self, table: str) -> str:
        """The file name of ``table`` in this layout."""
        return self.files[table]


_COLUMNS: dict[str, tuple[tuple[str, ...], ...]] = {
    "documents": (("id",), ("title",), ("text",)),
    "text_units": (("id",), ("text",), ("document_id", "document_ids")),
    "entities": (("id",), ("title",), ("type",), ("description",), ("text_unit_ids",)),
    "relationships": (("source",), ("target",), ("description",), ("weight",), ("text_unit_ids",)),
    "communities": (("community",), ("level",), ("parent",), ("entity_ids",)),
    "community_reports": (
        ("community",), ("level",), ("title",), ("summary",), ("full_content",), ("rank",), ("findings",),
    ),
    "covariates": (("subject_id",), ("type",), ("description",), ("text_unit_id",)),
    "nodes": (("title",), ("community",), ("level",)),
}

_TABLES = ("documents", "text_units", "entities", "relationships", "communities", "community_reports")

V3 = GraphRAGFormat(
    "graphrag-3",
    MappingProxyType({t: f"{t}.parquet" for t in (*_TABLES, "covariates")}),
    frozenset(_TABLES),
    MappingProxyType({t: c for t, c in _COLUMNS.items() if t != "nodes"}),
)
V1 = GraphRAGFormat(
    "graphrag-1",
    MappingProxyType({t: f"create_final_{t}.parquet" for t in (*_TABLES, "covariates", "nodes")}),
    frozenset((*_TABLES, "nodes")),
    MappingProxyType(dict(_COLUMNS)),
)
#: The layouts :func:`detect_format` recognises, newest first.
FORMATS = (V3, V1)


@dataclass(frozen=True)
class GraphRAGTables:
    """The rows of every table found, as lists of dicts (``column -> value``)."""

    folder: Path
    format: GraphRAGFormat
    rows: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)

    def table(self, name: str) -> tuple[Mapping[str, Any], ...]:
        """The rows of ``name`` (empty when the optional table is absent)."""
        return self.rows.get(name, ())

    def has(self, name: str) -> bool:
        """Whether the folder holds ``name``."""
        return name in self.rows

    def where(self, name: str) -> str:
        """``folder/file`` of a table, for messages."""
        return str(self.folder / self.format.file_of(name))


def _expected() -> str:
    return "; ".join(f"GraphRAG {f.name[-1]}.x: " + ", ".join(sorted(f.files[t] for t in f.required)) for f in FORMATS)


def detect_format(folder: str | Path) -> GraphRAGFormat:
    """The layout of a GraphRAG output folder, from the parquet files it holds.

    Raises
    ------
    ImportSourceError
        The folder is missing or empty, or holds neither layout's files (the
        message lists the files expected and found).
    """
    path = Path(folder)
    if not path.is_dir():
        raise ImportSourceError(
            f"{path} is not a folder; pass the GraphRAG output folder (the one holding entities.parquet "
            "or create_final_entities.parquet)"
        )
    found = sorted(p.name for p in path.iterdir() if p.suffix == ".parquet")
    if not found:
        others = sorted(p.name for p in path.iterdir())[:8]
        raise ImportSourceError(
            f"{path} holds no .parquet files (found: {', '.join(others) or 'nothing, the folder is empty'}); "
            f"expected the output tables of a GraphRAG run: {_expected()}"
        )
    names = set(found)
    for fmt in FORMATS:
        if all(fmt.files[t] in names for t in fmt.required):
            return fmt
    best = max(FORMATS, key=lambda f: sum(f.files[t] in names for t in f.required))
    missing = sorted(best.files[t] for t in best.required if best.files[t] not in names)
    raise ImportSourceError(
        f"{path} is neither GraphRAG layout: it looks closest to GraphRAG {best.name[-1]}.x but lacks "
        f"{', '.join(missing)}; found {', '.join(found)}; expected {_expected()}"
    )


def _read(path: Path) -> tuple[list[str], list[dict[str, Any]]]:
    import polars as pl

    try:
        frame = pl.read_parquet(path)
    except Exception as exc:  # polars raises its own errors, OSError, or arrow's
        raise ImportSourceError(
            f"{path} cannot be read as parquet ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}); "
            "the file is damaged or not parquet: copy it again from the GraphRAG output"
        ) from None
    return list(frame.columns), frame.to_dicts()


def read_tables(folder: str | Path) -> GraphRAGTables:
    """Detect the layout of ``folder`` and read every table it uses, checking the columns.

    Raises
    ------
    ImportSourceError
        See :func:`detect_format`; also a file that is not readable parquet,
        or a table without a column the import needs (file and column named).
    """
    path = Path(folder)
    fmt = detect_format(path)
    rows: dict[str, tuple[Mapping[str, Any], ...]] = {}
    for table, groups in fmt.columns.items():
        file = path / fmt.file_of(table)
        if not file.exists():
            continue  # optional (required ones were checked by detect_format)
        columns, data = _read(file)
        for group in groups:
            if not any(c in columns for c in group):
                raise ImportSourceError(
                    f"{file} has no column {' or '.join(repr(c) for c in group)} "
                    f"(its columns: {', '.join(columns)}); a GraphRAG {fmt.name[-1]}.x {table} table needs "
                    f"{', '.join('/'.join(g) for g in groups)}"
                )
        rows[table] = tuple(data)
    return GraphRAGTables(path, fmt, MappingProxyType(rows))
