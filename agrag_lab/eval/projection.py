"""Passage projection: every recipe is scored on the same unit, documents.

A recipe returns a mix of chunks, entities and community reports; a baseline
returns chunks. Qrels name documents (a MuSiQue passage is one document). To
compare them, each ranked result list is *projected* onto a ranked list of
document ids:

1. Walk the results in rank order.
2. A **chunk** stands for its own document.
3. An **entity** or a **community report** stands for its supporting
   passages, ``result.chunk_ids`` in the order the run ranked them for its
   query (:mod:`agrag_lab.retrieval.steps.passages`), inserted at the
   hit's position: they come after everything the earlier hits contributed
   and before anything the later hits contribute. ``per_hit`` caps how many
   of them count (default: all of them).
4. A document counts **once, at its best (first) position**; later
   occurrences are dropped.
5. The list is cut at ``depth`` documents; the document at position ``p``
   (1-based) gets the score ``1 / p``, so any tool that sorts by score
   (ranx does) sees exactly this order.

Nothing is re-scored: the projection reads the run's order and the
supporting passages the graph recorded, nothing else.

Examples
--------
>>> project([("chunk", ("d1@aaaaaaaaaaaa#c0",)), ("entity", ("d2@aaaaaaaaaaaa#c3", "d1@aaaaaaaaaaaa#c1", "d3@bbbbbbbbbbbb#c0"))])
('d1', 'd2', 'd3')
>>> project([("entity", ("d2@aaaaaaaaaaaa#c3", "d4@aaaaaaaaaaaa#c0")), ("chunk", ("d1@aaaaaaaaaaaa#c0",))], per_hit=1)
('d2', 'd1')
>>> as_scores(("d1", "d2"))
{'d1': 1.0, 'd2': 0.5}
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agrag_lab.retrieval.run import SearchResult, SearchRun

#: Documents kept per projected list: the largest cutoff the metrics read.
DEFAULT_DEPTH = 10


def chunk_document(chunk_id: str) -> str:
    """The document id of an evidence id (the part before ``@``).

    Examples
    --------
    >>> chunk_document("ada-lovelace@3f9a1c2b0d4e#c12")
    'ada-lovelace'
    """
    return chunk_id.split("@", 1)[0]


def project(
    hits: Iterable[tuple[str, Sequence[str]]],
    *,
    depth: int | None = DEFAULT_DEPTH,
    per_hit: int | None = None,
) -> tuple[str, ...]:
    """Project ``(kind, passages)`` pairs, best first, to ranked document ids.

    Parameters
    ----------
    hits : iterable of (kind, passages)
        Each hit's kind and the chunk ids it stands for (a chunk: itself).
    depth : int or None
        Keep at most this many documents (None: all).
    per_hit : int or None
        Count at most this many supporting passages of an entity or a report.
    """
    seen: dict[str, None] = {}
    for kind, passages in hits:
        for count, chunk_id in enumerate(passages):
            if kind != "chunk" and per_hit is not None and count >= per_hit:
                break
            seen.setdefault(chunk_document(chunk_id), None)
            if depth is not None and len(seen) >= depth:
                return tuple(seen)
    return tuple(seen)


def project_results(
    results: Iterable[SearchResult], *, depth: int | None = DEFAULT_DEPTH, per_hit: int | None = None
) -> tuple[str, ...]:
    """Project search results (see :func:`project`)."""
    return project(((r.kind, r.passages()) for r in results), depth=depth, per_hit=per_hit)


def project_run(run: SearchRun, *, depth: int | None = DEFAULT_DEPTH, per_hit: int | None = None) -> tuple[str, ...]:
    """Project a :class:`~agrag_lab.retrieval.run.SearchRun` to ranked document ids."""
    return project_results(run.results, depth=depth, per_hit=per_hit)


def project_chunks(chunk_ids: Iterable[str], *, depth: int | None = DEFAULT_DEPTH) -> tuple[str, ...]:
    """Project a ranked list of chunk ids (a baseline's output) to document ids."""
    return project((("chunk", (c,)) for c in chunk_ids), depth=depth)


def as_scores(documents: Sequence[str]) -> dict[str, float]:
    """Scores ``1 / position`` for a ranked document list (what ranx reads)."""
    return {doc: 1.0 / position for position, doc in enumerate(documents, 1)}
