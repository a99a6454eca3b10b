"""The tables of a Microsoft GraphRAG output folder: which format, which columns, read with polars.

Three layouts exist on disk. GraphRAG 2.x/3.x writes ``documents``,
``text_units``, ``entities``, ``relationships``, ``communities``,
``community_reports`` (and ``covariates`` when claims were extracted);
GraphRAG 1.x wrote the same tables as ``create_final_<name>``, plus
``create_final_nodes`` (each entity's community per level); GraphRAG 0.x
(0.3-era, before the 1.0 data model) used the same file names with older
columns, and its entities may live in ``create_final_nodes`` alone. The
format and the version are found from the files *and* their columns, never
from a flag; :func:`normalise_v0` maps 0.x rows to 1.x's, as GraphRAG's own
``index_migration_to_v1`` notebook does. The whole mapping, table by table:
``docs/importing.md``.

Examples
--------
>>> sorted(V3.required)[:3]
['communities', 'community_reports', 'documents']
>>> V1.files["entities"]
'create_final_entities.parquet'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from agrag_lab.importing.errors import ImportSourceError
from agrag_lab.importing.validate import (
    GRAPHRAG_DESCRIPTIONS,
    GRAPHRAG_FIELDS,
    GRAPHRAG_KEYS,
    ImportLimits,
    check_bytes,
    check_description,
    check_record,
    check_rows,
    unique_rows,
)

__all__ = ["FORMATS", "V0", "V1", "V3", "GraphRAGFormat", "GraphRAGTables", "detect_format", "detect_version", "normalise_v0", "read_tables",
           "unit_numbers"]


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
    label: str = ""

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
    "2.x/3.x",
)
V1 = GraphRAGFormat(
    "graphrag-1",
    MappingProxyType({t: f"create_final_{t}.parquet" for t in (*_TABLES, "covariates", "nodes")}),
    frozenset((*_TABLES, "nodes")),
    MappingProxyType(dict(_COLUMNS)),
    "1.x",
)
_V0_COLUMNS: dict[str, tuple[tuple[str, ...], ...]] = {
    "documents": (("id",), ("title",), ("text", "raw_content")),
    "text_units": (("id",), ("text",), ("document_ids", "document_id")),
    "entities": (("id",), ("title", "name"), ("description",), ("text_unit_ids",)),
    "relationships": (("source",), ("target",), ("description",), ("weight",), ("text_unit_ids",)),
    "communities": (("id", "community"), ("level",)),
    "community_reports": (("community",), ("level",), ("title",), ("summary",), ("full_content",), ("rank",), ("findings",)),
    "covariates": _COLUMNS["covariates"],
    "nodes": (("title",), ("community",), ("level",)),
}
V0 = GraphRAGFormat(
    "graphrag-0",
    V1.files,
    frozenset(t for t in (*_TABLES, "nodes") if t != "entities"),
    MappingProxyType(_V0_COLUMNS),
    "0.x (0.3-era)",
)
#: The layouts :func:`detect_format` recognises, newest first.
FORMATS = (V3, V1, V0)


@dataclass(frozen=True)
class GraphRAGTables:
    """The rows of every table found, as lists of dicts (``column -> value``).

    ``unit_rows`` is ``(number, id)`` for each row of the text units file, in the file's order, repeats kept: the
    number GraphRAG's query (0.x to 3.x, ``read_text_units``) gives the text unit, the short id its answers cite
    (``[Data: Sources (n)]``), whatever its ``human_readable_id`` (1.x numbers those from 1): :func:`unit_numbers`.
    """

    folder: Path
    format: GraphRAGFormat
    rows: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    version: str = ""
    unit_rows: tuple[tuple[int, str], ...] = ()

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
    return "; ".join(f"GraphRAG {f.label}: " + ", ".join(sorted(f.files[t] for t in f.required)) for f in FORMATS[:2])


def _columns(file: Path) -> set[str]:
    """The column names of a parquet file (empty when it is absent, empty or unreadable)."""
    import polars as pl

    if not file.is_file() or file.stat().st_size == 0:
        return set()
    try:
        return set(pl.read_parquet_schema(file))
    except Exception:  # damaged: read_tables names it
        return set()


def _pre_1_0(path: Path) -> bool:
    """Whether ``create_final_*`` tables have the columns of GraphRAG before 1.0 (see ``docs/importing.md``)."""
    entities = _columns(path / V1.files["entities"])
    communities = _columns(path / V1.files["communities"])
    documents = _columns(path / V1.files["documents"])
    return (
        not entities or ("name" in entities and "title" not in entities)
        or (bool(communities) and "community" not in communities) or ("raw_content" in documents and "text" not in documents)
    )


def detect_version(path: Path, fmt: GraphRAGFormat) -> str:
    """The GraphRAG version family of a folder: ``0.x``, ``1.x``, ``2.x`` or ``3.x``, from its columns.

    2.x and 3.x share file names; 3.x text units name one ``document_id``, 2.x a ``document_ids`` list.
    """
    if fmt is V3:
        return "2.x" if "document_ids" in _columns(path / V3.files["text_units"]) else "3.x"
    return "1.x" if fmt is V1 else "0.x"


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
            return V0 if fmt is not V3 and _pre_1_0(path) else fmt
    best = max(FORMATS[:2], key=lambda f: sum(f.files[t] in names for t in f.required))
    missing = sorted(best.files[t] for t in best.required if best.files[t] not in names)
    raise ImportSourceError(
        f"{path} is neither GraphRAG layout: it looks closest to GraphRAG {best.label} but lacks "
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


def unit_numbers(path: Path, rows: Sequence[Mapping[str, Any]]) -> tuple[int, ...]:
    """The number GraphRAG's query gives each row of the text units file ``path`` (``rows``, as read).

    GraphRAG reads the table with pandas and numbers a text unit by its label in the index the frame comes back
    with (``read_text_units``: ``short_id`` is the label; its answers cite ``[Data: Sources (label)]``). pandas
    keeps an index in the file: a range in its metadata (``start``, ``step``; from 0 as GraphRAG writes it), any
    other in a column (``__index_level_0__``). Without either, the row, from 0.

    Examples
    --------
    >>> unit_numbers(Path("absent.parquet"), [{"id": "a"}, {"id": "b"}])
    (0, 1)
    """
    index = _pandas_index(path)
    if isinstance(index, str) and rows and all(isinstance(r.get(index), int) for r in rows):
        return tuple(int(r[index]) for r in rows)
    start, step = (int(index.get("start", 0)), int(index.get("step", 1))) if isinstance(index, dict) else (0, 1)
    return tuple(start + step * n for n in range(len(rows)))


def _pandas_index(path: Path) -> str | dict[str, Any] | None:
    """The one index pandas recorded in a parquet file's metadata: a column's name, a range, or None."""
    import json

    import polars as pl

    try:
        meta = pl.read_parquet_metadata(path).get("pandas")
        columns = json.loads(meta)["index_columns"] if meta else []
    except Exception:  # no file, no metadata, or metadata pandas did not write: the row, from 0
        return None
    if len(columns) != 1 or not isinstance(columns[0], (str, dict)):
        return None
    index: str | dict[str, Any] = columns[0]
    return index


def _row_count(path: Path) -> int:
    """Rows of a parquet file, from its metadata (nothing else is read); 0 when unreadable (read_tables names it)."""
    import polars as pl

    try:
        return int(pl.scan_parquet(path).select(pl.len()).collect().item())
    except Exception:  # damaged: _read names it
        return 0


def read_tables(folder: str | Path, limits: ImportLimits | None = None) -> GraphRAGTables:
    """Detect the layout of ``folder`` and read every table it uses, checking the columns and every row.

    The files' total size and each table's row count are checked against
    ``limits`` before any table is read; then every row's fields
    (:data:`~agrag_lab.importing.validate.GRAPHRAG_FIELDS`), descriptions and
    ids (:func:`~agrag_lab.importing.validate.unique_rows`).

    Raises
    ------
    ImportSourceError
        See :func:`detect_format`; also a file that is not readable parquet,
        a table without a column the import needs (file and column named), a
        row whose field is null or of another type, or an id on two rows that
        differ (file, row and column named).
    ImportLimitError
        The files, a table's rows or a description are past ``limits``.
    """
    path = Path(folder)
    fmt = detect_format(path)
    limits = limits or ImportLimits()
    check_bytes((path / fmt.file_of(t) for t in fmt.columns), limits, f"GraphRAG output {path}")
    for table in fmt.columns:
        file = path / fmt.file_of(table)
        if file.is_file() and file.stat().st_size:
            check_rows(str(file), _row_count(file), limits)
    rows: dict[str, tuple[Mapping[str, Any], ...]] = {}
    notes: list[str] = []
    for table, groups in fmt.columns.items():
        file = path / fmt.file_of(table)
        if not file.exists():
            continue  # optional (required ones were checked by detect_format)
        if file.stat().st_size == 0:
            if table in fmt.required:
                raise ImportSourceError(
                    f"{file} is empty (0 bytes); a GraphRAG {fmt.label} output needs its {table} table: "
                    "copy it again from the GraphRAG output"
                )
            notes.append(f"{file.name} is empty (0 bytes): an optional table, read as holding no rows")
            continue
        columns, data = _read(file)
        for group in groups:
            if not any(c in columns for c in group):
                raise ImportSourceError(
                    f"{file} has no column {' or '.join(repr(c) for c in group)} "
                    f"(its columns: {', '.join(columns)}); a GraphRAG {fmt.label} {table} table needs "
                    f"{', '.join('/'.join(g) for g in groups)}"
                )
        rows[table] = tuple(data)
    version = detect_version(path, fmt)
    units = rows.get("text_units", ())
    unit_rows = tuple(zip(unit_numbers(path / fmt.file_of("text_units"), units), (str(r.get("id")) for r in units),
                          strict=True))
    if fmt is V0:
        rows, more = normalise_v0(rows)
        notes += more
    rows, more = _checked(path, fmt, rows, limits)
    notes += more
    return GraphRAGTables(path, fmt, MappingProxyType(rows), tuple(notes), version, unit_rows)


def _checked(
    path: Path, fmt: GraphRAGFormat, rows: Mapping[str, tuple[Mapping[str, Any], ...]], limits: ImportLimits,
) -> tuple[dict[str, tuple[Mapping[str, Any], ...]], list[str]]:
    """Every row's fields and descriptions checked, exact repeats merged (see :mod:`~agrag_lab.importing.validate`)."""
    out: dict[str, tuple[Mapping[str, Any], ...]] = {}
    notes: list[str] = []
    fix = "the table was edited or damaged: fix the row or re-run GraphRAG"
    for table, data in rows.items():
        where = str(path / fmt.file_of(table))
        fields = GRAPHRAG_FIELDS.get(table, {})
        for n, row in enumerate(data):
            check_record(f"{where} row {n}", row.get("id", row.get("title", n)), row, fields, fix)
            for column in GRAPHRAG_DESCRIPTIONS.get(table, ()):
                check_description(f"{where} row {n}", row.get("title", row.get("id", n)), column, row.get(column), limits)
        out[table], merged = unique_rows(where, data, *GRAPHRAG_KEYS.get(table, ()))
        notes += merged
    return out, notes


def _split(value: Any) -> list[str]:
    """0.x ids: a list, a comma-joined string, or a list of comma-joined strings."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    return [part.strip() for item in items for part in str(item).split(",") if part.strip()]


def normalise_v0(
    rows: Mapping[str, tuple[Mapping[str, Any], ...]],
) -> tuple[dict[str, tuple[Mapping[str, Any], ...]], list[str]]:
    """0.x rows as 1.x rows, as GraphRAG's ``index_migration_to_v1`` notebook maps them.

    ``raw_content`` -> ``text``; ``name`` -> ``title``; ``rank`` -> ``combined_degree``;
    a ``human_readable_id`` where none was written (the row number, from 1; a text
    unit's from 0, the number GraphRAG 0.x's answers cite, ``[Data: Sources (0)]``,
    as its query reads text units with ``short_id_col=None``); a
    community's Leiden number from ``id`` into ``community``; its ``entity_ids``
    from the nodes of its level, else from the ends of its ``relationship_ids``;
    and, when ``create_final_entities`` is absent or empty, the entities from
    ``create_final_nodes`` (its lowest level; ``source_id`` lists the text units).

    Examples
    --------
    >>> out, notes = normalise_v0({"documents": ({"id": "d", "title": "t", "raw_content": "x"},)})
    >>> dict(out["documents"][0])
    {'id': 'd', 'title': 't', 'raw_content': 'x', 'text': 'x', 'human_readable_id': 1}
    """
    out: dict[str, tuple[Mapping[str, Any], ...]] = dict(rows)
    notes: list[str] = []

    def numbered(table: str, change: Any = None, start: int = 1) -> None:
        fixed = []
        for n, row in enumerate(rows.get(table, ()), start):
            new = dict(row)
            if change is not None:
                change(new)
            new.setdefault("human_readable_id", n)
            if new.get("human_readable_id") is None:
                new["human_readable_id"] = n
            fixed.append(new)
        if table in rows:
            out[table] = tuple(fixed)

    numbered("documents", lambda r: r.setdefault("text", r.get("raw_content")))
    numbered("text_units", start=0)  # 0.x's query cites a text unit by its row, from 0: [Data: Sources (0)]
    nodes = rows.get("nodes", ())
    if not rows.get("entities"):
        lowest = min((int(n["level"]) for n in nodes if n.get("level") is not None), default=0)
        entities = []
        for node in nodes:
            if node.get("level") is not None and int(node["level"]) != lowest:
                continue
            entities.append({
                "id": node.get("id") or node.get("title"), "title": node.get("title"),
                "type": node.get("type") or node.get("entity_type"), "description": node.get("description"),
                "text_unit_ids": _split(node.get("source_id")), "degree": node.get("degree"),
                "human_readable_id": node.get("human_readable_id"),
            })
        out["entities"] = tuple(entities)
        notes.append(
            f"GraphRAG 0.x output without entities in create_final_entities.parquet: the {len(entities)} entities "
            f"are read from create_final_nodes.parquet (level {lowest}; text units from source_id)"
        )
    else:
        numbered("entities", lambda r: r.setdefault("title", r.get("name")))
    numbered("relationships", lambda r: r.setdefault("combined_degree", r.get("rank")))
    entity_of_title = {str(e.get("title")): str(e.get("id")) for e in out.get("entities", ())}
    ends = {str(r.get("id")): (str(r.get("source")), str(r.get("target"))) for r in rows.get("relationships", ())}
    members: dict[int, list[str]] = {}
    for node in nodes:
        community = node.get("community")
        if community is None or str(community).strip() in ("", "nan") or int(float(community)) < 0:
            continue
        title = str(node.get("title"))
        if title in entity_of_title:
            members.setdefault(int(float(community)), []).append(entity_of_title[title])
    communities = []
    from_relations = 0
    for row in rows.get("communities", ()):
        new = dict(row)
        if new.get("community") is None:
            new["community"] = int(str(new["id"]))
        new["community"] = int(new["community"])
        new.setdefault("human_readable_id", new["community"])
        new.setdefault("parent", -1)
        if new.get("entity_ids") is None:
            given = members.get(new["community"])
            if given is None:
                from_relations += 1
                found = {entity_of_title[t] for r in _split(new.get("relationship_ids")) for t in ends.get(r, ())
                         if t in entity_of_title}
                given = sorted(found)
            new["entity_ids"] = given
        new["text_unit_ids"] = _split(new.get("text_unit_ids"))
        communities.append(new)
    if "communities" in rows:
        out["communities"] = tuple(communities)
    if from_relations:
        notes.append(
            f"{from_relations} communities of GraphRAG 0.x are at a level create_final_nodes.parquet does not hold: "
            "their members are taken from the ends of their relationships (relationship_ids that the "
            "relationships table holds)"
        )
    reports = []
    for row in rows.get("community_reports", ()):
        new = dict(row)
        new["community"] = int(str(new["community"]))
        new.setdefault("human_readable_id", new["community"])
        reports.append(new)
    if "community_reports" in rows:
        out["community_reports"] = tuple(reports)
    return out, notes
