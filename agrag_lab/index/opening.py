"""What opening an index folder decides before anyone reads it.

``Graph.open`` asks this module four things, in order: which embedder the
index is read with (:func:`choose_embedder`), which local vector store it
reads (:func:`local_vector_store`: read-only and small, the embeddings cached
in ``documents.sqlite``, see :func:`cached_search_fits`; else its Chroma
folder, checked first, rebuilt when damaged and writable), which graph
builders it is built with (:func:`choose_builders`),
and whether its derived stores are complete (:func:`complete_stores`: rebuilt
or reported). ``Graph`` itself only holds the answers.

Examples
--------
>>> from agrag_lab.index.opening import EXTRACTORS
>>> EXTRACTORS
('rules', 'llm', 'linear')
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from agrag_lab.embedding import Embedder, EndpointEmbedder, embedder_for
from agrag_lab.errors import ArgumentError, EmbedderError, IndexFormatError, VectorStoreError
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.index.build import (
    GRAPH_FILE,
    LEGACY_GRAPH_FILE,
    IndexBuild,
    mid_sync,
    outdated_layout,
    wrote_derived_stores,
)
from agrag_lab.index.embedding_cache import recorded_model
from agrag_lab.index.folder import DB_FILE, derived_problems, name_folder, repair_hint
from agrag_lab.index.vectors import CACHED_SEARCH_LIMIT, CachedVectorStore, IndexVectorStore
from agrag_lab.storage.chroma_check import check_chroma_folder
from agrag_lab.storage.documents_db import DocumentDB
from agrag_lab.storage.meta_keys import DERIVED_GENERATION, EXTRACTORS, GRAPH_EXTRACTOR
from agrag_lab.storage.vectors import COLLECTIONS, ChromaVectorStore

if TYPE_CHECKING:
    from agrag_lab.kg.extract.extraction import Extractor

__all__ = ["EXTRACTORS", "cached_search_fits", "choose_builders", "choose_embedder", "complete_stores", "local_vector_store"]

log = logging.getLogger(__name__)



def choose_embedder(folder: Path, db: DocumentDB, embedder: Embedder | None) -> Embedder:
    """``embedder``, else the model the index was built with (recorded in ``db``), else the default.

    Raises
    ------
    EmbedderError
        No ``embedder`` is given and the recorded model is not one agrag-lab can load by name.
    """
    recorded = recorded_model(db)
    if embedder is None and recorded is not None and recorded.url:  # the builder's model, through its endpoint
        return EndpointEmbedder(recorded.name, recorded.url, dimension=recorded.dimension)
    chosen = embedder if embedder is not None else embedder_for(recorded.name if recorded else None)
    if embedder is None and recorded is not None and chosen.name != recorded.name:
        raise EmbedderError(
            f"the index {folder} was built with the embedding model {recorded.name!r}, which agrag-lab "
            "cannot load by its name alone: open it with that model, e.g. Graph.open(path, embedder="
            f"SentenceTransformerEmbedder('<path of {recorded.name}>')), or StaticEmbedder('<folder>') "
            "for static embeddings. (Another model would embed every record again.)")
    return chosen


def cached_search_fits(db: DocumentDB, model: str) -> bool:
    """Whether a read-only open searches the cached embeddings (:class:`CachedVectorStore`), not Chroma.

    It does when the cache holds what the collections hold: the index is in the
    current layout, not mid-sync, its recorded model is ``model`` (the one it
    is opened with), and it has at most :data:`CACHED_SEARCH_LIMIT` current chunks.
    """
    recorded = recorded_model(db)
    return (recorded is not None and recorded.name == model and not outdated_layout(db) and not mid_sync(db)
            and db.current_chunk_count() <= CACHED_SEARCH_LIMIT)


def local_vector_store(
    folder: Path, read_only: bool, rebuild: bool, db: DocumentDB | None = None, model: str | None = None
) -> ChromaVectorStore | CachedVectorStore:
    """The folder's own vector store: its cached embeddings read-only, else its Chroma folder, checked first.

    A read-only open with the index's own model (``model``, the embedder's
    name) searches the embeddings cached in ``documents.sqlite`` when
    :func:`cached_search_fits` (``db`` tells): Chroma is neither opened nor
    imported (:class:`~agrag_lab.index.vectors.CachedVectorStore`). Otherwise the Chroma folder's files are checked first (see
    :mod:`agrag_lab.storage.chroma_check`); damaged files: read-only, a
    :class:`VectorStoreError`; writable, the folder is deleted and rebuilt from
    ``documents.sqlite`` (it is derived data).
    """
    if read_only and db is not None and model is not None and cached_search_fits(db, model):
        return CachedVectorStore(folder)
    chroma = folder / "chroma"
    problem = check_chroma_folder(chroma)
    if problem is not None:
        message = f"the Chroma files in {chroma} are damaged: {problem}"
        if read_only:
            raise VectorStoreError(
                f"{message}. They are derived from {DB_FILE}: rebuild them with {repair_hint(folder)} "
                "(a writable open rebuilds them too)"
            )
        log.warning("%s; rebuilding them from %s", message, DB_FILE)
    if problem is not None or rebuild:
        ChromaVectorStore.discard_local(str(chroma))
    try:
        return ChromaVectorStore.local(str(chroma))
    except VectorStoreError as exc:
        if read_only:
            raise VectorStoreError(name_folder(str(exc), folder)) from exc
        log.warning("%s; rebuilding it now", name_folder(str(exc), folder))
        ChromaVectorStore.discard_local(str(chroma))
        return ChromaVectorStore.local(str(chroma))


def choose_builders(build: IndexBuild, extractor: Extractor | str | None, *, writable: bool) -> None:
    """Set ``build``'s graph builders from ``extractor`` or the choice stored in the index.

    A choice by name (:data:`EXTRACTORS`) is recorded in a writable index, so
    later opens build the same way.

    Raises
    ------
    ArgumentError
        ``extractor`` is a string other than ``"rules"``, ``"llm"`` or ``"linear"``.
    """
    db = build.db
    stored = db.get_meta(GRAPH_EXTRACTOR)
    choice = extractor if extractor is not None else stored
    if isinstance(choice, str) and choice not in EXTRACTORS:
        raise ArgumentError(f"extractor {choice!r} is unknown: use 'rules', 'llm', 'linear' or an Extractor object")
    if choice == "llm":
        from agrag_lab.kg.extract.llm_graph import llm_builders

        build.extractor, build.reporter = llm_builders(build.path / "llm-cache")
    elif choice == "linear":  # LinearRAG's tri-graph (agrag_lab.kg.extract.tri_graph)
        from agrag_lab.kg.extract.spacy_ner import SpacyExtractor

        build.extractor = SpacyExtractor()
    elif choice is None:
        return
    elif not isinstance(choice, str):  # an Extractor instance ("rules": the default one)
        build.extractor = choice
    name = choice if isinstance(choice, str) else None
    if name is not None and name != stored and writable:
        with db.transaction() as conn:
            db.set_meta(GRAPH_EXTRACTOR, name, conn)


def complete_stores(
    build: IndexBuild, vectors: IndexVectorStore, *, read_only: bool, rebuild: bool
) -> tuple[NetworkXGraphStore | None, bool]:
    """Check the derived stores at open: rebuild what is missing (writable) or report it (read-only).

    ``vectors`` is the vector store as the index reads it (its ``drop`` empties
    a collection). Returns the graph store it loaded or wrote (``None``: not
    read yet) and whether every derived store was rebuilt (``rebuild``): then
    the caller prunes the cached vectors nothing reads
    (:meth:`IndexBuild.prune_embeddings`).

    Raises
    ------
    ArgumentError
        ``rebuild`` with another embedder than the index was built with.
    IndexFormatError
        Read-only, and a derived store is missing or damaged.
    """
    path = build.path
    if rebuild:
        switched = build.model_switch()
        if switched:  # a repair would re-embed everything with this model and delete the index's own vectors
            raise ArgumentError(
                f"{path}: {switched}. A repair rebuilds from the cached vectors of the index's own model: "
                f"open it with that embedder (Graph.open({str(path)!r}, embedder=..., rebuild=True)); to move "
                "the index to this model instead, open it writable without rebuild (every record is embedded again)"
            )
        log.info("index %s: rebuilding every derived store from %s", path, DB_FILE)
        for name in COLLECTIONS:
            vectors.drop(name)
        shutil.rmtree(path / "keyword", ignore_errors=True)
        (path / GRAPH_FILE).unlink(missing_ok=True)
        (path / LEGACY_GRAPH_FILE).unlink(missing_ok=True)
        with build.db.transaction() as conn:
            conn.execute("DELETE FROM meta WHERE key=?", (DERIVED_GENERATION,))
        return build.sync(), True  # embeds only what the cache lacks or holds broken
    if not read_only:
        try:
            build.convert_graph_file()  # an older index's plain graph.json: compressed, nothing else changes
        except IndexFormatError as exc:
            log.warning("index %s: %s; rebuilding it", path, exc)
        if build.outdated_layout() and not build.mid_sync():  # written by an older version: no model time
            return build.convert(), False
    cached = build.vector_store if isinstance(build.vector_store, CachedVectorStore) else None
    counts = None
    if cached is not None:  # bound by Graph.open to its build and graph
        try:
            counts = build.counts()  # made from the cache: what the read-only open searches
        except IndexFormatError as exc:  # the cache lacks vectors Chroma holds: the reader reads Chroma
            log.warning("index %s: %s; reading its vectors from its Chroma folder meanwhile", path, exc)
            build.vector_store = vectors.backend = local_vector_store(path, read_only, rebuild)
            cached = None
    built = wrote_derived_stores(build.db)  # a sync wrote them once
    problems = derived_problems(
        path, build.db.current_chunk_count(), build.counts() if counts is None else counts, built=built,
        hosted=build.hosted_counts()
    )
    if read_only:
        if build.mid_sync():
            build.open_problems = tuple(problems)  # a writer may be half-way: told on every run's trace
        elif problems:
            raise IndexFormatError(
                f"{path} is damaged: {'; '.join(problems)}. These stores are derived from {DB_FILE}: "
                f"rebuild them with {build.repair_hint()} (a writable open rebuilds them too)"
            )
        return None, False
    if problems:
        log.warning("index %s: %s; rebuilding the derived stores from %s", path, "; ".join(problems), DB_FILE)
    if problems or build.mid_sync() or build.model_switch():  # a switch: every vector made again
        log.info("index %s: derived stores lag behind; completing them", path)
        return build.sync(), False
    return None, False
