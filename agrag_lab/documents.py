"""What a user ingests (:class:`Document`) and what ingestion makes of it.

A document's text is parsed into :class:`Section` objects (Markdown headings)
and cut into :class:`Chunk` objects. Every chunk knows its exact character
offsets in the version text: ``version_text[chunk.start:chunk.end] == chunk.text``.

Examples
--------
>>> from agrag_lab.documents import Document
>>> d = Document("babbage", "Charles Babbage", "# Charles Babbage\\n\\nA mathematician.")
>>> d.format
'markdown'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from agrag_lab.errors import DocumentError, EvidenceIdError, KnowledgeGraphError
from agrag_lab.ids import EvidenceId, check_document_id

DocumentFormat = Literal["markdown", "text"]
ChunkKind = Literal["paragraph", "table"]
#: Metadata values must be scalars so they can be pushed into store filters.
MetadataValue = str | int | float | bool


def _freeze(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


def _unencodable(value: Any, where: str) -> str | None:
    """The place of the first string in ``value`` (nested) that UTF-8 cannot encode, or None.

    Such strings (lone surrogates, e.g. a JSON ``"\\ud800"``) cannot be stored in
    SQLite or Chroma, so a document holding one is refused before anything is written.

    Examples
    --------
    >>> _unencodable({"a": ["ok", "bad\\ud800"]}, "metadata")
    "metadata['a'][1]"
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = _unencodable(key, f"{where} key {key!r}") or _unencodable(item, f"{where}[{key!r}]")
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = _unencodable(item, f"{where}[{i}]")
            if found:
                return found
    return None


# -- given graph facts: their shape (the one home of these rules) ----------------------------------


@dataclass(frozen=True)
class GivenFact:
    """One given entity (``name``, ``label``, ``description``, ``aliases``) or relation (``source``,
    ``target``, ``type``), as written in metadata (stripped; labels and types not yet normalised)."""

    name: str = ""
    label: str = ""
    description: str = ""
    aliases: tuple[str, ...] = ()
    source: str = ""
    target: str = ""
    type: str = ""


def _given_text(document_id: str, where: str, item: Mapping[str, Any], key: str, required: bool) -> str:
    value = item.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise KnowledgeGraphError(
            f"document {document_id!r}: {where} needs {key!r} as a non-empty string, got {value!r}"
        )
    return value.strip()


def _given_items(document_id: str, metadata: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    raw = metadata.get(key, ())
    if isinstance(raw, (str, bytes, Mapping)) or not isinstance(raw, Iterable):
        one = " (a list even for one: wrap it in [ ])" if isinstance(raw, Mapping) else ""
        raise KnowledgeGraphError(
            f"document {document_id!r}: metadata[{key!r}] must be a list of mappings, got {type(raw).__name__}{one}"
        )
    items = list(raw)
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise KnowledgeGraphError(
                f"document {document_id!r}: metadata[{key!r}][{i}] must be a mapping like "
                f"{{'name': ...}}, got {type(item).__name__}"
            )
    return items


def read_given_facts(
    document_id: str, metadata: Mapping[str, Any]
) -> tuple[tuple[GivenFact, ...], tuple[GivenFact, ...]]:
    """The given ``entities`` and ``relations`` of a document's metadata, checked completely.

    ``metadata["entities"]`` is a list of ``{"name", "label"?, "description"?,
    "aliases"?}``, ``metadata["relations"]`` a list of ``{"source", "target",
    "type"?}``; :func:`agrag_lab.kg.extract.extraction.given_facts` normalises them
    with a graph schema. :class:`Document` checks them when it is made, so a
    malformed fact is refused before anything is written.

    Raises
    ------
    KnowledgeGraphError
        An entry is not a mapping, or lacks a name / source / target.

    Examples
    --------
    >>> read_given_facts("d", {"relations": [{"source": "Ada", "target": "Babbage"}]})[1]
    (GivenFact(name='', label='', description='', aliases=(), source='Ada', target='Babbage', type=''),)
    """
    entities = []
    for i, item in enumerate(_given_items(document_id, metadata, "entities")):
        where = f"metadata['entities'][{i}]"
        aliases = item.get("aliases") or ()
        if isinstance(aliases, str) or not isinstance(aliases, Iterable) or not all(isinstance(a, str) for a in aliases):
            raise KnowledgeGraphError(f"document {document_id!r}: {where}['aliases'] must be a list of strings")
        entities.append(GivenFact(
            name=_given_text(document_id, where, item, "name", True),
            label=_given_text(document_id, where, item, "label", False),
            description=_given_text(document_id, where, item, "description", False),
            aliases=tuple(a.strip() for a in aliases if a.strip()),
        ))
    relations = []
    for i, item in enumerate(_given_items(document_id, metadata, "relations")):
        where = f"metadata['relations'][{i}]"
        relations.append(GivenFact(
            source=_given_text(document_id, where, item, "source", True),
            target=_given_text(document_id, where, item, "target", True),
            type=_given_text(document_id, where, item, "type", False),
        ))
    return tuple(entities), tuple(relations)


@dataclass(frozen=True)
class Document:
    """A document to ingest.

    Parameters
    ----------
    id : str
        Stable, URL-safe id (``A-Z a-z 0-9 . _ ~ -``).
    title : str
        Human-readable title, shown with every hit.
    text : str
        The full text. Must not be empty or only whitespace.
    format : {"markdown", "text"}
        How ``text`` is parsed.
    metadata : mapping
        Scalar properties (str, int, float, bool) usable in filters and scopes.
        The keys ``entities`` and ``relations`` may carry lists of given graph
        facts (see :mod:`agrag_lab.kg.extract.extraction`).
    """

    id: str
    title: str
    text: str
    format: DocumentFormat = "markdown"
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            check_document_id(self.id)
        except EvidenceIdError as exc:
            raise DocumentError(str(exc)) from None
        if self.format not in ("markdown", "text"):
            raise DocumentError(
                f"document {self.id!r}: format {self.format!r} is not supported; "
                "use 'markdown' or 'text'"
            )
        if not isinstance(self.text, str) or not self.text.strip():
            raise DocumentError(
                f"document {self.id!r} is empty: give it some text, or remove it "
                "with Graph.remove if it should no longer be searched"
            )
        if not isinstance(self.title, str):
            raise DocumentError(f"document {self.id!r}: title must be a string")
        if not isinstance(self.metadata, Mapping):
            raise DocumentError(
                f"document {self.id!r}: metadata must be a mapping of names to values, like "
                f'{{"era": "victorian"}}, not {type(self.metadata).__name__}'
            )
        bad = (
            _unencodable(self.title, "the title") or _unencodable(self.text, "the text")
            or _unencodable(dict(self.metadata), "metadata")
        )
        if bad:
            raise DocumentError(
                f"document {self.id!r}: {bad} holds a character UTF-8 cannot encode (a lone surrogate "
                "such as \\ud800, from a JSON escape); fix the source text"
            )
        try:
            read_given_facts(self.id, self.metadata)
        except KnowledgeGraphError as exc:
            raise DocumentError(
                f"{exc} (give entities as [{{\"name\": ..., \"label\": ...}}] and relations as "
                f"[{{\"source\": ..., \"target\": ...}}])"
            ) from None
        for key, value in self.metadata.items():
            if key in ("entities", "relations"):
                continue
            if not isinstance(key, str) or not isinstance(value, (str, int, float, bool)):
                raise DocumentError(
                    f"document {self.id!r}: metadata {key!r} must map a string to a "
                    f"str, int, float or bool, not {type(value).__name__}"
                )
            if isinstance(value, float) and not math.isfinite(value):
                # Chroma drops the whole record's metadata for one NaN: its scope filters would never match
                raise DocumentError(
                    f"document {self.id!r}: metadata {key!r} is {value}, which no filter can match; give a finite "
                    "number, or leave the key out"
                )
        object.__setattr__(self, "metadata", _freeze(self.metadata))

    def properties(self) -> dict[str, MetadataValue]:
        """The scalar metadata (everything but given ``entities``/``relations``)."""
        return {k: v for k, v in self.metadata.items() if k not in ("entities", "relations")}


@dataclass(frozen=True)
class Section:
    """A heading and everything under it, up to the next heading of its level or above.

    ``index`` 0 is the document root (level 0, the document title).
    """

    index: int
    title: str
    level: int
    start: int
    end: int
    parent: int | None
    heading_path: tuple[str, ...]


@dataclass(frozen=True)
class TableInfo:
    """The rows a table chunk holds: ``header`` cells and ``rows`` of cells.

    ``table`` numbers the table within its version; ``first_row`` is the index
    (0-based, header excluded) of this chunk's first body row; ``row_offsets``
    gives each body row's ``(start, end)`` in the version text.
    """

    table: int
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    first_row: int
    row_offsets: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage of one version of one document."""

    document_id: str
    version: str
    index: int
    text: str
    start: int
    end: int
    kind: ChunkKind
    section: int
    heading_path: tuple[str, ...]
    table: TableInfo | None = None

    @property
    def evidence_id(self) -> EvidenceId:
        """The chunk's evidence id."""
        return EvidenceId(self.document_id, self.version, chunk=self.index)

    @property
    def id(self) -> str:
        """The chunk's evidence id as a string, e.g. ``doc@3f9a1c2b0d4e#c2``."""
        return str(self.evidence_id)
