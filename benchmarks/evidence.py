"""Benchmark of the evidence functions: discover per mode, and fetching 100 ids.

:func:`bench` returns plain numbers (milliseconds) and ratios against
baselines measured in the same run, because shared machines are noisy:

* ``discover.<mode>.p50_ms`` / ``p95_ms`` for keyword, vector and hybrid over
  the same queries (one warm-up call per mode is not counted);
* ``discover.embed_query.p50_ms``: embedding a query alone, the floor of
  the vector leg, and ``ratios.vector_over_embed``;
* ``ratios.hybrid_over_keyword`` and ``ratios.hybrid_over_vector``;
* ``discover.scoped_keyword.p50_ms``: keyword search with a scope of half the
  documents (the bm25s mask and the Chroma filter are in the query), and
  ``ratios.scoped_over_unscoped_keyword``;
* ``fetch.batch100.p50_ms``: one ``fetch`` of 100 chunk ids, against
  ``fetch.raw100.p50_ms``, the same 100 chunks read straight from SQLite
  (``ratios.fetch_over_raw``); ``fetch.session_open.p50_ms`` is the one-off
  cost of opening a session (resolving its scope).

Examples
--------
>>> percentiles([0.001, 0.002, 0.003])
(2.0, 2.9)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from agrag_lab.evidence.results import Mode
from agrag_lab.evidence.scope import Scope
from agrag_lab.evidence.session import EvidenceSession, EvidenceSource
from benchmarks.timing import timed

__all__ = ["bench", "default_queries", "percentiles"]

_MODES: tuple[Mode, ...] = ("keyword", "vector", "hybrid")


def percentiles(seconds: Sequence[float]) -> tuple[float, float]:
    """p50 and p95 of ``seconds``, in milliseconds (rounded to 0.001 ms)."""
    arr = np.asarray(seconds, dtype=float) * 1000.0
    return round(float(np.percentile(arr, 50)), 3), round(float(np.percentile(arr, 95)), 3)


def _per_query(fn: Callable[[str], Any], queries: Sequence[str]) -> list[float]:
    out = []
    for query in queries:
        start = time.perf_counter()
        fn(query)
        out.append(time.perf_counter() - start)
    return out


def default_queries(graph: EvidenceSource, count: int = 30) -> list[str]:
    """Deterministic queries: titles of documents spread over the index."""
    records = graph.db.documents()
    if not records:
        return []
    step = max(1, len(records) // count)
    return [r.title for r in records[::step][:count] if r.title.strip()]


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b > 0 else None


def bench(graph: EvidenceSource, queries: Sequence[str] | None = None, limit: int = 10) -> dict[str, Any]:
    """Measure discover (per mode) and fetch of 100 ids on ``graph``.

    Parameters
    ----------
    graph : Graph
        An index with documents (e.g. the MuSiQue index).
    queries : sequence of str, optional
        Default: :func:`default_queries` (30 document titles).
    limit : int
        Hits per discover call.

    Returns
    -------
    dict
        ``{"discover": {...}, "fetch": {...}, "ratios": {...}, "queries": n, "documents": n}``.
    """
    asked = list(queries) if queries is not None else default_queries(graph)
    session = EvidenceSession(graph)
    discover: dict[str, dict[str, float]] = {}
    if asked:
        for mode in _MODES:
            session.discover(asked[0], mode, limit)  # warm-up: model, collections, caches
            samples = _per_query(partial(session.discover, mode=mode, limit=limit), asked)
            p50, p95 = percentiles(samples)
            discover[mode] = {"p50_ms": p50, "p95_ms": p95}
        embed = _per_query(graph.embedder.embed_query, asked)
        discover["embed_query"] = dict(zip(("p50_ms", "p95_ms"), percentiles(embed), strict=True))
        docs = sorted(r.id for r in graph.db.documents())
        scoped = EvidenceSession(graph, Scope(document_ids=frozenset(docs[::2])))
        scoped.discover(asked[0], "keyword", limit)
        samples = _per_query(partial(scoped.discover, mode="keyword", limit=limit), asked)
        discover["scoped_keyword"] = dict(zip(("p50_ms", "p95_ms"), percentiles(samples), strict=True))

    chunks = [c for c, _ in graph.db.current_chunks()]
    picked = chunks[:: max(1, len(chunks) // 100)][:100]
    ids = [c.id for c in picked]
    fetch: dict[str, Any] = {"ids": len(ids)}
    if ids:
        fetch_session = EvidenceSession(graph)
        fetch_session.fetch(ids)  # warm-up
        batch = timed(lambda: fetch_session.fetch(ids), 5)
        opened = timed(lambda: EvidenceSession(graph), 5)
        fetch["session_open"] = dict(zip(("p50_ms", "p95_ms"), percentiles(opened), strict=True))
        raw = timed(lambda: [graph.db.chunk(c.document_id, c.version, c.index) for c in picked], 5)
        fetch["batch100"] = dict(zip(("p50_ms", "p95_ms"), percentiles(batch), strict=True))
        fetch["raw100"] = dict(zip(("p50_ms", "p95_ms"), percentiles(raw), strict=True))
        fetch["per_id_us"] = round(fetch["batch100"]["p50_ms"] * 1000.0 / len(ids), 1)

    ratios: dict[str, float | None] = {}
    if discover:
        ratios["hybrid_over_keyword"] = _ratio(discover["hybrid"]["p50_ms"], discover["keyword"]["p50_ms"])
        ratios["hybrid_over_vector"] = _ratio(discover["hybrid"]["p50_ms"], discover["vector"]["p50_ms"])
        ratios["vector_over_embed"] = _ratio(discover["vector"]["p50_ms"], discover["embed_query"]["p50_ms"])
        ratios["scoped_over_unscoped_keyword"] = _ratio(
            discover["scoped_keyword"]["p50_ms"], discover["keyword"]["p50_ms"]
        )
    if "batch100" in fetch:
        ratios["fetch_over_raw"] = _ratio(fetch["batch100"]["p50_ms"], fetch["raw100"]["p50_ms"])
    return {
        "documents": len(graph.db.documents()),
        "queries": len(asked),
        "limit": limit,
        "discover": discover,
        "fetch": fetch,
        "ratios": ratios,
    }
