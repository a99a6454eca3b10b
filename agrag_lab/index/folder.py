"""The shape of an index folder: which parts it must hold, checked cheaply at every open.

``documents.sqlite`` is the source of truth; ``chroma/``, ``keyword/<name>/``
and the graph file (``graph.json.gz``) are derived from it (see :mod:`agrag_lab.index.build`).
:func:`check_source` refuses a folder whose source is missing, empty or not a
SQLite file while derived stores hold records: opening it as a new index
would silently wipe them at the next sync. :func:`derived_problems` says
which derived store is missing or disagrees with the others, so a writable
open rebuilds it and a read-only one reports it (never a ``KeyError`` or an
empty answer that looks normal).

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> check_source(folder, read_only=False)   # a new folder: nothing to protect
>>> (folder / "keyword" / "chunks").mkdir(parents=True)
>>> _ = (folder / "keyword" / "chunks" / "ids.json").write_text('["ada@3f9a1c2b0d4e#c0"]')
>>> check_source(folder, read_only=False)
Traceback (most recent call last):
...
agrag_lab.errors.IndexFormatError: ...: documents.sqlite is missing, but the folder holds derived stores with records (keyword/chunks); ...
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from agrag_lab.errors import IndexFormatError, VectorStoreError
from agrag_lab.index.hints import name_folder, repair_hint, server_hint
from agrag_lab.storage.documents_db import DocumentDB, source_state
from agrag_lab.storage.vectors import COLLECTIONS

__all__ = ["DB_FILE", "check_source", "check_vectors_home", "derived_parts", "derived_problems", "keyword_counts", "name_folder", "repair_hint"]

DB_FILE = "documents.sqlite"


def _chroma_records(folder: Path) -> int:
    """How many records Chroma's own SQLite file holds (0 when it cannot tell)."""
    path = folder / "chroma" / "chroma.sqlite3"
    if not path.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return 1  # a garbled file is no proof that nothing is there


def keyword_counts(folder: Path) -> dict[str, int | None]:
    """Records in each collection's keyword index (``None``: its folder is missing or unreadable)."""
    out: dict[str, int | None] = {}
    for name in COLLECTIONS:
        try:
            ids = json.loads((folder / "keyword" / name / "ids.json").read_text(encoding="utf-8"))
            out[name] = len(ids) if isinstance(ids, list) else None
        except (OSError, ValueError):
            out[name] = None
    return out


def derived_parts(folder: Path) -> list[str]:
    """The derived stores in ``folder`` that hold records (what a fresh ``documents.sqlite`` would wipe)."""
    from agrag_lab.graph_stores import persistence
    from agrag_lab.index.build import graph_file  # the index build code: not for check_source's common case

    parts = [f"keyword/{n}" for n, count in keyword_counts(folder).items() if count]
    graph = graph_file(folder)
    if graph.exists() and persistence.stored_size(graph) > 2048:  # an empty graph is ~1 KB of JSON
        parts.append(graph.name)
    if _chroma_records(folder):
        parts.append("chroma")
    return parts


def check_source(folder: Path, *, read_only: bool) -> None:
    """Refuse a ``documents.sqlite`` that cannot be the source of this folder's derived stores.

    Raises
    ------
    IndexFormatError
        ``folder`` is a file; the file is not SQLite (damaged); or it is missing or empty while
        derived stores hold records; or (``read_only``: an index must be there) there is no index yet.
    """
    if folder.exists() and not folder.is_dir():
        raise IndexFormatError(f"{folder} is a file, not an index folder; choose another path")
    db = folder / DB_FILE
    state = source_state(db)
    if state == "damaged":
        raise IndexFormatError(
            f"{db} is not a readable SQLite database. It is the index's source of truth (documents, "
            f"versions, chunks): restore it from a backup and run {repair_hint(folder)}, or ingest the "
            "documents again into a new index folder"
        )
    if state in ("missing", "empty", "blank"):
        parts = derived_parts(folder)
        if parts:
            what = {"missing": "is missing", "empty": "is empty", "blank": "holds no documents"}[state]
            raise IndexFormatError(
                f"{folder}: {DB_FILE} {what}, but the folder holds derived stores with records "
                f"({', '.join(parts)}); opening it as a new index would wipe them. Restore {DB_FILE} from a "
                f"backup and run {repair_hint(folder)}, or use a new folder for a new index"
            )
        if read_only and state != "blank":
            raise IndexFormatError(
                f"{folder} holds no index yet ({DB_FILE} {state}): check the path, or ingest documents first "
                f"(`agrag-lab ingest FILES --index {folder}`)"
            )


def check_vectors_home(folder: Path, db: DocumentDB) -> None:
    """Refuse to open, without its server, an index whose vectors live only in a Chroma server.

    A sync with a server store records it (``meta.vector_server``). When the
    folder's own ``chroma/`` holds no records, opening it without that server
    would find every collection missing and send the user to rebuild them.

    Raises
    ------
    VectorStoreError
        The vectors are in a server: the message names it, the ``--chroma``
        option and the ``chroma run`` command that starts it.
    """
    from agrag_lab.index.build import recorded_server

    server = recorded_server(db)
    if server is not None and not _chroma_records(folder):
        raise VectorStoreError(server_hint(folder, server))


def derived_problems(
    folder: Path, expected_chunks: int, collection_counts: Mapping[str, int | None], *, built: bool,
    hosted: Mapping[str, int] | None = None,
) -> list[str]:
    """What is missing or inconsistent among the derived stores (an empty list: nothing).

    Parameters
    ----------
    folder : Path
        The index folder.
    expected_chunks : int
        Current chunks in ``documents.sqlite``.
    collection_counts : mapping
        Records in each vector collection (``None``: the collection does not exist).
    built : bool
        Whether a sync ever completed (before that nothing derived exists yet).
    hosted : mapping, optional
        Records of each graph collection that chunks host (not held by the
        collection itself: :mod:`agrag_lab.index.vectors`).
    """
    if not built:
        return []
    from agrag_lab.graph_stores import persistence
    from agrag_lab.index.build import graph_file

    problems = []
    graph = graph_file(folder)
    if not graph.exists():
        problems.append(f"{graph.name} is missing")
    elif not persistence.is_complete(graph):
        problems.append(f"{graph.name} is truncated")
    keywords = keyword_counts(folder)
    for name in COLLECTIONS:
        if keywords[name] is None:
            problems.append(f"keyword/{name} is missing")
    if keywords["chunks"] is not None and keywords["chunks"] != expected_chunks:
        problems.append(f"keyword/chunks holds {keywords['chunks']} records, {DB_FILE} {expected_chunks} chunks")
    for name in COLLECTIONS:
        have, want = collection_counts.get(name), (expected_chunks if name == "chunks" else keywords[name])
        if want is not None and name != "chunks":
            want -= (hosted or {}).get(name, 0)
        if have is None:
            problems.append(f"the vector collection {name!r} is missing")
        elif want is not None and have != want:
            problems.append(f"the vector collection {name!r} holds {have} records, the index {want}")
    return problems
