"""Check an import's source before mapping it: every record's type, duplicate ids, and size limits.

An importer reads what another tool wrote, or what someone edited by hand;
nothing of it is trusted. Each check here is a pure function that returns
the records it was given (or the rows without exact repeats) or raises
:class:`~agrag_lab.errors.ImportSourceError` naming the file, the record and
the field, what was found, what was expected and how to fix it.

- :func:`check_record`: a record is an object, and each field it must have is
  of its kind (:data:`FieldKind`): a chunk record that is a string, or whose
  ``content`` is null, is named, not a traceback nor a chunk kept "unplaced".
- :func:`unique_rows`: an id on two rows is a named merge when the rows are
  equal (one is kept, a note says so) and a named error when they differ
  (which row and column disagree), never a silent overwrite.
- :class:`ImportLimits`: rows per table, characters per description and
  bytes of the files read, each with its option (``--max-rows``,
  ``--max-description``, ``--max-bytes``; the ``limits`` argument of
  ``Graph.import_*``). Bytes and rows are checked from file sizes and parquet
  metadata before anything is read, so a huge or broken source fails in
  milliseconds, not after minutes.

Examples
--------
>>> check_record("chunks.json", "chunk-1", {"content": "Marley was dead."}, {"content": "text"}, "fix it")
{'content': 'Marley was dead.'}
>>> check_record("chunks.json", "chunk-1", "Marley", {"content": "text"}, "copy the file again")
Traceback (most recent call last):
...
agrag_lab.errors.ImportSourceError: chunks.json: record 'chunk-1' is a str ('Marley'), not an object with field content; copy the file again
>>> rows, notes = unique_rows("units.parquet", [{"id": "a", "text": "x"}, {"id": "a", "text": "x"}], "id")
>>> len(rows), notes[0][:46]
(1, 'units.parquet: 1 row repeats another row exact')
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agrag_lab.errors import ImportLimitError, ImportSourceError
from agrag_lab.limits import MAX_DESCRIPTION, MAX_IMPORT_BYTES, MAX_IMPORT_ROWS, out_of_range

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "GRAPHRAG_FIELDS",
    "GRAPHRAG_KEYS",
    "FieldKind",
    "ImportLimits",
    "check_bytes",
    "check_description",
    "check_graph",
    "check_record",
    "check_rows",
    "unique_rows",
]

#: What a field must hold: ``text`` a string; ``id`` a non-empty string or an integer; ``ids`` a list
#: of those or one string; ``int`` an integer; ``number`` an int or a float. A ``?`` allows null or absent.
FieldKind = Literal["text", "text?", "id", "id?", "ids?", "int?", "number?"]

_EXPECTED = {
    "text": "a string", "id": "a non-empty string or an integer", "ids": "a list of ids or one id",
    "int": "an integer", "number": "a number",
}

#: The fields of each GraphRAG table an import reads, with their kinds (after 0.x rows are mapped to 1.x).
GRAPHRAG_FIELDS: Mapping[str, Mapping[str, FieldKind]] = {
    "documents": {"id": "id", "title": "text?", "text": "text?"},
    "text_units": {"id": "id", "text": "text", "document_id": "ids?", "document_ids": "ids?"},
    "entities": {"id": "id", "title": "text", "type": "text?", "description": "text?", "text_unit_ids": "ids?"},
    "relationships": {"source": "text", "target": "text", "description": "text?", "weight": "number?",
                      "text_unit_ids": "ids?"},
    "communities": {"community": "id", "level": "int?", "entity_ids": "ids?"},
    "community_reports": {"community": "id", "title": "text?", "summary": "text?", "full_content": "text?"},
    "covariates": {"description": "text?", "text_unit_id": "id?"},
}
#: The columns of each GraphRAG table that name a row once (an id written twice is merged or refused).
GRAPHRAG_KEYS: Mapping[str, tuple[str, ...]] = {
    "documents": ("id",),
    "text_units": ("id", "human_readable_id"),
    "entities": ("id", "human_readable_id"),
    "relationships": ("id", "human_readable_id"),
    "communities": ("community",),
    "community_reports": ("community",),
    "covariates": ("id",),
}
#: The description-like fields a description limit bounds, per GraphRAG table.
GRAPHRAG_DESCRIPTIONS: Mapping[str, tuple[str, ...]] = {
    "entities": ("description",),
    "relationships": ("description",),
    "community_reports": ("summary", "full_content"),
    "covariates": ("description",),
}


@dataclass(frozen=True)
class ImportLimits:
    """How much one import reads: rows per table, characters per description, bytes of its files.

    The defaults (:data:`~agrag_lab.limits.MAX_IMPORT_ROWS`, :data:`~agrag_lab.limits.MAX_DESCRIPTION`,
    :data:`~agrag_lab.limits.MAX_IMPORT_BYTES`) are far above any real GraphRAG or LightRAG output; raise
    one for a source known to be larger (``--max-rows`` etc. on the command line).

    Examples
    --------
    >>> ImportLimits(rows=10).rows, ImportLimits().description
    (10, 200000)
    >>> ImportLimits(rows=0)
    Traceback (most recent call last):
    ...
    agrag_lab.errors.ImportLimitError: ImportLimits.rows must be an integer >= 1 (got 0); it is the most rows of one table an import reads
    """

    rows: int = MAX_IMPORT_ROWS
    description: int = MAX_DESCRIPTION
    bytes: int = MAX_IMPORT_BYTES

    def __post_init__(self) -> None:
        meanings = (
            ("rows", self.rows, "the most rows of one table an import reads"),
            ("description", self.description, "the most characters of one description an import reads"),
            ("bytes", self.bytes, "the most bytes of the files an import reads"),
        )
        for name, value, meaning in meanings:
            problem = out_of_range(value, 1)
            if problem is not None:
                raise ImportLimitError(f"ImportLimits.{name} {problem}; it is {meaning}")


def _raise_with(option: str, value: int) -> str:
    return f"if the source is meant to be this large, raise the limit: --{option} {value} (ImportLimits({option.removeprefix('max-').replace('-', '_')}={value}) in Python)"


def check_bytes(files: Iterable[Path], limits: ImportLimits, what: str) -> int:
    """The total size of ``files`` (missing ones count 0); raise when it is past ``limits.bytes``.

    Raises
    ------
    ImportLimitError
        The files are larger than the limit (sizes named, the largest first).
    """
    sizes = sorted(((f.stat().st_size, f) for f in files if f.is_file()), key=lambda s: -s[0])
    total = sum(s for s, _ in sizes)
    if total > limits.bytes:
        largest = ", ".join(f"{f.name} {s:,} bytes" for s, f in sizes[:3])
        raise ImportLimitError(
            f"{what} holds {total:,} bytes to read ({largest}), more than the limit of {limits.bytes:,} bytes; "
            f"check that it is the output you meant to import; {_raise_with('max-bytes', total)}"
        )
    return total


def check_rows(where: str, count: int, limits: ImportLimits) -> None:
    """Raise when a table of ``count`` rows is past ``limits.rows``.

    Raises
    ------
    ImportLimitError
        ``count`` is larger than the limit (file and count named).
    """
    if count > limits.rows:
        raise ImportLimitError(
            f"{where} holds {count:,} rows, more than the limit of {limits.rows:,} rows per table (importing "
            f"and embedding that many takes hours); {_raise_with('max-rows', count)}"
        )


def check_description(where: str, key: object, field: str, value: object, limits: ImportLimits) -> None:
    """Raise when a description (a string) is longer than ``limits.description`` characters.

    Raises
    ------
    ImportLimitError
        The description is too long (file, record and field named).
    """
    if isinstance(value, str) and len(value) > limits.description:
        raise ImportLimitError(
            f"{where}: record {key!r} field {field!r} holds {len(value):,} characters, more than the limit of "
            f"{limits.description:,} characters per description; {_raise_with('max-description', len(value))}"
        )


def check_graph(where: str, graph: nx.Graph, limits: ImportLimits) -> None:
    """A read GraphML graph (networkx) within ``limits``: its node and edge counts, every description.

    Raises
    ------
    ImportLimitError
        Too many nodes or edges, or a description too long (the node or edge named).
    """
    check_rows(f"{where} (nodes)", graph.number_of_nodes(), limits)
    check_rows(f"{where} (edges)", graph.number_of_edges(), limits)
    for node, attrs in graph.nodes(data=True):
        check_description(f"{where} node", node, "description", attrs.get("description"), limits)
    for u, v, attrs in graph.edges(data=True):
        check_description(f"{where} edge", f"{u} -> {v}", "description", attrs.get("description"), limits)


def _kind_problem(value: Any, kind: FieldKind) -> str | None:
    base = kind.rstrip("?")
    if value is None or (isinstance(value, float) and math.isnan(value) and base != "number"):
        return None if kind.endswith("?") else "is null"
    ok = {
        "text": isinstance(value, str),
        "id": (isinstance(value, str) and bool(value.strip())) or (isinstance(value, int) and not isinstance(value, bool)),
        "ids": isinstance(value, str)
        or (isinstance(value, (list, tuple)) and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value)),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
    }[base]
    if ok:
        return None
    shown = repr(value)
    return f"is a {type(value).__name__} ({shown[:60]}{'...' if len(shown) > 60 else ''})"


def check_record(
    where: str, key: object, record: object, fields: Mapping[str, FieldKind], fix: str,
) -> Mapping[str, Any]:
    """``record`` when it is an object whose ``fields`` hold their kinds, else raise naming the field.

    Parameters
    ----------
    where : str
        The file (and table) the record is in, for the message.
    key : object
        The record's id or row number, for the message.
    record : object
        The record as read (a JSON value, a parquet row).
    fields : mapping of str to FieldKind
        The fields to check; a required field (no ``?``) must be present.
    fix : str
        How to fix a bad record, added to the message.

    Raises
    ------
    ImportSourceError
        The record is not an object, or a field is missing, null or of another type.
    """
    if not isinstance(record, Mapping):
        shown = repr(record)
        raise ImportSourceError(
            f"{where}: record {key!r} is a {type(record).__name__} ({shown[:60]}{'...' if len(shown) > 60 else ''}), "
            f"not an object with field{'s' if len(fields) > 1 else ''} {', '.join(fields)}; {fix}"
        )
    for name, kind in fields.items():
        if name not in record:
            if kind.endswith("?"):
                continue
            raise ImportSourceError(f"{where}: record {key!r} has no field {name!r} ({_EXPECTED[kind]}); {fix}")
        problem = _kind_problem(record[name], kind)
        if problem is not None:
            raise ImportSourceError(
                f"{where}: record {key!r} field {name!r} {problem}; it must be {_EXPECTED[kind.rstrip('?')]}; {fix}"
            )
    return record


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> str | None:
    """The first column where two rows differ, or ``None`` when they are equal."""
    for column in sorted(set(a) | set(b)):
        left = json.dumps(a.get(column), sort_keys=True, default=str)
        if left != json.dumps(b.get(column), sort_keys=True, default=str):
            return column
    return None


def unique_rows(
    where: str, rows: Sequence[Mapping[str, Any]], *columns: str,
) -> tuple[tuple[Mapping[str, Any], ...], list[str]]:
    """Rows with each value of ``columns`` once: an exact repeat is merged (a note names it), a conflict refused.

    A null value names nothing and is not compared.

    Raises
    ------
    ImportSourceError
        Two rows give one value of a key column and differ elsewhere (rows, value and column named).
    """
    kept: list[Mapping[str, Any]] = []
    seen: dict[tuple[str, str], int] = {}
    repeats: dict[str, list[str]] = {}
    for n, row in enumerate(rows):
        duplicate = False
        for column in columns:
            value = row.get(column)
            if value is None or (isinstance(value, float) and math.isnan(value)):
                continue
            key = (column, str(value))
            if key not in seen:
                continue
            first = seen[key]
            differs = _same(rows[first], row)
            if differs is not None:
                raise ImportSourceError(
                    f"{where}: {column} {str(value)!r} is on row {first} and row {n}, which differ in column "
                    f"{differs!r}; a builder writes each {column} once, so the table was concatenated or edited: "
                    "keep one of the rows (or give the other its own id), or re-run the builder"
                )
            repeats.setdefault(column, []).append(str(value))
            duplicate = True
            break
        if duplicate:
            continue
        for column in columns:
            value = row.get(column)
            if value is not None and not (isinstance(value, float) and math.isnan(value)):
                seen[(column, str(value))] = n
        kept.append(row)
    notes = [
        f"{where}: {len(values)} row{'s' if len(values) > 1 else ''} {'repeat' if len(values) > 1 else 'repeats'} "
        f"another row exactly (same {column}, e.g. {values[0]!r}, and same values): each is imported once"
        for column, values in repeats.items()
    ]
    return tuple(kept), notes
