"""Map the tables of a Microsoft GraphRAG output to our frozen values (pure functions).

- Documents keep GraphRAG's text; the document id is its title when that is
  a valid id (``a-christmas-carol.txt``), else a slug of it.
- Text units become chunks: each is located in its document's text
  (:func:`locate_unit`), so a chunk's text is byte-exact ``text[start:end]``.
  GraphRAG 3.x prepends a metadata line (``title: book.txt.``) to every unit;
  it is not in the document and is removed (the report says so). Units are
  ordered by position: chunk ``#c0`` is the first in the document.
- Entities keep title (as name), type (as label), description, their text
  units as supporting chunks, and ``frequency``/``degree`` as attributes.
- Relationships keep source, target, description and weight (an attribute);
  their type is ``RELATED_TO`` and the description is what a walk shows. One
  that GraphRAG described is marked ``described_by = "graphrag"``, so it gets a
  relation record of its own (source, target, description: LightRAG's relation
  text), which relation searches (LightRAG's high-level keywords, HippoRAG 2's
  facts) read as they read an imported LightRAG index's.
- Communities keep level, parent, children and members; reports keep title,
  summary, full content, findings and rating (GraphRAG's ``rank``).
- Claims (covariates) are attached to the entity they are about.
- The vectors GraphRAG stored (:mod:`~agrag_lab.importing.graphrag_vectors`) are kept by our ids
  (:attr:`ImportedIndex.stored`): an entity's ``title:description``, a text unit's text, a report's
  full content (and 1.x's relationship descriptions).

A row that names something that does not exist (a text unit of an unknown
document, an entity whose text units do not exist) is an error naming file
and column; rows that can be read but not imported are counted in
:attr:`ImportedIndex.skipped` with the reason.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agrag_lab.documents import Chunk, Document, Section
from agrag_lab.errors import EvidenceIdError
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.ids import check_document_id, version_hash
from agrag_lab.importing.aliases import Aliases, alias_key, merged
from agrag_lab.importing.errors import ImportSourceError
from agrag_lab.importing.graphrag_vectors import GraphRAGVectors, column_vectors, read_vectors, with_columns
from agrag_lab.importing.locate import Location, locate_unit
from agrag_lab.importing.model import ImportedIndex, StoredVectors
from agrag_lab.importing.report import Skipped
from agrag_lab.importing.tables import GraphRAGTables, read_tables
from agrag_lab.importing.validate import ImportLimits
from agrag_lab.index.build import PreparedVersion, prepare_version
from agrag_lab.index.records import BUILDER_EMBEDS, CHUNK_ALONE, DESCRIBED_BY, builder_embeds
from agrag_lab.kg.communities import LISTED_LEVEL, Community
from agrag_lab.kg.model import Attributes, Claim, Edge, Entity, KnowledgeGraph, assign_entity_ids
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.kg.schema import GraphSchema
from agrag_lab.kg.text import natural_key, slugify

__all__ = ["DEFAULT_LABEL", "RELATION_TYPE", "import_tables", "read_graphrag"]

#: The relation type of every GraphRAG relationship (GraphRAG does not type them).
RELATION_TYPE = "RELATED_TO"
#: The label of an entity whose type is empty.
DEFAULT_LABEL = "Entity"
#: Key entities and relations a report names (ranked by GraphRAG's degree and weight).
REPORT_KEYS = 10


def _str(value: Any) -> str:
    return "" if value is None else str(value)


def _ids(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _document_ids(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """GraphRAG document id -> our id (its title when valid, else a slug; unique)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for n, row in enumerate(rows):
        title = _str(row.get("title")).strip()
        try:
            candidate = check_document_id(title) if title else ""
        except EvidenceIdError:
            candidate = slugify(title)
        candidate = candidate or f"doc-{row.get('human_readable_id', n)}"
        if candidate in taken:
            candidate = f"{candidate}-{row.get('human_readable_id', n)}"
        taken.add(candidate)
        out[_str(row["id"])] = candidate
    return out


#: Why a text unit is kept unplaced (a document's metadata ``unplaced`` says it).
UNPLACED_REASON = (
    "its text is not a substring of its document's text, even without GraphRAG's metadata lines and split "
    "characters"
)
#: Suffix of the id of the document holding a document's unplaced text units.
UNPLACED_SUFFIX = ".unplaced"


def unplaced_document(
    doc_id: str, title: str, units: Sequence[Mapping[str, Any]], reason: str, taken: set[str],
) -> tuple[PreparedVersion, dict[str, str]]:
    """A document holding text units that could not be placed: each unit's text byte-exact as one chunk
    (its heading names the unit), separated by blank lines; returns it and unit id -> chunk id.

    Examples
    --------
    >>> version, ids = unplaced_document("carol", "Carol", [{"id": "u1", "text": "Marley."}], "why", set())
    >>> version.document.id, version.chunks[0].text, ids["u1"].endswith("#c0")
    ('carol.unplaced', 'Marley.', True)
    """
    doc = f"{doc_id}{UNPLACED_SUFFIX}"
    while doc in taken:
        doc += "-1"
    taken.add(doc)
    texts = [_str(u.get("text")) for u in units]
    text = "\n\n".join(texts)
    version = version_hash(text)
    root = f"{title} (unplaced)"
    sections, chunks, ids = [Section(0, root, 0, 0, len(text), None, (root,))], [], {}
    at = 0
    for n, (unit, body) in enumerate(zip(units, texts, strict=True)):
        heading = (root, f"text unit {_str(unit['id'])}")
        sections.append(Section(n + 1, heading[1], 1, at, at + len(body), 0, heading))
        chunk = Chunk(doc, version, n, body, at, at + len(body), "paragraph", n + 1, heading)
        chunks.append(chunk)
        ids[_str(unit["id"])] = chunk.id
        at += len(body) + 2
    metadata = {"source": "graphrag", "unplaced": reason, "unplaced_of": doc_id, BUILDER_EMBEDS: CHUNK_ALONE}
    document = Document(doc, f"{title} (unplaced text units)", text, "text", metadata)
    return prepare_version(document, sections, chunks), ids


def _attributes(row: Mapping[str, Any], keys: Sequence[str]) -> Attributes:
    out = []
    for key in keys:
        value = row.get(key)
        if isinstance(value, (str, int, float, bool)):
            out.append((key, value))
    return tuple(sorted(out))


class _Mapper:
    """One GraphRAG output being mapped (state shared by the steps; the result is frozen)."""

    def __init__(self, tables: GraphRAGTables, vectors: GraphRAGVectors | None = None) -> None:
        self.t = tables
        self.vectors = vectors
        self.skipped: list[Skipped] = []
        self.notes: list[str] = [
            f"GraphRAG {tables.version or tables.format.label} output (found from its files and columns; "
            "docs/importing.md maps each version)", *tables.notes,
        ]
        self.placement: dict[str, int] = {}

    def skip(self, table: str, count: int, reason: str) -> None:
        if count:
            self.skipped.append(Skipped(table, count, reason))

    # -- documents and chunks --------------------------------------------------------
    def documents(self) -> tuple[list[PreparedVersion], dict[str, str]]:
        """Documents and their chunks; returns them and GraphRAG unit id -> our chunk id."""
        rows = self.t.table("documents")
        doc_ids = _document_ids(rows)
        by_doc: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        multi = 0
        for n, unit in enumerate(self.t.table("text_units")):
            given = _ids(unit.get("document_id")) or _ids(unit.get("document_ids"))
            if not given:
                raise ImportSourceError(
                    f"{self.t.where('text_units')}: row {n} (id {unit.get('id')!r}) names no document in column "
                    "document_id(s); every text unit must belong to a document of documents.parquet"
                )
            unknown = [d for d in given if d not in doc_ids]
            if unknown:
                raise ImportSourceError(
                    f"{self.t.where('text_units')}: text unit {unit.get('id')!r} names document {unknown[0]!r} in "
                    f"column document_id(s), which {self.t.where('documents')} does not hold; the output is "
                    "incomplete: re-export it, or import the folder GraphRAG wrote as a whole"
                )
            multi += len(given) > 1
            by_doc[given[0]].append(unit)
        if multi:
            self.notes.append(f"{multi} text units name several documents; each was placed in the first that holds it")
        out: list[PreparedVersion] = []
        unit_chunk: dict[str, str] = {}
        unplaced: list[tuple[str, str, list[Mapping[str, Any]], str]] = []
        prefixes: set[str] = set()
        stripped = approximate = 0
        for row in rows:
            gid = _str(row["id"])
            text = _str(row.get("text"))
            doc_id = doc_ids[gid]
            title = _str(row.get("title")) or doc_id
            units = sorted(by_doc.get(gid, []), key=lambda u: (natural_key(_str(u.get("human_readable_id"))), _str(u["id"])))
            if not text.strip():
                self.notes.append(f"document {doc_id!r} has no text: it is not imported; its text units are kept unplaced")
                unplaced.append((doc_id, title, units, "its document has no text"))
                continue
            version = version_hash(text)
            found: list[tuple[Location, str]] = []
            lost: list[Mapping[str, Any]] = []
            hint = 0
            for unit in units:
                loc = locate_unit(text, _str(unit.get("text")), hint)
                if loc is None:
                    lost.append(unit)
                    continue
                if loc.prefix:
                    stripped += 1
                    prefixes.add(loc.prefix.strip())
                approximate += loc.approximate
                found.append((loc, _str(unit["id"])))
                hint = loc.start + 1
            if lost:
                unplaced.append((doc_id, title, lost, UNPLACED_REASON))
            found.sort(key=lambda lu: (lu[0].start, lu[0].end, lu[1]))
            heading = (title,)
            section = Section(0, title, 0, 0, len(text), None, heading)
            chunks = []
            for index, (loc, uid) in enumerate(found):
                chunk = Chunk(doc_id, version, index, text[loc.start : loc.end], loc.start, loc.end, "paragraph", 0, heading)
                chunks.append(chunk)
                unit_chunk[uid] = chunk.id
            unit_text = {_str(u["id"]): _str(u.get("text")) for u in units}
            embeds = builder_embeds([(c, unit_text[uid]) for c, (_, uid) in zip(chunks, found, strict=True)])
            metadata = {"source": "graphrag", "graphrag_id": gid, **embeds}
            document = Document(doc_id, title, text, "text", metadata)
            out.append(prepare_version(document, (section,), chunks))
        taken = {d.document.id for d in out}
        kept = 0
        for doc_id, title, units, reason in unplaced:
            if units:
                home, units_chunks = unplaced_document(doc_id, title, units, reason, taken)
                out.append(home)
                unit_chunk.update(units_chunks)
                kept += len(units)
        placed = len(unit_chunk) - kept
        self.placement = {"exact": placed - approximate, "approximate": approximate, "unplaced": kept}
        if kept:
            first = next(_str(u["id"]) for _, _, units, _ in unplaced for u in units)
            self.notes.append(
                f"{kept} text units could not be placed in their document's text (first: {first}); each is kept "
                "byte-exact as a chunk of its own in a document '<document>.unplaced' (its metadata says why), "
                "and everything built on it keeps it"
            )
        if approximate:
            self.notes.append(
                f"{approximate} text units were cut inside a multi-byte character by GraphRAG's token windows "
                "(they start or end with U+FFFD); each chunk holds the document's text there, whole characters"
            )
        if stripped:
            shown = sorted(prefixes)[0].replace("\n", " ")
            self.notes.append(
                f"{stripped} text units start with a metadata line GraphRAG prepends ({shown!r}); it is not in the "
                "document text, so each chunk holds the unit's text without it, byte-exact in the document"
            )
        return out, unit_chunk

    def _chunks_of(self, table: str, n: int, row: Mapping[str, Any], unit_chunk: Mapping[str, str]) -> list[str]:
        """Our chunk ids of a row's text units; an id that text_units does not hold is an error."""
        out = []
        for uid in _ids(row.get("text_unit_ids")):
            if uid in unit_chunk:
                out.append(unit_chunk[uid])
            elif uid not in self.unit_ids:
                raise ImportSourceError(
                    f"{self.t.where(table)}: row {n} ({_str(row.get('title') or row.get('id'))!r}) names text unit "
                    f"{uid!r} in column text_unit_ids, which {self.t.where('text_units')} does not hold; "
                    "the tables come from different runs or the folder is incomplete"
                )
        return sorted(set(out), key=natural_key)

    # -- entities ------------------------------------------------------------------------
    def entities(self, unit_chunk: Mapping[str, str], chunk_docs: Mapping[str, str]) -> tuple[list[Entity], dict[str, str], dict[str, str]]:
        """Entities; returns them, GraphRAG entity id -> ours, and title -> ours."""
        rows = self.t.table("entities")
        degrees, listed = self._v1_degrees(), self._v1_levels()
        seen_titles: dict[str, int] = {}
        for n, row in enumerate(rows):
            title = _str(row.get("title"))
            if not title.strip():
                raise ImportSourceError(f"{self.t.where('entities')}: row {n} has an empty title (column title)")
            if title in seen_titles:
                raise ImportSourceError(
                    f"{self.t.where('entities')}: rows {seen_titles[title]} and {n} share the title {title!r} "
                    "(column title); GraphRAG titles are unique, so the table is damaged"
                )
            seen_titles[title] = n
        ids = assign_entity_ids([(_str(r["title"]), _str(r["title"]), len(_ids(r.get("text_unit_ids")))) for r in rows])
        by_gid: dict[str, str] = {}
        by_title: dict[str, str] = {}
        claims = self._claims(unit_chunk)
        out: list[Entity] = []
        no_support: list[str] = []
        for n, (row, eid) in enumerate(zip(rows, ids, strict=True)):
            title = _str(row["title"])
            chunks = self._chunks_of("entities", n, row, unit_chunk)
            by_gid[_str(row["id"])] = eid
            by_title[title] = eid
            if not chunks:
                no_support.append(title)
            docs = sorted({chunk_docs[c] for c in chunks})
            description = _str(row.get("description"))
            first = {d: next(c for c in chunks if chunk_docs[c] == d) for d in docs}
            attrs = dict(_attributes(row, ("frequency", "degree", "human_readable_id")))
            if title in degrees and "degree" not in attrs:
                attrs["degree"] = degrees[title]
            if title in listed:
                attrs[LISTED_LEVEL] = listed[title]
            attrs["graphrag_id"] = _str(row["id"])
            if description.strip():
                attrs[DESCRIBED_BY] = "graphrag"
            out.append(
                Entity(
                    id=eid,
                    name=title,
                    label=_str(row.get("type")).strip() or DEFAULT_LABEL,
                    description=description,
                    chunk_ids=tuple(chunks),
                    document_ids=tuple(docs),
                    descriptions=tuple((first[d], description) for d in docs) if description else (),
                    forms=tuple((d, title) for d in docs),
                    attributes=tuple(sorted(attrs.items())),
                    claims=tuple(c for c in claims.get(title, ()) if c.chunk_id in chunk_docs),
                )
            )
        if no_support:
            self.notes.append(
                f"{len(no_support)} entities name no text unit (first: {no_support[0]!r}); they are kept without "
                "supporting passages (visible unscoped; a session scoped to documents does not see them)"
            )
        # claims name their subject by title: resolve to our ids now
        resolved = [
            replace(e, claims=tuple(replace(c, subject=e.id, object=by_title.get(c.object, c.object)) for c in e.claims))
            for e in out
        ]
        attached = {c.subject for e in resolved for c in e.claims}
        unattached = sum(len(v) for k, v in claims.items() if by_title.get(k) not in attached)
        self.claims = sum(len(e.claims) for e in resolved)
        self.skip(
            "covariates", unattached,
            "their subject_id is not the title of an imported entity (GraphRAG's claim extraction names subjects "
            "freely), so there is no entity to show them on",
        )
        return resolved, by_gid, by_title

    def _v1_degrees(self) -> dict[str, int]:
        """GraphRAG 1.x keeps degree in create_final_nodes (one row per entity and level)."""
        out: dict[str, int] = {}
        for row in self.t.table("nodes"):
            if row.get("degree") is not None:
                out.setdefault(_str(row.get("title")), int(row["degree"]))
        return out

    def _v1_levels(self) -> dict[str, int]:
        """The lowest level at which GraphRAG 0.x/1.x's create_final_nodes lists each entity (in a community or in
        none, ``-1``): their local search keeps it at a community level up to that (:data:`LISTED_LEVEL`)."""
        out: dict[str, int] = {}
        for row in self.t.table("nodes"):
            if row.get("level") is not None and row.get("title") is not None:
                title, level = _str(row["title"]), int(row["level"])
                out[title] = min(level, out.get(title, level))
        return out

    def _claims(self, unit_chunk: Mapping[str, str]) -> dict[str, list[Claim]]:
        """Claims by subject title (our chunk ids; a claim of a skipped unit is dropped and counted)."""
        out: dict[str, list[Claim]] = defaultdict(list)
        named = sum(bool(_ids(u.get("covariate_ids"))) for u in self.t.table("text_units"))
        if named and not self.t.has("covariates"):
            self.notes.append(
                f"{named} text units name claims (covariate_ids) but the folder has no "
                f"{self.t.format.file_of('covariates')}: there are no claims to import"
            )
        lost = 0
        for n, row in enumerate(self.t.table("covariates")):
            uid = _str(row.get("text_unit_id"))
            if uid not in unit_chunk:
                if uid not in self.unit_ids:
                    raise ImportSourceError(
                        f"{self.t.where('covariates')}: row {n} names text unit {uid!r} in column text_unit_id, "
                        f"which {self.t.where('text_units')} does not hold"
                    )
                lost += 1
                continue
            obj = _str(row.get("object_id"))
            out[_str(row.get("subject_id"))].append(
                Claim(
                    _str(row.get("subject_id")), _str(row.get("type")), _str(row.get("description")), unit_chunk[uid],
                    "" if obj.upper() == "NONE" else obj, _str(row.get("status")), _str(row.get("start_date")),
                    _str(row.get("end_date")), _str(row.get("source_text")),
                )
            )
        self.skip("covariates", lost, "their text unit could not be placed in a document")
        return out

    # -- relationships -------------------------------------------------------------------
    def relations(self, unit_chunk: Mapping[str, str], by_title: Mapping[str, str], kept: set[str]) -> tuple[list[Edge], dict[str, tuple[str, str, str]]]:
        """Edges; returns them and GraphRAG relationship id -> our edge key."""
        out: dict[tuple[str, str, str], Edge] = {}
        by_gid: dict[str, tuple[str, str, str]] = {}
        merged = unsupported = dropped = 0
        unknown: list[str] = []
        for n, row in enumerate(self.t.table("relationships")):
            missing = [_str(row.get(c)) for c in ("source", "target") if _str(row.get(c)) not in by_title]
            if missing:
                unknown.append(missing[0])
                continue
            source, target = by_title[_str(row.get("source"))], by_title[_str(row.get("target"))]
            if source not in kept or target not in kept:
                dropped += 1
                continue
            chunks = self._chunks_of("relationships", n, row, unit_chunk)
            unsupported += not chunks
            description = _str(row.get("description"))
            attrs = dict(_attributes(row, ("weight", "combined_degree", "human_readable_id")))
            attrs["graphrag_id"] = _str(row.get("id"))
            if description.strip():
                attrs[DESCRIBED_BY] = "graphrag"
            key = (source, target, RELATION_TYPE)
            edge = Edge(
                source, target, RELATION_TYPE, tuple(chunks), (),
                tuple((c, description) for c in chunks) if description else (),
                description, tuple(sorted(attrs.items())),
            )
            if key in out:  # the same pair twice: keep both descriptions and all support
                merged += 1
                old = out[key]
                both = tuple(sorted(set(old.chunk_ids) | set(chunks), key=natural_key))
                text = "\n".join(d for d in (old.description, description) if d)
                edge = Edge(source, target, RELATION_TYPE, both, (), tuple((c, text) for c in both) if text else (),
                            text, old.attributes)
            out[key] = edge
            by_gid[_str(row.get("id"))] = key
        self.skip(
            "relationships", len(unknown),
            f"their source or target is no title in entities.parquet (first: {unknown[0][:60]!r}); GraphRAG "
            "keeps relationships whose ends its entity summarisation dropped" if unknown else "",
        )
        self.skip("relationships", dropped, "an end is an entity that was skipped (see entities)")
        if unsupported:
            self.notes.append(f"{unsupported} relationships name no text unit; they are kept without supporting passages")
        if merged:
            self.notes.append(
                f"{merged} relationships repeat a (source, target) pair already seen; each was merged into that "
                "relation (support and descriptions kept)"
            )
        return list(out.values()), by_gid

    # -- communities and reports -----------------------------------------------------------
    def communities(self, by_gid: Mapping[str, str], kept: set[str]) -> tuple[list[Community], dict[int, str]]:
        rows = self.t.table("communities")
        numbers: dict[int, str] = {}
        for n, row in enumerate(rows):
            if row.get("community") is None or row.get("level") is None:
                raise ImportSourceError(f"{self.t.where('communities')}: row {n} has no community or level")
            numbers[int(row["community"])] = f"com-{int(row['level'])}-{int(row['community'])}"
        members_of = self._members(rows, by_gid)
        children: dict[str, list[str]] = defaultdict(list)
        parents: dict[str, str | None] = {}
        for n, row in enumerate(rows):
            cid = numbers[int(row["community"])]
            parent = row.get("parent")
            if parent is None or int(parent) < 0:
                parents[cid] = None
                continue
            if int(parent) not in numbers:
                raise ImportSourceError(
                    f"{self.t.where('communities')}: row {n} names parent {parent} in column parent, which is no "
                    "community of this table"
                )
            parents[cid] = numbers[int(parent)]
            children[numbers[int(parent)]].append(cid)
        out = []
        empty = 0
        for row in rows:
            cid = numbers[int(row["community"])]
            members = tuple(sorted(m for m in members_of.get(cid, ()) if m in kept))
            if not members:
                empty += 1
            out.append(Community(cid, int(row["level"]), members, parents[cid], tuple(sorted(children[cid], key=natural_key))))
        if empty:
            self.notes.append(f"{empty} communities have no imported member entity; they are kept, with no members")
        return out, numbers

    def _members(self, rows: Sequence[Mapping[str, Any]], by_gid: Mapping[str, str]) -> dict[str, list[str]]:
        """Members per community: the communities' entity_ids, else 1.x's create_final_nodes."""
        out: dict[str, list[str]] = defaultdict(list)
        for n, row in enumerate(rows):
            cid = f"com-{int(row['level'])}-{int(row['community'])}"
            for gid in _ids(row.get("entity_ids")):
                if gid not in by_gid:
                    raise ImportSourceError(
                        f"{self.t.where('communities')}: row {n} names entity {gid!r} in column entity_ids, which "
                        f"{self.t.where('entities')} does not hold"
                    )
                out[cid].append(by_gid[gid])
        return out

    def reports(
        self, numbers: Mapping[int, str], communities: Sequence[Community], graph: KnowledgeGraph,
        relation_keys: Mapping[str, tuple[str, str, str]], unit_chunk: Mapping[str, str],
    ) -> list[CommunityReport]:
        by_id = {c.id: c for c in communities}
        community_rows = {numbers[int(r["community"])]: r for r in self.t.table("communities")}
        out = []
        for n, row in enumerate(self.t.table("community_reports")):
            number = row.get("community")
            if number is None or int(number) not in numbers:
                raise ImportSourceError(
                    f"{self.t.where('community_reports')}: row {n} names community {number!r} in column community, "
                    f"which {self.t.where('communities')} does not hold"
                )
            cid = numbers[int(number)]
            community = by_id[cid]
            source = community_rows[cid]

            def degree(entity_id: str) -> float:
                attrs = dict(graph.entities[entity_id].attributes)
                value = attrs.get("degree", 0)
                return float(value) if isinstance(value, (int, float)) else 0.0

            key_entities = sorted(community.members, key=lambda e: (-degree(e), e))[:REPORT_KEYS]
            keys = [relation_keys[r] for r in _ids(source.get("relationship_ids")) if r in relation_keys]
            key_relations = sorted(set(keys), key=lambda k: (-len(graph.edge_index[k].chunk_ids), k))[:REPORT_KEYS]
            chunks = sorted({unit_chunk[u] for u in _ids(source.get("text_unit_ids")) if u in unit_chunk}, key=natural_key)
            rating = row.get("rank")
            out.append(
                CommunityReport(
                    cid, int(row["level"]), _str(row.get("title")), _str(row.get("summary")),
                    tuple(key_entities), tuple(key_relations), tuple(chunks),
                    tuple(graph.entities[e].name for e in key_entities),
                    _str(row.get("full_content")),
                    tuple((_str(f.get("summary")), _str(f.get("explanation"))) for f in (row.get("findings") or ())),
                    None if rating is None else float(rating),
                    _str(row.get("rating_explanation") or row.get("rank_explanation")),
                )
            )
        return out

    # -- builder ids -----------------------------------------------------------------------
    def aliases(
        self, documents: Sequence[PreparedVersion], unit_chunk: Mapping[str, str], by_gid: Mapping[str, str],
        relation_keys: Mapping[str, tuple[str, str, str]], numbers: Mapping[int, str],
    ) -> Aliases:
        """Every GraphRAG ``id`` and ``human_readable_id`` -> ours (see :mod:`agrag_lab.importing.aliases`)."""
        doc_of = {_str(d.document.metadata.get("graphrag_id")): d.document.id for d in documents}
        doc_of.update(_document_ids(self.t.table("documents")))

        def pairs(table: str, kind: str, ours: Any) -> list[tuple[str, tuple[str, str]]]:
            out = []
            for row in self.t.table(table):
                target = ours(row)
                if target is None:
                    continue
                out.append((_str(row.get("id")), (kind, target)))
                if kind == "source":
                    continue  # numbered by row (below)
                if row.get("human_readable_id") is not None:
                    out.append((alias_key(kind, row["human_readable_id"]), (kind, target)))
                elif kind in ("community", "report") and row.get("community") is not None:
                    out.append((alias_key(kind, row["community"]), (kind, target)))
            return out

        def community(row: Mapping[str, Any]) -> str | None:
            number = row.get("community")
            return None if number is None else numbers.get(int(number))

        return merged(
            pairs("documents", "document", lambda r: doc_of.get(_str(r.get("id")))),
            pairs("text_units", "source", lambda r: unit_chunk.get(_str(r.get("id")))),
            [(alias_key("source", n), ("source", unit_chunk[uid])) for n, uid in self.t.unit_rows
             if uid in unit_chunk],  # the number GraphRAG's answers cite (GraphRAGTables.unit_rows)
            pairs("entities", "entity", lambda r: by_gid.get(_str(r.get("id")))),
            pairs("relationships", "relationship",
                  lambda r: "|".join(relation_keys[_str(r.get("id"))]) if _str(r.get("id")) in relation_keys else None),
            pairs("communities", "community", community),
            pairs("community_reports", "report", community),
            pairs("covariates", "claim", lambda r: unit_chunk.get(_str(r.get("text_unit_id")))),
        )

    # -- everything ------------------------------------------------------------------------
    def run(self) -> ImportedIndex:
        self.unit_ids = {_str(u["id"]) for u in self.t.table("text_units")}
        self.claims = 0
        documents, unit_chunk = self.documents()
        chunk_docs = {c.id: d.document.id for d in documents for c in d.chunks}
        entities, by_gid, by_title = self.entities(unit_chunk, chunk_docs)
        kept = {e.id for e in entities}
        edges, relation_keys = self.relations(unit_chunk, by_title, kept)
        mentions: dict[str, set[str]] = {c: set() for c in chunk_docs}
        for e in entities:
            for c in e.chunk_ids:
                mentions[c].add(e.id)
        labels = sorted({e.label for e in entities} | {DEFAULT_LABEL})
        schema = GraphSchema(tuple(labels), (RELATION_TYPE,), DEFAULT_LABEL, RELATION_TYPE, ())
        graph = KnowledgeGraph.create(entities, edges, (), (), mentions, chunk_docs, chunk_docs, schema)
        communities, numbers = self.communities(by_gid, kept)
        reports = self.reports(numbers, communities, graph, relation_keys, unit_chunk)
        rows = {name: len(self.t.table(name)) for name in self.t.rows}
        aliases = self.aliases(documents, unit_chunk, by_gid, relation_keys, numbers)
        stored = self.stored({**by_title, **by_gid}, unit_chunk, relation_keys, numbers)
        unread = self.vectors.unread if self.vectors is not None else ""
        if unread:
            self.notes.append(unread)
        return ImportedIndex(
            str(self.t.folder), self.t.format.name, tuple(documents), NetworkXGraphStore(graph, communities, reports),
            rows, tuple(self.skipped), tuple(self.notes), self.claims, self.placement, aliases, stored, unread,
        )

    def stored(
        self, entity_of: Mapping[str, str], unit_chunk: Mapping[str, str],
        relation_keys: Mapping[str, tuple[str, str, str]], numbers: Mapping[int, str],
    ) -> StoredVectors | None:
        """GraphRAG's stored vectors by our ids (entities by GraphRAG id, else by title; text units
        by id; reports by id); a vector naming no imported row is left out (None: it stored none)."""
        vectors = self.vectors
        if vectors is None or not vectors.by_id:
            return None
        report_of = {
            _str(r.get("id")): numbers[int(r["community"])] for r in self.t.table("community_reports")
            if r.get("community") is not None and int(r["community"]) in numbers
        }
        embedded = vectors.of("entity_description")
        entities = {entity_of[k]: v for k, v in embedded.items() if k in entity_of}
        chunks = {unit_chunk[k]: v for k, v in vectors.of("text_unit_text").items() if k in unit_chunk}
        reports = {report_of[k]: v for k, v in vectors.of("community_full_content").items() if k in report_of}
        relations = {frozenset(relation_keys[k][:2]): v for k, v in vectors.of("relationship_description").items()
                     if k in relation_keys}
        kinds = {kind for kind, name in (("entities", "entity_description"), ("chunks", "text_unit_text"),
                                         ("reports", "community_full_content"),
                                         ("relations", "relationship_description")) if vectors.of(name)}
        named = len(entities) + len(chunks) + len(reports) + len(relations)
        total = sum(len(v) for v in vectors.by_id.values())
        if total > named:
            self.notes.append(
                f"{total - named} of GraphRAG's {total} stored vectors name no row of the imported tables "
                f"({vectors.source}); they belong to rows the tables no longer hold and are not used"
            )
        return StoredVectors(vectors.dimension, vectors.source, entities, relations, chunks, reports, frozenset(kinds))


def import_tables(tables: GraphRAGTables, vectors: GraphRAGVectors | None = None) -> ImportedIndex:
    """Map read tables (and the vectors GraphRAG stored beside them) to an :class:`ImportedIndex`
    (see the module docstring).

    Raises
    ------
    ImportSourceError
        A row names a document, text unit, entity or community that its table
        does not hold (file and column named).
    """
    return _Mapper(tables, vectors).run()


def read_graphrag(folder: str | Path, *, limits: ImportLimits | None = None) -> ImportedIndex:
    """Read and map a GraphRAG output folder (either layout); nothing is written.

    Every table is held to ``limits`` and every row checked
    (:func:`~agrag_lab.importing.tables.read_tables`); the vectors GraphRAG stored are read
    (:func:`~agrag_lab.importing.graphrag_vectors.read_vectors`), and 0.x's in its tables' columns
    (:func:`~agrag_lab.importing.graphrag_vectors.column_vectors`).

    Examples
    --------
    >>> imported = read_graphrag("datasets/msgraphrag_christmas_carol/v1")   # doctest: +SKIP
    >>> imported.format, len(imported.store.graph.entities)                   # doctest: +SKIP
    ('graphrag-1', 301)
    """
    tables = read_tables(folder, limits)
    in_columns = column_vectors(tables.rows, {t: tables.format.file_of(t) for t in tables.rows})
    return import_tables(tables, with_columns(read_vectors(tables.folder, limits), in_columns))
