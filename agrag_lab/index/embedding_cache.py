"""The embedding cache of an index folder: which model it is for, and what in it is missing, broken or unused.

``documents.sqlite`` keeps every vector the index embedded, keyed by model
name and content hash (``embeddings`` table): a sync, a repair or a native
search reads them there instead of running the model. The model the derived
stores were last built with is recorded in ``meta.embedding_model``
(:func:`recorded_model`; older folders do not record it and it is inferred,
:func:`index_model`). :func:`audit` is the one check of the cache, used by
``agrag-lab doctor`` and by the repair that fixes what it finds
(:meth:`agrag_lab.index.build.IndexBuild.prune_embeddings`).

Examples
--------
>>> import numpy as np
>>> v = np.ones(2, dtype=np.float32).tobytes()
>>> found = audit([("a", v), ("b", v[:6]), ("z", v)], 2, wanted={"a", "b", "c"}, known={"a", "b", "c"})
>>> found.broken, found.missing, found.orphans
((('b', '6 bytes, not whole float32 values'),), ('c',), ('z',))
>>> found.to_embed
2
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.index.records import GRAPH_COLLECTIONS, graph_records
from agrag_lab.storage.documents_db import DocumentDB, vector_problem
from agrag_lab.storage.meta_keys import EMBEDDING_MODEL

__all__ = ["EMBEDDING_MODEL", "CacheAudit", "CacheModel", "audit", "audit_cache", "index_model", "recorded_model"]



@dataclass(frozen=True)
class CacheModel:
    """The model an index embeds with: its name (the cache key), its vectors' length (None: not known) and,
    for a model served by an embeddings endpoint, its URL (``""``: a local model; a key is never recorded)."""

    name: str
    dimension: int | None
    url: str = ""


def recorded_model(db: DocumentDB) -> CacheModel | None:
    """The model recorded by the last completed sync (None: never recorded, e.g. an older folder)."""
    raw = db.get_meta(EMBEDDING_MODEL)
    if raw is None:
        return None
    data = json.loads(raw)
    return CacheModel(str(data["model"]), None if data.get("dimension") is None else int(data["dimension"]),
                      str(data.get("url") or ""))


def model_meta(model: CacheModel) -> str:
    """The ``meta.embedding_model`` value of ``model``."""
    return json.dumps({"model": model.name, "dimension": model.dimension, **({"url": model.url} if model.url else {})})


def dimension_of(db: DocumentDB, model: str) -> int | None:
    """The length of ``model``'s vectors: the recorded one, else the most common among its cached vectors."""
    recorded = recorded_model(db)
    if recorded is not None and recorded.name == model and recorded.dimension is not None:
        return recorded.dimension
    widths = {w: n for w, n in db.embedding_widths(model).items() if w and w % 4 == 0}
    return max(widths, key=lambda w: (widths[w], w)) // 4 if widths else None


def index_model(db: DocumentDB) -> CacheModel | None:
    """The model this index embeds with: the recorded one, else the one with most cached vectors (None: none)."""
    recorded = recorded_model(db)
    if recorded is not None:
        return CacheModel(recorded.name, dimension_of(db, recorded.name), recorded.url)
    models = db.embedding_models()
    if not models:
        return None
    name = max(models, key=lambda m: (models[m], m))
    return CacheModel(name, dimension_of(db, name))


@dataclass(frozen=True)
class CacheAudit:
    """What :func:`audit` found in the cache of one model.

    ``broken``: ``(content hash, what is wrong)`` of vectors that cannot be
    read as this model's; ``missing``: hashes the index needs (current chunks,
    graph records embedded from their text) with no vector; ``orphans``:
    vectors of no stored chunk and no graph record; ``other_models``: vectors
    of other models, by model name (never read by this index).
    """

    model: str
    dimension: int | None
    vectors: int
    broken: tuple[tuple[str, str], ...] = ()
    missing: tuple[str, ...] = ()
    orphans: tuple[str, ...] = ()
    other_models: Mapping[str, int] = field(default_factory=dict)
    #: False when the graph could not be read: graph records are not counted and orphans not looked for.
    graph_checked: bool = True
    #: The hashes the index reads (see :func:`audit`).
    wanted: frozenset[str] = field(default=frozenset(), repr=False)

    @property
    def needed_broken(self) -> tuple[str, ...]:
        """Hashes of broken vectors that the index reads (a repair embeds them again)."""
        return tuple(h for h, _ in self.broken if h in self.wanted)

    @property
    def to_embed(self) -> int:
        """How many texts a repair embeds: the missing ones, and the needed ones whose vector is broken."""
        return len(self.missing) + len(self.needed_broken)

    @property
    def sound(self) -> bool:
        return not (self.broken or self.missing or self.orphans or self.other_models)


def audit(
    rows: Iterable[tuple[str, bytes]],
    dimension: int | None,
    *,
    wanted: set[str],
    known: set[str],
    model: str = "",
    other_models: Mapping[str, int] | None = None,
    graph_checked: bool = True,
) -> CacheAudit:
    """Check the cached vectors of one model (pure: over rows already read).

    Parameters
    ----------
    rows : iterable of (str, bytes)
        Every cached ``(content hash, vector bytes)`` of the model.
    dimension : int or None
        The model's vector length (None: only whole float32 values and finiteness are checked).
    wanted : set of str
        The hashes the index reads: current chunks and graph records embedded from their text.
    known : set of str
        Every hash a vector may belong to (``wanted`` plus superseded and removed chunks).
        Vectors of other hashes are orphans. An empty ``known`` with ``graph_checked=False`` looks for none.
    """
    seen: set[str] = set()
    broken: list[tuple[str, str]] = []
    orphans: list[str] = []
    count = 0
    for content_hash, blob in rows:
        count += 1
        problem = vector_problem(blob, dimension)
        if content_hash not in known and graph_checked:
            orphans.append(content_hash)
        elif problem:
            broken.append((content_hash, problem))
        else:
            seen.add(content_hash)
    broken_hashes = {h for h, _ in broken}
    missing = tuple(sorted(h for h in wanted if h not in seen and h not in broken_hashes))
    return CacheAudit(
        model, dimension, count, tuple(broken), missing, tuple(orphans), dict(other_models or {}), graph_checked,
        frozenset(wanted),
    )


def graph_hashes(store: NetworkXGraphStore, db: DocumentDB) -> set[str]:
    """Hashes of the graph records of ``store`` that are embedded from their text (not means of chunk vectors)."""
    chunk_hashes = {c.id: h for c, h in db.current_chunks()}
    titles = {r.id: r.title for r in db.documents(include_removed=True)}
    records = graph_records(store, chunk_hashes, titles)
    return {h for name in GRAPH_COLLECTIONS for h, _ in records[name].embedded()}


def audit_cache(db: DocumentDB, store: NetworkXGraphStore | None, model: CacheModel | None = None) -> CacheAudit | None:
    """Audit the cache of ``model`` (default: :func:`index_model`) against the index (None: nothing cached).

    ``store`` is the knowledge graph (None: it could not be read; its records are then not checked).
    """
    model = model or index_model(db)
    if model is None:
        return None
    chunks = {h for _, h in db.current_chunks()}
    graph = graph_hashes(store, db) if store is not None else set()
    wanted = chunks | graph
    known = wanted | db.stored_chunk_hashes()
    others = {m: n for m, n in db.embedding_models().items() if m != model.name}
    return audit(
        db.embedding_rows(model.name), model.dimension, wanted=wanted, known=known, model=model.name,
        other_models=others, graph_checked=store is not None,
    )
