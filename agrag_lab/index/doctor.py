"""``agrag-lab doctor``: check every part of an index folder, say what is wrong and how to repair it.

Read-only and safe on a damaged folder: Chroma's files are checked in a child
process before this one opens them (:mod:`agrag_lab.storage.chroma_check`),
and nothing is written. Each part gives a :class:`Finding`; the fix of a
damaged derived store is always ``agrag-lab repair --index DIR``, which
rebuilds them all from ``documents.sqlite`` (with ``--chroma HOST:PORT`` when
the index keeps its vectors in a Chroma server: then pass the same option to
the doctor, which checks the server's collections).

Examples
--------
>>> import tempfile
>>> report = examine(tempfile.mkdtemp())
>>> report.ok, report.findings[0].part
(False, 'documents.sqlite')
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from agrag_lab.errors import AgragError
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.index.build import derived_generation, graph_file, mid_sync, recorded_server, wrote_derived_stores
from agrag_lab.index.embedding_cache import CacheAudit, audit_cache
from agrag_lab.index.folder import (
    DB_FILE,
    check_source,
    check_vectors_home,
    derived_problems,
    keyword_counts,
    name_folder,
    repair_hint,
)
from agrag_lab.index.hints import chroma_option
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.extract.extraction import DocumentContext, given_facts
from agrag_lab.storage.chroma_check import check_chroma_folder
from agrag_lab.storage.documents_db import DocumentDB, source_state
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.meta_keys import IMPORT_EMBEDDING
from agrag_lab.storage.vectors import COLLECTIONS, ChromaVectorStore, VectorStore, collection_counts

__all__ = ["DoctorReport", "Finding", "examine"]


@dataclass(frozen=True)
class Finding:
    """One part of the folder: what it holds, or what is wrong with it and the fix (``problem`` empty: sound)."""

    part: str
    detail: str
    problem: str = ""
    fix: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem

    def __str__(self) -> str:
        if self.ok:
            return f"ok    {self.part}: {self.detail}"
        return f"FAIL  {self.part}: {self.problem}\n      fix: {self.fix}"


@dataclass(frozen=True)
class DoctorReport:
    """Every finding of :func:`examine`, in the order checked."""

    path: Path
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.findings)

    def __str__(self) -> str:
        verdict = "sound" if self.ok else f"{sum(not f.ok for f in self.findings)} problem(s)"
        return "\n".join([f"index {self.path}: {verdict}", *(str(f) for f in self.findings)])


def _source(folder: Path) -> Finding:
    db = folder / DB_FILE
    state = source_state(db)
    try:
        check_source(folder, read_only=True)
    except AgragError as exc:
        if folder.exists() and not folder.is_dir():
            return Finding("index folder", "", str(exc), "pass the index folder (the one holding documents.sqlite)")
        fix = (
            "ingest documents into it first" if state in ("missing", "empty") and "no index yet" in str(exc)
            else f"restore {DB_FILE} from a backup, then {repair_hint(folder)}; or use a new folder"
        )
        return Finding(DB_FILE, "", str(exc), fix)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        verdict = str(exc)
    finally:
        conn.close()
    if verdict != "ok":
        return Finding(DB_FILE, "", f"SQLite's quick_check says: {verdict}", f"restore {DB_FILE} from a backup")
    return Finding(DB_FILE, f"readable ({state})")


def examine(path: str | Path, *, vector_store: VectorStore | None = None) -> DoctorReport:
    """Check every part of the index folder at ``path`` (nothing is written).

    Checks ``documents.sqlite`` (readable, SQLite's ``quick_check``), the
    generations (mid-sync or not), the Chroma files (in a child process),
    each collection's and keyword index's records against the documents,
    the graph file (``graph.json.gz``), the given graph facts of every document, and the
    embedding cache (:mod:`agrag_lab.index.embedding_cache`).

    ``vector_store``: the Chroma server the index keeps its vectors in
    (``ChromaVectorStore.http``); its collections are checked instead of the
    folder's own.
    """
    folder = Path(path)
    findings = [_source(folder)]
    if not findings[0].ok:
        return DoctorReport(folder, tuple(findings))
    db = DocumentDB(folder / DB_FILE, read_only=True)
    try:
        server = (vector_store.server if vector_store is not None else None) or recorded_server(db)
        fix = repair_hint(folder, server)
        derived, graph = _derived(folder, db, vector_store, fix)
        findings += derived
        findings += _cache(db, graph, fix)
        findings += _documents(folder, db, graph)
        searched = db.get_meta(IMPORT_EMBEDDING)
        if searched:  # an imported index: which model searches it, against its builder's, and what that means
            findings.append(Finding("embedding model", searched))
    finally:
        db.close()
    return DoctorReport(folder, tuple(findings))


def _vectors(folder: Path, db: DocumentDB, vector_store: VectorStore | None, fix: str) -> tuple[Finding, dict[str, int | None]]:
    """The finding on where the vectors are, and each collection's records ({}: they cannot be counted)."""
    if vector_store is not None:
        try:
            counts = collection_counts(vector_store)
        except AgragError as exc:  # a dead server: the message names it and how to start it
            return Finding("vectors", "", str(exc), f"start the server, then `agrag-lab doctor --index {folder}` "
                           f"with the same --chroma"), {}
        return Finding("vectors", f"{vector_store.describe()}: " + ", ".join(f"{n} {c}" for n, c in counts.items())), counts
    try:
        check_vectors_home(folder, db)
    except AgragError as exc:
        server = chroma_option(recorded_server(db))
        return Finding("vectors", "", str(exc), f"`agrag-lab doctor --index {folder}{server}` checks the "
                       f"server's collections; search, ingest, remove and repair take the same `{server[1:]}`"), {}
    chroma = folder / "chroma"
    if not chroma.exists():  # opening it would create it: the doctor writes nothing
        return Finding("chroma", "", f"the Chroma folder {chroma} is missing", fix), {n: None for n in COLLECTIONS}
    problem = check_chroma_folder(chroma, use_cache=False)
    if problem is not None:
        return Finding("chroma", "", f"the Chroma files are damaged: {problem}", fix), {}
    try:
        counts = collection_counts(ChromaVectorStore.local(str(chroma)))
    except AgragError as exc:
        return Finding("chroma", "", str(exc), fix), {}
    return Finding("chroma", ", ".join(f"{n} {c}" for n, c in counts.items())), counts


def _derived(
    folder: Path, db: DocumentDB, vector_store: VectorStore | None, fix: str
) -> tuple[list[Finding], NetworkXGraphStore | None]:
    """Findings on the generations, the vectors, the keyword indexes and the graph file; and the graph (None: unreadable)."""
    out = []
    generation, derived = db.generation(), derived_generation(db)
    if mid_sync(db):
        out.append(Finding(
            "generation", "", f"mid-sync: documents at generation {generation}, derived stores completed for "
            f"{derived}", f"wait for the running ingest; if none runs, {fix} (or open the index writable)",
        ))
    else:
        out.append(Finding("generation", f"{generation}, derived stores complete"))
    vectors, counts = _vectors(folder, db, vector_store, fix)
    out.append(vectors)
    built = wrote_derived_stores(db)  # a sync wrote them once
    hosted = {name: len(db.hosted(name)) for name in COLLECTIONS if name != "chunks"}
    problems = derived_problems(folder, db.current_chunk_count(), counts, built=built, hosted=hosted) if counts else []
    if counts and not problems:
        out.append(Finding("collections and keyword indexes", "agree with documents.sqlite"))
    out += [Finding("derived stores", "", p, fix) for p in problems]
    for name, count in keyword_counts(folder).items():
        if count is not None:
            try:
                KeywordIndex.load(folder / "keyword" / name)
            except Exception as exc:  # bm25s raises what its files make it raise
                out.append(Finding(f"keyword/{name}", "", f"cannot be loaded ({type(exc).__name__}: {exc})", fix))
    graph = graph_file(folder)
    store_graph = None
    if graph.exists():
        try:
            store_graph = NetworkXGraphStore.load(graph)
            out.append(Finding(graph.name, f"{len(store_graph.entities())} entities, {len(store_graph.reports())} reports"))
        except AgragError as exc:
            out.append(Finding(graph.name, "", name_folder(str(exc), folder), fix))
    elif generation == 0:  # nothing committed yet: the empty graph, whose file the first write saves
        from agrag_lab.graph_stores.build import build_store

        store_graph = build_store([])
    return out, store_graph


def _cache(db: DocumentDB, graph: NetworkXGraphStore | None, repair: str) -> list[Finding]:
    """Findings on the embedding cache (see :mod:`agrag_lab.index.embedding_cache`)."""
    found = audit_cache(db, graph)
    if found is None:
        return [Finding("embedding cache", "empty (nothing embedded yet)")] if not db.current_chunk_count() else [
            Finding("embedding cache", "", f"empty, while {DB_FILE} holds {db.current_chunk_count()} current chunks",
                    f"{repair} embeds them")
        ]
    return cache_findings(found, repair)


def cache_findings(found: CacheAudit, repair: str) -> list[Finding]:
    """What doctor says of an audit of the embedding cache: each problem with what ``repair`` (the command) does."""
    part = "embedding cache"
    width = f"{found.dimension}-value" if found.dimension is not None else "its"
    out = []
    if found.broken:
        examples = "; ".join(f"{h[:12]}: {why}" for h, why in found.broken[:3])
        needed = len(found.needed_broken)
        out.append(Finding(
            part, "", f"{len(found.broken)} cached vectors of {found.model!r} are broken ({examples}): they cannot "
            f"be read as this model's {width} vectors, and a sync or native search that needs them fails",
            f"{repair} embeds again the {needed} of them the index reads (only those) and deletes the other "
            f"{len(found.broken) - needed}",
        ))
    if found.missing:
        out.append(Finding(
            part, "", f"{len(found.missing)} of the texts the index reads (current chunks, graph records) have no "
            f"cached vector of {found.model!r}: every sync or native search must run the model for them",
            f"{repair} embeds these {len(found.missing)} (only these; the rest come from the cache)",
        ))
    if found.other_models:
        models = ", ".join(f"{m!r}: {n}" for m, n in sorted(found.other_models.items()))
        first = min(found.other_models)
        out.append(Finding(
            part, "", f"{sum(found.other_models.values())} cached vectors are of other models than the index's "
            f"{found.model!r} ({models}); this index never reads them",
            f"{repair} deletes them (to search with {first!r} instead, open the index writable with that "
            "embedder: every record is embedded again)",
        ))
    if found.orphans:
        out.append(Finding(
            part, "", f"{len(found.orphans)} cached vectors belong to no stored chunk and no graph record (left by a "
            "killed ingest or an older graph); they only take space", f"{repair} deletes them",
        ))
    if not out:
        checked = "every current chunk and graph record" if found.graph_checked else (
            "every current chunk (graph records not checked: the graph file cannot be read)")
        out.append(Finding(part, f"{found.model!r}, {width} vectors: {found.vectors} cached, {checked} has one"))
    return out


def _documents(folder: Path, db: DocumentDB, graph: NetworkXGraphStore | None) -> list[Finding]:
    out = []
    records = db.documents()
    for record in records:
        try:
            given_facts(DocumentContext(record.id, record.title, record.metadata))
        except KnowledgeGraphError as exc:
            out.append(Finding(
                f"document {record.id}", "", f"its given graph facts cannot be read ({exc}); it is indexed without them",
                f"fix its metadata and ingest it again, or `agrag-lab remove {record.id} --index {folder}`",
            ))
    if not records and (graph is None or not graph.entities()):
        # an index is made by its first ingest or import: none stored means it never finished (stopped by
        # Ctrl-C, killed, or a failed model build), not a sound index of nothing
        out.append(Finding(
            "documents", "", "none: the folder holds an index with no document, as a first ingest or import that "
            "was stopped (Ctrl-C, killed, a model build that failed) leaves it",
            f"run the ingest or import again with --index {folder} (it starts afresh), or delete the folder",
        ))
        return out
    out.append(Finding("documents", f"{len(records)} current, {db.current_chunk_count()} chunks"))
    return out
